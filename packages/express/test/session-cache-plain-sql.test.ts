/**
 * Which changes end a cached session (issue 34.4): an operator's `DELETE FROM sessions` on a
 * PostgreSQL database that `latchkey migrate` gave its triggers, seen or not by another instance's
 * `session.cache`, on each channel offered there. The triggers `NOTIFY`; only a
 * `SqlRevocationStore` with `listen` hears it. A polling `SqlRevocationStore` reads the rows of the
 * `revocations` table and a Redis channel hears Redis: both serve the deleted session until the
 * cache's `maxAge` (docs/security.md, Known limits). Two instances in one process: two
 * configurations over one database, each with its own cache and channel.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { AuthConfig } from "@latchkey/core";
import { announceSessionChange } from "@latchkey/core/sessions";
import type { RevocationStore } from "@latchkey/core/stores";
import { RedisRevocationStore } from "@latchkey/redis-adapter";
import { type AnyKysely, migrate, SqlAdapter, SqlRevocationStore } from "@latchkey/sql-adapter";
import { Redis } from "ioredis";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { sessionEmailOf } from "../../../test/support/session-email.js";
import { serviceAvailable } from "../../adapter-test/src/services.js";

const [postgresUp, redisUp] = await Promise.all([
  serviceAvailable("PostgreSQL", 5432),
  serviceAvailable("Redis", 6379),
]);
const database = `latchkey_cache_sql_${process.pid}_${randomBytes(4).toString("hex")}`;
const SECRET = `plain-sql-${randomBytes(16).toString("hex")}`;
const closers: Array<() => Promise<unknown> | unknown> = [];

/** A pool and a Kysely instance on the test database, closed after the file. */
function connect() {
  const pool = new pg.Pool({ host: "127.0.0.1", user: "postgres", database, max: 4 });
  pool.on("error", () => {});
  const db: AnyKysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
  closers.push(() => db.destroy());
  return { pool, db };
}

interface Channel {
  name: string;
  /** A channel for one instance, on its own connections. */
  open(pool: pg.Pool, db: AnyKysely): RevocationStore;
  /** Whether it hears the triggers of `latchkey migrate`. */
  hearsPlainSql: boolean;
  skip: boolean;
}

const redisChannel = `latchkey-test:plain-sql:${randomBytes(4).toString("hex")}`;
const channels: Channel[] = [
  {
    name: "SqlRevocationStore with listen (LISTEN/NOTIFY)",
    open: (pool, db) => SqlRevocationStore(db, { listen: pool, heartbeatMs: 1000 }),
    hearsPlainSql: true,
    skip: !postgresUp,
  },
  {
    name: "SqlRevocationStore polling",
    open: (_, db) => SqlRevocationStore(db, { pollMs: 100, heartbeatMs: 1000 }),
    hearsPlainSql: false,
    skip: !postgresUp,
  },
  {
    name: "RedisRevocationStore",
    open: () => {
      const [client, subscriber] = [new Redis(), new Redis()];
      for (const redis of [client, subscriber]) redis.on("error", () => {});
      closers.push(
        () => client.disconnect(),
        () => subscriber.disconnect(),
      );
      return RedisRevocationStore(client, subscriber, { channel: redisChannel, heartbeatMs: 1000 });
    },
    hearsPlainSql: false,
    skip: !postgresUp || !redisUp,
  },
];

beforeAll(async () => {
  if (!postgresUp) return;
  const root = new pg.Client({ host: "127.0.0.1", user: "postgres", database: "postgres" });
  await root.connect();
  await root.query(`CREATE DATABASE ${database}`);
  await root.end();
  const { db } = connect();
  expect(await migrate(db)).toContain(
    "created trigger latchkey_session_change_sessions on sessions (notifies latchkey_revocations)",
  );
});

afterAll(async () => {
  vi.useRealTimers();
  for (const close of closers.splice(0).reverse()) await close();
  if (!postgresUp) return;
  const root = new pg.Client({ host: "127.0.0.1", user: "postgres", database: "postgres" });
  await root.connect();
  await root.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await root.end();
});

