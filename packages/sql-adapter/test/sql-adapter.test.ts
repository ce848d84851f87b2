import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type RecordKind, runAdapterConformance } from "@latchkey/adapter-test";
import { auditStoreOf, runAuditStoreConformance } from "@latchkey/adapter-test/audit-store";
import { runRefreshStoreConformance } from "@latchkey/adapter-test/refresh-store";
import { serviceAvailable, toleratesForcedDrop } from "@latchkey/adapter-test/services";
import {
  type AnyKysely,
  type DialectName,
  defaultTableNames,
  migrate,
  openDatabase,
  SqlAdapter,
  SqlRefreshStore,
} from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from "kysely";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTcpProxy } from "../../core/test/security/tcp-proxy.js";

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
    const pool = toleratesForcedDrop(
      new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database: name, max: 10 }),
    );
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

    it("migrate creates the nineteen tables and twenty-five indexes, then nothing on a second run", async () => {
      expect(database.migrated.filter((line) => line.startsWith("created table"))).toEqual([
        "created table users",
        "created table accounts",
        "created table sessions",
        "created table verification_tokens",
        "created table authenticators",
        "created table second_factors",
        "created table backup_codes",
        "created table audit_events",
        "created table refresh_locks",
        "created table revocations",
        "created table authorization_records",
        "created table organizations",
        "created table organization_members",
        "created table organization_invitations",
        "created table organization_teams",
        "created table organization_team_members",
        "created table api_keys",
        "created table admin_roles",
        "created table admin_bans",
      ]);
      expect(database.migrated.filter((line) => line.includes("index"))).toEqual([
        "created unique index users_email_key on users (email)",
        "created unique index accounts_provider_providerAccountId_key on accounts (provider, providerAccountId)",
        "created index accounts_userId_idx on accounts (userId)",
        "created unique index sessions_sessionToken_key on sessions (sessionToken)",
        "created index sessions_userId_idx on sessions (userId)",
        "created unique index verification_tokens_identifier_token_key on verification_tokens (identifier, token)",
        "created index verification_tokens_expires_idx on verification_tokens (expires)",
        "created unique index authenticators_credentialID_key on authenticators (credentialID)",
        "created index authenticators_userId_idx on authenticators (userId)",
        "created index audit_events_at_idx on audit_events (at)",
        "created index audit_events_userId_idx on audit_events (userId)",
        "created index refresh_locks_expires_idx on refresh_locks (expires)",
        "created index revocations_changed_idx on revocations (changedAt)",
        "created index revocations_expires_idx on revocations (expiresAt)",
        "created index authorization_records_user_idx on authorization_records (userId)",
        "created index authorization_records_client_idx on authorization_records (clientId)",
        "created index authorization_records_grant_idx on authorization_records (grantId)",
        "created index authorization_records_expires_idx on authorization_records (expiresAt)",
        "created index organization_members_user_idx on organization_members (userId)",
        "created index organization_invitations_organization_idx on organization_invitations (organizationId)",
        "created index organization_invitations_expires_idx on organization_invitations (expiresAt)",
        "created index organization_team_members_organization_idx on organization_team_members (organizationId)",
        "created index organization_team_members_user_idx on organization_team_members (userId)",
        "created index api_keys_user_idx on api_keys (userId)",
        "created index api_keys_organization_idx on api_keys (organizationId)",
      ]);
      expect(await migrate(database.db)).toEqual([]);
    });

    it("a fresh adapter's first session statement may run inside a transaction: the column probe never waits for the connection the transaction holds (SQLite has one)", async () => {
      const adapter = SqlAdapter(database.db);
      const id = randomUUID();
      const token = randomBytes(32).toString("hex");
      const listed = await adapter.transaction?.(async (tx) => {
        await tx.createUser?.({ id, email: `${id}@example.com`, emailVerified: null });
        await tx.createSession?.({ sessionToken: token, userId: id, expires: new Date(Date.now() + 60_000) });
        return (await tx.listSessions?.(id))?.map((s) => s.sessionToken);
      });
      expect(listed).toEqual([token]);
      expect((await adapter.listSessions?.(id))?.map((s) => s.sessionToken)).toEqual([token]);
    });

    it("statements compiled once serve every later call with its own values, inside a transaction on its connection", async () => {
      const adapter = SqlAdapter(database.db);
      const ids = [randomUUID(), randomUUID()];
      for (const id of ids) {
        await adapter.createUser?.({ id, email: `${id}@example.com`, emailVerified: null });
        await adapter.linkAccount?.({
          userId: id,
          type: "credentials",
          provider: "compiled-once",
          providerAccountId: id,
        });
      }
      // The same statement, compiled at the first call, finds each user by its own values.
      for (const id of ids) {
        expect((await adapter.getUserByAccount?.({ provider: "compiled-once", providerAccountId: id }))?.id).toBe(id);
        expect((await adapter.getUser?.(id))?.email).toBe(`${id}@example.com`);
        expect((await adapter.getUserByEmail?.(`${id}@example.com`))?.id).toBe(id);
      }
      expect(await adapter.getUserByAccount?.({ provider: "compiled-once", providerAccountId: "nobody" })).toBeNull();
      // A transaction shares the compiled statements and runs them on its own connection: it reads
      // its uncommitted writes, and after a rollback nothing of them is left.
      const inside = randomUUID();
      const rolledBack = new Error("roll back");
      await expect(
        adapter.transaction?.(async (tx) => {
          await tx.createUser?.({ id: inside, email: `${inside}@example.com`, emailVerified: null });
          await tx.linkAccount?.({
            userId: inside,
            type: "credentials",
            provider: "compiled-once",
            providerAccountId: inside,
          });
          expect((await tx.getUserByAccount?.({ provider: "compiled-once", providerAccountId: inside }))?.id).toBe(
            inside,
          );
          const token = randomBytes(32).toString("hex");
          await tx.createSession?.({ sessionToken: token, userId: inside, expires: new Date(Date.now() + 60_000) });
          expect((await tx.listSessions?.(inside))?.map((s) => s.sessionToken)).toEqual([token]);
          throw rolledBack;
        }),
      ).rejects.toBe(rolledBack);
      expect(await adapter.getUserByAccount?.({ provider: "compiled-once", providerAccountId: inside })).toBeNull();
      expect(await adapter.listSessions?.(inside)).toEqual([]);
      // Sessions with and without metadata are two statements, each with its own columns.
      const plain = randomBytes(32).toString("hex");
      const described = randomBytes(32).toString("hex");
      await adapter.createSession?.({
        sessionToken: plain,
        userId: ids[0] as string,
        expires: new Date(Date.now() + 60_000),
      });
      await adapter.createSession?.({
        sessionToken: described,
        userId: ids[0] as string,
        expires: new Date(Date.now() + 60_000),
        device: "Firefox on Linux",
        amr: ["pwd"],
      });
      const listed = await adapter.listSessions?.(ids[0] as string);
      expect(listed?.map((s) => [s.sessionToken, s.device ?? null, s.amr ?? null]).sort()).toEqual(
        [
          [plain, null, null],
          [described, "Firefox on Linux", ["pwd"]],
        ].sort(),
      );
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
      expect(columns("sessions")).toEqual(
        ["sessionToken", "userId", "expires", "createdAt", "lastSeenAt", "device", "clientAddress", "amr"].sort(),
      );
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

    it("expired verification tokens are swept: 1,000 anonymous creations, 50 at a time, leave only live rows", async () => {
      const adapter = SqlAdapter(database.db);
      const count = async () =>
        Number(
          (
            await database.db
              .selectFrom("verification_tokens")
              .select((eb) => eb.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        );
      await database.db.deleteFrom("verification_tokens").execute();
      // As anonymous WebAuthn options requests leave them once their 15 minutes are over.
      for (let batch = 0; batch < 20; batch++) {
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, (_, i) =>
            adapter.createVerificationToken?.({
              identifier: "webauthn-challenge:passkey",
              token: randomBytes(32).toString("hex"),
              expires: new Date(Date.now() - 1 - batch * 50 - i),
            }),
          ),
        );
        expect(results.filter((result) => result.status === "rejected")).toEqual([]);
        // At most the rows of the batches whose sweeps overlapped: never the 50 × batch made so far.
        expect(await count()).toBeLessThanOrEqual(100);
      }
      const live = { identifier: "ada@example.com", token: randomUUID(), expires: new Date(Date.now() + 60_000) };
      await adapter.createVerificationToken?.(live);
      expect(await count()).toBe(1);
      expect(await adapter.useVerificationToken?.(live)).toEqual(live);
    });

    it("a backlog of expired tokens drains in bounded steps of 500 per creation", async () => {
      const adapter = SqlAdapter(database.db);
      await database.db.deleteFrom("verification_tokens").execute();
      const backlog = 3000;
      const documentedBatch = 500;
      const past = Date.now() - 3_600_000;
      for (let offset = 0; offset < backlog; offset += 500) {
        await database.db
          .insertInto("verification_tokens")
          .values(
            Array.from({ length: 500 }, (_, i) => {
              const expires = new Date(past - offset - i);
              return {
                identifier: "webauthn-challenge:passkey",
                token: `old-${offset + i}`,
                expires: dialect === "sqlite" ? expires.toISOString() : expires,
              };
            }),
          )
          .execute();
      }
      const rows = () =>
        database.db.selectFrom("verification_tokens").select(["token"]).execute() as Promise<{ token: string }[]>;
      const created: string[] = [];
      for (let step = 1; step <= backlog / documentedBatch; step++) {
        const token = randomUUID();
        created.push(token);
        await adapter.createVerificationToken?.({
          identifier: "ada@example.com",
          token,
          expires: new Date(Date.now() + 60_000),
        });
        expect((await rows()).length).toBe(backlog - step * documentedBatch + step);
      }
      expect((await rows()).map((row) => row.token).sort()).toEqual(created.sort());
    });

    it("rule: a second factor's time step moves on once under 40 concurrent uses, a backup code works once", async () => {
      const adapter = SqlAdapter(database.db);
      const userId = `u-${randomUUID()}`;
      await adapter.setSecondFactor?.({ userId, secret: "sealed", active: true, lastStep: 100 }, ["h1", "h2"]);
      const steps = await Promise.all(
        Array.from({ length: 40 }, () => adapter.useSecondFactorStep?.(userId, 100, 101)),
      );
      expect(steps.filter(Boolean).length).toBe(1);
      expect(await adapter.useSecondFactorStep?.(userId, 100, 102)).toBe(false);
      const codes = await Promise.all(Array.from({ length: 40 }, () => adapter.useBackupCode?.(userId, "h1")));
      expect(codes.filter(Boolean).length).toBe(1);
      expect(await adapter.getSecondFactor?.(userId)).toEqual({
        userId,
        secret: "sealed",
        active: true,
        lastStep: 101,
        backupCodesLeft: 1,
        generation: 0,
      });
      await adapter.setSecondFactor?.({ userId, secret: "sealed", active: false, lastStep: 0 }, []);
      // An enrolment not yet confirmed cannot be used to sign in.
      expect(await adapter.useSecondFactorStep?.(userId, 0, 1)).toBe(false);
      await adapter.deleteSecondFactor?.(userId);
      expect(await adapter.getSecondFactor?.(userId)).toBeNull();
    });

    it("rule: 40 concurrent ends of pending sign-ins count 40, leave the time step, and survive a rewrite of the record", async () => {
      const adapter = SqlAdapter(database.db);
      const userId = `u-${randomUUID()}`;
      await adapter.endSecondFactorSignIns?.(userId);
      expect(await adapter.getSecondFactor?.(userId)).toBeNull();
      await adapter.setSecondFactor?.({ userId, secret: "sealed", active: true, lastStep: 100 }, []);
      await Promise.all(Array.from({ length: 40 }, () => adapter.endSecondFactorSignIns?.(userId)));
      expect(await adapter.getSecondFactor?.(userId)).toMatchObject({ lastStep: 100, generation: 40 });
      await adapter.setSecondFactor?.({ userId, secret: "resealed", active: true, lastStep: 101 });
      expect(await adapter.getSecondFactor?.(userId)).toMatchObject({ lastStep: 101, generation: 40 });
      await adapter.deleteSecondFactor?.(userId);
    });

    it("migrate adds the generation column to a second-factor table made before it, 0 on its rows", async () => {
      const table = `second_factors_${randomBytes(4).toString("hex")}`;
      const { db } = database;
      await db.schema
        .createTable(table)
        .addColumn("userId", "varchar(255)", (col) => col.primaryKey())
        .addColumn("secret", "text", (col) => col.notNull())
        .addColumn("active", dialect === "postgres" ? "boolean" : "integer", (col) => col.notNull())
        .addColumn("lastStep", "bigint", (col) => col.notNull())
        .execute();
      try {
        await db
          .insertInto(table)
          .values({ userId: "u-old", secret: "sealed", active: dialect === "postgres" ? true : 1, lastStep: 7 })
          .execute();
        const done = await migrate(db, { tables: { secondFactors: table } });
        expect(done).toContain(`added column ${table}.generation`);
        expect(await migrate(db, { tables: { secondFactors: table } })).not.toContain(
          `added column ${table}.generation`,
        );
        const adapter = SqlAdapter(db, { tables: { secondFactors: table } });
        expect(await adapter.getSecondFactor?.("u-old")).toMatchObject({ lastStep: 7, generation: 0 });
        await adapter.endSecondFactorSignIns?.("u-old");
        expect(await adapter.getSecondFactor?.("u-old")).toMatchObject({ lastStep: 7, generation: 1 });
      } finally {
        await db.schema.dropTable(table).execute();
      }
    });

    it("a sessions table made by Auth.js (no metadata columns) keeps signing in, and migrate adds the columns", async () => {
      // As the Auth.js Kysely adapter's schema makes it: three columns.
      const table = `authjs_sessions_${randomBytes(4).toString("hex")}`;
      const type = dialect === "mysql" ? "varchar(255)" : "text";
      const date = dialect === "sqlite" ? "text" : dialect === "postgres" ? "timestamptz" : "datetime(3)";
      await sql`create table ${sql.table(table)} (${sql.ref("sessionToken")} ${sql.raw(type)} not null,
        ${sql.ref("userId")} ${sql.raw(type)} not null, ${sql.ref("expires")} ${sql.raw(date)} not null)`.execute(
        database.db,
      );
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      try {
        const adapter = SqlAdapter(database.db, { tables: { sessions: table } });
        const id = randomUUID();
        const user = await adapter.createUser?.({ id, email: `${id}@example.com`, emailVerified: null });
        const meta = {
          createdAt: new Date(),
          lastSeenAt: new Date(),
          device: "Chrome on Android",
          clientAddress: "192.0.2.7",
        };
        const before = { sessionToken: randomUUID(), userId: id, expires: new Date(Date.now() + 60_000) };
        // 20 sign-ins at once before the migration: every one works, the probe warns once.
        const created = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            adapter.createSession?.({ ...before, sessionToken: i === 0 ? before.sessionToken : randomUUID(), ...meta }),
          ),
        );
        expect(created[0]).toEqual(before);
        expect(await adapter.getSessionAndUser?.(before.sessionToken)).toEqual({ session: before, user });
        expect(await adapter.updateSession?.({ sessionToken: before.sessionToken, lastSeenAt: new Date() })).toEqual(
          before,
        );
        expect((await adapter.listSessions?.(id))?.length).toBe(20);
        expect(warn.mock.calls.filter(([line]) => String(line).includes("latchkey migrate"))).toHaveLength(1);

        const done = await migrate(database.db, { tables: { sessions: table } });
        for (const column of ["createdAt", "lastSeenAt", "device", "clientAddress"])
          expect(done).toContain(`added column ${table}.${column}`);
        expect(await migrate(database.db, { tables: { sessions: table } })).toEqual([]);

        // The running adapter checks again after 30 s; a new one at once.
        vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 31_000 });
        const after = { sessionToken: randomUUID(), userId: id, expires: new Date(Date.now() + 60_000), ...meta };
        await adapter.createSession?.(after);
        const listed = await adapter.listSessions?.(id);
        expect(listed?.find((session) => session.sessionToken === after.sessionToken)).toEqual(after);
        expect(listed?.find((session) => session.sessionToken === before.sessionToken)).toEqual(before);
      } finally {
        vi.useRealTimers();
        warn.mockRestore();
      }
    });

    it("a session records how the user signed in (amr), and one without amr has none", async () => {
      const adapter = SqlAdapter(database.db);
      const user = await adapter.createUser?.({
        id: randomUUID(),
        email: `${randomUUID()}@example.com`,
        emailVerified: null,
      });
      const userId = user?.id as string;
      const expires = new Date(Date.now() + 60_000);
      const two = await adapter.createSession?.({
        sessionToken: `s-${randomUUID()}`,
        userId,
        expires,
        amr: ["pwd", "otp"],
      });
      // createSession answers Auth.js's shape; the amr is stored and read back.
      expect(two?.amr).toBeUndefined();
      const read = await adapter.getSessionAndUser?.(two?.sessionToken as string);
      expect(read?.session.amr).toEqual(["pwd", "otp"]);
      const one = await adapter.createSession?.({ sessionToken: `s-${randomUUID()}`, userId, expires });
      const plain = await adapter.getSessionAndUser?.(one?.sessionToken as string);
      expect(plain?.session).toEqual({ sessionToken: one?.sessionToken, userId, expires: one?.expires });
    });

    it("migrate adds the amr column to a sessions table made before it, keeping its rows", async () => {
      const table = `sessions_${randomBytes(4).toString("hex")}`;
      const { db } = database;
      await db.schema
        .createTable(table)
        .addColumn("sessionToken", "varchar(255)", (col) => col.notNull())
        .addColumn("userId", "varchar(255)", (col) => col.notNull())
        .addColumn("expires", dialect === "sqlite" ? "text" : "timestamp", (col) => col.notNull())
        .execute();
      try {
        await sql`insert into ${sql.table(table)} (${sql.ref("sessionToken")}, ${sql.ref("userId")}, ${sql.ref("expires")}) values ('old', 'u-old', ${dialect === "sqlite" ? new Date(Date.now() + 60_000).toISOString() : new Date(Date.now() + 60_000)})`.execute(
          db,
        );
        const done = await migrate(db, { tables: { sessions: table } });
        expect(done).toContain(`added column ${table}.amr`);
        expect(await migrate(db, { tables: { sessions: table } })).not.toContain(`added column ${table}.amr`);
        const rows = await db.selectFrom(table).select(["sessionToken", "amr"]).execute();
        expect(rows).toEqual([{ sessionToken: "old", amr: null }]);
      } finally {
        await db.schema.dropTable(table).execute();
      }
    });

    it("latchkey migrate adds the audit table to a database made before it, keeping the other rows", async () => {
      const { db } = database;
      const adapter = SqlAdapter(db);
      const id = randomUUID();
      await adapter.createUser?.({ id, email: `${id}@example.com`, emailVerified: null });
      await db.schema.dropTable("audit_events").execute();
      await expect(
        adapter.createAuditEvent?.({ type: "password.changed", at: new Date(), userId: id }),
      ).rejects.toThrow();
      const { stdout } = await run(process.execPath, [cli, "migrate", database.url]);
      expect(stdout).toContain("created table audit_events\n");
      expect(stdout).toContain("created index audit_events_at_idx on audit_events (at)\n");
      expect(stdout).not.toContain("created table users");
      expect((await adapter.getUser?.(id))?.id).toBe(id);
      const at = new Date("2026-01-02T03:04:05.678Z");
      await adapter.createAuditEvent?.({ type: "password.changed", at, userId: id });
      expect(await adapter.listAuditEvents?.({ userId: id })).toEqual([
        { type: "password.changed", at, userId: id, id: expect.any(String) },
      ]);
    });

    it("the latchkey migrate CLI reports an up-to-date schema", async () => {
      const { stdout } = await run(process.execPath, [cli, "migrate", database.url]);
      expect(stdout).toBe("schema is up to date: nothing to do\n");
    });
  });
}

