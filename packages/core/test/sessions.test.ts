/**
 * Session records that say what they are, and the `@latchkey/core/sessions` API, in process:
 * device descriptions from hostile user agents, `lastSeenAt` riding on the `updateAge` write, the
 * opt-in client address, Auth.js adapters left untouched, JWT sessions refused with a typed error,
 * and what counts as a way to sign in when unlinking.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import type { Adapter, AdapterUser } from "../src/adapters.js";
import { AuthError } from "../src/errors.js";
import { Auth, type AuthConfig } from "../src/index.js";
import { encode } from "../src/jwt.js";
import { createMemoryStore, MemoryAdapter, memoryAccountKey } from "../src/memory-adapter.js";
import { OIDC } from "../src/providers/generic-oidc.js";
import Nodemailer from "../src/providers/nodemailer.js";
import Passkey from "../src/providers/passkey.js";
import {
  checkCsrf,
  describeUserAgent,
  getCsrfToken,
  listAccounts,
  listSessions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  skipCSRFCheck,
  unlinkAccount,
} from "../src/sessions.js";
import { CookieJar, call, ORIGIN, SECRET } from "./helpers.js";
import { Browser } from "./oauth/support/browser.js";
import { signInThrough } from "./oauth/support/flow.js";
import { startOP, type TestOP } from "./oauth/support/op.js";

const SESSION = "authjs.session-token";

describe("describeUserAgent: a device its user recognises, never text from the header", () => {
  const known: [string, string][] = [
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on macOS"],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      "Safari on iPhone",
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
      "Edge on Windows",
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
      "Chrome on Android",
    ],
    [
      "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
      "Chrome on ChromeOS",
    ],
    ["Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0", "Firefox on Ubuntu"],
    ["curl/8.5.0", "curl"],
    ["", "Unknown device"],
  ];
  it.each(known)("%s → %s", (userAgent, expected) => {
    expect(describeUserAgent(userAgent)).toBe(expected);
  });

  it("RULE: a hostile user agent (huge, control characters, markup, non-ASCII) yields a short name from Latchkey's own list", () => {
    const vocabulary = /^(?:Unknown device|(?:[A-Za-z. ]+|Browser)(?: on [A-Za-z ]+)?)$/;
    const hostile = [
      `${"A".repeat(1_000_000)} Firefox/1`,
      "Firefox/1\u0000\r\nSet-Cookie: x=1 (Windows)",
      "<script>alert(1)</script> Chrome/1 (Macintosh)",
      "Mozilla/5.0 (iPhone\u202e; Ｆｉｒｅｆｏｘ/1) 🦊",
      "Version/1 ".repeat(5000) + "Safari/1",
      "\u0007\u001b[31m",
      undefined,
      null,
      42 as unknown as string,
    ];
    for (const userAgent of hostile) {
      const described = describeUserAgent(userAgent);
      expect(described).toMatch(vocabulary);
      expect(described.length).toBeLessThanOrEqual(40);
    }
    // Text beyond the first 512 characters is not read.
    expect(describeUserAgent(`${" ".repeat(600)}Firefox/128.0 (Macintosh)`)).toBe("Unknown device");
  });
});

/** A database-strategy configuration over `adapter` with a real OpenID Provider. */
function configFor(op: TestOP, adapter: Adapter, overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger: { error() {}, warn() {}, debug() {} },
    providers: [OIDC({ id: "op", name: "Test OP", issuer: op.issuer, clientId: "latchkey", clientSecret: "s3cret" })],
    ...overrides,
  };
}

