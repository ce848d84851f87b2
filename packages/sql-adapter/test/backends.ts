/**
 * The three databases the SQL stores' tests run on, each opened as two instances of an
 * application hold it (two connection pools, or two connections to one SQLite file) over one
 * database that `migrate` made, with how to drop it.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serviceAvailable, toleratesForcedDrop } from "@latchkey/adapter-test/services";
import { type AnyKysely, migrate } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import pg from "pg";

export interface Backend {
  name: string;
  up: () => Promise<boolean>;
  /** Two handles on one migrated database, and how to drop it. */
  open: () => Promise<{ dbs: [AnyKysely, AnyKysely]; drop: () => Promise<void> }>;
}

/** The backends, their databases named after `label` (letters and underscores) and this process. */
export function backendsFor(label: string): Backend[] {
  const database = `latchkey_${label}_${process.pid}_${randomBytes(3).toString("hex")}`;
  const sqliteDir = mkdtempSync(join(tmpdir(), `latchkey-${label}-`));

  return [
    {
      name: "PostgreSQL",
      up: () => serviceAvailable("PostgreSQL", 5432),
      async open() {
        const name = `${database}_pg`;
        const admin = new pg.Client({ host: "127.0.0.1", user: "postgres", database: "postgres" });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        const pool = () =>
          new Kysely({
            dialect: new PostgresDialect({
              pool: toleratesForcedDrop(new pg.Pool({ host: "127.0.0.1", user: "postgres", database: name, max: 8 })),
            }),
          });
        const dbs: [AnyKysely, AnyKysely] = [pool(), pool()];
        await migrate(dbs[0]);
        return {
          dbs,
          async drop() {
            await Promise.all(dbs.map((db) => db.destroy()));
            const drop = new pg.Client({ host: "127.0.0.1", user: "postgres", database: "postgres" });
            await drop.connect();
            await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            await drop.end();
          },
        };
      },
    },
    {
      name: "MariaDB",
      up: () => serviceAvailable("MariaDB", 3306),
      async open() {
        const name = `${database}_my`;
        const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", user: "root" });
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        const pool = () =>
          new Kysely({
            dialect: new MysqlDialect({
              pool: mysql.createPool({ host: "127.0.0.1", user: "root", database: name, connectionLimit: 8 }),
            }),
          });
        const dbs: [AnyKysely, AnyKysely] = [pool(), pool()];
        await migrate(dbs[0]);
        return {
          dbs,
          async drop() {
            await Promise.all(dbs.map((db) => db.destroy()));
            const drop = await mysqlPromise.createConnection({ host: "127.0.0.1", user: "root" });
            await drop.query(`DROP DATABASE IF EXISTS ${name}`);
            await drop.end();
          },
        };
      },
    },
    {
      name: "SQLite",
      up: async () => true,
      async open() {
        const file = join(sqliteDir, `${randomBytes(4).toString("hex")}.db`);
        const connect = () => {
          const connection = new Database(file);
          connection.pragma("journal_mode = WAL");
          connection.pragma("busy_timeout = 5000");
          return new Kysely({ dialect: new SqliteDialect({ database: connection }) });
        };
        const first = connect();
        await migrate(first);
        const dbs: [AnyKysely, AnyKysely] = [first, connect()];
        return {
          dbs,
          async drop() {
            await Promise.all(dbs.map((db) => db.destroy()));
            rmSync(file, { force: true });
          },
        };
      },
    },
  ];
}
