import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type RecordKind, runAdapterConformance } from "@latchkey/adapter-test";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { type AnyKysely, type DialectName, defaultTableNames, migrate, SqlAdapter } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const postgresUp = await serviceAvailable("PostgreSQL", 5432);
const mariadbUp = await serviceAvailable("MariaDB", 3306);
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const run = promisify(execFile);

interface TestDatabase {
  db: AnyKysely;
  /** The URL of the database, for the CLI. */
  url: string;
  /** What `migrate` did on the empty database. */
  migrated: string[];
  drop(): Promise<void>;
}

const databaseName = () => `latchkey_test_${randomBytes(6).toString("hex")}`;

/** A fresh, migrated database per run; `drop` destroys it. */
const databases: Record<DialectName, () => Promise<TestDatabase>> = {
  async sqlite() {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-sql-"));
    const file = join(dir, "auth.db");
    const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database: new Database(file) }) });
    const migrated = await migrate(db);
    return {
      db,
      url: `sqlite:${file}`,
      migrated,
      async drop() {
        await db.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  async postgres() {
    const name = databaseName();
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const pool = new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database: name, max: 10 });
    // DROP ... WITH (FORCE) at teardown can reach a connection that is still closing; that one
    // error (57P01, terminated by the administrator) is expected. Any other still fails the run.
    pool.on("error", (error) => {
      if ((error as { code?: string }).code !== "57P01") throw error;
    });
    const db: AnyKysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
    const migrated = await migrate(db);
    return {
      db,
      url: `postgres://postgres@127.0.0.1:5432/${name}`,
      migrated,
      async drop() {
        await db.destroy();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
    };
  },
  async mysql() {
    const name = databaseName();
    const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
    await admin.query(`CREATE DATABASE ${name}`);
    // mysql2's default time zone ("local"): dates must round-trip with it too.
    const pool = mysql.createPool({ host: "127.0.0.1", port: 3306, user: "root", database: name, connectionLimit: 10 });
    const db: AnyKysely = new Kysely({ dialect: new MysqlDialect({ pool }) });
    const migrated = await migrate(db);
    return {
      db,
      url: `mysql://root@127.0.0.1:3306/${name}`,
      migrated,
      async drop() {
        await db.destroy();
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        await admin.end();
      },
    };
  },
};

