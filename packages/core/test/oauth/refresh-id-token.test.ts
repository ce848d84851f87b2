/**
 * Every id_token is verified, the refreshed ones too (issue 22, item 8). A refresh answer may carry
 * an id_token; OpenID Connect Core §12.2 says it must be validated as at sign-in and name the same
 * user (`sub`, `iss`). `getAccessToken` accepted one with a corrupted signature and one naming
 * another user. Now the answer is refused with `IdTokenRefused` (an `AccessTokenError`) and nothing
 * of it is kept.
 *
 * Two providers: a small hostile one on 127.0.0.1 (discovery, keys and a token endpoint whose
 * id_tokens are broken in one way each, signed for real), and the real `oidc-provider` for a
 * refresh token of another user and a signature altered in transit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccessTokenError, getAccessToken, IdTokenRefused } from "../../src/access-token.js";
import type { Adapter } from "../../src/adapters.js";
import { Auth, type AuthConfig, customFetch } from "../../src/index.js";
import { decode, encode } from "../../src/jwt.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import { Browser } from "./support/browser.js";
import { SECRET, signInThrough } from "./support/flow.js";
import { type HostileMode, type HostileOP, startHostileOP } from "./support/hostile-op.js";
import { type RefreshingOP, startRefreshingOP } from "./support/refreshing-op.js";

const APP = "http://localhost:3000";
const COOKIE = "authjs.session-token";
const quiet = { error: () => {}, warn: () => {}, debug: () => {} };
const nowSeconds = () => Math.floor(Date.now() / 1000);
const request = (cookieHeader: string) => ({ protocol: "http:", host: "localhost:3000", cookieHeader });

let hostile: HostileOP;
let real: RefreshingOP;

beforeAll(async () => {
  hostile = await startHostileOP("alice");
  real = await startRefreshingOP();
});
afterAll(async () => {
  await hostile?.close();
  await real?.close();
});

function hostileProvider() {
  return OIDC({
    id: "hostile",
    name: "Hostile OP",
    issuer: hostile.issuer,
    clientId: hostile.clientId,
    clientSecret: hostile.clientSecret,
  });
}

/** A database session of "alice" whose account holds an expired access token and the sign-in id_token. */
async function databaseSession(options: { keepIdToken?: boolean } = {}) {
  const adapter = MemoryAdapter();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "database" },
    providers: [hostileProvider()],
    logger: quiet,
  };
  const userId = crypto.randomUUID();
  await adapter.createUser?.({ id: userId, email: null as unknown as string, emailVerified: null });
  const original = {
    access_token: `at-old-${userId}`,
    refresh_token: `rt-old-${userId}`,
    expires_at: nowSeconds() - 10,
  };
  await adapter.linkAccount?.({
    userId,
    type: "oidc",
    provider: "hostile",
    providerAccountId: "alice",
    token_type: "bearer",
    ...original,
    ...(options.keepIdToken === false ? {} : { id_token: hostile.idToken({ iat: nowSeconds() - 3000 }) }),
  });
  const sessionToken = crypto.randomUUID();
  await adapter.createSession?.({ sessionToken, userId, expires: new Date(Date.now() + 3_600_000) });
  const account = async () => {
    const stored = await adapter.getAccount?.("alice", "hostile");
    return { access_token: stored?.access_token, refresh_token: stored?.refresh_token, expires_at: stored?.expires_at };
  };
  return { config, adapter, cookie: `${COOKIE}=${sessionToken}`, original, account };
}

/** A JWT session of "alice" keeping the provider's tokens (expired), with or without the sign-in's subject. */
async function jwtSession(options: { subject?: boolean } = {}) {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    session: { strategy: "jwt" },
    accessTokens: { jwt: true },
    providers: [hostileProvider()],
    logger: quiet,
  };
  const entry = {
    providerAccountId: "alice",
    ...(options.subject === false ? {} : { sub: "alice", iss: hostile.issuer }),
    access_token: `at-old-${crypto.randomUUID()}`,
    refresh_token: `rt-old-${crypto.randomUUID()}`,
    expires_at: nowSeconds() - 10,
    token_type: "bearer",
  };
  const token = await encode({
    token: { sub: "user-alice", providerTokens: { hostile: entry } },
    secret: SECRET,
    salt: COOKIE,
  });
  return { config, cookie: `${COOKIE}=${token}`, entry };
}

