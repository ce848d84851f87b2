/**
 * Opens a Kysely instance from a database URL, loading the driver the URL needs.
 * @module open
 */
import { fileURLToPath } from "node:url";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import type { AnyKysely } from "./schema.js";

async function load<T>(driver: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    throw new Error(`this database needs the "${driver}" package: npm install ${driver}`, { cause: error });
  }
}

/**
 * Opens a database from a URL: `postgres://` or `postgresql://` (driver `pg`), `mysql://` or
 * `mariadb://` (driver `mysql2`), `sqlite:<path>`, `file:<url>` or a plain file path (driver
 * `better-sqlite3`). The driver is a peer dependency, loaded only when needed. Call
 * `db.destroy()` when done.
 *
 * @example
 * ```ts
 * import { migrate, openDatabase } from "@latchkey/sql-adapter"
 * const db = await openDatabase("postgres://postgres@127.0.0.1:5432/app")
 * console.log(await migrate(db))
 * await db.destroy()
 * ```
 */
export async function openDatabase(url: string): Promise<AnyKysely> {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    const { default: pg } = await load("pg", () => import("pg"));
    // Bounded waits: a database that stops answering fails the query instead of holding it.
    const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000, query_timeout: 10_000 });
    // A connection that drops (the server restarts, a proxy resets it) emits "error": on the pool
    // while idle, on the client while checked out. Without listeners Node would end the process;
    // the query in flight still rejects, and the pool replaces the connection on next use.
    const lost = (error: Error) =>
      console.error(`[latchkey][sql-adapter] PostgreSQL connection lost: ${error.message}`);
    pool.on("error", lost);
    pool.on("connect", (client) => client.on("error", lost));
    return new Kysely({ dialect: new PostgresDialect({ pool }) });
  }
  if (/^(mysql|mariadb):\/\//i.test(url)) {
    const mysql = await load("mysql2", () => import("mysql2"));
    const uri = url.replace(/^mariadb:/i, "mysql:");
    return new Kysely({
      dialect: new MysqlDialect({ pool: mysql.createPool({ uri, timezone: "Z", connectionLimit: 4 }) }),
    });
  }
  let path: string;
  if (/^sqlite:/i.test(url)) path = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
  else if (/^file:/i.test(url)) path = fileURLToPath(url);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new Error(
      `unsupported database URL scheme in "${url}": use postgres://, mysql://, sqlite:<path> or a file path`,
    );
  } else path = url;
  if (!path) throw new Error("the SQLite URL has no file path: use sqlite:<path>");
  const { default: Database } = await load("better-sqlite3", () => import("better-sqlite3"));
  return new Kysely({ dialect: new SqliteDialect({ database: new Database(path) }) });
}
