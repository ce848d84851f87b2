// Fresh stores for the Express tests that run over real databases: a scratch PostgreSQL or
// MariaDB database migrated for the SQL adapter, a random Redis key prefix, or a MemoryAdapter,
// each with counts of what it holds and a teardown that removes it. One test file's store never
// meets another's (random names), so files run in parallel.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Adapter } from "@latchkey/core/adapters";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { RedisAdapter } from "@latchkey/redis-adapter";
import { migrate, SqlAdapter } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import pg from "pg";
import { serviceAvailable, toleratesForcedDrop } from "../../adapter-test/src/services.js";

/** A Kysely instance over one of the scratch databases (tables as loose records). */
export type Db = Kysely<Record<string, Record<string, unknown>>>;

/** A scratch SQL database: its Kysely instance, a row count, and the drop of the database. */
export interface ScratchDatabase {
  db: Db;
  count(table: string): Promise<number>;
  close(): Promise<void>;
}

const scratchName = (area: string) => `latchkey_${area}_${randomBytes(6).toString("hex")}`;

function scratch(db: Db, drop: () => Promise<void>): ScratchDatabase {
  return {
    db,
    count: async (table) =>
      Number((await db.selectFrom(table).select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n),
    close: async () => {
      await db.destroy();
      await drop();
    },
  };
}

/**
 * A new PostgreSQL database `latchkey_<area>_<random>`, migrated; `close` drops it.
 *
 * @example
 * const { db, count, close } = await scratchPostgres("sessions", 10);
 */
export async function scratchPostgres(area: string, connections: number): Promise<ScratchDatabase> {
  const database = scratchName(area);
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const pool = toleratesForcedDrop(
    new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database, max: connections }),
  );
  const db: Db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  await migrate(db as never);
  return scratch(db, async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });
}

/** A new MariaDB database `latchkey_<area>_<random>`, migrated; `close` drops it. */
export async function scratchMariaDb(area: string, connections: number): Promise<ScratchDatabase> {
  const database = scratchName(area);
  const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
  await admin.query(`CREATE DATABASE ${database}`);
  const pool = mysql.createPool({
    host: "127.0.0.1",
    port: 3306,
    user: "root",
    database,
    connectionLimit: connections,
  });
  const db: Db = new Kysely({ dialect: new MysqlDialect({ pool }) });
  await migrate(db as never);
  return scratch(db, async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  });
}

/** A new SQLite database in a temporary file, migrated; `close` removes the file. */
async function scratchSqlite(area: string): Promise<ScratchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), `${scratchName(area)}-`));
  const db: Db = new Kysely({ dialect: new SqliteDialect({ database: new Database(join(dir, "db.sqlite")) }) });
  await migrate(db as never);
  return scratch(db, async () => rmSync(dir, { recursive: true, force: true }));
}

/**
 * The three SQL stores a test runs on, by the name `serviceAvailable` knows (SQLite needs no
 * service: `port` undefined), each opening a scratch database for `area`.
 *
 * @example
 * describe.each(Object.keys(sqlStores("area")))("on %s", (kind) => { ... })
 */
export function sqlStores(area: string, connections = 5) {
  return {
    PostgreSQL: { port: 5432 as number | undefined, open: () => scratchPostgres(area, connections) },
    MariaDB: { port: 3306 as number | undefined, open: () => scratchMariaDb(area, connections) },
    SQLite: { port: undefined as number | undefined, open: () => scratchSqlite(area) },
  };
}

/** An adapter over a fresh store, how many sessions and verification tokens it holds, and its teardown. */
export interface Backend {
  adapter: Adapter;
  sessions(): Promise<number>;
  tokens(): Promise<number>;
  close(): Promise<void>;
}

async function memoryBackend(): Promise<Backend> {
  const store = createMemoryStore();
  return {
    adapter: MemoryAdapter(store),
    sessions: async () => store.sessions.size,
    tokens: async () => store.verificationTokens.size,
    close: async () => {},
  };
}

function sqlBackend({ db, count, close }: ScratchDatabase): Backend {
  return {
    adapter: SqlAdapter(db as never),
    sessions: () => count("sessions"),
    tokens: () => count("verification_tokens"),
    close,
  };
}

async function redisBackend(area: string): Promise<Backend> {
  const prefix = `latchkey-${area}-test:${randomBytes(6).toString("hex")}:`;
  const client = new Redis({ host: "127.0.0.1", port: 6379 });
  const count = async (kind: string) => (await client.keys(`${prefix}${kind}:*`)).length;
  return {
    adapter: RedisAdapter(client, { prefix }),
    sessions: () => count("session"),
    tokens: () => count("verification-token"),
    close: async () => {
      const keys = await client.keys(`${prefix}*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
    },
  };
}

const kinds = {
  memory: { name: "MemoryAdapter", port: undefined, open: () => memoryBackend() },
  postgres: {
    name: "SqlAdapter on PostgreSQL",
    port: 5432,
    open: (area: string) => scratchPostgres(area, 20).then(sqlBackend),
  },
  mariadb: {
    name: "SqlAdapter on MariaDB",
    port: 3306,
    open: (area: string) => scratchMariaDb(area, 20).then(sqlBackend),
  },
  sqlite: {
    name: "SqlAdapter on SQLite",
    port: undefined,
    open: (area: string) => scratchSqlite(area).then(sqlBackend),
  },
  redis: { name: "RedisAdapter", port: 6379, open: (area: string) => redisBackend(area) },
} as const;

/**
 * The stores a suite runs over, for `describe.each`: `[name, up, open]`, where `open` makes a
 * fresh backend whose database or prefix names `area`. A server that is down skips its suite on a
 * developer machine and fails the run in CI (`serviceAvailable`).
 *
 * @example
 * describe.each(await backends("email", ["memory", "postgres", "redis"]))("... with %s", (_name, up, open) => { ... })
 */
export async function backends(
  area: string,
  wanted: Array<keyof typeof kinds>,
): Promise<Array<[string, boolean, () => Promise<Backend>]>> {
  return Promise.all(
    wanted.map(async (kind): Promise<[string, boolean, () => Promise<Backend>]> => {
      const { name, port, open } = kinds[kind];
      return [name, port === undefined || (await serviceAvailable(name, port)), () => open(area)];
    }),
  );
}
