/**
 * One provider refresh for many requests across application processes (issue 16.2 and 16.4): two
 * Node processes (fixtures/instance-refresh.mjs, Express + `getAccessToken`) share a refresh store
 * (Redis, PostgreSQL through `pg`, or the SQL adapter's table on PostgreSQL and MariaDB) and ask a
 * real `oidc-provider` that rotates refresh tokens (reuse detection: a rotated token presented
 * again is refused and the grant revoked). The provider's own request log counts the calls to its
 * token endpoint. The user signs in here, in process, with the same secret (and, for database
 * sessions, the same database): the session cookie then goes to both processes. An expired access
 * token is made by writing a past `expires_at` where Latchkey keeps it: no clock games, no sleeps.
 */
import { randomBytes } from "node:crypto";
import type { Adapter } from "@latchkey/core/adapters";
import { RedisAdapter } from "@latchkey/redis-adapter";
import { type AnyKysely, migrate, openDatabase, SqlAdapter } from "@latchkey/sql-adapter";
import { Redis } from "ioredis";
import mysqlPromise from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { childInstances, type Instance } from "./support/instances.js";
import {
  databaseSessions,
  login as freshLogin,
  jwtSessions,
  SECRET,
  type Sessions,
  signIn,
  tokenFrom,
  useRefreshingOP,
} from "./support/refresh.js";

const instances = childInstances();
const provider = useRefreshingOP();
afterAll(() => instances.stopAll());

interface Backend {
  name: string;
  sessions: "jwt" | "database";
  /** Whether the servers it needs answer; creates its database. */
  setup(): Promise<boolean>;
  env(): Record<string, string>;
  cleanup(): Promise<void>;
}

const pgName = `latchkey_refresh_scale_${randomBytes(4).toString("hex")}`;
const mariaName = `latchkey_refresh_scale_${randomBytes(4).toString("hex")}`;
const redisPrefix = `latchkey-refresh-scale:${randomBytes(4).toString("hex")}:`;
let sqlDb: AnyKysely | undefined;
let redisClient: Redis | undefined;
/** The adapter of a database-sessions backend, as the processes use it. */
let adapter: Adapter | undefined;

async function postgresDatabase(name: string): Promise<boolean> {
  if (!(await serviceAvailable("PostgreSQL", 5432))) return false;
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return true;
}