/** Lets sockets and timers run between two reads that the cache answers without any. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Two instances over one database, each with its own cache and a channel of `channel`'s kind: B
 * holds a session and a witness session, then an operator deletes the first by plain SQL.
 */
async function deletedByOperator(channel: Channel) {
  /** An instance: its own pool, adapter, cache and channel; its session reads counted. */
  const instance = () => {
    const { pool, db } = connect();
    const adapter = SqlAdapter(db);
    const reads = { count: 0 };
    const counted = {
      ...adapter,
      getSessionAndUser: async (token: string) => {
        reads.count++;
        return adapter.getSessionAndUser?.(token) ?? null;
      },
    };
    const store = channel.open(pool, db);
    closers.push(() => store.close?.());
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: counted,
      providers: [],
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      session: { strategy: "database", cache: { channel: store, maxAge: 60 } },
    };
    return { config, reads, adapter };
  };
  const [a, b] = [instance(), instance()];
  const deadline = performance.now() + 15_000 * inject("timeScale");
  /** A session of a new user, held by B once its channel is confirmed (a read that makes no query). */
  const heldByB = async () => {
    const email = `${randomUUID()}@example.com`;
    const user = await a.adapter.createUser?.({ id: randomUUID(), email, emailVerified: null });
    const token = randomUUID();
    await a.adapter.createSession?.({
      sessionToken: token,
      userId: user?.id as string,
      // As a sign-in makes it (maxAge, 30 days, ahead): no updateAge write falls due, so no
      // change of it travels before the operator's DELETE.
      expires: new Date(Date.now() + 30 * 86_400_000),
    });
    for (;;) {
      const before = b.reads.count;
      expect(await sessionEmailOf(b.config, token)).toBe(email);
      if (b.reads.count === before) return { token, email };
      if (performance.now() > deadline) throw new Error("B never held the session");
      await turn();
    }
  };
  const { token, email } = await heldByB();
  const witness = await heldByB();

  const operator = new pg.Client({ host: "127.0.0.1", user: "postgres", database });
  await operator.connect();
  await operator.query(`DELETE FROM sessions WHERE "sessionToken" = $1`, [token]);
  await operator.end();
  const deletedAt = performance.now();

  return { a, b, token, email, witness, deadline, deletedAt };
}

describe.each(channels)("session.cache on PostgreSQL over $name: an operator's DELETE FROM sessions", (channel) => {
  it.skipIf(channel.skip || !channel.hearsPlainSql)(
    "is heard: the other instance stops serving the session at once",
    async () => {
      const { b, token, deadline, deletedAt } = await deletedByOperator(channel);
      while ((await sessionEmailOf(b.config, token)) !== null) {
        if (performance.now() > deadline + 15_000 * inject("timeScale")) throw new Error("B never heard it");
        await turn();
      }
      console.log(
        `[session-cache] ${channel.name}: DELETE FROM sessions heard ${(performance.now() - deletedAt).toFixed(0)} ms later`,
      );
    },
  );

  it.skipIf(channel.skip || channel.hearsPlainSql)(
    "is not heard: the other instance serves the deleted session from its cache until maxAge, then reads the database",
    async () => {
      const { a, b, token, email, witness, deadline } = await deletedByOperator(channel);
      // Not heard. The proof it never will be over this channel: a change announced after the
      // DELETE (the witness session's) reaches B, and B still serves the deleted session from
      // memory (no query).
      await announceSessionChange(a.config, { sessionToken: witness.token });
      for (;;) {
        const before = b.reads.count;
        await sessionEmailOf(b.config, witness.token);
        if (b.reads.count > before) break;
        if (performance.now() > deadline + 15_000 * inject("timeScale")) throw new Error("B never heard the witness");
        await turn();
      }
      const before = b.reads.count;
      expect(await sessionEmailOf(b.config, token)).toBe(email);
      expect(b.reads.count, "served from memory").toBe(before);
      expect(await sessionEmailOf(a.config, token)).toBeNull();
      // Past maxAge (60 s, its clock moved on), B reads the database and the session is gone.
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61_000 });
      try {
        expect(await sessionEmailOf(b.config, token)).toBeNull();
      } finally {
        vi.useRealTimers();
      }
    },
  );
});
