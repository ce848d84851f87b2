/**
 * `getAccessToken` against a real OpenID Provider (`oidc-provider` on 127.0.0.1) that issues a
 * refresh token with every code and rotates it on each use, refusing a rotated one with
 * `invalid_grant` and revoking the grant (reuse detection). The provider's own request log counts
 * the calls to its token endpoint. Expired access tokens are made by writing a past `expires_at`
 * where Latchkey keeps the tokens (the sealed session token, or the account record): no clock
 * games, no sleeps.
 */
import { randomBytes } from "node:crypto";
import { RedisRefreshStore } from "@latchkey/redis-adapter";
import { type AnyKysely, migrate, SqlRefreshStore } from "@latchkey/sql-adapter";
import { Redis } from "ioredis";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAvailable } from "../../../adapter-test/src/services.js";
import { type AccessToken, getAccessToken, RefreshTokenRevoked } from "../../src/access-token.js";
import { Auth, type AuthConfig } from "../../src/index.js";
import { decode, encode } from "../../src/jwt.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import { MemoryRefreshStore, type RefreshStore } from "../../src/refresh-store.js";
import { Browser } from "./support/browser.js";
import { SECRET, signInThrough } from "./support/flow.js";
import { type RefreshingOP, startRefreshingOP } from "./support/refreshing-op.js";

const APP = "http://localhost:3000";
const COOKIE = "authjs.session-token";
let op: RefreshingOP;

beforeAll(async () => {
  op = await startRefreshingOP();
});
afterAll(async () => {
  await op?.close();
});

function appConfig(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [
      OIDC({ id: "op", name: "Test OP", issuer: op.issuer, clientId: "latchkey", clientSecret: "latchkey-secret" }),
    ],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    ...extra,
  };
}

/** Signs a new browser in through the provider; returns its `Cookie` header. */
async function signedIn(config: AuthConfig, login = "alice"): Promise<string> {
  const browser = new Browser({ [APP]: (r) => Auth(r, config) });
  const response = await signInThrough(browser, APP, "op", { query: { login_hint: login } });
  expect(response.status).toBe(302);
  return [...browser.jar(APP)].map(([k, v]) => `${k}=${v}`).join("; ");
}

const request = (cookieHeader: string) => ({ protocol: "http:", host: "localhost:3000", cookieHeader });
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The claims of a JWT session cookie header. */
async function claimsOf(cookieHeader: string) {
  const raw = /authjs\.session-token=([^;]+)/.exec(cookieHeader)?.[1] ?? "";
  const claims = await decode({ token: raw, secret: SECRET, salt: COOKIE });
  if (!claims) throw new Error("the session cookie does not open");
  return claims as {
    providerTokens: Record<
      string,
      { access_token?: string; refresh_token?: string; expires_at?: number; error?: string }
    >;
  };
}

/** The same JWT session with the provider's access token expired ten seconds ago. */
async function withExpiredAccessToken(cookieHeader: string): Promise<string> {
  const claims = await claimsOf(cookieHeader);
  (claims.providerTokens.op as { expires_at: number }).expires_at = nowSeconds() - 10;
  return `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE })}`;
}

/** The session cookie a result or error re-issued, as a `Cookie` header. */
function reissued(cookies: AccessToken["cookies"]): string {
  const cookie = cookies.find((c) => c.name === COOKIE);
  if (!cookie) throw new Error("no session cookie was re-issued");
  return `${COOKIE}=${cookie.value}`;
}

