import { describe, expect, it } from "vitest";
import type { AdapterAuthenticator } from "../../src/adapters.js";
import { openToken } from "../../src/lib/crypto/jwe.js";
import Passkey from "../../src/providers/passkey.js";
import WebAuthn from "../../src/providers/webauthn.js";
import { call, SECRET } from "../helpers.js";
import { FLAGS, SoftAuthenticator } from "./soft-authenticator.js";
import {
  BINDING_COOKIE,
  CHALLENGE_COOKIE,
  CookieJar,
  errorOf,
  getOptions,
  ORIGIN,
  postCredential,
  SESSION_COOKIE,
  sessionOf,
  setup,
} from "./support.js";

/** Registers `email` through options + callback; returns the jar with its session. */
async function register(ctx: ReturnType<typeof setup>, device: SoftAuthenticator, email = "ada@example.com") {
  const jar = new CookieJar();
  const { body } = await getOptions(ctx.config, jar, { email });
  expect(body.action).toBe("register");
  const credential = await device.create(body.options as never);
  const response = await postCredential(ctx.config, jar, "register", credential, { callbackUrl: `${ORIGIN}/welcome` });
  return { jar, response, credential };
}

function onlyAuthenticator(ctx: ReturnType<typeof setup>): AdapterAuthenticator {
  const all = [...ctx.store.authenticators.values()];
  expect(all).toHaveLength(1);
  return all[0] as AdapterAuthenticator;
}