async function dropPostgres(name: string): Promise<void> {
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

/** Opens and migrates the shared database of a database-sessions backend. */
async function openShared(url: string): Promise<void> {
  sqlDb = await openDatabase(url);
  await migrate(sqlDb);
  adapter = SqlAdapter(sqlDb);
}

const backends: Backend[] = [
  {
    name: "Redis (JWT sessions)",
    sessions: "jwt",
    setup: () => serviceAvailable("Redis", 6379),
    env: () => ({ SESSIONS: "jwt", REFRESH_STORE: "redis", REDIS_PREFIX: redisPrefix }),
    async cleanup() {
      const redis = new Redis({ host: "127.0.0.1", port: 6379 });
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  },
  {
    name: "Redis (database sessions)",
    sessions: "database",
    async setup() {
      if (!(await serviceAvailable("Redis", 6379))) return false;
      redisClient = new Redis({ host: "127.0.0.1", port: 6379 });
      adapter = RedisAdapter(redisClient, { prefix: `${redisPrefix}db:` });
      return true;
    },
    env: () => ({ SESSIONS: "database", REFRESH_STORE: "redis", REDIS_PREFIX: `${redisPrefix}db:` }),
    async cleanup() {
      const keys = await (redisClient as Redis).keys(`${redisPrefix}db:*`);
      if (keys.length) await (redisClient as Redis).del(...keys);
      redisClient?.disconnect();
    },
  },
  {
    name: "PostgreSQL through the SQL adapter (JWT sessions)",
    sessions: "jwt",
    async setup() {
      if (!(await postgresDatabase(`${pgName}_jwt`))) return false;
      const db = await openDatabase(`postgres://postgres@127.0.0.1:5432/${pgName}_jwt`);
      await migrate(db);
      await db.destroy();
      return true;
    },
    env: () => ({
      SESSIONS: "jwt",
      REFRESH_STORE: "sql",
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${pgName}_jwt`,
    }),
    cleanup: () => dropPostgres(`${pgName}_jwt`),
  },
  {
    name: "PostgreSQL through the SQL adapter (database sessions)",
    sessions: "database",
    async setup() {
      if (!(await postgresDatabase(`${pgName}_db`))) return false;
      await openShared(`postgres://postgres@127.0.0.1:5432/${pgName}_db`);
      return true;
    },
    env: () => ({
      SESSIONS: "database",
      REFRESH_STORE: "sql",
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${pgName}_db`,
    }),
    async cleanup() {
      await sqlDb?.destroy();
      await dropPostgres(`${pgName}_db`);
    },
  },
  {
    name: "MariaDB through the SQL adapter (database sessions)",
    sessions: "database",
    async setup() {
      if (!(await serviceAvailable("MariaDB", 3306))) return false;
      const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
      await admin.query(`CREATE DATABASE ${mariaName}`);
      await admin.end();
      await openShared(`mysql://root@127.0.0.1:3306/${mariaName}`);
      return true;
    },
    env: () => ({
      SESSIONS: "database",
      REFRESH_STORE: "sql",
      DATABASE_URL: `mysql://root@127.0.0.1:3306/${mariaName}`,
    }),
    async cleanup() {
      await sqlDb?.destroy();
      const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
      await admin.query(`DROP DATABASE IF EXISTS ${mariaName}`);
      await admin.end();
    },
  },
];

describe.each(backends)("getAccessToken across two processes on $name", (backend) => {
  let up = false;
  let a: Instance;
  let b: Instance;
  let sessions: Sessions;
  beforeAll(async () => {
    up = await backend.setup();
    if (!up) return;
    sessions = backend.sessions === "jwt" ? jwtSessions : databaseSessions(() => adapter as Adapter);
    const env = { AUTH_SECRET: SECRET, OP_ISSUER: provider().issuer, ...backend.env() };
    [a, b] = await Promise.all([
      instances.start("instance-refresh.mjs", env),
      instances.start("instance-refresh.mjs", env),
    ]);
  }, 30_000 * inject("timeScale"));
  afterAll(async () => {
    if (!up) return;
    await Promise.all([instances.stop(a), instances.stop(b)]);
    await backend.cleanup();
  });

  it("rule: 50 concurrent requests split over both processes with an expired access token cause one provider refresh, and all 50 succeed", async (t) => {
    if (!up) return t.skip();
    const login = freshLogin("fifty");
    const signedIn = await signIn(sessions.config(), login);
    const before = await sessions.tokens(signedIn, login);
    const expired = await sessions.expire(signedIn, login);
    const calls = provider().tokenCalls();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => tokenFrom(i % 2 ? a : b, expired)));
    expect(provider().tokenCalls() - calls).toBe(1);
    expect(answers.map((x) => x.status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(new Set(answers.map((x) => x.body.accessToken)).size).toBe(1);
    expect(new Set(answers.map((x) => x.body.pid))).toEqual(new Set([a.child.pid, b.child.pid]));
    const accessToken = answers[0]?.body.accessToken as string;
    expect(accessToken).not.toBe(before?.access_token);
    expect(await provider().accepts(accessToken)).toBe(true);
    if (backend.sessions === "jwt") {
      // Every answer re-issued the session with the rotated tokens: the next request needs no refresh.
      const reissued = answers.map((x) => x.cookie);
      expect(reissued.every((c) => typeof c === "string")).toBe(true);
      const next = await sessions.tokens(reissued[0] as string, login);
      expect(next?.access_token).toBe(accessToken);
      expect(next?.refresh_token).not.toBe(before?.refresh_token);
      const again = await tokenFrom(a, reissued[0] as string);
      expect(again.body).toMatchObject({ accessToken, refreshed: false });
    } else {
      // The rotated tokens are on the account, where the next request on either process reads them.
      const stored = await sessions.tokens(expired, login);
      expect(stored?.access_token).toBe(accessToken);
      expect(stored?.refresh_token).not.toBe(before?.refresh_token);
      expect((await tokenFrom(a, expired)).body).toMatchObject({ accessToken, refreshed: false });
      expect((await tokenFrom(b, expired)).body).toMatchObject({ accessToken, refreshed: false });
    }
    expect(provider().tokenCalls() - calls).toBe(1);
  });

  // Only a JWT session carries the refresh token in its cookie; database sessions read it from the
  // account, where the 50-request test above shows the waiting instances served the new tokens.
  if (backend.sessions === "jwt") {
    it("rule: the cookie from before the rotation, sent to the other process just after it, gets the new token without replaying the rotated one", async (t) => {
      if (!up) return t.skip();
      const login = freshLogin("stale");
      const stale = await sessions.expire(await signIn(sessions.config(), login), login);
      const first = await tokenFrom(a, stale);
      expect(first.body.refreshed).toBe(true);
      const calls = provider().tokenCalls();
      const late = await tokenFrom(b, stale);
      expect(late.status).toBe(200);
      expect(late.body.accessToken).toBe(first.body.accessToken);
      expect(provider().tokenCalls()).toBe(calls);
      // Had the rotated token been replayed, the provider would have revoked the grant: the
      // rotated refresh token still works.
      const fresh = await sessions.expire(late.cookie as string, login);
      const again = await tokenFrom(b, fresh);
      expect(again.status).toBe(200);
      expect(provider().tokenCalls()).toBe(calls + 1);
      expect(await provider().accepts(again.body.accessToken as string)).toBe(true);
    });
  }

  it("rule: a revoked grant answers every request on both processes with RefreshTokenRevoked after one provider call, and later ones make none", async (t) => {
    if (!up) return t.skip();
    const login = freshLogin("revoked");
    const signedIn = await signIn(sessions.config(), login);
    await provider().revoke((await sessions.tokens(signedIn, login))?.refresh_token as string);
    const expired = await sessions.expire(signedIn, login);
    const calls = provider().tokenCalls();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => tokenFrom(i % 2 ? a : b, expired)));
    expect(answers.map((x) => [x.status, x.body.error])).toEqual(
      Array.from({ length: 30 }, () => [401, "RefreshTokenRevoked"]),
    );
    expect(provider().tokenCalls() - calls).toBe(1);
    const marked = answers[0]?.cookie ?? expired;
    const later = await Promise.all(Array.from({ length: 10 }, (_, i) => tokenFrom(i % 2 ? a : b, marked)));
    expect(later.every((x) => x.status === 401 && x.body.error === "RefreshTokenRevoked")).toBe(true);
    expect(provider().tokenCalls() - calls).toBe(1);
  });
});

describe("control: two processes that share no refresh store", () => {
  it("each refreshes on its own, so the provider sees the rotated token replayed and revokes the grant (what the shared store prevents)", async () => {
    const env = { AUTH_SECRET: SECRET, OP_ISSUER: provider().issuer, SESSIONS: "jwt", REFRESH_STORE: "memory" };
    const [a, b] = await Promise.all([
      instances.start("instance-refresh.mjs", env),
      instances.start("instance-refresh.mjs", env),
    ]);
    const login = freshLogin("control");
    const expired = await jwtSessions.expire(await signIn(jwtSessions.config(), login), login);
    const calls = provider().tokenCalls();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => tokenFrom(i % 2 ? a : b, expired)));
    expect(provider().tokenCalls() - calls).toBe(2);
    expect(answers.some((x) => x.body.error === "RefreshTokenRevoked")).toBe(true);
    await Promise.all([instances.stop(a), instances.stop(b)]);
  });
});
