/**
 * Unlinking a passkey, as an attacker and as its owner would try it: the unlinked passkey signs
 * nobody in, and the same passkey (same credential id, same key) can be registered again.
 */
import { describe, expect, it } from "vitest";
import type { Adapter } from "../../src/adapters.js";
import Passkey from "../../src/providers/passkey.js";
import WebAuthn from "../../src/providers/webauthn.js";
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

/** The signed-in owner (`jar`) registers the very same passkey again; answers the callback's response. */
async function registerAgain(
  config: Ctx["config"],
  jar: CookieJar,
  device: SoftAuthenticator,
  passkey: SoftCredential,
) {
  const { body } = await getOptions(config, jar, { action: "register" });
  expect(body.action).toBe("register");
  return postCredential(config, jar, "register", await device.create(body.options as never, { credential: passkey }));
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
    const again = await registerAgain(ctx.config, jar, device, passkey);
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

describe("rule: an authenticator whose account is gone (orphaned) never blocks registering that passkey again", () => {
  it("honest: a passkey whose account was removed without its authenticator (before deleteAuthenticator existed) registers again and signs its user in", async () => {
    const ctx = setup();
    const device = new SoftAuthenticator(ORIGIN);
    const { jar, passkey, providerAccountId } = await signUp(ctx, device);
    // What an unlink did before deleteAuthenticator existed (or one that failed after the account went).
    await ctx.adapter.unlinkAccount?.({ provider: "passkey", providerAccountId });
    expect([...ctx.store.authenticators.values()].map((a) => a.credentialID)).toEqual([providerAccountId]);
    expect(await signInWith(ctx, device, passkey)).toMatchObject({ email: null, error: expect.any(String) });

    const again = await registerAgain(ctx.config, jar, device, passkey);
    expect(errorOf(again)).toBeNull();
    expect([...ctx.store.authenticators.values()].map((a) => a.credentialID)).toEqual([providerAccountId]);
    expect(await signInWith(ctx, device, passkey)).toEqual({ error: null, email: "ada@example.com" });
  });

  it("attack: a registration claiming the credential id of a passkey that still has its account is refused, under the same or another WebAuthn provider; the owner's passkey keeps working", async () => {
    const ctx = setup({ providers: [Passkey(), { ...WebAuthn(), enableConditionalUI: false }] });
    const device = new SoftAuthenticator(ORIGIN);
    const { passkey, providerAccountId } = await signUp(ctx, device);
    const owner = ctx.store.authenticators.get(providerAccountId)?.userId;

    // The attacker's soft authenticator names the victim's credential id (ids are not secret).
    const attacker = new SoftAuthenticator(ORIGIN);
    for (const provider of ["passkey", "webauthn"]) {
      const jar = new CookieJar();
      const { body } = await getOptions(ctx.config, jar, { email: `mallory-${provider}@example.com` }, provider);
      expect(body.action).toBe("register");
      const claimed = await attacker.create(body.options as never, { credential: { ...passkey, counter: 0 } });
      const response = await postCredential(ctx.config, jar, "register", claimed, {}, provider);
      expect(errorOf(response)).toBe("WebAuthnVerificationError");
    }
    expect([...ctx.store.authenticators.values()].map((a) => [a.credentialID, a.userId])).toEqual([
      [providerAccountId, owner],
    ]);
    expect(await signInWith(ctx, device, passkey)).toEqual({ error: null, email: "ada@example.com" });
  });

  it("an adapter without deleteAuthenticator keeps refusing the orphan's registration with a clear error", async () => {
    const ctx = setup();
    const { deleteAuthenticator: _none, ...authjsLike } = ctx.adapter as Adapter & { deleteAuthenticator?: unknown };
    const config = { ...ctx.config, adapter: authjsLike as Adapter };
    const device = new SoftAuthenticator(ORIGIN);
    const { jar, passkey, providerAccountId } = await signUp({ ...ctx, config }, device);
    await ctx.adapter.unlinkAccount?.({ provider: "passkey", providerAccountId });
    const again = await registerAgain(config, jar, device, passkey);
    expect(errorOf(again)).toBe("WebAuthnVerificationError");
  });
});