describe("getAccessToken, JWT sessions (tokens sealed in the session token)", () => {
  it("rule: concurrent requests needing one refresh cause exactly one provider call (single flight), and every one gets the new token", async () => {
    const config = appConfig({ accessTokens: { jwt: true } });
    const expired = await withExpiredAccessToken(await signedIn(config));
    const before = op.tokenCalls();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => getAccessToken(request(expired), config, { provider: "op" })),
    );
    expect(op.tokenCalls() - before).toBe(1);
    const tokens = new Set(results.map((r) => r?.accessToken));
    expect(tokens.size).toBe(1);
    const [token] = results;
    expect(token?.refreshed).toBe(true);
    expect(await op.accepts(token?.accessToken as string)).toBe(true);
    // Each response re-issues the session with the rotated refresh token in it.
    const next = await claimsOf(reissued(token?.cookies ?? []));
    const old = await claimsOf(expired);
    expect(next.providerTokens.op?.refresh_token).not.toBe(old.providerTokens.op?.refresh_token);
    expect(next.providerTokens.op?.expires_at).toBeGreaterThan(nowSeconds());
    expect(token?.setCookie[0]).toMatch(/^authjs\.session-token=/);
  });

  it("rule: a request still carrying the pre-rotation refresh token just after the rotation gets the new tokens, without replaying the rotated token", async () => {
    const config = appConfig({ accessTokens: { jwt: true } });
    const stale = await withExpiredAccessToken(await signedIn(config));
    const first = await getAccessToken(request(stale), config, { provider: "op" });
    const calls = op.tokenCalls();
    // Another tab sends the cookie from before the rotation.
    const late = await getAccessToken(request(stale), config, { provider: "op" });
    expect(op.tokenCalls()).toBe(calls);
    expect(late?.accessToken).toBe(first?.accessToken);
    // Had the rotated token been replayed, the provider would have revoked the grant: the new
    // refresh token still works.
    const fresh = await withExpiredAccessToken(reissued(late?.cookies ?? []));
    const again = await getAccessToken(request(fresh), config, { provider: "op" });
    expect(op.tokenCalls()).toBe(calls + 1);
    expect(await op.accepts(again?.accessToken as string)).toBe(true);
  });

  it("rule: a token valid beyond the skew is returned as is, without a provider call", async () => {
    const config = appConfig({ accessTokens: { jwt: true } });
    const cookie = await signedIn(config);
    const before = op.tokenCalls();
    const token = await getAccessToken(request(cookie), config, { provider: "op" });
    expect(op.tokenCalls()).toBe(before);
    expect(token?.refreshed).toBe(false);
    expect(token?.cookies).toEqual([]);
    expect(token?.accessToken).toBe((await claimsOf(cookie)).providerTokens.op?.access_token);
  });

  it("rule: a revoked grant gives RefreshTokenRevoked, marks the session, and is not retried in a loop", async () => {
    const config = appConfig({ accessTokens: { jwt: true } });
    const cookie = await signedIn(config);
    await op.revoke((await claimsOf(cookie)).providerTokens.op?.refresh_token as string);
    const expired = await withExpiredAccessToken(cookie);
    const before = op.tokenCalls();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, () => getAccessToken(request(expired), config, { provider: "op" })),
    );
    expect(op.tokenCalls() - before).toBe(1);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(RefreshTokenRevoked);
      expect(((outcome as PromiseRejectedResult).reason as RefreshTokenRevoked).type).toBe("RefreshTokenRevoked");
    }
    const error = (outcomes[0] as PromiseRejectedResult).reason as RefreshTokenRevoked;
    const marked = reissued(error.cookies);
    // Tokens gone; whose they were (the sign-in id_token's subject) stays.
    expect((await claimsOf(marked)).providerTokens.op).toEqual({
      providerAccountId: "alice",
      sub: "alice",
      iss: op.issuer,
      error: "RefreshTokenRevoked",
    });
    // The marked session fails at once; so does the old cookie within the reuse window.
    await expect(getAccessToken(request(marked), config, { provider: "op" })).rejects.toBeInstanceOf(
      RefreshTokenRevoked,
    );
    await expect(getAccessToken(request(expired), config, { provider: "op" })).rejects.toBeInstanceOf(
      RefreshTokenRevoked,
    );
    expect(op.tokenCalls() - before).toBe(1);
    // No token leaks into the error's message.
    expect(error.message).not.toContain((await claimsOf(cookie)).providerTokens.op?.refresh_token as string);
  });

  it("rule: nobody signed in gives null, an unknown provider a typed error", async () => {
    const config = appConfig({ accessTokens: { jwt: true } });
    expect(await getAccessToken(request(""), config, { provider: "op" })).toBeNull();
    expect(await getAccessToken(request(`${COOKIE}=garbage`), config, { provider: "op" })).toBeNull();
    const cookie = await signedIn(config);
    await expect(getAccessToken(request(cookie), config, { provider: "nope" })).rejects.toMatchObject({
      type: "InvalidProvider",
    });
  });
});

