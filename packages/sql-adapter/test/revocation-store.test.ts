/**
 * `SqlRevocationStore`: the conformance suite every `RevocationStore` runs (on PostgreSQL with
 * `LISTEN/NOTIFY` and polling, on MariaDB and SQLite polling; real outages on the two servers);
 * revocation of JWT sessions across two instances sharing one SQL database, attacked through
 * `Auth()` (the suite of `revocation-instances.ts` in core's tests), on the same four; then what
 * is the store's own (the table `migrate` makes, its options).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runRevocationStoreConformance } from "@latchkey/adapter-test/revocation-store";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { type AnyKysely, migrate, SqlRevocationStore } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, inject, it, vi } from "vitest";
import { type Backend, closers, describeAcrossInstances, run } from "../../core/test/security/revocation-instances.js";
import { outageBehindProxy, slowLinkBehindProxy, startTcpProxy } from "../../core/test/security/tcp-proxy.js";

const database = `latchkey_stores_revoke_${process.pid}_${run}`;
const sqliteDir = mkdtempSync(join(tmpdir(), "latchkey-revoke-"));
const sqliteFile = join(sqliteDir, "auth.db");

function postgresPool(port: number): pg.Pool {
  const pool = new pg.Pool({
    host: "127.0.0.1",
    port,
    user: "postgres",
    database,
    max: 4,
    connectionTimeoutMillis: 1000,
    query_timeout: 1500,
  });
  // A connection the proxy resets emits "error": on the pool while idle, on the client while
  // Kysely holds it. The query in flight rejects either way; the store reports the outage.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

let postgresReady: Promise<boolean> | undefined;
/** The test database, created and migrated once for both PostgreSQL backends. */
function postgresUp(): Promise<boolean> {
  postgresReady ??= (async () => {
    if (!(await serviceAvailable("PostgreSQL", 5432))) return false;
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const db = new Kysely({ dialect: new PostgresDialect({ pool: postgresPool(5432) }) });
    await migrate(db);
    await db.destroy();
    return true;
  })();
  return postgresReady;
}

async function dropPostgres(): Promise<void> {
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}

function postgresStore(listen: boolean) {
  return ({ port = 5432, heartbeatMs = 200 } = {}) => {
    const pool = postgresPool(port);
    const db: AnyKysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
    closers.push(() => db.destroy());
    return listen
      ? SqlRevocationStore(db, { listen: pool, heartbeatMs })
      : SqlRevocationStore(db, { pollMs: heartbeatMs, heartbeatMs });
  };
}

const backends: Backend[] = [
  {
    name: "PostgreSQL (LISTEN/NOTIFY)",
    serverPort: 5432,
    up: postgresUp,
    store: postgresStore(true),
    cleanup: async () => {},
  },
  {
    name: "PostgreSQL (polling)",
    polls: true,
    serverPort: 5432,
    up: postgresUp,
    store: postgresStore(false),
    cleanup: dropPostgres,
  },
  {
    name: "MariaDB (polling)",
    polls: true,
    serverPort: 3306,
    up: async () => {
      if (!(await serviceAvailable("MariaDB", 3306))) return false;
      const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
      const db = new Kysely({
        dialect: new MysqlDialect({ pool: mysql.createPool({ host: "127.0.0.1", user: "root", database }) }),
      });
      await migrate(db);
      await db.destroy();
      return true;
    },
    store: ({ port = 3306, heartbeatMs = 200 } = {}) => {
      const pool = mysql.createPool({ host: "127.0.0.1", port, user: "root", database, connectTimeout: 1000 });
      const db: AnyKysely = new Kysely({ dialect: new MysqlDialect({ pool }) });
      closers.push(() => db.destroy());
      return SqlRevocationStore(db, { pollMs: heartbeatMs, heartbeatMs });
    },
    cleanup: async () => {
      const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.end();
    },
  },
  {
    // One file, a connection per instance: processes on one host sharing a SQLite database.
    name: "SQLite (polling)",
    polls: true,
    up: async () => {
      const db = new Kysely({ dialect: new SqliteDialect({ database: new Database(sqliteFile) }) });
      await migrate(db);
      await db.destroy();
      return true;
    },
    store: ({ heartbeatMs = 200 } = {}) => {
      const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database: new Database(sqliteFile) }) });
      closers.push(() => db.destroy());
      return SqlRevocationStore(db, { pollMs: heartbeatMs, heartbeatMs });
    },
    cleanup: async () => rmSync(sqliteDir, { recursive: true, force: true }),
  },
];

describeAcrossInstances(backends);