/** The error `promise` rejects with (fails the test when it resolves). */
async function refusal(promise: Promise<unknown>): Promise<IdTokenRefused> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.value)}`);
  return outcome.error as IdTokenRefused;
}

const hostileCases: Array<[HostileMode, string, string]> = [
  ["corrupted-signature", "signature", "a corrupted signature"],
  ["foreign-key", "signature", "a signature by a key the provider does not publish"],
  ["alg-none", "claims", "no signature (alg none: refused by the algorithm check, before the signature)"],
  ["wrong-sub", "sub", "another user's sub"],
  ["wrong-aud", "claims", "another client's aud"],
  ["wrong-iss", "claims", "another issuer's iss"],
  ["missing-exp", "claims", "no exp"],
  ["expired", "claims", "an exp in the past"],
  ["future-iat", "iat", "an iat an hour ahead"],
];

describe("rule: a refreshed id_token is verified exactly as at sign-in and must name the account's user (hostile provider)", () => {
  it.each(hostileCases)(
    "database sessions: an id_token with %s (%s) refuses the refresh with IdTokenRefused, and nothing of the answer is kept",
    async (mode, reason) => {
      const s = await databaseSession();
      hostile.mode = mode;
      const before = hostile.refreshes.length;
      const error = await refusal(getAccessToken(request(s.cookie), s.config, { provider: "hostile" }));
      expect(error).toBeInstanceOf(IdTokenRefused);
      expect(error).toBeInstanceOf(AccessTokenError);
      expect(error.type).toBe("IdTokenRefused");
      expect(error.cause).toMatchObject({ provider: "hostile", reason });
      expect(error.message).toContain('The id_token of provider "hostile" was refused');
      expect(hostile.refreshes.length - before).toBe(1);
      // The account keeps what it had: no access token, no refresh token from the refused answer.
      expect(await s.account()).toEqual(s.original);
    },
  );

  it.each([
    ["corrupted-signature", "signature"],
    ["wrong-sub", "sub"],
    ["future-iat", "iat"],
  ] as const)(
    "JWT sessions: an id_token with %s refuses the refresh (%s) and re-issues no cookie",
    async (mode, reason) => {
      const s = await jwtSession();
      hostile.mode = mode;
      const error = await refusal(getAccessToken(request(s.cookie), s.config, { provider: "hostile" }));
      expect(error).toBeInstanceOf(IdTokenRefused);
      expect(error.cause).toMatchObject({ reason });
      expect((error as unknown as { cookies?: unknown }).cookies).toBeUndefined();
    },
  );

  it("a session sealed before the sign-in's subject was kept compares the refreshed sub with the provider's account id", async () => {
    hostile.mode = "wrong-sub";
    const old = await jwtSession({ subject: false });
    const error = await refusal(getAccessToken(request(old.cookie), old.config, { provider: "hostile" }));
    expect(error.cause).toMatchObject({ reason: "sub" });
    hostile.mode = "honest";
    const honest = await jwtSession({ subject: false });
    expect((await getAccessToken(request(honest.cookie), honest.config, { provider: "hostile" }))?.refreshed).toBe(
      true,
    );
  });

  it("an account stored without its id_token (a provider's account() that drops it) compares with the provider's account id", async () => {
    hostile.mode = "wrong-sub";
    const dropped = await databaseSession({ keepIdToken: false });
    const error = await refusal(getAccessToken(request(dropped.cookie), dropped.config, { provider: "hostile" }));
    expect(error.cause).toMatchObject({ reason: "sub" });
    expect(await dropped.account()).toEqual(dropped.original);
  });
});

describe("honest refresh answers still refresh (hostile provider in honest mode)", () => {
  it.each(["honest", "no-id-token", "slightly-future-iat"] as const)(
    "database sessions: an answer with %s refreshes, and the new tokens are stored",
    async (mode) => {
      const s = await databaseSession();
      hostile.mode = mode;
      const token = await getAccessToken(request(s.cookie), s.config, { provider: "hostile" });
      expect(token?.refreshed).toBe(true);
      const stored = await s.account();
      expect(stored.access_token).toBe(token?.accessToken);
      expect(stored.refresh_token).not.toBe(s.original.refresh_token);
      expect(stored.expires_at).toBeGreaterThan(nowSeconds());
    },
  );

  it("JWT sessions: the re-issued cookie keeps the sign-in's subject, so the next refresh is checked against it too", async () => {
    const s = await jwtSession();
    hostile.mode = "honest";
    const first = await getAccessToken(request(s.cookie), s.config, { provider: "hostile" });
    expect(first?.refreshed).toBe(true);
    const value = first?.cookies.find((c) => c.name === COOKIE)?.value as string;
    const claims = (await decode({ token: value, secret: SECRET, salt: COOKIE })) as {
      providerTokens: Record<string, Record<string, unknown>>;
    };
    expect(claims.providerTokens.hostile).toMatchObject({
      providerAccountId: "alice",
      sub: "alice",
      iss: hostile.issuer,
    });
    // Expire it again: the next answer names another user and is refused.
    (claims.providerTokens.hostile as { expires_at: number }).expires_at = nowSeconds() - 10;
    const again = `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE })}`;
    hostile.mode = "wrong-sub";
    const error = await refusal(getAccessToken(request(again), s.config, { provider: "hostile" }));
    expect(error.cause).toMatchObject({ reason: "sub" });
  });
});

describe("rule: the same check at sign-in (hostile provider)", () => {
  function signInApp() {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      session: { strategy: "jwt" },
      accessTokens: { jwt: true },
      providers: [hostileProvider()],
      logger: quiet,
    };
    return { config, browser: new Browser({ [APP]: (r) => Auth(r, config) }) };
  }

  it("an id_token issued an hour ahead (iat) ends the sign-in with OAuthCallbackError and no session", async () => {
    const { browser } = signInApp();
    hostile.mode = "future-iat";
    const response = await signInThrough(browser, APP, "hostile");
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location") as string).searchParams.get("error")).toBe("OAuthCallbackError");
    expect(browser.jar(APP).has(COOKIE)).toBe(false);
  });

  it("an id_token a minute ahead signs in, and the session keeps its subject for the refreshes to come", async () => {
    const { browser } = signInApp();
    hostile.mode = "slightly-future-iat";
    const response = await signInThrough(browser, APP, "hostile");
    expect(response.headers.get("location")).toBe(`${APP}/`);
    const value = browser.jar(APP).get(COOKIE) as string;
    const claims = (await decode({ token: value, secret: SECRET, salt: COOKIE })) as {
      providerTokens: Record<string, Record<string, unknown>>;
    };
    expect(claims.providerTokens.hostile).toMatchObject({
      providerAccountId: "alice",
      sub: "alice",
      iss: hostile.issuer,
    });
  });
});

describe("rule: the same against the real oidc-provider", () => {
  /** A database-session application of the real provider; `tamper` may alter its token answers. */
  function realApp(tamper?: (body: Record<string, unknown>) => Record<string, unknown>) {
    const adapter = MemoryAdapter();
    const provider = OIDC({
      id: "op",
      name: "Test OP",
      issuer: real.issuer,
      clientId: "latchkey",
      clientSecret: "latchkey-secret",
      [customFetch]: async (input: RequestInfo | URL, init?: RequestInit) => {
        const response = await fetch(input, init);
        const url = String(input instanceof Request ? input.url : input);
        const body = init?.body ? String(init.body) : "";
        if (!tamper || !url.endsWith("/token") || !body.includes("grant_type=refresh_token")) return response;
        const json = (await response.json()) as Record<string, unknown>;
        return new Response(JSON.stringify(tamper(json)), { status: response.status, headers: response.headers });
      },
    });
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [provider], logger: quiet };
    return { adapter: adapter as Required<Adapter>, config };
  }

  async function signedIn(config: AuthConfig, login: string): Promise<string> {
    const browser = new Browser({ [APP]: (r) => Auth(r, config) });
    expect((await signInThrough(browser, APP, "op", { query: { login_hint: login } })).status).toBe(302);
    return [...browser.jar(APP)].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  it("an honest refresh answer's id_token (the provider sends one) is verified and accepted", async () => {
    let sawIdToken = false;
    const { adapter, config } = realApp((body) => {
      sawIdToken = typeof body.id_token === "string";
      return body;
    });
    const cookie = await signedIn(config, "alice");
    await adapter.updateAccount({ provider: "op", providerAccountId: "alice", expires_at: nowSeconds() - 10 });
    const token = await getAccessToken(request(cookie), config, { provider: "op" });
    expect(token?.refreshed).toBe(true);
    expect(sawIdToken).toBe(true);
    expect(await real.accepts(token?.accessToken as string)).toBe(true);
  });

  it("a refresh answer whose id_token signature was altered in transit is refused, and the account keeps its tokens", async () => {
    const { adapter, config } = realApp((body) => {
      const [header, payload, signature] = String(body.id_token).split(".") as [string, string, string];
      const bytes = Buffer.from(signature, "base64url");
      bytes[0] = (bytes[0] as number) ^ 0x01;
      return { ...body, id_token: `${header}.${payload}.${bytes.toString("base64url")}` };
    });
    const cookie = await signedIn(config, "alice");
    await adapter.updateAccount({ provider: "op", providerAccountId: "alice", expires_at: nowSeconds() - 10 });
    const before = await adapter.getAccount?.("alice", "op");
    const error = await refusal(getAccessToken(request(cookie), config, { provider: "op" }));
    expect(error).toBeInstanceOf(IdTokenRefused);
    expect(error.cause).toMatchObject({ provider: "op", reason: "signature" });
    const after = await adapter.getAccount?.("alice", "op");
    expect([after?.access_token, after?.refresh_token]).toEqual([before?.access_token, before?.refresh_token]);
  });

  it("another user's refresh token in the account (its answer names bob) is refused as the wrong sub; alice's tokens stay", async () => {
    const { adapter, config } = realApp();
    const alice = await signedIn(config, "alice");
    await signedIn(config, "bob");
    const bobs = await adapter.getAccount?.("bob", "op");
    await adapter.updateAccount({
      provider: "op",
      providerAccountId: "alice",
      refresh_token: bobs?.refresh_token as string,
      expires_at: nowSeconds() - 10,
    });
    const before = await adapter.getAccount?.("alice", "op");
    const error = await refusal(getAccessToken(request(alice), config, { provider: "op" }));
    expect(error).toBeInstanceOf(IdTokenRefused);
    expect(error.cause).toMatchObject({ reason: "sub" });
    const after = await adapter.getAccount?.("alice", "op");
    expect([after?.access_token, after?.refresh_token]).toEqual([before?.access_token, before?.refresh_token]);
  });
});