describe("getAccessToken, database sessions (tokens on the account record)", () => {
  it("rule: concurrent requests cause one refresh, and the rotated tokens are written back to the account", async () => {
    const adapter = MemoryAdapter();
    const config = appConfig({ adapter });
    const cookie = await signedIn(config, "bob");
    const stored = await adapter.getAccount?.("bob", "op");
    expect(stored?.refresh_token).toEqual(expect.any(String));
    await adapter.updateAccount?.({ provider: "op", providerAccountId: "bob", expires_at: nowSeconds() - 10 });
    const before = op.tokenCalls();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => getAccessToken(request(cookie), config, { provider: "op" })),
    );
    expect(op.tokenCalls() - before).toBe(1);
    expect(new Set(results.map((r) => r?.accessToken)).size).toBe(1);
    const after = await adapter.getAccount?.("bob", "op");
    expect(after?.access_token).toBe(results[0]?.accessToken);
    expect(after?.refresh_token).not.toBe(stored?.refresh_token);
    expect(await op.accepts(after?.access_token as string)).toBe(true);
    // The next request reads the fresh token from the account.
    const next = await getAccessToken(request(cookie), config, { provider: "op" });
    expect(next?.refreshed).toBe(false);
    expect(op.tokenCalls() - before).toBe(1);
  });

  it("rule: a revoked grant marks the account (tokens cleared), and later requests fail without calling the provider", async () => {
    const adapter = MemoryAdapter();
    const config = appConfig({ adapter });
    const cookie = await signedIn(config, "bob");
    const stored = await adapter.getAccount?.("bob", "op");
    await op.revoke(stored?.refresh_token as string);
    await adapter.updateAccount?.({ provider: "op", providerAccountId: "bob", expires_at: nowSeconds() - 10 });
    const before = op.tokenCalls();
    await expect(getAccessToken(request(cookie), config, { provider: "op" })).rejects.toMatchObject({
      type: "RefreshTokenRevoked",
    });
    const marked = await adapter.getAccount?.("bob", "op");
    expect(marked?.refresh_token).toBeUndefined();
    expect(marked?.access_token).toBeUndefined();
    const again = await Promise.allSettled(
      Array.from({ length: 30 }, () => getAccessToken(request(cookie), config, { provider: "op" })),
    );
    expect(again.every((o) => o.status === "rejected" && o.reason instanceof RefreshTokenRevoked)).toBe(true);
    expect(op.tokenCalls() - before).toBe(1);
    // Signing in again stores the new tokens on the account, and the token works again.
    const renewed = await signedIn(config, "bob");
    const token = await getAccessToken(request(renewed), config, { provider: "op" });
    expect(await op.accepts(token?.accessToken as string)).toBe(true);
  });
});

/**
 * Two application instances: two configurations (each resolved on its own, so each has its own
 * in-process flights and nothing in memory in common) sharing a store, as two processes would.
 */
async function acrossInstances(store: () => RefreshStore) {
  const a = appConfig({ accessTokens: { jwt: true, store: store() } });
  const b = appConfig({ accessTokens: { jwt: true, store: store() } });
  const expired = await withExpiredAccessToken(await signedIn(a));
  const before = op.tokenCalls();
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => getAccessToken(request(expired), i % 2 ? a : b, { provider: "op" })),
  );
  expect(op.tokenCalls() - before).toBe(1);
  expect(new Set(results.map((r) => r?.accessToken)).size).toBe(1);
  expect(await op.accepts(results[0]?.accessToken as string)).toBe(true);
  // Later, on the other instance, the pre-rotation cookie still gets the new tokens.
  const late = await getAccessToken(request(expired), b, { provider: "op" });
  expect(late?.accessToken).toBe(results[0]?.accessToken);
  expect(op.tokenCalls() - before).toBe(1);
}

