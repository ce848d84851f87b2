/**
 * The store the session-read table reads from (`@latchkey/adapter-test/session-read-table`): a
 * scratch PostgreSQL database of its own behind `@latchkey/sql-adapter`, which `breakStore`
 * makes unreachable by closing its connections. Every package's table uses it.
 */
import { randomBytes } from "node:crypto";
import type { SessionReadStore } from "@latchkey/adapter-test/session-read-table";
import { migrate, openDatabase, SqlAdapter } from "@latchkey/sql-adapter";
import pg from "pg";
import type { Adapter } from "../../src/adapters.js";

/**
 * A fresh PostgreSQL database with Latchkey's tables, its adapter, and how to break and remove it.
 *
 * @example
 * ```ts
 * sessionReadTable("core", drivers, { store: postgresSessionStore, skip: !(await serviceAvailable("PostgreSQL", 5432)) })
 * ```
 */
export async function postgresSessionStore(): Promise<SessionReadStore> {
  const name = `latchkey_read_table_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const db = await openDatabase(`postgres://postgres@127.0.0.1:5432/${name}`);
  await migrate(db);
  let open = true;
  const close = async () => {
    if (!open) return;
    open = false;
    await db.destroy();
  };
  return {
    adapter: SqlAdapter(db) as unknown as Adapter,
    breakStore: close,
    async teardown() {
      await close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
