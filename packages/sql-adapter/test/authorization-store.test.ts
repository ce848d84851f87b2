/**
 * `SqlAuthorizationStore`: the conformance suite every `AuthorizationStore` runs, on PostgreSQL,
 * MariaDB and SQLite, two instances (two connection pools, or two connections to one SQLite
 * file) sharing the table `migrate` made; then the authorization server's races over it (a code
 * exchanged by 30 requests at once, a refresh token used by 30 at once) and a database that was
 * never migrated.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAuthorizationStoreConformance } from "@latchkey/adapter-test/authorization-store";
import { serviceAvailable, toleratesForcedDrop } from "@latchkey/adapter-test/services";
import { type AnyKysely, migrate, SqlAuthorizationStore } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  codeFor,
  exchange,
  makeApp,
  publicClient,
  send,
  signedInBrowser,
  tokensFor,
} from "../../core/test/authorization-server/support.js";

const database = `latchkey_authz_${process.pid}_${randomBytes(3).toString("hex")}`;
const sqliteDir = mkdtempSync(join(tmpdir(), "latchkey-authz-"));

interface Backend {
  name: string;
  up: () => Promise<boolean>;
  /** Two handles on one migrated database, and how to drop it. */
  open: () => Promise<{ dbs: [AnyKysely, AnyKysely]; drop: () => Promise<void> }>;
}

const backends: Backend[] = [
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

for (const backend of backends) {
  const available = await backend.up();
  runAuthorizationStoreConformance(
    `SqlAuthorizationStore (${backend.name})`,
    async () => {
      const { dbs, drop } = await backend.open();
      return { stores: [SqlAuthorizationStore(dbs[0]), SqlAuthorizationStore(dbs[1])], teardown: drop };
    },
    { skip: !available },
  );

  describe.skipIf(!available)(`the authorization server over SqlAuthorizationStore (${backend.name})`, () => {
    it("exchanges a code once, and moves a refresh family on once, when 30 requests arrive at once", async () => {
      const { dbs, drop } = await backend.open();
      try {
        const app = await makeApp({ store: SqlAuthorizationStore(dbs[0]), signing: { algorithms: ["ES256"] } });
        const client = await publicClient(app);
        const jar = await signedInBrowser(app);
        const { code, verifier } = await codeFor(app, client.clientId, jar);
        const exchanges = await Promise.all(
          Array.from({ length: 30 }, () => exchange(app, client.clientId, code, verifier)),
        );
        expect(exchanges.filter((r) => r.status === 200)).toHaveLength(1);
        const tokens = await tokensFor(app, client.clientId, jar);
        // The other instance, on its own pool, sees the same records.
        const other = { ...app, server: (await makeApp({ store: SqlAuthorizationStore(dbs[1]) })).server };
        const refreshes = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            send(i % 2 ? app : other, "/oauth/token", {
              form: {
                grant_type: "refresh_token",
                refresh_token: tokens.refresh_token ?? "",
                client_id: client.clientId,
              },
            }),
          ),
        );
        expect(refreshes.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      } finally {
        await drop();
      }
    });
  });
}

describe("SqlAuthorizationStore on a database never migrated", () => {
  it("fails naming the fix: latchkey migrate", async () => {
    const db = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    await expect(SqlAuthorizationStore(db).get("client", "x")).rejects.toThrow(/npx latchkey migrate/);
    await db.destroy();
  });
});