describe("getAccessToken across instances sharing a store", () => {
  let redisUp = false;
  let pgUp = false;
  const redis: Redis[] = [];
  let db: AnyKysely | undefined;
  let admin: pg.Client | undefined;
  const database = `latchkey_refresh_${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    redisUp = await serviceAvailable("Redis", 6379);
    pgUp = await serviceAvailable("PostgreSQL", 5432);
    if (pgUp) {
      admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      const pool = new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database, max: 10 });
      db = new Kysely({ dialect: new PostgresDialect({ pool }) });
      await migrate(db);
    }
  });
  afterAll(async () => {
    for (const client of redis) client.disconnect();
    await db?.destroy();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.end();
    }
  });

  it("rule: on Redis, 50 concurrent requests split over two instances cause one refresh", async ({ skip }) => {
    if (!redisUp) skip();
    const prefix = `test:refresh:${randomBytes(4).toString("hex")}:`;
    await acrossInstances(() => {
      const client = new Redis({ host: "127.0.0.1", port: 6379 });
      redis.push(client);
      return RedisRefreshStore(client, { prefix });
    });
  });

  it("rule: on PostgreSQL, 50 concurrent requests split over two instances cause one refresh", async ({ skip }) => {
    if (!pgUp) skip();
    await acrossInstances(() => SqlRefreshStore(db as AnyKysely));
  });

  it("rule: tokens at rest in the shared store are encrypted and keyed by a hash", async ({ skip }) => {
    if (!pgUp) skip();
    const rows = await sql`select id, value from refresh_locks`.execute(db as AnyKysely);
    expect(rows.rows.length).toBeGreaterThan(0);
    const text = JSON.stringify(rows.rows);
    expect(text).not.toMatch(/access_token|refresh_token/);
  });
});

describe("getAccessToken while the secret is rotated", () => {
  it("rule: instances on either side of a secret rotation still refresh a token once (the store key does not depend on the secret)", async () => {
    // A rolling deploy adds a new secret in front: some instances run [NEW, OLD], others still [OLD].
    const store = new MemoryRefreshStore();
    const rotated = appConfig({
      secret: ["audit-attack-new-secret-0123456789abcdef", SECRET],
      accessTokens: { jwt: true, store },
    });
    const notYet = appConfig({ accessTokens: { jwt: true, store } });
    const expired = await withExpiredAccessToken(await signedIn(notYet));
    const before = op.tokenCalls();
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        getAccessToken(request(expired), i % 2 ? rotated : notYet, { provider: "op" }),
      ),
    );
    // One redemption: a second one of the same refresh token would be reuse, and the provider revokes the grant.
    expect(op.tokenCalls() - before).toBe(1);
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const tokens = results.map((r) => (r.status === "fulfilled" ? r.value?.accessToken : undefined));
    expect(new Set(tokens).size).toBe(1);
    expect(await op.accepts(tokens[0] as string)).toBe(true);
  });
});

describe("getAccessToken, a provider that issued no refresh token", () => {
  it("rule: Google without offline access: the error and one logged warning name exactly what to set, and the provider is not asked", async () => {
    const warnings: Array<[string, string | undefined]> = [];
    const google = OIDC({ id: "google", name: "Google", issuer: op.issuer, clientId: "latchkey", clientSecret: "x" });
    const config = appConfig({
      accessTokens: { jwt: true },
      providers: [...(appConfig().providers ?? []), google],
      logger: { error: () => {}, warn: (code, detail) => warnings.push([code, detail]), debug: () => {} },
    });
    // The session as a Google sign-in without `access_type: "offline"` leaves it: an access token only.
    const claims = await claimsOf(await signedIn(config));
    const { refresh_token: _dropped, ...online } = claims.providerTokens.op as Record<string, unknown>;
    const token = { ...claims, providerTokens: { google: { ...online, expires_at: nowSeconds() - 10 } } };
    const cookie = `${COOKIE}=${await encode({ token, secret: SECRET, salt: COOKIE })}`;
    const before = op.tokenCalls();
    for (let i = 0; i < 5; i++) {
      const error = await getAccessToken(request(cookie), config, { provider: "google" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RefreshTokenRevoked);
      expect((error as RefreshTokenRevoked).cause).toMatchObject({ reason: "no-refresh-token", provider: "google" });
      expect((error as Error).message).toContain(
        'Google({ authorization: { params: { access_type: "offline", prompt: "consent" } } })',
      );
    }
    expect(op.tokenCalls()).toBe(before);
    expect(warnings.filter(([code]) => code === "refresh-token-missing")).toEqual([
      ["refresh-token-missing", expect.stringContaining('access_type: "offline"')],
    ]);
  });
});
