import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { startTcpProxy, type TcpProxy } from "../../core/test/security/tcp-proxy.js";
import { Jar } from "./helpers.js";
import { childInstances, type Instance } from "./support/instances.js";

// The cache of database session reads (`session.cache`, issue 26.3) across application processes:
// two Node processes (fixtures/instance-db-cache.mjs) share one PostgreSQL or one Redis, each
// with its own cache. A change on one ends the session on the other (the delay measured by
// waiting on the other's answer, never by sleeping, and reported); on PostgreSQL a row deleted by
// plain SQL too (the triggers of `migrate`); while an instance's channel is cut, every read on it
// goes to the database, and it caches again only once subscribed again.

const SECRET = `session-cache-${randomBytes(16).toString("hex")}`;
const COOKIE = "authjs.session-token";
const instances = childInstances();
afterAll(() => instances.stopAll());

interface Backend {
  name: string;
  port: number;
  prefix: string;
  setup(): Promise<boolean>;
  env(channelPort?: number): Record<string, string>;
  /** Deletes the session's row (or key) behind Latchkey's back; null when the backend has no way to tell instances. */
  plainDelete?(sessionToken: string): Promise<void>;
  plainRename?(userId: string, name: string): Promise<void>;
  /** Ends the channel of the instance `name` from the server's side (PostgreSQL: pg_terminate_backend of its LISTEN connection). */
  killChannel?(name: string): Promise<number>;
  /** Deletes the session where no trigger sees it (the bound is then `maxAge`). */
  unannouncedDelete?(sessionToken: string): Promise<void>;
  cleanup(): Promise<void>;
}

function jarOf(sessionToken: string): Jar {
  const jar = new Jar();
  jar.cookies.set(COOKIE, sessionToken);
  return jar;
}

