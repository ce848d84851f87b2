/**
 * "Change your imports, keep your users": every provider module of Auth.js (`@auth/core` 0.41.3,
 * which `next-auth` v5 re-exports as `next-auth/providers/<id>`) has a module of the same name in
 * Latchkey, whose factory makes a provider of the same `id` and `type`. The id is in the callback
 * URL registered at the provider and in every stored account (`provider`), so a different one
 * would sign nobody in. Auth.js is installed for the test only; nothing of it is in Latchkey.
 */
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { applyProviderOptions } from "../../src/lib/config/provider-options.js";
import { samples } from "./samples.js";

/** Auth.js modules under providers/ that are not provider factories. */
const NOT_PROVIDERS = new Set(["index", "oauth", "provider-types"]);

const require = createRequire(import.meta.url);
// `@auth/core` exports no package.json: its providers folder is found from a provider module.
const authjsProviders = dirname(require.resolve("@auth/core/providers/github"));
const authjsModules = readdirSync(authjsProviders)
  .filter((file) => file.endsWith(".js"))
  .map((file) => file.slice(0, -3))
  .filter((id) => !NOT_PROVIDERS.has(id))
  .sort();

const ours = new URL("../../src/providers/", import.meta.url);
const latchkeyModules = new Set(
  readdirSync(ours)
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.slice(0, -3)),
);

type Factory = (options?: Record<string, unknown>) => Record<string, unknown>;

/** Options both factories are called with: client credentials, and what the sample row needs. */
function optionsFor(id: string): Record<string, unknown> {
  const extra: Record<string, Record<string, unknown>> = {
    // E-mail providers: Auth.js's Nodemailer insists on a server at once.
    email: { server: "smtp://127.0.0.1:2525" },
    nodemailer: { server: "smtp://127.0.0.1:2525" },
    credentials: { authorize: () => null },
  };
  return { clientId: "client-id", clientSecret: "client-secret", ...(samples[id]?.options ?? {}), ...extra[id] };
}

describe("every Auth.js provider module has a Latchkey module of the same name", () => {
  it("finds Auth.js's provider modules", () => {
    expect(authjsModules.length).toBeGreaterThan(90);
    expect(authjsModules).toContain("github");
  });

  it("has each module", () => {
    expect(authjsModules.filter((id) => !latchkeyModules.has(id))).toEqual([]);
  });

  // Auth.js's WebAuthn modules import @simplewebauthn/server, which is not installed beside
  // @auth/core here; their ids ("webauthn", "passkey") are checked in test/webauthn.
  const unloadable = new Set(["webauthn", "passkey"]);
  const shared = authjsModules.filter((id) => latchkeyModules.has(id) && !unloadable.has(id));
  it.each(shared)("%s: the same id and type", async (id) => {
    const theirs = ((await import(/* @vite-ignore */ join(authjsProviders, `${id}.js`))) as { default: Factory })
      .default;
    const mine = ((await import(/* @vite-ignore */ fileURLToPath(new URL(`${id}.ts`, ours)))) as { default: Factory })
      .default;
    const expected = theirs(optionsFor(id));
    const actual = applyProviderOptions(mine(optionsFor(id)) as never) as unknown as Record<string, unknown>;
    expect({ id: actual.id, type: actual.type }).toEqual({ id: expected.id, type: expected.type });
  });
});