// ---- The conformance suite every `RevocationStore` runs, on each database, each store (an
// instance) on a pool of its own. The outages are real: PostgreSQL refusing connections to the
// database (`ALLOW_CONNECTIONS false`) after `pg_terminate_backend` ended the store's own; MariaDB
// behind a TCP proxy that resets every open connection and refuses new ones. Polling stores read
// every 200 ms. The outage's store checks its channel every 200 ms, to notice the cut at once; the
// others every second, so that a check slowed by a loaded machine is not taken for a lost channel.

const [postgresServer, mariadbServer] = await Promise.all([
  serviceAvailable("PostgreSQL", 5432),
  serviceAvailable("MariaDB", 3306),
]);

/** A scratch name of this run: `conform2_<what>_<random>`. */
const scratch = (what: string) => `conform2_${what}_${randomBytes(4).toString("hex")}`;

function postgresConformance(listen: boolean) {
  return async () => {
    const database = scratch(listen ? "revoke_listen" : "revoke_poll");
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const ends: Array<() => Promise<void>> = [];
    /** A store on a pool of 4 of its own (as the documented setup shares the adapter's), and the pool's end. */
    const storeOn = (port: number, heartbeatMs: number) => {
      const pool = new pg.Pool({
        host: "127.0.0.1",
        port,
        user: "postgres",
        database,
        max: 4,
        connectionTimeoutMillis: 2000,
      });
      // Terminated connections report on the pool's idle clients and on the client Kysely holds;
      // the query in flight rejects either way, and the store reports the outage.
      pool.on("error", () => {});
      pool.on("connect", (client) => client.on("error", () => {}));
      const db: AnyKysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
      const store = listen
        ? SqlRevocationStore(db, { listen: pool, heartbeatMs })
        : SqlRevocationStore(db, { pollMs: 200, heartbeatMs });
      return { store, end: () => db.destroy() };
    };
    const store = (heartbeatMs: number) => {
      const { store, end } = storeOn(5432, heartbeatMs);
      ends.push(end);
      return store;
    };
    const migrator: AnyKysely = new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ host: "127.0.0.1", user: "postgres", database }) }),
    });
    await migrate(migrator);
    await migrator.destroy();
    return {
      open: () => store(1000),
      async outage() {
        return {
          store: store(200),
          async cut() {
            await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
            await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [database]);
          },
          restore: async () => void (await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`)),
          close: async () => {},
        };
      },
      slowLink: () => slowLinkBehindProxy(5432, (port) => storeOn(port, 200)),
      async teardown() {
        await Promise.all(ends.map((end) => end().catch(() => {})));
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.end();
      },
    };
  };
}

runRevocationStoreConformance(
  "SqlRevocationStore (PostgreSQL at 127.0.0.1:5432, LISTEN/NOTIFY)",
  postgresConformance(true),
  { skip: !postgresServer },
);

runRevocationStoreConformance(
  "SqlRevocationStore (PostgreSQL at 127.0.0.1:5432, polling)",
  postgresConformance(false),
  { skip: !postgresServer },
);

runRevocationStoreConformance(
  "SqlRevocationStore (MariaDB at 127.0.0.1:3306, polling)",
  async () => {
    const database = scratch("revoke_maria");
    const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
    await admin.query(`CREATE DATABASE ${database}`);
    const dbs: AnyKysely[] = [];
    const ownStore = (port: number, heartbeatMs: number) => {
      const pool = mysql.createPool({ host: "127.0.0.1", port, user: "root", database, connectTimeout: 1000 });
      const db: AnyKysely = new Kysely({ dialect: new MysqlDialect({ pool }) });
      return { store: SqlRevocationStore(db, { pollMs: 200, heartbeatMs }), end: () => db.destroy(), db };
    };
    const storeOn = (port: number, heartbeatMs: number) => {
      const { store, db } = ownStore(port, heartbeatMs);
      dbs.push(db);
      return store;
    };
    const migrator: AnyKysely = new Kysely({
      dialect: new MysqlDialect({ pool: mysql.createPool({ host: "127.0.0.1", user: "root", database }) }),
    });
    await migrate(migrator);
    await migrator.destroy();
    return {
      open: () => storeOn(3306, 1000),
      outage: () => outageBehindProxy(3306, (port) => storeOn(port, 200)),
      slowLink: () => slowLinkBehindProxy(3306, (port) => ownStore(port, 200)),
      async teardown() {
        await Promise.all(dbs.map((db) => db.destroy().catch(() => {})));
        await admin.query(`DROP DATABASE IF EXISTS ${database}`);
        await admin.end();
      },
    };
  },
  { skip: !mariadbServer },
);

// One file, a connection per store: processes on one host sharing a SQLite database. A file
// has no server to lose, so no outage.
runRevocationStoreConformance("SqlRevocationStore (SQLite, polling)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conform2-revoke-"));
  const file = join(dir, "auth.db");
  const dbs: AnyKysely[] = [];
  const connect = (): AnyKysely => {
    const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database: new Database(file) }) });
    dbs.push(db);
    return db;
  };
  await migrate(connect());
  return {
    open: () => SqlRevocationStore(connect(), { pollMs: 200, heartbeatMs: 1000 }),
    async teardown() {
      for (const db of dbs) await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// ---- A link slower than the heartbeat (issue 34.5): what the store takes from the application's
// pool, counted on the real pool while PostgreSQL answers through a proxy adding 250 ms each way.
describe.skipIf(!postgresServer)("SqlRevocationStore (PostgreSQL) over a link slower than its heartbeat", () => {
  const scale = inject("timeScale");

  /** A scratch database, a proxy to PostgreSQL, a pool of 4 through it, and what the pool lends out. */
  async function slowPool() {
    const database = scratch("revoke_slow");
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const migrator: AnyKysely = new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ host: "127.0.0.1", user: "postgres", database }) }),
    });
    await migrate(migrator);
    await migrator.destroy();
    const proxy = await startTcpProxy(5432);
    const pool = new pg.Pool({ host: "127.0.0.1", port: proxy.port, user: "postgres", database, max: 4 });
    pool.on("error", () => {});
    pool.on("connect", (client) => client.on("error", () => {}));
    // Connections lent out at once, at most, from the pool's own events.
    const lent = { now: 0, most: 0, total: 0 };
    pool.on("acquire", () => {
      lent.now += 1;
      lent.total += 1;
      lent.most = Math.max(lent.most, lent.now);
    });
    pool.on("release", () => {
      lent.now -= 1;
    });
    const db: AnyKysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
    return {
      pool,
      db,
      proxy,
      lent,
      async cleanup() {
        await proxy.close();
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.end();
      },
    };
  }

  /** A listener that counts the store's `down` reports. */
  const counting = (on: { downs: number }) => ({
    entry: () => {},
    down: () => {
      on.downs += 1;
    },
    up: () => {},
  });

  it("attack: 250 ms of latency on a pool of 4 (listen): the listener never holds more than one connection at once however often it reconnects, add and load still answer, and the pool ends once the store is closed", async () => {
    const { pool, db, proxy, lent, cleanup } = await slowPool();
    // The listener's connections, counted from the moment it asks the pool until it gives one back.
    const listener = { now: 0, most: 0, asked: 0 };
    const listen = {
      async connect() {
        listener.asked += 1;
        listener.now += 1;
        listener.most = Math.max(listener.most, listener.now);
        let client: pg.PoolClient;
        try {
          client = await pool.connect();
        } catch (e) {
          listener.now -= 1;
          throw e;
        }
        const release = client.release.bind(client);
        let given = false;
        client.release = (destroy?: boolean | Error) => {
          if (!given) listener.now -= 1;
          given = true;
          return release(destroy);
        };
        return client;
      },
    };
    const store = SqlRevocationStore(db, { listen, heartbeatMs: 200 });
    const on = { downs: 0 };
    let ended = false;
    try {
      await store.subscribe(counting(on));
      proxy.delayMs = 250;
      await proxy.setMode("delay");
      await vi.waitFor(() => expect(on.downs).toBeGreaterThan(0), { timeout: 10_000 * scale, interval: 20 });
      // Four reconnections while every one takes longer than the heartbeat (each abandoned).
      const asked = listener.asked;
      await vi.waitFor(() => expect(listener.asked).toBeGreaterThanOrEqual(asked + 4), {
        timeout: 30_000 * scale,
        interval: 20,
      });
      const now = Date.now();
      await expect(store.add({ kind: "user", id: "slow", before: now, expiresAt: now + 60_000 })).resolves.toBe(
        undefined,
      );
      expect((await store.load()).map((e) => e.id)).toContain("slow");
      expect(listener.most, "connections the listener held at once").toBe(1);
      await store.close?.();
      const end = await Promise.race([
        db.destroy().then(() => "ended"),
        new Promise((resolve) => setTimeout(resolve, 15_000 * scale, "hung")),
      ]);
      ended = end === "ended";
      expect(end, "pool.end() once the store is closed").toBe("ended");
      expect(lent.now).toBe(0);
    } finally {
      await store.close?.();
      if (!ended) await Promise.race([db.destroy(), new Promise((resolve) => setTimeout(resolve, 1000))]);
      await cleanup();
    }
  });

  it("attack: 250 ms of latency on a pool of 4 (polling): polls slower than the heartbeat never run two at once, so they hold at most one connection", async () => {
    const { db, proxy, lent, cleanup } = await slowPool();
    const store = SqlRevocationStore(db, { pollMs: 200, heartbeatMs: 200 });
    const on = { downs: 0 };
    try {
      await store.subscribe(counting(on));
      proxy.delayMs = 250;
      await proxy.setMode("delay");
      await vi.waitFor(() => expect(on.downs).toBeGreaterThan(0), { timeout: 10_000 * scale, interval: 20 });
      lent.most = lent.now;
      // Eight more statements of the polls (four polls), each far slower than the heartbeat.
      const total = lent.total;
      await vi.waitFor(() => expect(lent.total).toBeGreaterThanOrEqual(total + 8), {
        timeout: 30_000 * scale,
        interval: 20,
      });
      expect(lent.most, "connections the polls held at once").toBe(1);
    } finally {
      await store.close?.();
      await db.destroy();
      await cleanup();
    }
  });
});

describe("SqlRevocationStore (SQLite)", () => {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-revoke-own-"));
  const open = (file: string): AnyKysely =>
    new Kysely({ dialect: new SqliteDialect({ database: new Database(join(dir, file)) }) });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("on a database migrate has not run on, the error names the fix", async () => {
    const db = open("bare.db");
    try {
      await expect(SqlRevocationStore(db).load()).rejects.toThrow(/latchkey migrate/);
    } finally {
      await db.destroy();
    }
  });

  it("merges an entry with the stored one (each time the later), and a load deletes expired rows", async () => {
    const db = open("merge.db");
    try {
      await migrate(db);
      const store = SqlRevocationStore(db);
      const now = Date.now();
      await store.add({ kind: "user", id: "u", before: now, expiresAt: now + 60_000 });
      await store.add({ kind: "user", id: "u", before: now - 1000, expiresAt: now + 120_000 });
      await store.add({ kind: "session", id: "gone", before: now - 2000, expiresAt: now - 1000, userId: "u" });
      expect(await store.load()).toEqual([{ kind: "user", id: "u", before: now, expiresAt: now + 120_000 }]);
      const { count } =
        (await db.selectFrom("revocations").select(db.fn.countAll().as("count")).executeTakeFirst()) ?? {};
      expect(Number(count), "the expired row is deleted").toBe(1);
    } finally {
      await db.destroy();
    }
  });

  it("attack: an instance whose clock runs an hour ahead deletes no entry the others still need (expiry by the database's clock)", async () => {
    const file = "skew.db";
    const honest = open(file);
    const ahead = open(file);
    try {
      await migrate(honest);
      const now = Date.now();
      const entry = { kind: "user" as const, id: "u-skew", before: now, expiresAt: now + 10 * 60_000 };
      await SqlRevocationStore(honest).add(entry);
      // The other instance's clock (its Date only: SQLite's clock is the database's) an hour ahead.
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(now + 60 * 60_000);
      await SqlRevocationStore(ahead).load();
      vi.useRealTimers();
      // An instance reloading the list (after an outage, a restart) still finds the revocation.
      expect(await SqlRevocationStore(honest).load()).toEqual([entry]);
    } finally {
      vi.useRealTimers();
      await honest.destroy();
      await ahead.destroy();
    }
  });

  it("attack: a session change pushed by an instance whose clock runs two minutes behind still reaches a polling instance (its lifetime by the database's clock)", async () => {
    const file = "change-skew.db";
    const behind = open(file);
    const other = open(file);
    const listening = SqlRevocationStore(other, { pollMs: 50, heartbeatMs: 1000 });
    try {
      await migrate(behind);
      const heard: string[] = [];
      await listening.subscribe({
        entry: () => {},
        change: (c) => void heard.push(c.id),
        down: () => {},
        up: () => {},
      });
      // The pushing instance's Date only (SQLite's clock is the database's), 120 s behind.
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() - 120_000);
      await SqlRevocationStore(behind).push!({ kind: "user", id: "u-behind" });
      vi.useRealTimers();
      await vi.waitFor(() => expect(heard).toContain("u-behind"), { timeout: 3000 });
    } finally {
      vi.useRealTimers();
      await listening.close?.();
      await behind.destroy();
      await other.destroy();
    }
  });

  it("refuses options that cannot work, naming the fix: `listen` off PostgreSQL, a channel that is no identifier, a poll period past 60 s", async () => {
    const db = open("options.db");
    try {
      const pool = { connect: () => Promise.reject(new Error("unused")) };
      expect(() => SqlRevocationStore(db, { listen: pool })).toThrow(/LISTEN\/NOTIFY.*sqlite.*pollMs/);
      expect(() => SqlRevocationStore(db, { channel: "x; drop table users" })).toThrow(/channel/);
      expect(() => SqlRevocationStore(db, { pollMs: 120_000 })).toThrow(/pollMs/);
    } finally {
      await db.destroy();
    }
  });
});
