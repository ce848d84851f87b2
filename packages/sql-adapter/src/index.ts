/**
 * A Latchkey adapter over [Kysely](https://kysely.dev), for SQLite (better-sqlite3), PostgreSQL
 * (pg) and MySQL or MariaDB (mysql2). The tables use Auth.js's column names, so a database made
 * for Auth.js keeps working; `migrate` (or `npx latchkey migrate <url>`, from `@latchkey/cli`)
 * creates what is missing.
 *
 * @example
 * ```ts
 * import Database from "better-sqlite3"
 * import { Kysely, SqliteDialect } from "kysely"
 * import { SqlAdapter, migrate } from "@latchkey/sql-adapter"
 * const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database("auth.db") }) })
 * await migrate(db)
 * const config = { adapter: SqlAdapter(db), providers, secret }
 * ```
 * @module sql-adapter
 */
import { randomBytes } from "node:crypto";
import type {
  Adapter,
  AdapterAccount,
  AdapterAccountType,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@latchkey/core/adapters";
import { isAnonymousAuditEvent, parseAuditEvent } from "@latchkey/core/adapters";
import { CompiledQuery, type SqlBool, sql } from "kysely";
import {
  type AnyKysely,
  type DialectName,
  dialectOf,
  existingNames,
  isDriverError,
  type SqlOptions,
  sessionMetadataColumns,
  type TableNames,
  tableNames,
} from "./schema.js";

export { SqlAdminStore } from "./admin-store.js";
export { SqlApiKeyStore } from "./api-key-store.js";
export { SqlAuthorizationStore } from "./authorization-store.js";
export { openDatabase } from "./open.js";
export { SqlOrganizationStore } from "./organization-store.js";
export { SqlRefreshStore } from "./refresh-store.js";
export { type PgListenClient, type SqlRevocationOptions, SqlRevocationStore } from "./revocation-store.js";
export type { AnyKysely, DialectName, MigrateOptions, SqlOptions, TableNames } from "./schema.js";
export { defaultTableNames, dialectOf, migrate } from "./schema.js";

type Row = Record<string, unknown>;

/** The account columns of Auth.js's schema; other token fields are not stored. */
const accountColumns = [
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
] as const;
/** The token columns `updateAccount` writes. */
const accountTokenFields = ["access_token", "refresh_token", "expires_at", "token_type", "scope", "id_token"] as const;
const userColumns = ["id", "name", "email", "emailVerified", "image"] as const;
const authenticatorColumns = [
  "credentialID",
  "userId",
  "providerAccountId",
  "credentialPublicKey",
  "counter",
  "credentialDeviceType",
  "credentialBackedUp",
  "transports",
] as const;

/**
 * How many expired verification tokens one `createVerificationToken` deletes at most. Each creation
 * adds one row and removes up to this many expired ones, so the table stays as large as what is
 * live, and a backlog (from before the sweep existed) drains without one long-locking delete.
 */
const sweepBatch = 500;

function isExpired(expires: Date): boolean {
  return expires.getTime() <= Date.now();
}

/** Converts values to and from what a dialect stores, so records read back exactly as written. */
function codec(dialect: DialectName) {
  const toDate = (value: unknown): Date | null => {
    if (value == null) return null;
    return value instanceof Date ? new Date(value.getTime()) : new Date(value as string | number);
  };
  return {
    // SQLite has no date type: ISO 8601 text, as the Auth.js Kysely adapter stores it.
    date: (value: Date | null | undefined) =>
      value == null ? null : dialect === "sqlite" ? value.toISOString() : value,
    bool: (value: boolean) => (dialect === "sqlite" ? (value ? 1 : 0) : value),
    toDate,
    user(row: Row): AdapterUser {
      return {
        id: String(row.id),
        name: (row.name as string | null) ?? null,
        email: row.email as string,
        emailVerified: toDate(row.emailVerified),
        image: (row.image as string | null) ?? null,
      };
    },
    account(row: Row): AdapterAccount {
      const account: AdapterAccount = {
        userId: String(row.userId),
        type: row.type as AdapterAccountType,
        provider: row.provider as string,
        providerAccountId: row.providerAccountId as string,
      };
      // Token fields are optional in the interface: absent, not null, when the row has none.
      for (const key of [
        "refresh_token",
        "access_token",
        "token_type",
        "scope",
        "id_token",
        "session_state",
      ] as const) {
        if (row[key] != null) account[key] = row[key] as string;
      }
      // PostgreSQL returns BIGINT as a string, mysql2 may too.
      if (row.expires_at != null) account.expires_at = Number(row.expires_at);
      return account;
    },
    session(row: Row): AdapterSession {
      const session: AdapterSession = {
        sessionToken: row.sessionToken as string,
        userId: String(row.userId),
        expires: toDate(row.expires) as Date,
      };
      // Metadata fields are optional: absent, not null, when the row has none.
      if (row.createdAt != null) session.createdAt = toDate(row.createdAt);
      if (row.lastSeenAt != null) session.lastSeenAt = toDate(row.lastSeenAt);
      if (row.device != null) session.device = String(row.device);
      if (row.clientAddress != null) session.clientAddress = String(row.clientAddress);
      if (typeof row.amr === "string") {
        const amr: unknown = JSON.parse(row.amr);
        if (Array.isArray(amr) && amr.every((m) => typeof m === "string")) session.amr = amr;
      }
      return session;
    },
    verificationToken(row: Row): VerificationToken {
      return {
        identifier: row.identifier as string,
        token: row.token as string,
        expires: toDate(row.expires) as Date,
      };
    },
    authenticator(row: Row): AdapterAuthenticator {
      return {
        credentialID: row.credentialID as string,
        userId: String(row.userId),
        providerAccountId: row.providerAccountId as string,
        credentialPublicKey: row.credentialPublicKey as string,
        counter: Number(row.counter),
        credentialDeviceType: row.credentialDeviceType as string,
        // SQLite and MySQL give 0 or 1.
        credentialBackedUp: Boolean(row.credentialBackedUp),
        transports: (row.transports as string | null) ?? null,
      };
    },
  };
}

/** Picks the listed keys whose values are not `undefined`. */
function pick<K extends string>(source: Partial<Record<K, unknown>>, keys: readonly K[]): Partial<Record<K, unknown>> {
  const picked: Partial<Record<K, unknown>> = {};
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key];
  return picked;
}