describe("webauthn-options", () => {
  it("answers authenticate without user info, with the challenge sealed in a 15-minute cookie bound to the provider", async () => {
    const { config } = setup();
    const jar = new CookieJar();
    const { status, body, setCookie } = await getOptions(config, jar);
    expect(status).toBe(200);
    expect(body.action).toBe("authenticate");
    expect(body.options.rpId).toBe("localhost");
    expect(body.options.userVerification).toBe("required");
    expect(body.options.timeout).toBe(300_000);
    expect(body.options.allowCredentials ?? []).toEqual([]);
    const cookie = setCookie.find((c) => c.startsWith(`${CHALLENGE_COOKIE}=`)) as string;
    expect(cookie).toMatch(/Max-Age=900/i);
    expect(cookie).toMatch(/HttpOnly/i);
    const value = jar.get(CHALLENGE_COOKIE) as string;
    expect(value).not.toContain(body.options.challenge);
    const claims = openToken(value, [SECRET], CHALLENGE_COOKIE);
    expect(claims).toMatchObject({ provider: "passkey", action: "authenticate", challenge: body.options.challenge });
  });

  it("answers register for the e-mail of a new user, with the relying party from the request URL", async () => {
    const { config } = setup();
    const { body } = await getOptions(config, new CookieJar(), { email: "New@Example.com" });
    expect(body.action).toBe("register");
    const options = body.options as unknown as {
      rp: unknown;
      user: { name: string };
      authenticatorSelection: unknown;
      attestation: string;
      excludeCredentials: unknown[];
    };
    expect(options.rp).toEqual({ id: "localhost", name: "localhost:3000" });
    expect(options.user.name).toBe("new@example.com");
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });
    expect(options.attestation).toBe("none");
    expect(options.excludeCredentials).toEqual([]);
  });

  it("uses the configured relying party", async () => {
    const { config } = setup({
      providers: [Passkey({ relyingParty: { id: "example.com", name: "Example", origin: "https://example.com" } })],
    });
    const { body } = await getOptions(config, new CookieJar(), { email: "a@example.com" });
    expect((body.options as unknown as { rp: unknown }).rp).toEqual({ id: "example.com", name: "Example" });
  });

  it("getRelayingParty picks the relying party per request (multi-domain), for options and verification", async () => {
    const seen: string[] = [];
    const perHost = Passkey({
      getRelayingParty: (options, request) => {
        seen.push(`${options.url.pathname} ${request.url.hostname}`);
        return { id: request.url.hostname, name: `Site ${request.url.hostname}`, origin: request.url.origin };
      },
    });
    const { config } = setup({ providers: [perHost] });
    for (const origin of ["http://shop.localhost:3000", "http://blog.localhost:3000"]) {
      const response = await call(config, "/auth/webauthn-options/passkey?email=a@example.com", {
        jar: new CookieJar(),
        origin,
      });
      const { options } = (await response.json()) as { options: { rp: unknown } };
      const hostname = new URL(origin).hostname;
      expect(options.rp).toEqual({ id: hostname, name: `Site ${hostname}` });
    }
    expect(seen).toEqual(["/auth shop.localhost", "/auth blog.localhost"]);
    // the same choice verifies: a registration on the default origin goes through ...
    const ctx = setup({ providers: [perHost] });
    const { response } = await register(ctx, new SoftAuthenticator(ORIGIN));
    expect(response.headers.get("location")).toBe(`${ORIGIN}/welcome`);
    // ... and one whose chosen origin is not where the credential was made is refused
    const elsewhere = setup({
      providers: [
        Passkey({ getRelayingParty: () => ({ id: "localhost", name: "X", origin: "https://other.example" }) }),
      ],
    });
    const jar = new CookieJar();
    const { body } = await getOptions(elsewhere.config, jar, { email: "ada@example.com" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    expect(errorOf(await postCredential(elsewhere.config, jar, "register", credential))).toBe(
      "WebAuthnVerificationError",
    );
    expect(elsewhere.store.authenticators.size).toBe(0);
  });

  it("an application's getRelayingParty written for Auth.js reads the provider's relayingParty as configured, for options and verification", async () => {
    const asked: Array<{ configured: unknown; action: unknown; method: string }> = [];
    const perRequest = Passkey({
      relayingParty: { id: "localhost", name: "Configured" },
      getRelayingParty: (options, request) => {
        asked.push({ configured: options.provider.relayingParty, action: request.action, method: request.method });
        const { id, name } = options.provider.relayingParty ?? {};
        return { id: id as string, name: `${name} at ${request.url.host}`, origin: request.url.origin };
      },
    });
    const ctx = setup({ providers: [perRequest] });
    const { body } = await getOptions(ctx.config, new CookieJar(), { email: "new@example.com" });
    expect((body.options as unknown as { rp: unknown }).rp).toEqual({
      id: "localhost",
      name: "Configured at localhost:3000",
    });
    const { response } = await register(ctx, new SoftAuthenticator(ORIGIN));
    expect(response.headers.get("location")).toBe(`${ORIGIN}/welcome`);
    expect(asked[0]).toEqual({
      configured: { id: "localhost", name: "Configured" },
      action: "webauthn-options",
      method: "GET",
    });
    expect(asked.at(-1)).toMatchObject({ action: "callback", method: "POST" });
  });

  it("answers authenticate with no credential list for a known e-mail (discoverable credentials), and refuses to register it once its holder proved it", async () => {
    const ctx = setup();
    const device = new SoftAuthenticator(ORIGIN);
    await register(ctx, device);
    const { body } = await getOptions(ctx.config, new CookieJar(), { email: "ada@example.com" });
    expect(body.action).toBe("authenticate");
    expect(body.options.allowCredentials ?? []).toEqual([]);

    // A passkey sign-up proves nothing; a magic link (here: the record marked so) does.
    const holder = [...ctx.store.users.values()].find((u) => u.email === "ada@example.com");
    if (!holder) throw new Error("no holder stored");
    ctx.store.users.set(holder.id, { ...holder, emailVerified: new Date() });
    const refused = await getOptions(ctx.config, new CookieJar(), { email: "ada@example.com", action: "register" });
    expect(refused.status).toBe(400);
    expect(refused.setCookie.some((c) => c.startsWith(`${CHALLENGE_COOKIE}=`))).toBe(false);
  });

  it("lists the user's credentials only when the provider sets listCredentials", async () => {
    const ctx = setup({ providers: [Passkey({ listCredentials: true })] });
    const { credential } = await register(ctx, new SoftAuthenticator(ORIGIN));
    const { body } = await getOptions(ctx.config, new CookieJar(), {
      email: "ada@example.com",
      action: "authenticate",
    });
    expect(body.options.allowCredentials).toEqual([
      { id: credential.id, type: "public-key", transports: ["internal"] },
    ]);
  });

  it("lets a signed-in user register another passkey, excluding the ones they have", async () => {
    const ctx = setup();
    const { jar, credential } = await register(ctx, new SoftAuthenticator(ORIGIN));
    const implicit = await getOptions(ctx.config, jar);
    expect(implicit.status).toBe(400);
    const { status, body } = await getOptions(ctx.config, jar, { action: "register" });
    expect(status).toBe(200);
    expect(body.action).toBe("register");
    expect(body.options.excludeCredentials).toEqual([
      { id: credential.id, type: "public-key", transports: ["internal"] },
    ]);
  });

  // Adversarial review (feat-attack): the default getUserInfo took addresses up to 320
  // characters; a passkey sign-up then wrote one to `users.email`, a VARCHAR(255) key on MySQL.
  it("rule: an e-mail address is at most 254 characters (RFC 5321): a longer one is offered no registration", async () => {
    const { config } = setup();
    const local = "l".repeat(64);
    const domainOf = (length: number) => `${"d".repeat(63)}.${"d".repeat(63)}.${"x".repeat(length - 128)}`;
    const longest = `${local}@${domainOf(189)}`;
    expect(longest.length).toBe(254);
    expect((await getOptions(config, new CookieJar(), { email: longest })).body.action).toBe("register");
    for (const length of [255, 300]) {
      const address = `${local}@${domainOf(length - 65)}`;
      expect(address.length).toBe(length);
      expect((await getOptions(config, new CookieJar(), { email: address })).body.action, `${length}`).toBe(
        "authenticate",
      );
    }
  });

  it("rejects an unknown action with 400", async () => {
    const { config } = setup();
    expect((await getOptions(config, new CookieJar(), { action: "delete" })).status).toBe(400);
  });

  it("answers 404 for a provider that is not a WebAuthn provider, or unknown", async () => {
    const { config } = setup();
    expect((await getOptions(config, new CookieJar(), {}, "credentials")).status).toBe(404);
    expect((await getOptions(config, new CookieJar(), {}, "nope")).status).toBe(404);
  });
});