describe.skipIf(!mariadbUp)(
  "SqlAdapter on MariaDB: keys of tables made by the previous migration compare bytes after migrate",
  () => {
    let database: TestDatabase;
    let name: string;
    beforeAll(async () => {
      database = await databases.mysql();
      name = database.url.slice(database.url.lastIndexOf("/") + 1);
      // The tables as the previous migration made them: VARCHAR(255) keys in the server's default,
      // case-, accent- and trailing-space-insensitive collation.
      const db = database.db;
      for (const table of ["authenticators", "verification_tokens", "sessions", "accounts", "users"]) {
        await db.schema.dropTable(table).execute();
      }
      const key = sql.raw("varchar(255)");
      const fk = (table: string) =>
        [`${table}_userId_fkey`, ["userId"], "users", ["id"]] as [string, ["userId"], string, ["id"]];
      await db.schema
        .createTable("users")
        .addColumn("id", key, (col) => col.primaryKey())
        .addColumn("name", "text")
        .addColumn("email", key)
        .addColumn("emailVerified", sql.raw("datetime(3)"))
        .addColumn("image", "text")
        .execute();
      await db.schema
        .createTable("accounts")
        .addColumn("userId", key, (col) => col.notNull())
        .addColumn("type", key, (col) => col.notNull())
        .addColumn("provider", key, (col) => col.notNull())
        .addColumn("providerAccountId", key, (col) => col.notNull())
        .addColumn("refresh_token", "text")
        .addColumn("access_token", "text")
        .addColumn("expires_at", "bigint")
        .addColumn("token_type", "text")
        .addColumn("scope", "text")
        .addColumn("id_token", "text")
        .addColumn("session_state", "text")
        .addForeignKeyConstraint(...fk("accounts"), (c) => c.onDelete("cascade"))
        .execute();
      await db.schema
        .createTable("sessions")
        .addColumn("sessionToken", key, (col) => col.notNull())
        .addColumn("userId", key, (col) => col.notNull())
        .addColumn("expires", sql.raw("datetime(3)"), (col) => col.notNull())
        .addForeignKeyConstraint(...fk("sessions"), (c) => c.onDelete("cascade"))
        .execute();
      await db.schema
        .createTable("verification_tokens")
        .addColumn("identifier", key, (col) => col.notNull())
        .addColumn("token", key, (col) => col.notNull())
        .addColumn("expires", sql.raw("datetime(3)"), (col) => col.notNull())
        .execute();
      await db.schema
        .createTable("authenticators")
        .addColumn("credentialID", key, (col) => col.notNull())
        .addColumn("userId", key, (col) => col.notNull())
        .addColumn("providerAccountId", key, (col) => col.notNull())
        .addColumn("credentialPublicKey", "text", (col) => col.notNull())
        .addColumn("counter", "bigint", (col) => col.notNull())
        .addColumn("credentialDeviceType", key, (col) => col.notNull())
        .addColumn("credentialBackedUp", "boolean", (col) => col.notNull())
        .addColumn("transports", "text")
        .addForeignKeyConstraint(...fk("authenticators"), (c) => c.onDelete("cascade"))
        .execute();
      await db.schema
        .createIndex("accounts_provider_providerAccountId_key")
        .on("accounts")
        .columns(["provider", "providerAccountId"])
        .unique()
        .execute();
      await db.schema.createIndex("sessions_sessionToken_key").on("sessions").column("sessionToken").unique().execute();
    });
    afterAll(async () => {
      await database?.drop();
    });

    const attacks = {
      account: { provider: "corp-oidc", providerAccountId: "ÀBC-001 " },
      sessionToken: "Session-Token-1 ",
      credentialID: "CRED-1",
      email: "ÀDA@EXAMPLE.COM ",
      token: { identifier: "ADA@example.com", token: "Token-1 " },
    };

    async function seed() {
      const adapter = SqlAdapter(database.db);
      const id = `user-${randomUUID()}`;
      await adapter.createUser?.({ id, email: "ada@example.com", emailVerified: null });
      await adapter.linkAccount?.({ userId: id, type: "oidc", provider: "corp-oidc", providerAccountId: "abc-001" });
      await adapter.createSession?.({
        sessionToken: "session-token-1",
        userId: id,
        expires: new Date(Date.now() + 60_000),
      });
      await adapter.createAuthenticator?.({
        credentialID: "cred-1",
        userId: id,
        providerAccountId: "cred-1",
        credentialPublicKey: "pQECAyYgASFYIDx2",
        counter: 0,
        credentialDeviceType: "singleDevice",
        credentialBackedUp: false,
        transports: null,
      });
      return id;
    }

    it("migrate changes every key column to a NO PAD byte collation, keeping data and foreign keys", async () => {
      const id = await seed();
      const adapter = SqlAdapter(database.db);
      // Before: the server's collation lets an attacker's look-alike keys find the victim's records.
      expect((await adapter.getUserByAccount?.(attacks.account))?.id).toBe(id);
      expect((await adapter.getSessionAndUser?.(attacks.sessionToken))?.user.id).toBe(id);
      expect((await adapter.getAuthenticator?.(attacks.credentialID))?.userId).toBe(id);
      expect((await adapter.getUserByEmail?.(attacks.email))?.id).toBe(id);

      const done = await migrate(database.db);
      expect(done).toContain("changed users.id, users.email to collation utf8mb4_nopad_bin");
      expect(done).toContain(
        "changed accounts.userId, accounts.type, accounts.provider, accounts.providerAccountId to collation utf8mb4_nopad_bin",
      );
      expect(done).toContain("changed sessions.sessionToken, sessions.userId to collation utf8mb4_nopad_bin");
      expect(done).toContain(
        "changed verification_tokens.identifier, verification_tokens.token to collation utf8mb4_nopad_bin",
      );
      for (const table of ["accounts", "sessions", "authenticators"]) {
        expect(done).toContain(`added foreign key ${table}_userId_fkey on ${table} (userId) back`);
      }
      const { rows } = await sql<{
        col: string;
        coll: string | null;
      }>`select concat(table_name, '.', column_name) as col,
        collation_name as coll from information_schema.columns
      where table_schema = ${name} and data_type = 'varchar'`.execute(database.db);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((row) => row.coll !== "utf8mb4_nopad_bin")).toEqual([]);
      expect(await migrate(database.db)).toEqual([]);

      // After: only the exact keys find anything.
      expect((await adapter.getUserByAccount?.({ provider: "corp-oidc", providerAccountId: "abc-001" }))?.id).toBe(id);
      expect(await adapter.getUserByAccount?.(attacks.account)).toBeNull();
      expect(await adapter.getSessionAndUser?.(attacks.sessionToken)).toBeNull();
      expect(await adapter.getAuthenticator?.(attacks.credentialID)).toBeNull();
      expect(await adapter.getUserByEmail?.(attacks.email)).toBeNull();
      const token = { identifier: "ada@example.com", token: "token-1", expires: new Date(Date.now() + 60_000) };
      await adapter.createVerificationToken?.(token);
      expect(await adapter.useVerificationToken?.(attacks.token)).toBeNull();
      expect(await adapter.useVerificationToken?.(token)).toEqual(token);
      // The foreign keys still cascade.
      await database.db.deleteFrom("users").where("id", "=", id).execute();
      for (const table of ["accounts", "sessions", "authenticators"]) {
        expect(await database.db.selectFrom(table).selectAll().where("userId", "=", id).execute()).toEqual([]);
      }
    });
  },
);

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
    // one line per change, then their count (not a number fixed here: migrations grow)
    const lines = first.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toBe(`done: ${lines.length - 1} change(s)`);
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

