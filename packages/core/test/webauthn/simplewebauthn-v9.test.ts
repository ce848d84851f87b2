/**
 * `@simplewebauthn/server` 9, the version `next-auth` v5 applications depend on, installed beside
 * version 13 (as a test-only alias) and handed to the provider: passkeys register and sign in
 * through it, and the records it stores are the ones version 13 stores (a passkey registered
 * under one signs in under the other), so an application can move from 9 to 13 at any time.
 */
import * as v13 from "@simplewebauthn/server";
import * as v9 from "simplewebauthn-server-v9";
import { describe, expect, it } from "vitest";
import Passkey from "../../src/providers/passkey.js";
import type { SimpleWebAuthnServer } from "../../src/providers/webauthn.js";
import { SoftAuthenticator } from "./soft-authenticator.js";
import { CookieJar, errorOf, getOptions, ORIGIN, postCredential, sessionOf, setup } from "./support.js";

const library = (lib: unknown) => lib as SimpleWebAuthnServer;

/** One application with the given library version; `over` shares another one's adapter (its records). */
function appWith(lib: unknown, over?: ReturnType<typeof setup>) {
  const providers = [Passkey({ simpleWebAuthn: library(lib), listCredentials: true })];
  return setup(over ? { providers, adapter: over.adapter } : { providers });
}

async function registerWith(ctx: ReturnType<typeof setup>, device: SoftAuthenticator, email: string) {
  const jar = new CookieJar();
  const { body } = await getOptions(ctx.config, jar, { email });
  expect(body.action).toBe("register");
  // The user handle reaches the browser as base64url, as version 13 sends it.
  expect((body.options.user as { id: string }).id).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const response = await postCredential(ctx.config, jar, "register", await device.create(body.options as never));
  expect(errorOf(response)).toBeNull();
  return jar;
}

async function signInWith(ctx: ReturnType<typeof setup>, device: SoftAuthenticator, email: string) {
  const jar = new CookieJar();
  const { body } = await getOptions(ctx.config, jar, { email });
  expect(body.action).toBe("authenticate");
  const response = await postCredential(ctx.config, jar, "authenticate", await device.get(body.options));
  return { response, jar, options: body.options };
}

describe("@simplewebauthn/server 9 (next-auth v5's version)", () => {
  it("registers a passkey and signs in with it, listing the user's credential ids as version 13 would", async () => {
    const ctx = appWith(v9);
    const device = new SoftAuthenticator(ORIGIN);
    const registered = await registerWith(ctx, device, "ada@example.com");
    expect((await sessionOf(ctx.config, registered))?.user?.email).toBe("ada@example.com");
    const [stored] = [...ctx.store.authenticators.values()];
    expect(stored?.credentialID).toMatch(/^[A-Za-z0-9+/]+=*$/);

    const { response, jar, options } = await signInWith(ctx, device, "ada@example.com");
    expect(errorOf(response)).toBeNull();
    expect((await sessionOf(ctx.config, jar))?.user?.email).toBe("ada@example.com");
    expect((options.allowCredentials as Array<{ id: string }>).map((c) => c.id)).toEqual([
      Buffer.from(stored?.credentialID ?? "", "base64").toString("base64url"),
    ]);
    expect(ctx.store.authenticators.get(stored?.credentialID ?? "")?.counter).toBe(1);
  });

  it("refuses an assertion whose signature is not the stored key's, as version 13 does", async () => {
    const ctx = appWith(v9);
    const device = new SoftAuthenticator(ORIGIN);
    await registerWith(ctx, device, "ada@example.com");
    const forger = new SoftAuthenticator(ORIGIN);
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar, { email: "ada@example.com" });
    const assertion = await device.get(body.options);
    const forged = await forger.create({ challenge: "x", rp: { id: "localhost" } });
    const signature = (forged.response as { attestationObject?: string }).attestationObject;
    const tampered = { ...assertion, response: { ...assertion.response, signature } };
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", tampered))).toBe("WebAuthnVerificationError");
    expect((await sessionOf(ctx.config, jar))?.user).toBeUndefined();
  });

  it("stores what version 13 stores: a passkey registered under 9 signs in under 13, and one registered under 13 under 9", async () => {
    const old = appWith(v9);
    const first = new SoftAuthenticator(ORIGIN);
    await registerWith(old, first, "ada@example.com");
    const upgraded = appWith(v13, old);
    const signedIn = await signInWith(upgraded, first, "ada@example.com");
    expect(errorOf(signedIn.response)).toBeNull();
    expect((await sessionOf(upgraded.config, signedIn.jar))?.user?.email).toBe("ada@example.com");

    const second = new SoftAuthenticator(ORIGIN);
    await registerWith(upgraded, second, "grace@example.com");
    const back = await signInWith(old, second, "grace@example.com");
    expect(errorOf(back.response)).toBeNull();
    expect((await sessionOf(old.config, back.jar))?.user?.email).toBe("grace@example.com");
  });
});