describe("session records over a real sign-in (MemoryAdapter, oidc-provider)", () => {
  let op: TestOP;
  beforeAll(async () => {
    op = await startOP([
      { client_id: "latchkey", client_secret: "s3cret", redirect_uris: [`${ORIGIN}/auth/callback/op`] },
    ]);
  });
  afterAll(async () => {
    await op.close();
  });

  async function signInWith(config: AuthConfig, userAgent: string) {
    const browser = new Browser({
      [ORIGIN]: (request) => {
        request.headers.set("user-agent", userAgent);
        return Auth(request, config);
      },
    });
    const callback = await signInThrough(browser, ORIGIN, "op");
    expect(callback.status).toBe(302);
    return browser;
  }

  it("a sign-in records createdAt, lastSeenAt and the device; the client address only when the application opts in", async () => {
    const store = createMemoryStore();
    const plain = configFor(op, MemoryAdapter(store));
    await signInWith(plain, "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0");
    const [first] = [...store.sessions.values()];
    expect(first).toMatchObject({
      device: "Firefox on macOS",
      createdAt: expect.any(Date),
      lastSeenAt: expect.any(Date),
    });
    expect(first).not.toHaveProperty("clientAddress");

    const optedIn = configFor(op, MemoryAdapter(store), {
      session: { recordClientAddress: true },
      clientAddress: (request) => request.headers.get("x-test-client"),
    });
    const browser = new Browser({
      [ORIGIN]: (request) => {
        request.headers.set("x-test-client", "2001:db8::7");
        return Auth(request, optedIn);
      },
    });
    await signInThrough(browser, ORIGIN, "op");
    const second = [...store.sessions.values()].find((s) => s.sessionToken !== first?.sessionToken);
    expect(second).toMatchObject({ clientAddress: "2001:db8::7", device: "Unknown device" });
  });

  // Attacker review (feat-growth): every sign-in added a session record and none was ever removed
  // before it expired (30 days), so a user signing in over and over grew the sessions store.
  it("RULE: sign-ins past session.maxPerUser end the user's oldest sessions, each with a signOut (reason session-limit); the newest stay", async () => {
    const store = createMemoryStore();
    const ended: Array<{ session?: unknown; reason?: string }> = [];
    const config = configFor(op, MemoryAdapter(store), {
      session: { maxPerUser: 3 },
      events: { signOut: (message) => void ended.push(message) },
    });
    const browsers = [];
    for (let i = 0; i < 8; i++) browsers.push(await signInWith(config, "curl/8.5.0"));
    // And 6 more at once: the limit holds against sign-ins racing each other.
    browsers.push(...(await Promise.all(Array.from({ length: 6 }, () => signInWith(config, "curl/8.5.0")))));
    const [userId] = new Set([...store.sessions.values()].map((s) => s.userId));
    const left = await MemoryAdapter(store).listSessions!(userId as string);
    expect(left.length).toBeLessThanOrEqual(3);
    expect(left.length).toBeGreaterThan(0);
    expect(ended.length).toBe(14 - left.length);
    expect(ended.every((m) => m.reason === "session-limit")).toBe(true);
    const live = async (browser: Browser) =>
      ((await (await browser.get(`${ORIGIN}/auth/session`)).json()) as { user?: unknown } | null)?.user !== undefined;
    // The sequential ones: the first five were ended, oldest first.
    for (const browser of browsers.slice(0, 5)) expect(await live(browser)).toBe(false);
  });

  // Attacker review (feat-attack3): with maxPerUser 1 ("one device at a time"), two sign-ins that
  // both saw each other's new session each ended the other, and the user was left with none.
  it("RULE: a sign-in past session.maxPerUser ends only sessions begun before its own: racing sign-ins never end the newest", async () => {
    const store = createMemoryStore();
    const memory = MemoryAdapter(store);
    // Both sign-ins list the user's sessions only once both are created: the race, every time.
    let created = 0;
    let bothCreated: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      bothCreated = resolve;
    });
    const adapter: Adapter = {
      ...memory,
      async createSession(session) {
        const made = await memory.createSession!(session);
        if (++created === 2) bothCreated();
        return made;
      },
      async listSessions(userId) {
        await gate;
        return memory.listSessions!(userId);
      },
    };
    const config = configFor(op, adapter, { session: { maxPerUser: 1 } });
    const browsers = await Promise.all([signInWith(config, "curl/8.5.0"), signInWith(config, "curl/8.5.0")]);
    const [userId] = new Set([...store.sessions.values()].map((s) => s.userId));
    expect(await memory.listSessions!(userId as string)).toHaveLength(1);
    const live = await Promise.all(
      browsers.map(
        async (browser) =>
          ((await (await browser.get(`${ORIGIN}/auth/session`)).json()) as { user?: unknown } | null)?.user !==
          undefined,
      ),
    );
    expect(live.filter(Boolean)).toHaveLength(1);
  });

  it("session.maxPerUser that is no positive whole number fails at resolution, naming the option", async () => {
    for (const maxPerUser of [0, -1, 2.5, Number.NaN]) {
      const errors: unknown[] = [];
      const config = configFor(op, MemoryAdapter(), {
        session: { maxPerUser },
        logger: { error: (e) => void errors.push(e), warn() {}, debug() {} },
      });
      const response = await Auth(new Request(`${ORIGIN}/auth/session`), config);
      expect(response.status).toBe(500);
      expect(String((errors[0] as Error | undefined)?.message)).toContain("session.maxPerUser");
    }
  });

  it("RULE: an adapter without listSessions (an Auth.js adapter) never receives a field its schema lacks", async () => {
    const store = createMemoryStore();
    const { listSessions: _l, deleteSessions: _d, listAccounts: _a, ...authjsLike } = MemoryAdapter(store);
    const created = vi.fn(authjsLike.createSession as NonNullable<Adapter["createSession"]>);
    const updated = vi.fn(authjsLike.updateSession as NonNullable<Adapter["updateSession"]>);
    const config = configFor(
      op,
      { ...authjsLike, createSession: created, updateSession: updated },
      {
        session: { updateAge: 0 },
      },
    );
    const browser = await signInWith(config, "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0");
    await browser.get(`${ORIGIN}/auth/session`);
    expect(Object.keys(created.mock.calls[0]?.[0] ?? {}).sort()).toEqual(["expires", "sessionToken", "userId"]);
    expect(Object.keys(updated.mock.calls[0]?.[0] ?? {}).sort()).toEqual(["expires", "sessionToken"]);
    // And the sessions API says what it lacks, by name.
    const request = new Request(`${ORIGIN}/`, { headers: { cookie: `${SESSION}=x` } });
    await expect(listSessions(request, config)).rejects.toMatchObject({
      type: "MissingAdapterMethods",
      message: expect.stringContaining("listSessions"),
    });
  });
});