for (const { dialect, label, up } of dialects) {
  runRefreshStoreConformance(
    `SqlRefreshStore (${label})`,
    async () => {
      // Two instances: the second with a connection (pool) of its own to the same database.
      const database = await databases[dialect]();
      const second = await openDatabase(database.url);
      return {
        stores: [SqlRefreshStore(database.db), SqlRefreshStore(second)],
        async teardown() {
          await second.destroy();
          await database.drop();
        },
      };
    },
    { skip: !up },
  );

  describe.skipIf(!up)(`SqlRefreshStore table (${label})`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await databases[dialect]();
    });
    afterAll(async () => {
      await database?.drop();
    });

    it("migrate creates the refresh_locks table and its expiry index", () => {
      expect(database.migrated).toContain("created table refresh_locks");
      expect(database.migrated).toContain("created index refresh_locks_expires_idx on refresh_locks (expires)");
    });

    it.skipIf(dialect !== "mysql")(
      "migrate widens a refresh_locks.value made as TEXT (64 KiB), so an outcome sealed from a 1 MiB answer is stored",
      async () => {
        const refreshLocks = `old_locks_${randomBytes(4).toString("hex")}`;
        await database.db.schema
          .createTable(refreshLocks)
          .addColumn("id", sql.raw("varchar(255) character set utf8mb4 collate utf8mb4_nopad_bin"), (c) =>
            c.primaryKey(),
          )
          .addColumn("value", "text", (c) => c.notNull())
          .addColumn("expires", "bigint", (c) => c.notNull())
          .execute();
        const store = SqlRefreshStore(database.db, { tables: { refreshLocks } });
        const value = randomBytes(2 * 1024 * 1024).toString("base64url");
        await expect(store.put("k", value, 20_000)).rejects.toThrow(/Data too long/);
        expect(await migrate(database.db, { tables: { refreshLocks } })).toContain(
          `widened ${refreshLocks}.value to longtext`,
        );
        await store.put("k", value, 20_000);
        expect(await store.get("k")).toBe(value);
      },
    );

    it("on a database migrate has not run on, the error names the fix", async () => {
      const store = SqlRefreshStore(database.db, {
        tables: { refreshLocks: `missing_${randomBytes(4).toString("hex")}` },
      });
      // One call at a time: a rejection not yet awaited while an earlier one is would be unhandled.
      for (const attempt of [
        () => store.acquire("k", "o", 1_000),
        () => store.get("k"),
        () => store.put("k", "v", 1_000),
      ]) {
        await expect(attempt()).rejects.toThrow(
          /SqlRefreshStore needs the table missing_\w+: run `npx latchkey migrate/,
        );
      }
    });

    it("expired rows are deleted by a later write, live ones kept", async () => {
      const store = SqlRefreshStore(database.db);
      const k = `k-${randomUUID()}`;
      await store.put(`${k}-short`, "gone", 1);
      await store.put(`${k}-long`, "kept", 20_000);
      const count = async (id: string) =>
        Number(
          (
            await database.db
              .selectFrom("refresh_locks")
              .select((eb) => eb.fn.countAll().as("n"))
              .where("id", "=", id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      // The short record expires (the database's clock counts milliseconds): wait for it to read as gone.
      const deadline = Date.now() + 5_000;
      while ((await store.get(`${k}-short`)) !== null) {
        if (Date.now() > deadline) throw new Error("the record never expired");
      }
      expect(await count(`value:${k}-short`)).toBe(1);
      // A new instance sweeps at its first write.
      await SqlRefreshStore(database.db).put(`k-${randomUUID()}`, "x", 20_000);
      expect(await count(`value:${k}-short`)).toBe(0);
      expect(await count(`value:${k}-long`)).toBe(1);
    });
  });
}

/**
 * A migrated database of its own, then cut off for real: SQLite's file closed under the adapter;
 * PostgreSQL refusing connections to it while `pg_terminate_backend` ends the adapter's own;
 * MariaDB behind a TCP proxy that resets and refuses every connection.
 */
const cutOff: Record<DialectName, () => Promise<{ db: AnyKysely; close(): Promise<void> }>> = {
  async sqlite() {
    const dir = mkdtempSync(join(tmpdir(), "conform-audit-cut-"));
    const handle = new Database(join(dir, "auth.db"));
    const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database: handle }) });
    await migrate(db);
    handle.close();
    return { db, close: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  async postgres() {
    const name = `conform_audit_cut_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const db = await openDatabase(`postgres://postgres@127.0.0.1:5432/${name}`);
    await migrate(db);
    await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    return {
      db,
      async close() {
        await db.destroy().catch(() => {});
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
    };
  },
  async mysql() {
    const name = `conform_audit_cut_${randomBytes(4).toString("hex")}`;
    const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
    await admin.query(`CREATE DATABASE ${name}`);
    const proxy = await startTcpProxy(3306);
    const db = await openDatabase(`mysql://root@127.0.0.1:${proxy.port}/${name}`);
    await migrate(db);
    await proxy.setMode("refuse");
    return {
      db,
      async close() {
        await db.destroy().catch(() => {});
        await proxy.close();
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        await admin.end();
      },
    };
  },
};

for (const { dialect, label, up } of dialects) {
  runAuditStoreConformance(
    `SqlAdapter, auditAnonymousPerWindow 120 (${label})`,
    async () => {
      const database = await databases[dialect]();
      const auditAnonymousPerWindow = { max: 120, windowSeconds: 900 };
      return {
        store: auditStoreOf(SqlAdapter(database.db, { auditAnonymousPerWindow })),
        anonymousBound: { max: 120 },
        async unreachable() {
          const { db, close } = await cutOff[dialect]();
          return { store: auditStoreOf(SqlAdapter(db, { auditAnonymousPerWindow })), close };
        },
        teardown: () => database.drop(),
      };
    },
    { skip: !up },
  );
}

describe("SqlAdapter options", () => {
  it("past the cap of a window, anonymous events are not stored and one warning names the option; account events still are", async () => {
    const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      await migrate(db);
      const adapter = SqlAdapter(db, { auditAnonymousPerWindow: { max: 3, windowSeconds: 3600 } });
      const at = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1000);
      for (let i = 0; i < 6; i++) {
        await adapter.createAuditEvent?.({ type: "signin.failed", at, reason: "missing-csrf", identifier: `x${i}` });
      }
      await adapter.createAuditEvent?.({ type: "password.changed", at, userId: "u1" });
      const listed = (await adapter.listAuditEvents?.({ limit: 100 })) ?? [];
      expect(listed.filter((e) => e.type === "signin.failed").map((e) => e.identifier)).toEqual(["x2", "x1", "x0"]);
      expect(listed.filter((e) => e.type === "password.changed")).toHaveLength(1);
      const warnings = warn.mock.calls.map(([message]) => String(message));
      expect(warnings.filter((m) => m.includes("auditAnonymousPerWindow"))).toHaveLength(1);
      // The next window has slots of its own.
      await adapter.createAuditEvent?.({
        type: "signin.failed",
        at: new Date(at.getTime() + 3_600_000),
        reason: "missing-csrf",
      });
      expect(await adapter.listAuditEvents?.({ type: "signin.failed", limit: 100 })).toHaveLength(4);
    } finally {
      warn.mockRestore();
      await db.destroy();
    }
  });

  it("refuses an auditAnonymousPerWindow that is no cap, naming the option", async () => {
    const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    try {
      for (const auditAnonymousPerWindow of [
        { max: 0, windowSeconds: 900 },
        { max: 1.5, windowSeconds: 900 },
        { max: 100, windowSeconds: 0 },
        { max: 100, windowSeconds: Number.NaN },
      ]) {
        expect(() => SqlAdapter(db, { auditAnonymousPerWindow })).toThrow(
          /auditAnonymousPerWindow\.(max|windowSeconds)/,
        );
      }
      expect(() => SqlAdapter(db, { auditAnonymousPerWindow: { max: 1, windowSeconds: 1 } })).not.toThrow();
    } finally {
      await db.destroy();
    }
  });
});