/** PostgreSQL `42703`, MySQL/MariaDB `ER_BAD_FIELD_ERROR`, SQLite "no such column". */
const isMissingColumn = (error: unknown) =>
  isDriverError(error, { postgres: "42703", mysql: "ER_BAD_FIELD_ERROR", errno: 1054, sqlite: /no such column/i });

/** How long the adapter trusts an answer that the session metadata columns are missing. */
const metadataRecheckMs = 30_000;

/** `auditAnonymousPerWindow`, checked, with its window in milliseconds. */
function anonymousCapOf(options: SqlOptions): { max: number; windowMs: number } {
  const { max = 10_000, windowSeconds = 900 } = options.auditAnonymousPerWindow ?? {};
  if (!Number.isSafeInteger(max) || max < 1 || max >= 1e9) {
    throw new TypeError(
      `@latchkey/sql-adapter: \`auditAnonymousPerWindow.max\` must be a whole number from 1 to 999,999,999; received ${String(max)}`,
    );
  }
  if (typeof windowSeconds !== "number" || !Number.isFinite(windowSeconds) || windowSeconds < 1) {
    throw new TypeError(
      `@latchkey/sql-adapter: \`auditAnonymousPerWindow.windowSeconds\` must be a number of seconds, at least 1; received ${String(windowSeconds)}`,
    );
  }
  return { max, windowMs: Math.round(windowSeconds * 1000) };
}

/** What an adapter and the adapters of its transactions share. */
interface Shared {
  /** The database outside any transaction: a failing probe must not abort a transaction's work. */
  root: AnyKysely;
  metadata?: { present: boolean; checkedAt: number };
  probing?: Promise<boolean>;
  warned?: boolean;
  /** The start of the last window whose cap of anonymous audit rows was reached (warned once). */
  cappedWindow?: number;
  /** SQL texts compiled once, by statement (see `run`), for the adapter and its transactions alike. */
  statements: Map<string, string>;
}