function probe(db: AnyKysely) {
  const t = defaultTableNames;
  const keys: Record<RecordKind, [string, string[]]> = {
    user: [t.users, ["id"]],
    account: [t.accounts, ["provider", "providerAccountId"]],
    session: [t.sessions, ["sessionToken"]],
    verificationToken: [t.verificationTokens, ["identifier", "token"]],
    authenticator: [t.authenticators, ["credentialID"]],
  };
  const count = async (table: string, columns: string[], values: string[]) => {
    let query = db.selectFrom(table).select((eb) => eb.fn.countAll().as("n"));
    for (const [i, column] of columns.entries()) query = query.where(column, "=", values[i]);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  return {
    async exists(kind: RecordKind, ...key: string[]) {
      const [table, columns] = keys[kind];
      return (await count(table, columns, key)) > 0;
    },
    async recordsOf(userId: string) {
      let total = await count(t.users, ["id"], [userId]);
      for (const table of [t.accounts, t.sessions, t.authenticators]) total += await count(table, ["userId"], [userId]);
      return total;
    },
  };
}

const dialects: { dialect: DialectName; label: string; up: boolean }[] = [
  { dialect: "sqlite", label: "SQLite (temp file)", up: true },
  { dialect: "postgres", label: "PostgreSQL at 127.0.0.1:5432", up: postgresUp },
  { dialect: "mysql", label: "MariaDB at 127.0.0.1:3306", up: mariadbUp },
];

for (const { dialect, label, up } of dialects) {
  runAdapterConformance(
    `SqlAdapter (${label})`,
    async () => {
      const database = await databases[dialect]();
      return { adapter: SqlAdapter(database.db), db: probe(database.db), teardown: () => database.drop() };
    },
    { skip: !up },
  );

  describe.skipIf(!up)(`SqlAdapter schema and storage (${label})`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await databases[dialect]();
    });
    afterAll(async () => {
      await database?.drop();
    });

    it("migrate creates the five tables and eight indexes, then nothing on a second run", async () => {
      expect(database.migrated.filter((line) => line.startsWith("created table"))).toEqual([
        "created table users",
        "created table accounts",
        "created table sessions",
        "created table verification_tokens",
        "created table authenticators",
      ]);
      expect(database.migrated.filter((line) => line.includes("index"))).toEqual([
        "created unique index users_email_key on users (email)",
        "created unique index accounts_provider_providerAccountId_key on accounts (provider, providerAccountId)",
        "created index accounts_userId_idx on accounts (userId)",
        "created unique index sessions_sessionToken_key on sessions (sessionToken)",
        "created index sessions_userId_idx on sessions (userId)",
        "created unique index verification_tokens_identifier_token_key on verification_tokens (identifier, token)",
        "created unique index authenticators_credentialID_key on authenticators (credentialID)",
        "created index authenticators_userId_idx on authenticators (userId)",
      ]);
      expect(await migrate(database.db)).toEqual([]);
    });

    it("uses Auth.js's column names", async () => {
      const tables = await database.db.introspection.getTables();
      const columns = (name: string) =>
        tables
          .find((table) => table.name === name)
          ?.columns.map((column) => column.name)
          .sort();
      expect(columns("users")).toEqual(["email", "emailVerified", "id", "image", "name"]);
      expect(columns("accounts")).toEqual(
        [
          "userId",
          "type",
          "provider",
          "providerAccountId",
          "refresh_token",
          "access_token",
          "expires_at",
          "token_type",
          "scope",
          "id_token",
          "session_state",
        ].sort(),
      );
      expect(columns("sessions")).toEqual(["expires", "sessionToken", "userId"]);
      expect(columns("verification_tokens")).toEqual(["expires", "identifier", "token"]);
      expect(columns("authenticators")).toEqual(
        [
          "credentialID",
          "userId",
          "providerAccountId",
          "credentialPublicKey",
          "counter",
          "credentialDeviceType",
          "credentialBackedUp",
          "transports",
        ].sort(),
      );
    });

    it("stores dates and booleans in the dialect's own form", async () => {
      const adapter = SqlAdapter(database.db);
      const emailVerified = new Date("2024-02-03T04:05:06.789Z");
      const id = randomUUID();
      await adapter.createUser?.({ id, email: `${id}@example.com`, emailVerified });
      await adapter.createAuthenticator?.({
        userId: id,
        credentialID: id,
        credentialPublicKey: "key",
        counter: 1,
        credentialDeviceType: "singleDevice",
        credentialBackedUp: true,
        providerAccountId: id,
      });
      const user = await database.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      const authenticator = await database.db
        .selectFrom("authenticators")
        .selectAll()
        .where("credentialID", "=", id)
        .executeTakeFirstOrThrow();
      if (dialect === "sqlite") {
        expect(user.emailVerified).toBe("2024-02-03T04:05:06.789Z");
        expect(authenticator.credentialBackedUp).toBe(1);
      } else {
        expect(user.emailVerified).toBeInstanceOf(Date);
        expect((user.emailVerified as Date).getTime()).toBe(emailVerified.getTime());
        expect(
          dialect === "postgres" ? authenticator.credentialBackedUp : Boolean(authenticator.credentialBackedUp),
        ).toBe(true);
      }
    });

    it("rejects a second row with a unique key, through the database's index", async () => {
      const token = { identifier: "a@example.com", token: randomUUID(), expires: new Date(Date.now() + 60_000) };
      const adapter = SqlAdapter(database.db);
      await adapter.createVerificationToken?.(token);
      await expect(async () => adapter.createVerificationToken?.(token)).rejects.toThrow();
    });

    it("the latchkey migrate CLI reports an up-to-date schema", async () => {
      const { stdout } = await run(process.execPath, [cli, "migrate", database.url]);
      expect(stdout).toBe("schema is up to date: nothing to do\n");
    });
  });
}

describe("SqlAdapter with other table names (SQLite)", () => {
  it("migrates and uses the tables it is given, such as the Auth.js Kysely adapter's", async () => {
    const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    const tables = { users: "User", accounts: "Account", sessions: "Session", verificationTokens: "VerificationToken" };
    const done = await migrate(db, { tables });
    expect(done).toContain("created table User");
    expect(done).toContain("created table authenticators");
    const adapter = SqlAdapter(db, { tables });
    await adapter.createUser?.({ id: "u1", email: "ada@example.com", emailVerified: null });
    await adapter.createSession?.({ sessionToken: "s1", userId: "u1", expires: new Date(Date.now() + 60_000) });
    expect(await db.selectFrom("User").select("email").execute()).toEqual([{ email: "ada@example.com" }]);
    expect((await adapter.getSessionAndUser?.("s1"))?.user.id).toBe("u1");
    await db.destroy();
  });
});

describe("latchkey migrate (CLI)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("creates a SQLite database from a sqlite: URL, prints what it did, and is idempotent", async () => {
    const url = `sqlite:${join(dir, "cli.db")}`;
    const first = await run(process.execPath, [cli, "migrate", url]);
    expect(first.stdout).toContain("created table users\n");
    expect(first.stdout).toContain("created unique index users_email_key on users (email)\n");
    expect(first.stdout).toContain("done: 13 change(s)\n");
    const second = await run(process.execPath, [cli, "migrate", url]);
    expect(second.stdout).toBe("schema is up to date: nothing to do\n");
  });

  it("takes a plain file path as SQLite", async () => {
    const { stdout } = await run(process.execPath, [cli, "migrate", join(dir, "plain.db")]);
    expect(stdout).toContain("created table sessions\n");
  });

  it("fails with usage without a URL, and with a message for an unknown scheme", async () => {
    await expect(run(process.execPath, [cli, "migrate"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Usage: latchkey migrate <database-url>"),
    });
    await expect(run(process.execPath, [cli, "migrate", "redis://127.0.0.1:6379"])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("unsupported database URL scheme"),
    });
  });
});