describe("registration", () => {
  it("creates the user, the webauthn account and the authenticator, starts a session and clears the challenge", async () => {
    const ctx = setup();
    const { jar, response, credential } = await register(ctx, new SoftAuthenticator(ORIGIN));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/welcome`);
    expect(jar.get(CHALLENGE_COOKIE)).toBeUndefined();
    expect(jar.get(SESSION_COOKIE)).toBeDefined();
    expect((await sessionOf(ctx.config, jar))?.user?.email).toBe("ada@example.com");

    const users = [...ctx.store.users.values()];
    expect(users).toHaveLength(1);
    const user = users[0] as { id: string; email: string };
    expect(user.email).toBe("ada@example.com");
    const credentialID = Buffer.from(credential.id, "base64url").toString("base64");
    const accounts = [...ctx.store.accounts.values()];
    expect(accounts).toEqual([
      { provider: "passkey", providerAccountId: credentialID, type: "webauthn", userId: user.id },
    ]);
    const authenticator = onlyAuthenticator(ctx);
    expect(authenticator).toMatchObject({
      credentialID,
      providerAccountId: credentialID,
      userId: user.id,
      counter: 0,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
      transports: "internal",
    });
    // The stored public key is the COSE key, base64: decodable and non-trivial.
    expect(Buffer.from(authenticator.credentialPublicKey, "base64").length).toBeGreaterThan(64);
    expect(ctx.events.createUser).toHaveLength(1);
    expect(ctx.events.linkAccount).toHaveLength(1);
    expect(ctx.events.signIn).toHaveLength(1);
    expect(ctx.events.signIn?.[0]).toMatchObject({
      isNewUser: true,
      account: { provider: "passkey", type: "webauthn" },
    });
  });

  it("records a backed-up multi-device credential as such", async () => {
    const ctx = setup();
    const device = new SoftAuthenticator(ORIGIN);
    device.flags |= FLAGS.BE | FLAGS.BS;
    await register(ctx, device);
    expect(onlyAuthenticator(ctx)).toMatchObject({ credentialDeviceType: "multiDevice", credentialBackedUp: true });
  });

  it("refuses an attestation for another origin, and stores nothing", async () => {
    const ctx = setup();
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar, { email: "ada@example.com" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never, {
      origin: "https://evil.example",
    });
    const response = await postCredential(ctx.config, jar, "register", credential);
    expect(errorOf(response)).toBe("WebAuthnVerificationError");
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
    expect(ctx.store.users.size + ctx.store.accounts.size + ctx.store.authenticators.size).toBe(0);
  });

  it("refuses a Passkey registration without user verification", async () => {
    const ctx = setup();
    const device = new SoftAuthenticator(ORIGIN);
    device.flags = FLAGS.UP;
    const { response } = await register(ctx, device);
    expect(errorOf(response)).toBe("WebAuthnVerificationError");
    expect(ctx.store.users.size).toBe(0);
  });

  it("refuses to attach a passkey to an e-mail that became another user's, who proved it (AccountNotLinked)", async () => {
    const ctx = setup();
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar, { email: "ada@example.com" });
    await ctx.adapter.createUser?.({ id: "other", email: "ada@example.com", emailVerified: new Date() });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    const response = await postCredential(ctx.config, jar, "register", credential);
    expect(errorOf(response)).toBe("AccountNotLinked");
    expect(ctx.store.accounts.size + ctx.store.authenticators.size).toBe(0);
  });

  it("gives a fresh user without the address when the e-mail became another user's who never proved it", async () => {
    const ctx = setup();
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar, { email: "ada@example.com" });
    await ctx.adapter.createUser?.({ id: "other", email: "ada@example.com", emailVerified: null });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    const response = await postCredential(ctx.config, jar, "register", credential);
    expect(errorOf(response)).toBeNull();
    const [authenticator] = [...ctx.store.authenticators.values()];
    expect(authenticator?.userId).not.toBe("other");
    expect(ctx.store.users.get(authenticator?.userId as string)).toMatchObject({ email: null });
    expect(ctx.store.users.get("other")).toMatchObject({ email: "ada@example.com" });
  });

  it("creates nothing when the signIn callback refuses", async () => {
    const ctx = setup({ callbacks: { signIn: () => false } });
    const { response } = await register(ctx, new SoftAuthenticator(ORIGIN));
    expect(new URL(response.headers.get("location") as string).pathname).toBe("/auth/error");
    expect(errorOf(response)).toBe("AccessDenied");
    expect(ctx.store.users.size + ctx.store.accounts.size + ctx.store.authenticators.size).toBe(0);
  });

  it("removes the new user and account again when the authenticator cannot be stored", async () => {
    const ctx = setup();
    const failing = { ...ctx.adapter, createAuthenticator: () => Promise.reject(new Error("disk full")) };
    const config = { ...ctx.config, adapter: failing };
    const jar = new CookieJar();
    const { body } = await getOptions(config, jar, { email: "ada@example.com" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    const response = await postCredential(config, jar, "register", credential);
    expect(errorOf(response)).toBe("Configuration");
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
    expect(ctx.store.users.size + ctx.store.accounts.size + ctx.store.authenticators.size).toBe(0);
  });

  it("links another passkey to the signed-in user", async () => {
    const ctx = setup();
    const { jar } = await register(ctx, new SoftAuthenticator(ORIGIN));
    const { body } = await getOptions(ctx.config, jar, { action: "register" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    const response = await postCredential(ctx.config, jar, "register", credential);
    expect(errorOf(response)).toBeNull();
    expect(ctx.store.users.size).toBe(1);
    const [user] = [...ctx.store.users.values()];
    expect([...ctx.store.authenticators.values()].map((a) => a.userId)).toEqual([user?.id, user?.id]);
  });
});

describe("authentication", () => {
  async function registered() {
    const ctx = setup();
    const device = new SoftAuthenticator(ORIGIN);
    await register(ctx, device);
    return { ctx, device };
  }

  it("verifies the assertion against the stored authenticator, moves the counter on and signs in", async () => {
    const { ctx, device } = await registered();
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar);
    const assertion = await device.get(body.options);
    const response = await postCredential(ctx.config, jar, "authenticate", assertion);
    expect(response.status).toBe(302);
    expect(errorOf(response)).toBeNull();
    expect(jar.get(CHALLENGE_COOKIE)).toBeUndefined();
    expect((await sessionOf(ctx.config, jar))?.user?.email).toBe("ada@example.com");
    expect(onlyAuthenticator(ctx).counter).toBe(1);
    expect(ctx.events.signIn?.at(-1)).toMatchObject({ isNewUser: false });
    expect(ctx.events.createUser).toHaveLength(1);
  });

  it("accepts data posted as a JSON object", async () => {
    const { ctx, device } = await registered();
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar, { email: "ada@example.com" });
    const assertion = await device.get(body.options);
    const { call, csrfToken } = await import("../helpers.js");
    const token = await csrfToken(ctx.config, jar);
    const response = await call(ctx.config, "/auth/callback/passkey", {
      jar,
      json: { csrfToken: token, action: "authenticate", data: assertion },
    });
    expect(errorOf(response)).toBeNull();
    expect(jar.get(SESSION_COOKIE)).toBeDefined();
  });

  it("rejects a replayed assertion, with or without the spent challenge cookie", async () => {
    const { ctx, device } = await registered();
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar);
    const spentCookie = jar.get(CHALLENGE_COOKIE) as string;
    const assertion = await device.get(body.options);
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", assertion))).toBeNull();

    // The browser dropped the challenge cookie: the check fails before any verification.
    const withoutCookie = new CookieJar();
    const first = await postCredential(ctx.config, withoutCookie, "authenticate", assertion);
    expect(errorOf(first)).toBe("OAuthCallbackError"); // InvalidCheck
    expect(withoutCookie.get(SESSION_COOKIE)).toBeUndefined();

    // An attacker who kept the cookies too (the challenge and the browser's binding, as the same
    // browser replaying): the consumed challenge record refuses it, and the counter did not move on.
    const attacker = new CookieJar();
    attacker.cookies.set(CHALLENGE_COOKIE, spentCookie);
    attacker.cookies.set(BINDING_COOKIE, jar.get(BINDING_COOKIE) as string);
    const second = await postCredential(ctx.config, attacker, "authenticate", assertion);
    expect(errorOf(second)).toBe("WebAuthnVerificationError");
    expect(attacker.get(SESSION_COOKIE)).toBeUndefined();
    expect(onlyAuthenticator(ctx).counter).toBe(1);
  });

  it("rejects a replay from an authenticator without a counter: the challenge is single-use on the server", async () => {
    const { ctx, device } = await registered();
    device.step = 0;
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar);
    const spentCookie = jar.get(CHALLENGE_COOKIE) as string;
    const assertion = await device.get(body.options);
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", assertion))).toBeNull();
    expect(onlyAuthenticator(ctx).counter).toBe(0);
    // The counter cannot tell a replay from a new use here; the consumed challenge record does.
    const attacker = new CookieJar();
    attacker.cookies.set(CHALLENGE_COOKIE, spentCookie);
    attacker.cookies.set(BINDING_COOKIE, jar.get(BINDING_COOKIE) as string);
    const replay = await postCredential(ctx.config, attacker, "authenticate", assertion);
    expect(errorOf(replay)).toBe("WebAuthnVerificationError");
    expect(attacker.get(SESSION_COOKIE)).toBeUndefined();
  });

  it("rejects an assertion made for a challenge of another session", async () => {
    const { ctx, device } = await registered();
    const victim = new CookieJar();
    const theirs = await getOptions(ctx.config, victim);
    const assertion = await device.get(theirs.body.options);
    const attacker = new CookieJar();
    await getOptions(ctx.config, attacker);
    const response = await postCredential(ctx.config, attacker, "authenticate", assertion);
    expect(errorOf(response)).toBe("WebAuthnVerificationError");
    expect(attacker.get(SESSION_COOKIE)).toBeUndefined();
  });

  it("rejects a challenge cookie made for another provider or another action", async () => {
    const ctx = setup({ providers: [Passkey(), WebAuthn({ enableConditionalUI: false })] });
    const device = new SoftAuthenticator(ORIGIN);
    await register(ctx, device);
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar, {}, "webauthn");
    const assertion = await device.get(body.options);
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", assertion))).toBe("OAuthCallbackError");

    const jar2 = new CookieJar();
    const again = await getOptions(ctx.config, jar2);
    const assertion2 = await device.get(again.body.options);
    expect(errorOf(await postCredential(ctx.config, jar2, "register", assertion2))).toBe("OAuthCallbackError");
    expect(jar.get(SESSION_COOKIE) ?? jar2.get(SESSION_COOKIE)).toBeUndefined();
  });

  it("rejects an assertion for another origin or signed by another key", async () => {
    const { ctx, device } = await registered();
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar);
    const wrongOrigin = await device.get(body.options, { origin: "http://localhost:4000" });
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", wrongOrigin))).toBe(
      "WebAuthnVerificationError",
    );

    const jar2 = new CookieJar();
    const again = await getOptions(ctx.config, jar2);
    const impostor = new SoftAuthenticator(ORIGIN);
    await impostor.create({ challenge: "x", rp: { id: "localhost" } });
    const forged = await impostor.get(again.body.options);
    forged.id = forged.rawId = Buffer.from(device.credentials[0]?.id as Uint8Array).toString("base64url");
    expect(errorOf(await postCredential(ctx.config, jar2, "authenticate", forged))).toBe("WebAuthnVerificationError");
    expect(onlyAuthenticator(ctx).counter).toBe(0);
  });

  it("works with JWT sessions over an adapter", async () => {
    const ctx = setup({ session: { strategy: "jwt" } });
    const device = new SoftAuthenticator(ORIGIN);
    const { jar } = await register(ctx, device);
    expect((await sessionOf(ctx.config, jar))?.user?.email).toBe("ada@example.com");
    // Signed in (JWT): a new passkey may only be added explicitly.
    expect((await getOptions(ctx.config, jar, { action: "register" })).body.action).toBe("register");
    const fresh = new CookieJar();
    const { body } = await getOptions(ctx.config, fresh);
    expect(errorOf(await postCredential(ctx.config, fresh, "authenticate", await device.get(body.options)))).toBeNull();
    expect((await sessionOf(ctx.config, fresh))?.user?.email).toBe("ada@example.com");
  });

  it("accepts every configured origin and RP ID, and creates options with the first", async () => {
    const ctx = setup({
      providers: [
        Passkey({ relyingParty: { id: ["localhost", "example.com"], origin: ["https://example.com", ORIGIN] } }),
      ],
    });
    const device = new SoftAuthenticator(ORIGIN);
    await register(ctx, device);
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar);
    expect(body.options.rpId).toBe("localhost");
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", await device.get(body.options)))).toBeNull();
  });

  it("requires user verification for Passkey sign-ins", async () => {
    const { ctx, device } = await registered();
    device.flags = FLAGS.UP;
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar);
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", await device.get(body.options)))).toBe(
      "WebAuthnVerificationError",
    );
  });

  it("answers AccountNotLinked for a credential it does not know", async () => {
    const { ctx } = await registered();
    const stranger = new SoftAuthenticator(ORIGIN);
    await stranger.create({ challenge: "x", rp: { id: "localhost" } });
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar);
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", await stranger.get(body.options)))).toBe(
      "AccountNotLinked",
    );
  });

  it("needs a valid CSRF token, an action and credential JSON", async () => {
    const { ctx, device } = await registered();
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar);
    const assertion = await device.get(body.options);
    const { call } = await import("../helpers.js");
    const noCsrf = await call(ctx.config, "/auth/callback/passkey", {
      jar,
      form: { action: "authenticate", data: JSON.stringify(assertion) },
    });
    expect(errorOf(noCsrf)).toBe("MissingCSRF");
    expect(errorOf(await postCredential(ctx.config, jar, "login", assertion))).toBe("WebAuthnVerificationError");
    await getOptions(ctx.config, jar);
    expect(errorOf(await postCredential(ctx.config, jar, "authenticate", "{not json"))).toBe(
      "WebAuthnVerificationError",
    );
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
  });
});
