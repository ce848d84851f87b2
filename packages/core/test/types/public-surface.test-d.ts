// Type tests of @latchkey/core's public surface and of the typed adapter access its actions use.
// Checked by `npm run typecheck` (tsconfig.test.json): a wrong type or an `@ts-expect-error`
// that no longer errs fails the check. Nothing here runs.
import { expectTypeOf } from "vitest";
import type { AdapterUser } from "../../src/adapters.js";
import type { AuthConfig, Session } from "../../src/index.js";
import { adapterFor, hasMethods } from "../../src/lib/base/adapter-for.js";
import type { ResolvedConfig } from "../../src/lib/config/types.js";
import Credentials from "../../src/providers/credentials.js";
import GitHub, { type GitHubProfile } from "../../src/providers/github.js";
import Google, { type GoogleProfile } from "../../src/providers/google.js";
import type { OAuthConfig, OIDCConfig } from "../../src/providers/oauth.js";

// A provider factory is typed by its options: the profile callback receives the provider's profile.
const github = GitHub({
  clientId: "id",
  clientSecret: "secret",
  profile(profile) {
    expectTypeOf(profile).toEqualTypeOf<GitHubProfile>();
    return { id: String(profile.id), name: profile.name, email: profile.email, image: profile.avatar_url };
  },
});
expectTypeOf(github).toEqualTypeOf<OAuthConfig<GitHubProfile>>();
expectTypeOf(Google({ clientId: "id" })).toEqualTypeOf<OIDCConfig<GoogleProfile>>();

// A misspelt option is refused (Auth.js's spelling is `clientId`).
// @ts-expect-error `clientID` is no option of GitHub
GitHub({ clientID: "id" });
// @ts-expect-error an option of the wrong type is refused
GitHub({ clientId: 42 });
// @ts-expect-error the type of a provider is its factory's, not the caller's
GitHub({ type: "oidc" });

// Credentials: authorize() receives the declared fields (and no others).
Credentials({
  credentials: { email: { label: "E-mail" }, password: { label: "Password", type: "password" } },
  identifier: "email",
  authorize(credentials) {
    expectTypeOf(credentials).toEqualTypeOf<Partial<Record<"email" | "password", unknown>>>();
    return null;
  },
});
Credentials({
  credentials: { email: {} },
  // @ts-expect-error the identifier must name a declared field
  identifier: "username",
  authorize: () => null,
});

// Providers of every kind fit one configuration.
const config = {
  providers: [github, GitHub, Credentials({ authorize: () => null })],
} satisfies AuthConfig;
expectTypeOf(config.providers).toBeArray();

// The default session is Auth.js's shape.
expectTypeOf<Session["expires"]>().toEqualTypeOf<string>();

// adapterFor: exactly the methods an action names are present; the others stay optional.
declare const resolved: ResolvedConfig;
const forLookup = adapterFor(resolved, "getUser", "getUserByEmail");
expectTypeOf(forLookup.getUser).parameter(0).toEqualTypeOf<string>();
expectTypeOf(forLookup.getUserByEmail).returns.resolves.toEqualTypeOf<AdapterUser | null>();
// @ts-expect-error createUser was not asked for, so it may be missing
void forLookup.createUser({ id: "u1", email: "ada@example.com", emailVerified: null });
if (hasMethods(resolved.adapter, "listSessions")) expectTypeOf(resolved.adapter.listSessions).toBeFunction();

// `can` is typed from the declared roles: a permission no role declares is a type error.
import { builtInRoles as typedBuiltIns, defineRoles as typedRoles } from "../../src/organizations.js";

const declaredRoles = typedRoles({
  ...typedBuiltIns,
  member: ["project:read"],
  admin: [...typedBuiltIns.admin, "project:delete"],
});
expectTypeOf(declaredRoles.can("member", "project:read")).toEqualTypeOf<boolean>();
declaredRoles.can({ role: "admin" }, "member:add");
declaredRoles.can({ activeOrganization: { id: "o1", role: "admin" } }, "project:delete");
// @ts-expect-error "project:destroy" is declared by no role
declaredRoles.can("admin", "project:destroy");
// @ts-expect-error a number holds no role
declaredRoles.can(42, "project:read");