describe("lastSeenAt rides on the updateAge write", () => {
  it("RULE: no extra write per request: lastSeenAt changes only when the expiry is refreshed", async () => {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    const updates = vi.fn(adapter.updateSession as NonNullable<Adapter["updateSession"]>);
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [],
      adapter: { ...adapter, updateSession: updates },
    };
    const user = (await adapter.createUser?.({
      id: "u1",
      email: "u1@example.com",
      emailVerified: null,
    })) as AdapterUser;
    const start = Date.now();
    const createdAt = new Date(start - 1000);
    await adapter.createSession?.({
      sessionToken: "tok",
      userId: user.id,
      expires: new Date(start + 30 * 86400_000),
      createdAt,
      lastSeenAt: createdAt,
      device: "Firefox on macOS",
    });
    const jar = new CookieJar();
    jar.cookies.set(SESSION, "tok");
    await Promise.all(Array.from({ length: 30 }, () => call(config, "/auth/session", { jar })));
    expect(updates).not.toHaveBeenCalled();
    expect(store.sessions.get("tok")?.lastSeenAt).toEqual(createdAt);
    vi.useFakeTimers({ toFake: ["Date"], now: start + 86400_000 + 5000 });
    try {
      await call(config, "/auth/session", { jar });
      expect(updates).toHaveBeenCalledTimes(1);
      expect(store.sessions.get("tok")?.lastSeenAt?.getTime()).toBe(Date.now());
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("@latchkey/core/sessions", () => {
  async function seed(config: AuthConfig, adapter: Adapter, user: Partial<AdapterUser> = {}) {
    const id = crypto.randomUUID();
    const stored = (await adapter.createUser?.({
      id,
      email: `${id}@example.com`,
      emailVerified: null,
      ...user,
    })) as AdapterUser;
    const sessionToken = crypto.randomUUID();
    await adapter.createSession?.({ sessionToken, userId: id, expires: new Date(Date.now() + 60_000) });
    // The signed CSRF cookie and token a same-origin page of the application would post.
    const csrf = await getCsrfToken(new Request(`${ORIGIN}/account`), config);
    const csrfCookie = csrf.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const request = new Request(`${ORIGIN}/account`, {
      headers: { cookie: `${SESSION}=${sessionToken}; ${csrfCookie}` },
    });
    return { user: stored, sessionToken, request, csrfToken: csrf.token };
  }

  it("under JWT sessions, listing and revoking answer UnsupportedStrategy naming database sessions; linked accounts still work", async () => {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [],
      adapter,
      session: { strategy: "jwt" },
    };
    await adapter.createUser?.({ id: "jwt-user", email: "j@example.com", emailVerified: null });
    await adapter.linkAccount?.({
      userId: "jwt-user",
      provider: "github",
      providerAccountId: "77",
      type: "oauth",
      access_token: "secret-at",
    });
    const token = await encode({ token: { sub: "jwt-user" }, secret: SECRET, salt: SESSION });
    const request = new Request(`${ORIGIN}/`, { headers: { cookie: `${SESSION}=${token}` } });
    for (const attempt of [
      () => listSessions(request, config),
      () => revokeSession(request, config, "x".repeat(32)),
      () => revokeOtherSessions(request, config),
      () => revokeUserSessions(config, "jwt-user"),
    ]) {
      const error = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({
        type: "UnsupportedStrategy",
        message: expect.stringContaining("database sessions"),
      });
    }
    expect(await listAccounts(request, config)).toEqual([
      { provider: "github", providerAccountId: "77", type: "oauth", providerName: null },
    ]);
    // A token the application's jwt callback ends is signed out here too.
    const ended = { ...config, callbacks: { jwt: () => null } };
    expect(await listAccounts(request, ended)).toBeNull();
  });

  it("unlink counts: accounts of configured OAuth providers, passkeys with their authenticator, a verified e-mail with an e-mail provider, otherSignInMethods", async () => {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    const oidc = OIDC({ id: "op", name: "OP", issuer: "https://op.example", clientId: "c", clientSecret: "s" });
    const base: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [oidc], logger: { warn() {} } };
    const { user, request, csrfToken } = await seed(base, adapter);
    const link = (provider: string, providerAccountId: string, type: "oauth" | "oidc" | "webauthn" | "email") =>
      adapter.linkAccount?.({ userId: user.id, provider, providerAccountId, type });
    await link("op", "me", "oidc");
    await link("retired", "me", "oauth"); // a provider no longer configured: no way to sign in
    const target = { provider: "op", providerAccountId: "me" };
    expect(await unlinkAccount(request, base, target, { csrfToken })).toEqual({
      unlinked: false,
      reason: "last-sign-in-method",
    });

    // A password the application checks itself.
    expect(await unlinkAccount(request, base, target, { csrfToken, otherSignInMethods: () => 1 })).toMatchObject({
      unlinked: true,
    });
    await link("op", "me", "oidc");

    // A verified e-mail counts only with an e-mail provider configured.
    await adapter.updateUser?.({ id: user.id, emailVerified: new Date() });
    expect(await unlinkAccount(request, base, target, { csrfToken })).toMatchObject({ reason: "last-sign-in-method" });
    const mail = Nodemailer({ server: "smtp://127.0.0.1:1", from: "a@example.com" });
    expect(await unlinkAccount(request, { ...base, providers: [oidc, mail] }, target, { csrfToken })).toMatchObject({
      unlinked: true,
    });
    await link("op", "me", "oidc");
    await adapter.updateUser?.({ id: user.id, emailVerified: null });

    // A passkey counts when its account and its authenticator are both stored.
    const withPasskey: AuthConfig = { ...base, providers: [oidc, Passkey()], experimental: { enableWebAuthn: true } };
    await link("passkey", "cred-1", "webauthn");
    expect(await unlinkAccount(request, withPasskey, target, { csrfToken })).toMatchObject({
      reason: "last-sign-in-method",
    });
    await adapter.createAuthenticator?.({
      userId: user.id,
      credentialID: "cred-1",
      providerAccountId: "cred-1",
      credentialPublicKey: "pk",
      counter: 0,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
    });
    expect(await unlinkAccount(request, withPasskey, target, { csrfToken })).toMatchObject({ unlinked: true });
    // And the passkey itself is then the last way in.
    expect(
      await unlinkAccount(request, withPasskey, { provider: "passkey", providerAccountId: "cred-1" }, { csrfToken }),
    ).toMatchObject({ reason: "last-sign-in-method" });
    expect(store.accounts.has(memoryAccountKey("passkey", "cred-1"))).toBe(true);
  });

  it("RULE: whatever otherSignInMethods answers, an unlink ends at once; an answer that is no whole number of methods (Infinity, NaN, negative, fractional, a string, a throw) fails with an error naming the option and unlinks nothing", async () => {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    const oidc = OIDC({ id: "op", name: "OP", issuer: "https://op.example", clientId: "c", clientSecret: "s" });
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [oidc], logger: { warn() {} } };
    const { user, request, csrfToken } = await seed(config, adapter);
    await adapter.linkAccount?.({ userId: user.id, provider: "op", providerAccountId: "me", type: "oidc" });
    const target = { provider: "op", providerAccountId: "me" };
    const linked = () => store.accounts.has(memoryAccountKey("op", "me"));
    for (const answer of [Number.NaN, -1, Number.POSITIVE_INFINITY, 0.5, 1.5, "2", null, undefined, 2 ** 53]) {
      const started = Date.now();
      const error = await unlinkAccount(request, config, target, {
        csrfToken,
        otherSignInMethods: () => answer as unknown as number,
      }).then(
        (result) => result,
        (e: unknown) => e,
      );
      // Instant: no loop over the answer (Infinity once meant 20 s of a blocked event loop).
      expect(Date.now() - started).toBeLessThan(1000 * inject("timeScale"));
      expect(error, `answer ${String(answer)}`).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({
        type: "InvalidConfiguration",
        message: expect.stringContaining("otherSignInMethods"),
      });
      expect(linked()).toBe(true);
    }
    const thrown = new Error("the password store is down");
    await expect(
      unlinkAccount(request, config, target, {
        csrfToken,
        otherSignInMethods: () => {
          throw thrown;
        },
      }),
    ).rejects.toBe(thrown);
    expect(linked()).toBe(true);
    // A whole number still counts as that many methods, however large.
    expect(
      await unlinkAccount(request, config, target, { csrfToken, otherSignInMethods: () => 2 ** 40 }),
    ).toMatchObject({
      unlinked: true,
    });
    expect(linked()).toBe(false);
  });

  // Issue 22.3: an accepted revocation is never lost: the caller hears when it did not happen.
  it("RULE: a revocation the adapter does not confirm rejects with SignOutError and records session.revoke-failed (revokeSession, revokeOtherSessions, revokeUserSessions); the sessions stay, and a retry revokes them", async () => {
    const adapter = MemoryAdapter();
    let down = true;
    const deleteSession = adapter.deleteSession?.bind(adapter) as NonNullable<Adapter["deleteSession"]>;
    const deleteSessions = adapter.deleteSessions?.bind(adapter) as NonNullable<Adapter["deleteSessions"]>;
    adapter.deleteSession = async (token) => {
      if (down) throw new Error("connection reset");
      return (await deleteSession(token)) ?? null;
    };
    adapter.deleteSessions = async (userId, except) => {
      if (down) throw new Error("connection reset");
      return deleteSessions(userId, except);
    };
    const audits: Array<{ type: string; reason?: string; userId?: string; sessionId?: string }> = [];
    const signOuts: unknown[] = [];
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [],
      adapter,
      events: { audit: (e) => void audits.push(e), signOut: (m) => void signOuts.push(m) },
    };
    const { user, request, csrfToken } = await seed(config, adapter);
    await adapter.createSession?.({
      sessionToken: crypto.randomUUID(),
      userId: user.id,
      expires: new Date(Date.now() + 60_000),
    });
    const other = (await listSessions(request, config))?.find((s) => !s.current);
    expect(other).toBeDefined();

    await expect(revokeSession(request, config, other?.id, { csrfToken })).rejects.toMatchObject({
      type: "SignOutError",
    });
    await expect(revokeOtherSessions(request, config, { csrfToken })).rejects.toMatchObject({ type: "SignOutError" });
    await expect(revokeUserSessions(config, user.id)).rejects.toMatchObject({ type: "SignOutError" });
    expect(await listSessions(request, config)).toHaveLength(2);
    expect(signOuts).toEqual([]);
    expect(audits.map((e) => [e.type, e.reason, e.userId])).toEqual([
      ["session.revoke-failed", "revoked", user.id],
      ["session.revoke-failed", "revoked-others", user.id],
      ["session.revoke-failed", "revoked-all", user.id],
    ]);
    expect(audits[0]?.sessionId).toBe(other?.id);

    down = false;
    expect(await revokeSession(request, config, other?.id, { csrfToken })).toBe(true);
    expect(await revokeUserSessions(config, user.id)).toBe(1);
    expect(await listSessions(request, config)).toBeNull();
    expect(signOuts).toHaveLength(2);
  });

  it("RULE: with a Web Request, the functions that change something need the form's CSRF token (MissingCSRF, nothing changed); checkCsrf is the same check", async () => {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    const oidc = OIDC({ id: "op", name: "OP", issuer: "https://op.example", clientId: "c", clientSecret: "s" });
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [oidc], logger: { warn() {} } };
    const { user, request, csrfToken, sessionToken } = await seed(config, adapter);
    await adapter.linkAccount?.({ userId: user.id, provider: "op", providerAccountId: "me", type: "oidc" });
    const other = crypto.randomUUID();
    await adapter.createSession?.({ sessionToken: other, userId: user.id, expires: new Date(Date.now() + 60_000) });
    const target = { provider: "op", providerAccountId: "me" };
    // Another browser's genuine token, and no token at all.
    const foreign = (await getCsrfToken(new Request(`${ORIGIN}/account`), config)).token;
    for (const token of [undefined, "", foreign, csrfToken.toUpperCase()]) {
      for (const attempt of [
        () => revokeOtherSessions(request, config, { csrfToken: token }),
        () => revokeSession(request, config, "x".repeat(32), { csrfToken: token }),
        () => unlinkAccount(request, config, target, { csrfToken: token, otherSignInMethods: () => 1 }),
      ]) {
        await expect(attempt()).rejects.toMatchObject({
          type: "MissingCSRF",
          message: expect.stringContaining("csrfToken"),
        });
      }
      expect(() => checkCsrf(request, config, token)).toThrow(expect.objectContaining({ type: "MissingCSRF" }));
    }
    expect([store.sessions.has(sessionToken), store.sessions.has(other)]).toEqual([true, true]);
    expect(store.accounts.has(memoryAccountKey("op", "me"))).toBe(true);
    // With the page's token: the same calls act.
    checkCsrf(request, config, csrfToken);
    expect(await revokeOtherSessions(request, config, { csrfToken })).toBe(1);
    expect(await unlinkAccount(request, config, target, { csrfToken, otherSignInMethods: () => 1 })).toMatchObject({
      unlinked: true,
    });
    // A framework that checked the request itself says so.
    expect(await revokeOtherSessions(request, config, { csrfToken: skipCSRFCheck })).toBe(0);
  });

  it("revokeUserSessions rejects a missing user id as a caller mistake, and revokes nothing of other users", async () => {
    const adapter = MemoryAdapter();
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [], adapter };
    const { request } = await seed(config, adapter);
    for (const bad of ["", undefined, null, 7] as unknown as string[])
      await expect(revokeUserSessions(config, bad)).rejects.toBeInstanceOf(TypeError);
    expect(await revokeUserSessions(config, "nobody")).toBe(0);
    expect(await listSessions(request, config)).toHaveLength(1);
  });
});