function create(db: AnyKysely, dialect: DialectName, t: TableNames, options: SqlOptions, shared: Shared): Adapter {
  const c = codec(dialect);
  let sessionAndUserSql: string | undefined;
  const sessionColumns = ["sessionToken", "userId", "expires"] as const;
  let auditSequence = 0;
  const anonymousCap = anonymousCapOf(options);

  /**
   * Whether the sessions table has the metadata columns (`migrate` adds them). Until it does, the
   * adapter leaves them out, so that sign-in keeps working on a database made by Auth.js or an
   * older Latchkey. A missing answer is checked again after {@link metadataRecheckMs}, so running
   * instances pick up a migration without a restart; a present one is kept.
   */
  function hasMetadata(): Promise<boolean> {
    const known = shared.metadata;
    if (known && (known.present || Date.now() - known.checkedAt < metadataRecheckMs))
      return Promise.resolve(known.present);
    // SQLite has one connection, which a transaction holds until it ends: a probe outside it would
    // wait for the transaction that waits for the probe. There it asks on the transaction's own
    // connection (a failed statement does not abort a SQLite transaction) and shares no probe.
    if (dialect === "sqlite" && db.isTransaction) return probeMetadata(db);
    shared.probing ??= probeMetadata(shared.root).finally(() => {
      shared.probing = undefined;
    });
    return shared.probing;
  }

  /** Asks `on` whether the sessions table has the metadata columns, and keeps the answer. */
  async function probeMetadata(on: AnyKysely): Promise<boolean> {
    let present = true;
    try {
      await sql`select ${sql.join(sessionMetadataColumns.map((column) => sql.ref(column)))}
        from ${sql.table(t.sessions)} where 1 = 0`.execute(on);
    } catch (error) {
      // Only a missing column is an answer; a connection failure says nothing about the schema
      // (and the caller's own statement will fail the same way): ask again next time.
      if (!isMissingColumn(error)) return false;
      present = false;
      if (!shared.warned) {
        shared.warned = true;
        console.warn(
          `[latchkey][sql-adapter] the ${t.sessions} table has no session metadata columns (${sessionMetadataColumns.join(", ")}): sessions work, but are listed without device or times. Run \`npx latchkey migrate <database-url>\` (@latchkey/cli) to add them.`,
        );
      }
    }
    shared.metadata = { present, checkedAt: Date.now() };
    return present;
  }

  async function selectedSessionColumns(): Promise<string[]> {
    return (await hasMetadata()) ? [...sessionColumns, ...sessionMetadataColumns] : [...sessionColumns];
  }

  /**
   * Runs a statement whose SQL is compiled once per adapter (its transactions share it): a
   * sign-in's statements spent more in Kysely's building and compiling than in the database.
   * `build` makes the query from `parameters`, the values it binds in the order it binds them;
   * `name` names the statement's shape (every variant of its SQL text has a name of its own).
   * The first run checks that the compiled query binds exactly `parameters`, in that order.
   */
  async function run<R>(
    name: string,
    parameters: readonly unknown[],
    build: () => { compile(): CompiledQuery },
  ): Promise<R[]> {
    let text = shared.statements.get(name);
    if (text === undefined) {
      const compiled = build().compile();
      if (
        compiled.parameters.length !== parameters.length ||
        compiled.parameters.some((value, i) => value !== parameters[i])
      ) {
        throw new Error(`@latchkey/sql-adapter: the statement ${name} binds other values than it was given`);
      }
      text = compiled.sql;
      shared.statements.set(name, text);
    }
    return (await db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]))).rows;
  }

  /** Runs `work` in the current transaction, or in a new one. */
  function inTransaction<T>(work: (trx: AnyKysely) => Promise<T>): Promise<T> {
    return db.isTransaction ? work(db) : db.transaction().execute(work);
  }

  async function findUser(id: string): Promise<AdapterUser | null> {
    const [row] = await run<Row>("getUser", [id], () =>
      db.selectFrom(t.users).select(userColumns).where("id", "=", id),
    );
    return row ? c.user(row) : null;
  }

  async function takeVerificationToken(identifier: string, token: string): Promise<Row | undefined> {
    if (dialect !== "mysql") {
      // One statement: of concurrent calls, exactly one gets the row back.
      return db
        .deleteFrom(t.verificationTokens)
        .where("identifier", "=", identifier)
        .where("token", "=", token)
        .returning(["identifier", "token", "expires"])
        .executeTakeFirst();
    }
    // MySQL has no DELETE ... RETURNING: lock the row, then delete it; waiting callers find it gone.
    return inTransaction(async (trx) => {
      const row = await trx
        .selectFrom(t.verificationTokens)
        .select(["identifier", "token", "expires"])
        .where("identifier", "=", identifier)
        .where("token", "=", token)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return undefined;
      const { numDeletedRows } = await trx
        .deleteFrom(t.verificationTokens)
        .where("identifier", "=", identifier)
        .where("token", "=", token)
        .executeTakeFirstOrThrow();
      return numDeletedRows === 1n ? row : undefined;
    });
  }

  /**
   * Deletes up to {@link sweepBatch} expired verification tokens, oldest first, through the index
   * on `expires`. Anonymous requests create tokens (WebAuthn options need no session), so without
   * this the table grows with every request. Best effort: a failure (a lock conflict with a
   * concurrent sweep) is logged and the next creation sweeps again. Skipped inside a transaction,
   * where a failed statement would abort the caller's work on PostgreSQL.
   */
  async function sweepExpiredTokens(): Promise<void> {
    if (db.isTransaction) return;
    const now = c.date(new Date());
    try {
      if (dialect === "mysql") {
        await db
          .deleteFrom(t.verificationTokens)
          .where("expires", "<=", now)
          .orderBy("expires")
          .limit(sweepBatch)
          .execute();
        return;
      }
      // PostgreSQL and SQLite have no DELETE ... LIMIT: delete the keys a bounded select finds. On
      // PostgreSQL, SKIP LOCKED leaves rows another sweep is deleting to that sweep.
      let expired = db
        .selectFrom(t.verificationTokens)
        .select(["identifier", "token"])
        .where("expires", "<=", now)
        .orderBy("expires")
        .limit(sweepBatch);
      if (dialect === "postgres") expired = expired.forUpdate().skipLocked();
      await db
        .deleteFrom(t.verificationTokens)
        .where((eb) => eb(eb.refTuple("identifier", "token"), "in", expired))
        .execute();
    } catch (error) {
      console.warn(
        `[latchkey][sql-adapter] sweeping expired verification tokens failed (the next creation retries): ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }

  const adapter: Adapter = {
    async createUser(user) {
      const values = {
        id: user.id,
        name: user.name ?? null,
        email: user.email ?? null,
        emailVerified: c.date(user.emailVerified),
        image: user.image ?? null,
      };
      await db.insertInto(t.users).values(values).execute();
      return c.user({ ...values, emailVerified: user.emailVerified });
    },
    getUser: findUser,
    async getUserByEmail(email) {
      const [row] = await run<Row>("getUserByEmail", [email], () =>
        db.selectFrom(t.users).select(userColumns).where("email", "=", email),
      );
      return row ? c.user(row) : null;
    },
    async listUsers({ query, after, limit }) {
      let select = db.selectFrom(t.users).select(userColumns);
      if (after !== undefined) select = select.where("id", ">", after);
      if (query !== undefined) {
        // Taken literally: the query's own %, _ and ! are escaped with !, which every dialect
        // accepts as a LIKE escape (a backslash is not one on MySQL without doubling).
        const pattern = `%${query.toLowerCase().replace(/[!%_]/g, (ch) => `!${ch}`)}%`;
        select = select.where((eb) =>
          eb.or([
            sql<SqlBool>`lower(${sql.ref("email")}) like ${pattern} escape '!'`,
            sql<SqlBool>`lower(${sql.ref("name")}) like ${pattern} escape '!'`,
          ]),
        );
      }
      const rows = (await select.orderBy("id").limit(limit).execute()) as Row[];
      return rows.map((row) => c.user(row));
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const [row] = await run<Row>("getUserByAccount", [provider, providerAccountId], () =>
        db
          .selectFrom(`${t.users} as u`)
          .innerJoin(`${t.accounts} as a`, "a.userId", "u.id")
          .select(userColumns.map((column) => `u.${column}` as const))
          .where("a.provider", "=", provider)
          .where("a.providerAccountId", "=", providerAccountId),
      );
      return row ? c.user(row) : null;
    },
    async updateUser(user) {
      const { id, ...patch } = pick(user, userColumns);
      if ("emailVerified" in patch) patch.emailVerified = c.date(patch.emailVerified as Date | null);
      if (Object.keys(patch).length > 0) await db.updateTable(t.users).set(patch).where("id", "=", user.id).execute();
      const updated = await findUser(user.id);
      if (!updated) throw new Error(`@latchkey/sql-adapter: updateUser: no user with id ${user.id}`);
      return updated;
    },
    deleteUser(userId) {
      return inTransaction(async (trx) => {
        const row = await trx.selectFrom(t.users).select(userColumns).where("id", "=", userId).executeTakeFirst();
        // Explicit deletes: SQLite enforces the foreign keys' cascade only with PRAGMA foreign_keys.
        for (const table of [t.sessions, t.accounts, t.authenticators, t.secondFactors, t.backupCodes]) {
          await trx.deleteFrom(table).where("userId", "=", userId).execute();
        }
        // The user's API keys and memberships in this database go with them: verification never
        // reads the user, and a deleted owner must not hold an organization's last owner slot.
        const tables = await existingNames(trx, dialect, "table");
        if (tables.has(t.apiKeys)) {
          await trx
            .updateTable(t.apiKeys)
            .set({ revokedAt: Date.now() })
            .where("userId", "=", userId)
            .where("revokedAt", "is", null)
            .execute();
        }
        for (const table of [t.organizationTeamMembers, t.organizationMembers]) {
          if (tables.has(table)) await trx.deleteFrom(table).where("userId", "=", userId).execute();
        }
        await trx.deleteFrom(t.users).where("id", "=", userId).execute();
        return row ? c.user(row) : null;
      });
    },
    async linkAccount(account) {
      // Only Auth.js's columns: providers send other token fields that no table has a column for.
      const values = pick(account, accountColumns);
      await db.insertInto(t.accounts).values(values).execute();
      return c.account(values);
    },
    async unlinkAccount({ provider, providerAccountId }) {
      return inTransaction(async (trx) => {
        const row = await trx
          .selectFrom(t.accounts)
          .select(accountColumns)
          .where("provider", "=", provider)
          .where("providerAccountId", "=", providerAccountId)
          .executeTakeFirst();
        if (!row) return undefined;
        await trx
          .deleteFrom(t.accounts)
          .where("provider", "=", provider)
          .where("providerAccountId", "=", providerAccountId)
          .execute();
        return c.account(row);
      });
    },
    async getAccount(providerAccountId, provider) {
      const row = await db
        .selectFrom(t.accounts)
        .select(accountColumns)
        .where("provider", "=", provider)
        .where("providerAccountId", "=", providerAccountId)
        .executeTakeFirst();
      return row ? c.account(row) : null;
    },
    async getAccountsByUserId(userId) {
      const rows = await db.selectFrom(t.accounts).select(accountColumns).where("userId", "=", userId).execute();
      return rows.map((row) => c.account(row));
    },
    async updateAccount({ provider, providerAccountId, ...changes }, expected) {
      const values: Row = {};
      for (const field of accountTokenFields) if (changes[field] !== undefined) values[field] = changes[field];
      const read = () =>
        db
          .selectFrom(t.accounts)
          .select(accountColumns)
          .where("provider", "=", provider)
          .where("providerAccountId", "=", providerAccountId)
          .executeTakeFirst();
      if (Object.keys(values).length === 0) {
        const row = await read();
        return row && (!expected || (row.refresh_token ?? null) === expected.refresh_token) ? c.account(row) : null;
      }
      // One UPDATE whose WHERE holds the compare: of concurrent writers expecting one refresh
      // token, the database lets exactly one match.
      let update = db
        .updateTable(t.accounts)
        .set(values)
        .where("provider", "=", provider)
        .where("providerAccountId", "=", providerAccountId);
      if (expected) {
        update =
          expected.refresh_token === null
            ? update.where("refresh_token", "is", null)
            : update.where("refresh_token", "=", expected.refresh_token);
      }
      const result = await update.executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return null;
      const row = await read();
      return row ? c.account(row) : null;
    },
    async getSecondFactor(userId) {
      const row = await db
        .selectFrom(t.secondFactors)
        .select(["userId", "secret", "active", "lastStep", "generation"])
        .where("userId", "=", userId)
        .executeTakeFirst();
      if (!row) return null;
      const { count } = await db
        .selectFrom(t.backupCodes)
        .select((eb) => eb.fn.countAll().as("count"))
        .where("userId", "=", userId)
        .executeTakeFirstOrThrow();
      return {
        userId: String(row.userId),
        secret: String(row.secret),
        active: Boolean(row.active),
        lastStep: Number(row.lastStep),
        backupCodesLeft: Number(count),
        generation: Number(row.generation),
      };
    },
    async setSecondFactor({ userId, secret, active, lastStep }, backupCodes, expected) {
      return inTransaction(async (trx) => {
        // An upsert, not a delete then an insert: under PostgreSQL's READ COMMITTED, concurrent
        // writers of one user (a double-clicked "set up") both saw no row after the deletes and
        // raced to the primary key. The row lock it takes also orders the backup-code writes below.
        const changes = { secret, active: c.bool(active), lastStep };
        const insert = trx.insertInto(t.secondFactors).values({ userId, ...changes });
        if (!expected) {
          await (dialect === "mysql"
            ? insert.onDuplicateKeyUpdate(changes)
            : insert.onConflict((conflict) => conflict.column("userId").doUpdateSet(changes))
          ).execute();
        } else if (dialect === "mysql") {
          // No WHERE on MySQL's upsert: an active row keeps every value (`active` assigned last,
          // as MySQL assigns left to right and later expressions see the new values).
          const keep = (column: string) =>
            sql`IF(${sql.ref("active")}, ${sql.ref(column)}, VALUES(${sql.ref(column)}))`;
          await insert
            .onDuplicateKeyUpdate({ secret: keep("secret"), lastStep: keep("lastStep"), active: keep("active") })
            .execute();
        } else {
          await insert
            .onConflict((conflict) =>
              conflict.column("userId").doUpdateSet(changes).where(`${t.secondFactors}.active`, "=", c.bool(false)),
            )
            .execute();
        }
        if (expected) {
          // The row is locked by this transaction now: it holds this secret only if the write won.
          const row = await trx
            .selectFrom(t.secondFactors)
            .select("secret")
            .where("userId", "=", userId)
            .executeTakeFirst();
          if (row?.secret !== secret) return false;
        }
        if (!backupCodes) return true;
        await trx.deleteFrom(t.backupCodes).where("userId", "=", userId).execute();
        if (backupCodes.length)
          await trx
            .insertInto(t.backupCodes)
            .values(backupCodes.map((codeHash) => ({ userId, codeHash })))
            .execute();
        return true;
      });
    },
    async deleteSecondFactor(userId) {
      await inTransaction(async (trx) => {
        await trx.deleteFrom(t.backupCodes).where("userId", "=", userId).execute();
        await trx.deleteFrom(t.secondFactors).where("userId", "=", userId).execute();
      });
    },
    async useSecondFactorStep(userId, expected, next) {
      // One statement, a compare-and-set: of concurrent callers one updates the row.
      const result = await db
        .updateTable(t.secondFactors)
        .set({ lastStep: next })
        .where("userId", "=", userId)
        .where("lastStep", "=", expected)
        .where("active", "=", c.bool(true))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async endSecondFactorSignIns(userId) {
      // One statement: concurrent calls each add one.
      await db
        .updateTable(t.secondFactors)
        .set((eb) => ({ generation: eb("generation", "+", 1) }))
        .where("userId", "=", userId)
        .execute();
    },
    async createAuditEvent(event) {
      const row = {
        type: event.type,
        at: c.date(event.at),
        userId: event.userId ?? null,
        identifier: event.identifier ?? null,
        data: JSON.stringify(event),
      };
      if (!isAnonymousAuditEvent(event)) {
        await db
          .insertInto(t.auditEvents)
          .values({
            // Sorts as the time it names, then in the order this process wrote (a random part keeps
            // instances apart): listings order by it.
            id: `${String(event.at.getTime()).padStart(15, "0")}-${String(++auditSequence % 1e9).padStart(9, "0")}-${randomBytes(4).toString("hex")}`,
            ...row,
          })
          .execute();
        return;
      }
      // An anonymous event takes a free slot of its window, named by its id: the primary key gives
      // each slot to one writer, so concurrent writers never store more than `max` of a window.
      // Starting at the number of rows already there, a writer walks up past the slots others took.
      const windowStart = Math.floor(event.at.getTime() / anonymousCap.windowMs) * anonymousCap.windowMs;
      const prefix = `${String(windowStart).padStart(15, "0")}-a-`;
      const { n } = await db
        .selectFrom(t.auditEvents)
        .select((eb) => eb.fn.countAll().as("n"))
        .where("id", ">=", prefix)
        .where("id", "<", `${prefix.slice(0, -1)}.`)
        .executeTakeFirstOrThrow();
      for (let slot = Number(n); slot < anonymousCap.max; slot++) {
        const insert = db.insertInto(t.auditEvents).values({ id: `${prefix}${String(slot).padStart(9, "0")}`, ...row });
        // INSERT IGNORE, not ON DUPLICATE KEY UPDATE: mysql2 counts a no-op update as a found row.
        const result = await (dialect === "mysql"
          ? insert.ignore()
          : insert.onConflict((conflict) => conflict.column("id").doNothing())
        ).executeTakeFirst();
        if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return;
      }
      if (shared.cappedWindow !== windowStart) {
        shared.cappedWindow = windowStart;
        console.warn(
          `[latchkey][sql-adapter] audit: ${anonymousCap.max} anonymous events (failed, limited, locked-out sign-ins) are stored for this window (\`auditAnonymousPerWindow\`); more of them are not stored until ${new Date(windowStart + anonymousCap.windowMs).toISOString()}. Events of accounts are unaffected.`,
        );
      }
    },
    async deleteAuditEvents(before) {
      const result = await db.deleteFrom(t.auditEvents).where("at", "<", c.date(before)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async listAuditEvents(filter) {
      let query = db.selectFrom(t.auditEvents).select(["id", "data"]);
      if (filter.type !== undefined) query = query.where("type", "=", filter.type);
      if (filter.userId !== undefined) query = query.where("userId", "=", filter.userId);
      if (filter.identifier !== undefined) query = query.where("identifier", "=", filter.identifier);
      if (filter.since !== undefined) query = query.where("at", ">=", c.date(filter.since));
      const rows = await query
        .orderBy("at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit ?? 100)
        .execute();
      return rows.flatMap((row) => parseAuditEvent(String(row.id), String(row.data)) ?? []);
    },
    async useBackupCode(userId, codeHash) {
      const result = await db
        .deleteFrom(t.backupCodes)
        .where("userId", "=", userId)
        .where("codeHash", "=", codeHash)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async createSession(session) {
      const { sessionToken, userId, expires } = session;
      const values: Row = { sessionToken, userId, expires: c.date(expires) };
      const metadata = pick(session, sessionMetadataColumns);
      if (Object.keys(metadata).length > 0 && (await hasMetadata())) {
        for (const [column, value] of Object.entries(metadata)) {
          // `amr` is stored as its JSON text; dates in the dialect's form.
          values[column] = value instanceof Date ? c.date(value) : Array.isArray(value) ? JSON.stringify(value) : value;
        }
      }
      // One statement per set of columns (with or without each kind of metadata).
      await run(`createSession:${Object.keys(values).join(",")}`, Object.values(values), () =>
        db.insertInto(t.sessions).values(values),
      );
      // Auth.js's answer: token, user and expiry (its adapter suite compares it exactly); the
      // metadata is read back by getSessionAndUser and listSessions.
      return { sessionToken, userId, expires: new Date(expires.getTime()) };
    },
    async getSessionAndUser(sessionToken) {
      // The hottest query (every signed-in request): its SQL is built once, and only the token
      // changes. Building it with Kysely each time cost more than the database's own work.
      sessionAndUserSql ??= db
        .selectFrom(`${t.sessions} as s`)
        .innerJoin(`${t.users} as u`, "u.id", "s.userId")
        // s.*: the session's columns, `amr` among them once `migrate` added it (a table made
        // before it still reads, without amr).
        .selectAll("s")
        .select(userColumns.map((column) => `u.${column}` as const))
        .where("s.sessionToken", "=", "")
        .compile().sql;
      const { rows } = await db.executeQuery<Record<string, unknown>>(
        CompiledQuery.raw(sessionAndUserSql, [sessionToken]),
      );
      const row = rows[0];
      if (!row) return null;
      const session = c.session(row);
      if (isExpired(session.expires)) {
        // Only if still expired: a concurrent updateSession may just have extended it.
        await db
          .deleteFrom(t.sessions)
          .where("sessionToken", "=", sessionToken)
          .where("expires", "<=", c.date(new Date()))
          .execute();
        return null;
      }
      return { session, user: c.user(row) };
    },
    async updateSession({ sessionToken, userId, expires, lastSeenAt }) {
      const patch: Row = pick({ userId, expires: expires && c.date(expires) }, ["userId", "expires"]);
      // Only with the columns in place; an UPDATE never inserts, so a deleted session stays deleted.
      if (lastSeenAt !== undefined && (await hasMetadata())) patch.lastSeenAt = c.date(lastSeenAt);
      if (Object.keys(patch).length > 0) {
        await db.updateTable(t.sessions).set(patch).where("sessionToken", "=", sessionToken).execute();
      }
      const row = await db
        .selectFrom(t.sessions)
        .select(["sessionToken", "userId", "expires"])
        .where("sessionToken", "=", sessionToken)
        .executeTakeFirst();
      return row ? c.session(row) : null;
    },
    async listSessions(userId) {
      const columns = await selectedSessionColumns();
      const now = c.date(new Date());
      const rows = await run<Row>(`listSessions:${columns.length}`, [userId, now], () =>
        db.selectFrom(t.sessions).select(columns).where("userId", "=", userId).where("expires", ">", now),
      );
      return rows.map(c.session);
    },
    async deleteSessions(userId, exceptSessionToken) {
      const columns = await selectedSessionColumns();
      if (dialect !== "mysql") {
        // One statement: the rows it returns are exactly the rows it deleted.
        let query = db.deleteFrom(t.sessions).where("userId", "=", userId);
        if (exceptSessionToken !== undefined) query = query.where("sessionToken", "!=", exceptSessionToken);
        return (await query.returning(columns).execute()).map(c.session);
      }
      // MySQL has no DELETE ... RETURNING: lock the rows, then delete exactly those.
      return inTransaction(async (trx) => {
        let select = trx.selectFrom(t.sessions).select(columns).where("userId", "=", userId);
        if (exceptSessionToken !== undefined) select = select.where("sessionToken", "!=", exceptSessionToken);
        const rows = await select.forUpdate().execute();
        if (rows.length === 0) return [];
        await trx
          .deleteFrom(t.sessions)
          .where("userId", "=", userId)
          .where(
            "sessionToken",
            "in",
            rows.map((row) => row.sessionToken as string),
          )
          .execute();
        return rows.map(c.session);
      });
    },
    async listAccounts(userId) {
      const rows = await db.selectFrom(t.accounts).select(accountColumns).where("userId", "=", userId).execute();
      return rows.map(c.account);
    },
    async deleteSession(sessionToken) {
      return inTransaction(async (trx) => {
        const row = await trx
          .selectFrom(t.sessions)
          .select(["sessionToken", "userId", "expires"])
          .where("sessionToken", "=", sessionToken)
          .executeTakeFirst();
        await trx.deleteFrom(t.sessions).where("sessionToken", "=", sessionToken).execute();
        return row ? c.session(row) : null;
      });
    },
    async createVerificationToken({ identifier, token, expires }) {
      await db
        .insertInto(t.verificationTokens)
        .values({ identifier, token, expires: c.date(expires) })
        .execute();
      await sweepExpiredTokens();
      return { identifier, token, expires: new Date(expires.getTime()) };
    },
    async useVerificationToken({ identifier, token }) {
      const row = await takeVerificationToken(identifier, token);
      if (!row) return null;
      const found = c.verificationToken(row);
      return isExpired(found.expires) ? null : found;
    },
    async getAuthenticator(credentialID) {
      const row = await db
        .selectFrom(t.authenticators)
        .select(authenticatorColumns)
        .where("credentialID", "=", credentialID)
        .executeTakeFirst();
      return row ? c.authenticator(row) : null;
    },
    async createAuthenticator(authenticator) {
      const values = {
        ...pick(authenticator, authenticatorColumns),
        credentialBackedUp: c.bool(authenticator.credentialBackedUp),
        transports: authenticator.transports ?? null,
      };
      await db.insertInto(t.authenticators).values(values).execute();
      return c.authenticator(values);
    },
    async listAuthenticatorsByUserId(userId) {
      const rows = await db
        .selectFrom(t.authenticators)
        .select(authenticatorColumns)
        .where("userId", "=", userId)
        .execute();
      return rows.map(c.authenticator);
    },
    async deleteAuthenticator(credentialID) {
      return inTransaction(async (trx) => {
        const row = await trx
          .selectFrom(t.authenticators)
          .select(authenticatorColumns)
          .where("credentialID", "=", credentialID)
          .executeTakeFirst();
        if (!row) return null;
        await trx.deleteFrom(t.authenticators).where("credentialID", "=", credentialID).execute();
        return c.authenticator(row);
      });
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      await db
        .updateTable(t.authenticators)
        .set({ counter: newCounter })
        .where("credentialID", "=", credentialID)
        .execute();
      const updated = await adapter.getAuthenticator?.(credentialID);
      if (!updated) {
        throw new Error(`@latchkey/sql-adapter: updateAuthenticatorCounter: no authenticator ${credentialID}`);
      }
      return updated;
    },
    transaction(work) {
      if (db.isTransaction) return work(adapter);
      return db.transaction().execute((trx) => work(create(trx, dialect, t, options, shared)));
    },
  };
  return adapter;
}

/**
 * Creates a Latchkey adapter over a Kysely instance for SQLite, PostgreSQL or MySQL/MariaDB. Run
 * {@link migrate} once first. Records read back exactly as written in every dialect (SQLite's
 * text dates and integer booleans are converted back); expired sessions and verification tokens
 * read as missing and are deleted, and each `createVerificationToken` also deletes up to 500 expired
 * tokens (so anonymous requests cannot grow the table); `useVerificationToken` consumes a token atomically (`DELETE
 * ... RETURNING`, on MySQL `SELECT ... FOR UPDATE` then `DELETE` in a transaction); `deleteUser`
 * deletes the user's sessions, accounts and authenticators in the same transaction; `transaction`
 * runs work in a Kysely transaction. With mysql2, give the pool `timezone: "Z"` so that DATETIME
 * values mean UTC whatever the server's time zone. Keys compare bytes in every dialect once
 * {@link migrate} has run (on MySQL/MariaDB it gives key columns a NO PAD byte collation).
 * `listSessions`, `deleteSessions` and `listAccounts` (Latchkey extensions) serve
 * `@latchkey/core/sessions`; session metadata is stored once `migrate` has added its columns, and
 * left out (sign-in unaffected, one warning) until then. Audit events anonymous requests cause
 * (failed, limited, locked-out sign-ins) are kept at most `auditAnonymousPerWindow.max` per window
 * of their time (default 10,000 per 15 minutes); the others only go with retention.
 *
 * @param db A `Kysely` instance (kysely 0.28) with `SqliteDialect`, `PostgresDialect` or `MysqlDialect`.
 * @param options Other table names, the cap of anonymous audit rows (see {@link SqlOptions}).
 * @example
 * ```ts
 * import { Kysely, PostgresDialect } from "kysely"
 * import pg from "pg"
 * import { SqlAdapter } from "@latchkey/sql-adapter"
 * const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString }) }) })
 * const config = { adapter: SqlAdapter(db), providers, secret }
 * ```
 */
export function SqlAdapter(db: AnyKysely, options: SqlOptions = {}): Adapter {
  return create(db, dialectOf(db), tableNames(options), options, { root: db, statements: new Map() });
}
