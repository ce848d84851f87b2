// @latchkey/next's requireAuth where Next.js renders and acts (Server Components, Server Actions),
// and its switchOrganization server action: core's one guard, answered with Next.js's own
// redirect(), forbidden() (with experimental.authInterrupts) or notFound(). Route Handlers behind
// requireAuth(options, handler) are held to the framework contract (contract.test.ts).
import "./next-internals.js";

import { builtInRoles, defineRoles, MemoryOrganizationStore, Organizations } from "@latchkey/core/organizations";
import { NextAuth, type NextAuthConfig } from "@latchkey/next";
import Credentials from "@latchkey/next/providers/credentials";
import { NextRequest } from "next/server.js";
import { afterEach, describe, expect, it } from "vitest";
import { inNextRequest } from "./next-internals.js";
import { Jar } from "./support.js";

const SECRET = "a-test-secret-for-the-next-guard-of-organizations";
const ORIGIN = "http://localhost:3000";
const SAME_ORIGIN = { origin: ORIGIN, "sec-fetch-site": "same-origin" };
const roles = defineRoles({ ...builtInRoles, admin: [...builtInRoles.admin, "project:delete"], member: [] });

function app() {
  const store = MemoryOrganizationStore();
  const config: NextAuthConfig = {
    secret: SECRET,
    organizations: { store, roles },
    providers: [
      Credentials({
        credentials: { username: {} },
        authorize: ({ username }) =>
          username === "ada" || username === "eve" ? { id: username, name: username } : null,
      }),
    ],
    callbacks: { session: ({ session, token }) => ({ ...session, user: { ...session.user, id: String(token.sub) } }) },
  };
  const auth = NextAuth(config);
  return { ...auth, orgs: Organizations(config, { store, roles }) };
}

async function signedIn(handlers: ReturnType<typeof NextAuth>["handlers"], username: string): Promise<Jar> {
  const jar = new Jar();
  const csrf = await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
  jar.apply(csrf.headers.getSetCookie());
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await handlers.POST(
    new NextRequest(`${ORIGIN}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({ csrfToken, username }),
    }),
  );
  expect(res.status).toBe(302);
  jar.apply(res.headers.getSetCookie());
  return jar;
}

const digestOf = (error: unknown) => (error as { digest?: string } | undefined)?.digest;

afterEach(() => {
  delete process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS;
});

describe("@latchkey/next requireAuth in a Server Component", () => {
  it("signed out: Next.js's redirect() to the sign-in page, back to callbackUrl", async () => {
    const { requireAuth } = app();
    const out = await inNextRequest(
      `${ORIGIN}/projects`,
      {},
      () => requireAuth({ organization: true, callbackUrl: "/projects" }),
      "render",
    );
    expect(out.redirectedTo).toBe("/api/auth/signin?callbackUrl=%2Fprojects");
  });

  it("refused (no active organization, a permission the role lacks): forbidden() with authInterrupts, else notFound(); allowed, the session with its active organization", async () => {
    const { handlers, requireAuth, switchOrganization, orgs } = app();
    const made = await orgs.create("ada", { name: "Acme", slug: "acme" });
    if (!made.ok) throw new Error(made.reason);
    const acme = made.value.id;
    expect((await orgs.addMember("ada", acme, { userId: "eve", role: "member" })).ok).toBe(true);
    const eve = await signedIn(handlers, "eve");
    const render = (options: Parameters<typeof requireAuth>[0]) =>
      inNextRequest(`${ORIGIN}/projects`, { cookie: eve.header() }, () => requireAuth(options), "render");

    expect(digestOf((await render({ organization: true })).error)).toBe("NEXT_HTTP_ERROR_FALLBACK;404");
    process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS = "true";
    expect(digestOf((await render({ organization: true })).error)).toBe("NEXT_HTTP_ERROR_FALLBACK;403");

    const switched = await inNextRequest(`${ORIGIN}/projects`, { cookie: eve.header(), ...SAME_ORIGIN }, () =>
      switchOrganization(acme),
    );
    expect(switched.result).toEqual({ ok: true, activeOrganization: { id: acme, role: "member" } });
    eve.apply(switched.setCookies);
    const member = await render({ organization: true });
    expect(member.error).toBeUndefined();
    expect(member.result).toMatchObject({ user: { id: "eve" }, activeOrganization: { id: acme, role: "member" } });
    expect(digestOf((await render({ permission: "project:delete" })).error)).toBe("NEXT_HTTP_ERROR_FALLBACK;403");

    expect((await orgs.setRole("ada", acme, "eve", "admin")).ok).toBe(true);
    expect((await render({ permission: "project:delete" })).result).toMatchObject({ user: { id: "eve" } });
    expect((await orgs.removeMember("ada", acme, "eve")).ok).toBe(true);
    expect(digestOf((await render({ organization: true })).error)).toBe("NEXT_HTTP_ERROR_FALLBACK;403");
  });

  it("attack: switchOrganization to an organization she is not in answers as for none, and another site's call is refused", async () => {
    const { handlers, switchOrganization, orgs } = app();
    const made = await orgs.create("ada", { name: "Private", slug: "private" });
    if (!made.ok) throw new Error(made.reason);
    const eve = await signedIn(handlers, "eve");
    const own = await inNextRequest(`${ORIGIN}/`, { cookie: eve.header(), ...SAME_ORIGIN }, () =>
      switchOrganization(made.value.id),
    );
    expect(own.result).toMatchObject({ ok: false, status: 404, error: "OrganizationNotFound" });
    expect(own.setCookies).toEqual([]);
    const crossSite = await inNextRequest(
      `${ORIGIN}/`,
      { cookie: eve.header(), origin: "http://evil.example", "sec-fetch-site": "cross-site" },
      () => switchOrganization(made.value.id),
    );
    expect((crossSite.error as Error | undefined)?.name).toBe("MissingCSRF");
  });

  it("newcomer mistake: an organization demand without organizations configured throws naming the fix", () => {
    const { requireAuth } = NextAuth({ secret: SECRET, providers: [] });
    expect(() => requireAuth({ permission: "project:delete" }, async () => new Response())).toThrow(
      /organizations: \{ store, roles \}/,
    );
  });
});