/** The session's user name on `base` (not applying what the answer sets), or null. */
async function read(base: string, sessionToken: string): Promise<string | null> {
  const response = await fetch(`${base}/auth/session`, { headers: { cookie: `${COOKIE}=${sessionToken}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { user?: { name?: string } } | null;
  return body?.user?.name ?? null;
}

async function queries(base: string): Promise<number> {
  return ((await (await fetch(`${base}/stats`)).json()) as { queries: number }).queries;
}

async function post(base: string, path: string, body: unknown): Promise<Response> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response;
}

async function newSession(base: string, userId: string): Promise<string> {
  return ((await (await post(base, "/admin/session", { userId })).json()) as { sessionToken: string }).sessionToken;
}

/**
 * Reads on `base` until a read is answered from the cache (it makes no query): the event that
 * says the instance's channel is confirmed and the session is held.
 */
async function untilCached(base: string, sessionToken: string, deadlineMs = 15_000 * inject("timeScale")) {
  const started = performance.now();
  for (;;) {
    const before = await queries(base);
    expect(await read(base, sessionToken)).not.toBeNull();
    if ((await queries(base)) === before) return performance.now() - started;
    if (performance.now() - started > deadlineMs) throw new Error(`never cached after ${deadlineMs} ms`);
  }
}

/** Reads on `base` back to back until the session reads as signed out; returns the delay in ms. */
async function untilSignedOut(base: string, sessionToken: string, deadlineMs = 10_000 * inject("timeScale")) {
  const started = performance.now();
  for (;;) {
    if ((await read(base, sessionToken)) === null) return performance.now() - started;
    if (performance.now() - started > deadlineMs) throw new Error(`still signed in after ${deadlineMs} ms`);
  }
}

function summary(delays: number[]): string {
  const sorted = [...delays].sort((x, y) => x - y);
  const p50 = sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
  return `p50 ${p50.toFixed(1)} ms, max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms over ${sorted.length}`;
}

const postgresName = `latchkey_session_cache_${process.pid}_${randomBytes(4).toString("hex")}`;
const admin = () => new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: postgresName });

const backends: Backend[] = [
  {
    name: "PostgreSQL",
    port: 5432,
    prefix: postgresName,
    async setup() {
      if (!(await serviceAvailable("PostgreSQL", 5432))) return false;
      const root = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
      await root.connect();
      await root.query(`CREATE DATABASE ${postgresName}`);
      await root.end();
      const { migrate, openDatabase } = await import("@latchkey/sql-adapter");
      const db = await openDatabase(`postgres://postgres@127.0.0.1:5432/${postgresName}`);
      const done = await migrate(db);
      // The triggers that make a plain-SQL change reach every instance.
      expect(done).toContain(
        "created trigger latchkey_session_change_sessions on sessions (notifies latchkey_revocations)",
      );
      await db.destroy();
      return true;
    },
    env(channelPort = 5432) {
      return {
        STORE: "postgres",
        DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${postgresName}`,
        LISTEN_PORT: String(channelPort),
      };
    },
    async plainDelete(sessionToken) {
      const client = admin();
      await client.connect();
      await client.query(`DELETE FROM sessions WHERE "sessionToken" = $1`, [sessionToken]);
      await client.end();
    },
    async plainRename(userId, name) {
      const client = admin();
      await client.connect();
      await client.query("UPDATE users SET name = $1 WHERE id = $2", [name, userId]);
      await client.end();
    },
    async killChannel(name) {
      const client = admin();
      await client.connect();
      const { rowCount } = await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2",
        [postgresName, `${name}-listen`],
      );
      await client.end();
      return rowCount ?? 0;
    },
    async cleanup() {
      await instances.stopAll();
      const root = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
      await root.connect();
      await root.query(`DROP DATABASE IF EXISTS ${postgresName} WITH (FORCE)`);
      await root.end();
    },
  },
  {
    name: "Redis",
    port: 6379,
    prefix: `latchkey-session-cache:${process.pid}:${randomBytes(4).toString("hex")}:`,
    async setup() {
      return serviceAvailable("Redis", 6379);
    },
    env(this: Backend, channelPort = 6379) {
      return { STORE: "redis", REDIS_PORT: "6379", SUBSCRIBER_PORT: String(channelPort), REDIS_PREFIX: this.prefix };
    },
    async unannouncedDelete(this: Backend, sessionToken: string) {
      const redis = new Redis({ host: "127.0.0.1", port: 6379 });
      expect(await redis.del(`${this.prefix}session:${sessionToken}`)).toBe(1);
      redis.disconnect();
    },
    async cleanup(this: Backend) {
      const redis = new Redis({ host: "127.0.0.1", port: 6379 });
      const keys = await redis.keys(`${this.prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  },
];

describe.each(backends)("session.cache across two processes on $name", (backend) => {
  let up = false;
  let a: Instance;
  let b: Instance;
  let proxy: TcpProxy;
  let cut: Instance;
  beforeAll(async () => {
    up = await backend.setup();
    if (!up) return;
    proxy = await startTcpProxy(backend.port);
    const env = { AUTH_SECRET: SECRET, ...backend.env() };
    [a, b, cut] = await Promise.all([
      instances.start("instance-db-cache.mjs", { ...env, NAME: "a" }),
      instances.start("instance-db-cache.mjs", { ...env, NAME: "b" }),
      // Its channel (PostgreSQL's listening connection, Redis's subscriber) goes through the proxy.
      instances.start("instance-db-cache.mjs", { ...env, ...backend.env(proxy.port), NAME: "cut" }),
    ]);
  }, 30_000 * inject("timeScale"));
  afterAll(async () => {
    if (!up) return;
    await proxy.close();
    await backend.cleanup();
  });

  it("a sign-out on one ends the session on the other (delay reported), and a held read makes no query", async (t) => {
    if (!up) return t.skip();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const token = await newSession(a.url, `signout${i}`);
      await untilCached(b.url, token);
      const before = await queries(b.url);
      for (let j = 0; j < 20; j++) expect(await read(b.url, token)).toBe(`signout${i}`);
      expect(await queries(b.url)).toBe(before);

      const jar = jarOf(token);
      const { csrfToken } = (await (await jar.fetch(`${a.url}/auth/csrf`)).json()) as { csrfToken: string };
      expect((await jar.fetch(`${a.url}/auth/signout`, { form: { csrfToken } })).status).toBe(302);
      delays.push(await untilSignedOut(b.url, token));
    }
    console.log(
      `[session-cache] ${backend.name}, sign-out on one process, signed out on the other: ${summary(delays)}`,
    );
  });

  it("revokeUserSessions and the application's user deletion (announced) end the sessions on the other", async (t) => {
    if (!up) return t.skip();
    const revoked = await newSession(a.url, "revoked");
    const deleted = await newSession(a.url, "deleted");
    await untilCached(b.url, revoked);
    await untilCached(b.url, deleted);
    await post(a.url, "/admin/revoke-user", { userId: "revoked" });
    await post(a.url, "/admin/delete-user", { userId: "deleted" });
    const delays = [await untilSignedOut(b.url, revoked), await untilSignedOut(b.url, deleted)];
    console.log(`[session-cache] ${backend.name}, revokeUserSessions / user deletion: ${summary(delays)}`);
  });

  it("50 reads of one session at once make one query", async (t) => {
    if (!up) return t.skip();
    const warm = await newSession(a.url, "warm");
    await untilCached(b.url, warm);
    const token = await newSession(a.url, "crowd");
    const before = await queries(b.url);
    const names = await Promise.all(Array.from({ length: 50 }, () => read(b.url, token)));
    expect(names).toEqual(Array.from({ length: 50 }, () => "crowd"));
    expect((await queries(b.url)) - before).toBe(1);
  });

  it("a row deleted or changed by plain SQL ends (or changes) the session on every instance", async (t) => {
    if (!up || !backend.plainDelete || !backend.plainRename) return t.skip();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const token = await newSession(a.url, `plain${i}`);
      await Promise.all([untilCached(a.url, token), untilCached(b.url, token)]);
      await backend.plainDelete(token);
      const [onA, onB] = await Promise.all([untilSignedOut(a.url, token), untilSignedOut(b.url, token)]);
      delays.push(onA, onB);
    }
    console.log(
      `[session-cache] ${backend.name}, DELETE by plain SQL, signed out on both processes: ${summary(delays)}`,
    );

    const token = await newSession(a.url, "renamed");
    await untilCached(b.url, token);
    await backend.plainRename("renamed", "Renamed By SQL");
    const started = performance.now();
    while ((await read(b.url, token)) !== "Renamed By SQL") {
      if (performance.now() - started > 10_000 * inject("timeScale")) throw new Error("the rename never arrived");
    }
  });

  it("a session deleted where nothing announces it (a Redis DEL) ends within session.cache.maxAge (bound reported)", async (t) => {
    if (!up || !backend.unannouncedDelete) return t.skip();
    const bounded = await instances.start("instance-db-cache.mjs", {
      AUTH_SECRET: SECRET,
      ...backend.env(),
      NAME: "bounded",
      CACHE_MAX_AGE: "1",
    });
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const token = await newSession(a.url, `unannounced${i}`);
      await untilCached(bounded.url, token);
      await backend.unannouncedDelete(token);
      delays.push(await untilSignedOut(bounded.url, token));
    }
    console.log(
      `[session-cache] ${backend.name}, deleted unannounced, maxAge 1 s: signed out after ${summary(delays)}`,
    );
    await instances.stop(bounded);
  });

  it("its LISTEN connection terminated by the server (pg_terminate_backend): reads go to the database until it listens again, then a change reaches it", async (t) => {
    if (!up || !backend.killChannel) return t.skip();
    const held = await newSession(a.url, "terminated");
    await untilCached(b.url, held);
    expect(await backend.killChannel("b")).toBe(1);
    // Noticed when a read of the held session queries again (the connection's `end` event).
    const started = performance.now();
    for (;;) {
      const before = await queries(b.url);
      expect(await read(b.url, held)).toBe("terminated");
      if ((await queries(b.url)) > before) break;
      if (performance.now() - started > 15_000 * inject("timeScale"))
        throw new Error(`the termination was never noticed: ${b.log.join("")}`);
    }
    const noticed = performance.now() - started;
    const back = performance.now();
    await untilCached(b.url, held);
    const recovered = performance.now() - back;
    const jar = jarOf(held);
    const { csrfToken } = (await (await jar.fetch(`${a.url}/auth/csrf`)).json()) as { csrfToken: string };
    expect((await jar.fetch(`${a.url}/auth/signout`, { form: { csrfToken } })).status).toBe(302);
    const delay = await untilSignedOut(b.url, held);
    console.log(
      `[session-cache] ${backend.name} LISTEN connection terminated: noticed after ${noticed.toFixed(0)} ms, cached again ${recovered.toFixed(0)} ms later, a sign-out then reached it in ${delay.toFixed(1)} ms`,
    );
  });

  it(
    "channel cut: every read on that instance goes to the database (a sign-out elsewhere ends it at once); it caches again only once subscribed again",
    async (t) => {
      if (!up) return t.skip();
      const kept = await newSession(a.url, "kept");
      const doomed = await newSession(a.url, "doomed");
      await untilCached(cut.url, kept);
      await untilCached(cut.url, doomed);

      proxy.resetAll();
      await proxy.setMode("refuse");
      // The outage is noticed when a read of the held session queries again.
      const started = performance.now();
      for (;;) {
        const before = await queries(cut.url);
        await read(cut.url, kept);
        if ((await queries(cut.url)) > before) break;
        if (performance.now() - started > 15_000 * inject("timeScale"))
          throw new Error(`the outage was never noticed: ${cut.log.join("")}`);
      }
      const noticed = performance.now() - started;
      const before = await queries(cut.url);
      for (let i = 0; i < 20; i++) expect(await read(cut.url, kept)).toBe("kept");
      expect((await queries(cut.url)) - before, "every read during the outage is a query").toBe(20);
      // A revocation the cut instance cannot hear of: its next read says so, from the database.
      await post(a.url, "/admin/revoke-user", { userId: "doomed" });
      expect(await read(cut.url, doomed)).toBeNull();

      await proxy.setMode("pass");
      const back = performance.now();
      await untilCached(cut.url, kept);
      const recovered = performance.now() - back;
      // Trusted again means subscribed again: a change made now reaches it.
      const after = await newSession(a.url, "after");
      await untilCached(cut.url, after);
      await post(a.url, "/admin/revoke-user", { userId: "after" });
      const delay = await untilSignedOut(cut.url, after);
      expect(cut.child.exitCode).toBeNull();
      console.log(
        `[session-cache] ${backend.name} channel cut: noticed after ${noticed.toFixed(0)} ms, cached again ${recovered.toFixed(0)} ms after it came back, a revocation then reached it in ${delay.toFixed(1)} ms`,
      );
    },
    60_000 * inject("timeScale"),
  );
});
