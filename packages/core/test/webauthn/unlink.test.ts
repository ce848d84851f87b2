/**
 * Unlinking a passkey, as an attacker and as its owner would try it: the unlinked passkey signs
 * nobody in, and the same passkey (same credential id, same key) can be registered again.
 */
import { describe, expect, it } from "vitest";
import type { Adapter } from "../../src/adapters.js";
import { unlinkAccount } from "../../src/sessions.js";
import { SoftAuthenticator, type SoftCredential } from "./soft-authenticator.js";
import { CookieJar, errorOf, getOptions, ORIGIN, postCredential, sessionOf, setup } from "./support.js";

type Ctx = ReturnType<typeof setup>;

/** Signs up `ada` with a new passkey of `device`; returns the signed-in jar and the passkey. */
async function signUp(ctx: Ctx, device: SoftAuthenticator) {
  const jar = new CookieJar();
  const { body } = await getOptions(ctx.config, jar, { email: "ada@example.com" });
  const response = await postCredential(ctx.config, jar, "register", await device.create(body.options as never));
  expect(errorOf(response)).toBeNull();
  const passkey = device.credentials.at(-1) as SoftCredential;
  return { jar, passkey, providerAccountId: Buffer.from(passkey.id).toString("base64") };
}

/** Signs in with `passkey` from a fresh browser; answers the e-mail of the session, or the error. */
async function signInWith(ctx: Ctx, device: SoftAuthenticator, passkey: SoftCredential) {
  const jar = new CookieJar();
  const { body } = await getOptions(ctx.config, jar, { action: "authenticate" });
  const response = await postCredential(
    ctx.config,
    jar,
    "authenticate",
    await device.get(body.options, { credential: passkey }),
  );
  return { error: errorOf(response), email: (await sessionOf(ctx.config, jar))?.user?.email ?? null };
}

const request = (jar: CookieJar) => ({ protocol: "http:", host: new URL(ORIGIN).host, cookieHeader: jar.header() });
/** The token a same-origin form posts: the one of the browser's CSRF cookie (`token|mac`). */
const csrfOf = (jar: CookieJar) => decodeURIComponent(jar.get("authjs.csrf-token") ?? "").split("|")[0];
/** The owner also has a password the application checks: the passkey is not the last way in. */
const withPassword = (jar: CookieJar) => ({ otherSignInMethods: () => 1, csrfToken: csrfOf(jar) });

describe("rule: unlinking a passkey removes every way it signs in, and the same passkey can be registered again", () => {
  it("after an unlink the passkey's account and authenticator are gone; it signs nobody in; registered again it signs its user in", async () => {
    const ctx = setup();
    const device = new SoftAuthenticator(ORIGIN);
    const { jar, passkey, providerAccountId } = await signUp(ctx, device);
    expect(await signInWith(ctx, device, passkey)).toEqual({ error: null, email: "ada@example.com" });

    const result = await unlinkAccount(
      request(jar),
      ctx.config,
      { provider: "passkey", providerAccountId },
      withPassword(jar),
    );
    expect(result).toMatchObject({ unlinked: true });
    expect([...ctx.store.accounts.values()].filter((a) => a.provider === "passkey")).toEqual([]);
    expect([...ctx.store.authenticators.values()]).toEqual([]);
    expect(await signInWith(ctx, device, passkey)).toMatchObject({ email: null, error: expect.any(String) });

    // The owner, still signed in, registers the very same passkey again.
    const { body } = await getOptions(ctx.config, jar, { action: "register" });
    expect(body.action).toBe("register");
    const again = await postCredential(
      ctx.config,
      jar,
      "register",
      await device.create(body.options as never, { credential: passkey }),
    );
    expect(errorOf(again)).toBeNull();
    expect([...ctx.store.authenticators.values()].map((a) => a.credentialID)).toEqual([providerAccountId]);
    expect(await signInWith(ctx, device, passkey)).toEqual({ error: null, email: "ada@example.com" });
  });

  it("an adapter without deleteAuthenticator (an Auth.js adapter): the account goes, the passkey signs nobody in, and a warning says its authenticator stays", async () => {
    const ctx = setup();
    const { deleteAuthenticator: _none, ...authjsLike } = ctx.adapter as Adapter & { deleteAuthenticator?: unknown };
    const config = { ...ctx.config, adapter: authjsLike as Adapter };
    const device = new SoftAuthenticator(ORIGIN);
    const { jar, passkey, providerAccountId } = await signUp({ ...ctx, config }, device);
    const target = { provider: "passkey", providerAccountId };
    const result = await unlinkAccount(request(jar), config, target, withPassword(jar));
    expect(result).toMatchObject({ unlinked: true });
    expect(await signInWith({ ...ctx, config }, device, passkey)).toMatchObject({ email: null });
    expect(ctx.log.warnings).toContain("passkey-authenticator-kept");
  });
});
