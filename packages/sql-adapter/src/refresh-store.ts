/**
 * The refresh coordination of `getAccessToken` in the application's SQL database (SQLite,
 * PostgreSQL, MySQL or MariaDB), for instances that share a database but no Redis.
 * @module refresh-store
 */
import type { RefreshStore } from "@latchkey/core/refresh-store";
import { sql } from "kysely";
import { type AnyKysely, databaseNow, dialectOf, runner, type SqlOptions, tableNames } from "./schema.js";

/** How often one store deletes the expired rows (on a write), at most. */
const SWEEP_EVERY_MS = 60_000;

/**
 * A `RefreshStore` (see `@latchkey/core/refresh-store`) in the table `refresh_locks`, which
 * `migrate` (`npx latchkey migrate <url>`) creates: for instances that share a SQL database and no
 * Redis. The lock is a row taken in one statement only when absent or expired (an upsert whose
 * update is conditional on the row's expiry); outcome records are rows with an expiry every read
 * checks, against the database's clock. Expired rows are deleted now and then as the table is
 * written. Keys are compared byte for byte (MySQL/MariaDB: a NO PAD binary collation).
 *
 * @example
 * ```ts
 * import { SqlAdapter, SqlRefreshStore, openDatabase } from "@latchkey/sql-adapter"
 * const db = await openDatabase(process.env.DATABASE_URL)
 * const config = { adapter: SqlAdapter(db), accessTokens: { store: SqlRefreshStore(db) }, providers }
 * ```
 */
export function SqlRefreshStore(db: AnyKysely, options: SqlOptions = {}): RefreshStore {
  const dialect = dialectOf(db);
  const name = tableNames(options).refreshLocks;
  const table = sql.table(name);
  const run = runner(db, "SqlRefreshStore", name);
  const now = databaseNow(dialect);
  const until = (ttlMs: number) => sql<number>`(${now} + ${Math.max(1, Math.ceil(ttlMs))})`;
  // `excluded.x` (PostgreSQL, SQLite) and `values(x)` (MySQL, MariaDB) both name the row offered.
  const offered = (column: string) =>
    dialect === "mysql" ? sql`values(${sql.ref(column)})` : sql`excluded.${sql.ref(column)}`;
  const upsert = (id: string, value: string, ttlMs: number, onlyIfExpired: boolean) => {
    const insert = sql`insert into ${table} (id, value, expires) values (${id}, ${value}, ${until(ttlMs)})`;
    if (dialect === "mysql") {
      // Assignments run left to right: `value` is decided before `expires` changes.
      const keep = (column: string) =>
        onlyIfExpired
          ? sql`${sql.ref(column)} = if(expires <= ${now}, ${offered(column)}, ${sql.ref(column)})`
          : sql`${sql.ref(column)} = ${offered(column)}`;
      return sql`${insert} on duplicate key update ${keep("value")}, ${keep("expires")}`;
    }
    const set = sql`value = ${offered("value")}, expires = ${offered("expires")}`;
    return onlyIfExpired
      ? sql`${insert} on conflict (id) do update set ${set} where ${table}.expires <= ${now} returning id`
      : sql`${insert} on conflict (id) do update set ${set}`;
  };
  const read = async (id: string): Promise<string | null> => {
    const { rows } = await run(
      sql<{
        value: unknown;
      }>`select value from ${table} where id = ${id} and expires > ${now}`,
    );
    const value = rows[0]?.value;
    return typeof value === "string" ? value : null;
  };
  let lastSweep = 0;
  const sweep = async () => {
    if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = Date.now();
    await run(sql`delete from ${table} where expires <= ${now}`);
  };
  return {
    async acquire(key, owner, ttlMs) {
      const id = `lock:${key}`;
      const taken = await run(upsert(id, owner, ttlMs, true));
      if (dialect !== "mysql") return taken.rows.length === 1;
      // MySQL reports no row back, and its affected-row count cannot tell an insert from a kept
      // row under mysql2's FOUND_ROWS: the owner names itself in the row, so read who holds it.
      return (await read(id)) === owner;
    },
    async release(key, owner) {
      await run(sql`delete from ${table} where id = ${`lock:${key}`} and value = ${owner}`);
    },
    async put(key, value, ttlMs) {
      await sweep();
      await run(upsert(`value:${key}`, value, ttlMs, false));
    },
    get: (key) => read(`value:${key}`),
  };
}
