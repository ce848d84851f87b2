/**
 * The demo's store of users, accounts, magic-link tokens, passkeys, second factors, revoked JWT
 * sessions and password hashes (lib/passwords.ts): the SQLite
 * file the start script migrated and seeded (data/demo.sqlite), or PostgreSQL when DATABASE_URL is
 * set. The connection opens on first use, so building the app opens nothing.
 */
import { join } from "node:path";
import { SqlAdapter } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";

export const dataDir = process.env.DEMO_DATA_DIR ?? join(process.cwd(), "data");

function database() {
  const url = process.env.DATABASE_URL;
  if (url)
    return new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: async () => new pg.Pool({ connectionString: url, max: 4 }) }),
    });
  return new Kysely<unknown>({
    dialect: new SqliteDialect({ database: async () => new Database(join(dataDir, "demo.sqlite")) }),
  });
}

/** The demo's database: the adapter's tables, the revocation list and the password table. */
export const db = database();

export const adapter = SqlAdapter(db);
