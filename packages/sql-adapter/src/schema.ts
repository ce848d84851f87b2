/**
 * The tables of the SQL adapter, per dialect, and the idempotent migration that creates them.
 * @module schema
 */
import {
  type Expression,
  type Kysely,
  MysqlAdapter,
  PostgresAdapter,
  type RawBuilder,
  SqliteAdapter,
  sql,
} from "kysely";

// The adapter works over any schema with the right tables and columns, so it takes an untyped Kysely.
// biome-ignore lint/suspicious/noExplicitAny: the database type is the caller's, not ours.
export type AnyKysely = Kysely<any>;

/** The SQL dialects the adapter supports. */
export type DialectName = "sqlite" | "postgres" | "mysql";

/** The names of the five tables. */
export interface TableNames {
  /** @default "users" */
  users: string;
  /** @default "accounts" */
  accounts: string;
  /** @default "sessions" */
  sessions: string;
  /** @default "verification_tokens" */
  verificationTokens: string;
  /** @default "authenticators" */
  authenticators: string;
  /** Latchkey's second factor (TOTP), one row per user. @default "second_factors" */
  secondFactors: string;
  /** Hashes of unused backup codes. @default "backup_codes" */
  backupCodes: string;
  /** Latchkey's audit trail (`audit: { store: true }`), one row per event. @default "audit_events" */
  auditEvents: string;
  /** Locks and short-lived outcomes of provider token refreshes (`SqlRefreshStore`). @default "refresh_locks" */
  refreshLocks: string;
  /** The revocation list of JWT sessions (`SqlRevocationStore`), one row per entry. @default "revocations" */
  revocations: string;
  /** The authorization server's records (`SqlAuthorizationStore`). @default "authorization_records" */
  authorizationRecords: string;
  /** Organizations (`SqlOrganizationStore`). @default "organizations" */
  organizations: string;
  /** Their members, one row per member (`SqlOrganizationStore`). @default "organization_members" */
  organizationMembers: string;
  /** Invitations to join them, one row per invitation (`SqlOrganizationStore`). @default "organization_invitations" */
  organizationInvitations: string;
  /** Teams inside organizations (`SqlOrganizationStore`). @default "organization_teams" */
  organizationTeams: string;
  /** Their members, one row per member of a team (`SqlOrganizationStore`). @default "organization_team_members" */
  organizationTeamMembers: string;
  /** API keys, one row per key, kept as a keyed hash (`SqlApiKeyStore`). @default "api_keys" */
  apiKeys: string;
  /** Application-level roles of users, one row per user who has one (`SqlAdminStore`). @default "admin_roles" */
  adminRoles: string;
  /** Bans of users, one row per banned user (`SqlAdminStore`). @default "admin_bans" */
  adminBans: string;
}

/** The default table names. */
export const defaultTableNames: Readonly<TableNames> = Object.freeze({
  users: "users",
  accounts: "accounts",
  sessions: "sessions",
  verificationTokens: "verification_tokens",
  authenticators: "authenticators",
  secondFactors: "second_factors",
  backupCodes: "backup_codes",
  auditEvents: "audit_events",
  refreshLocks: "refresh_locks",
  revocations: "revocations",
  authorizationRecords: "authorization_records",
  organizations: "organizations",
  organizationMembers: "organization_members",
  organizationInvitations: "organization_invitations",
  organizationTeams: "organization_teams",
  organizationTeamMembers: "organization_team_members",
  apiKeys: "api_keys",
  adminRoles: "admin_roles",
  adminBans: "admin_bans",
});

/** Options shared by `SqlAdapter` and `migrate`. */
export interface SqlOptions {
  /**
   * Other table names, for example those of a database made for the Auth.js Kysely adapter:
   * `{ users: "User", accounts: "Account", sessions: "Session", verificationTokens: "VerificationToken" }`.
   * The column names are Auth.js's either way.
   */
  tables?: Partial<TableNames>;
  /**
   * Rows of anonymous audit events (failed, limited and locked-out sign-ins:
   * `isAnonymousAuditEvent`) kept per window of the events' time; past `max`, such an event of
   * that window is not stored. Events of accounts are never capped (the core bounds them per user),
   * so a flood from many networks neither grows the table beyond `max` per window nor pushes out
   * what happened to an account. Exact under concurrent writers: each row takes one of `max` slots
   * of its window (its id), which the primary key hands out once. The adapter warns once per
   * window that reaches the cap.
   * @default { max: 10000, windowSeconds: 900 }
   */
  auditAnonymousPerWindow?: { max: number; windowSeconds: number };
}

/** How each driver reports one condition: PostgreSQL's SQLSTATE, MySQL's code and errno, SQLite's message. */
export interface DriverError {
  postgres: string;
  mysql: string;
  errno: number;
  sqlite: RegExp;
}

/**
 * Whether `error` is the driver's report of `condition`, whichever driver threw it.
 *
 * @example
 * ```ts
 * isDriverError(e, { postgres: "42P01", mysql: "ER_NO_SUCH_TABLE", errno: 1146, sqlite: /no such table/i })
 * ```
 */
export function isDriverError(error: unknown, condition: DriverError): boolean {
  const { code, errno, message } = (error ?? {}) as { code?: unknown; errno?: unknown; message?: unknown };
  return (
    code === condition.postgres ||
    code === condition.mysql ||
    errno === condition.errno ||
    (typeof message === "string" && condition.sqlite.test(message))
  );
}

/**
 * Milliseconds since the epoch by the database's clock: every instance compares expiries against
 * the same clock, so a skewed application server cannot take a lock that has not expired yet.
 */
export function databaseNow(dialect: DialectName): RawBuilder<number> {
  if (dialect === "postgres") return sql<number>`(floor(extract(epoch from now()) * 1000))::bigint`;
  // UTC_TIMESTAMP, not NOW: the session's time zone (and its daylight-saving fold) plays no part.
  if (dialect === "mysql") return sql<number>`(timestampdiff(microsecond, '1970-01-01', utc_timestamp(6)) div 1000)`;
  return sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
}

/** PostgreSQL `42P01`, MySQL/MariaDB `ER_NO_SUCH_TABLE`, SQLite "no such table". */
const isMissingTable = (error: unknown) =>
  isDriverError(error, { postgres: "42P01", mysql: "ER_NO_SUCH_TABLE", errno: 1146, sqlite: /no such table/i });

/**
 * Runs the queries of one of the stores (`store`, over the table `table`): a database not migrated
 * yet fails with the fix named, not with the driver's bare message.
 */
export function runner(db: AnyKysely, store: string, table: string) {
  return <R>(query: RawBuilder<R>) =>
    query.execute(db).catch((error: unknown) => {
      if (!isMissingTable(error)) throw error;
      throw new Error(
        `@latchkey/sql-adapter: ${store} needs the table ${table}: run \`npx latchkey migrate <database-url>\` (@latchkey/cli) or \`migrate(db)\``,
        { cause: error },
      );
    });
}

/**
 * Tells which dialect a Kysely instance speaks, from its dialect adapter.
 *
 * @example
 * ```ts
 * dialectOf(new Kysely({ dialect: new SqliteDialect({ database }) })) // "sqlite"
 * ```
 */
export function dialectOf(db: AnyKysely): DialectName {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof SqliteAdapter) return "sqlite";
  if (adapter instanceof PostgresAdapter) return "postgres";
  if (adapter instanceof MysqlAdapter) return "mysql";
  // A second copy of kysely in node_modules defeats instanceof; the class names still tell.
  for (let proto = Object.getPrototypeOf(adapter); proto; proto = Object.getPrototypeOf(proto)) {
    const name = proto.constructor?.name;
    if (name === "SqliteAdapter") return "sqlite";
    if (name === "PostgresAdapter") return "postgres";
    if (name === "MysqlAdapter") return "mysql";
  }
  throw new TypeError(
    "@latchkey/sql-adapter: the Kysely instance uses a dialect that is not SQLite, PostgreSQL or MySQL; " +
      "use SqliteDialect, PostgresDialect or MysqlDialect (or a dialect whose adapter extends theirs)",
  );
}

/** Resolves the table names from the options. */
export function tableNames(options: SqlOptions = {}): TableNames {
  return { ...defaultTableNames, ...options.tables };
}

interface ColumnTypes {
  /** Identifiers and other indexed strings. */
  key: string;
  /** Unindexed strings of any length. */
  text: string;
  date: string;
  bool: string;
  bigint: string;
}

// SQLite has no date or boolean type: dates are ISO 8601 text (as the Auth.js Kysely adapter
// writes them, and they sort as text), booleans 0 and 1. MySQL cannot index TEXT, so keys are
// VARCHAR(255), small enough for a two-column utf8mb4 unique index. SQLite's and PostgreSQL's
// text compares bytes; MySQL's keys get a byte collation (see binaryCollation).
function columnTypes(dialect: DialectName, collation: string): ColumnTypes {
  if (dialect === "sqlite") return { key: "text", text: "text", date: "text", bool: "integer", bigint: "integer" };
  if (dialect === "postgres") {
    return { key: "text", text: "text", date: "timestamptz", bool: "boolean", bigint: "bigint" };
  }
  return {
    key: `varchar(255) character set utf8mb4 collate ${collation}`,
    // MySQL's TEXT stops at 64 KiB: too small for a provider's answer (read up to 1 MiB) or a
    // refresh outcome sealed from it. LONGTEXT holds any length, as text does elsewhere.
    text: "longtext",
    date: "datetime(3)",
    bool: "boolean",
    bigint: "bigint",
  };
}

/**
 * The collation MySQL and MariaDB key columns need. Their default (`utf8mb4_general_ci`,
 * `utf8mb4_0900_ai_ci`) ignores case, accents and trailing spaces, so `ÀBC-001 ` would find the
 * account of `abc-001` and a session token would match with a space appended. `utf8mb4_bin` still
 * ignores trailing spaces (PAD SPACE); the NO PAD byte collations do not: MariaDB 10.2+
 * `utf8mb4_nopad_bin`, MySQL 8 `utf8mb4_0900_bin`. Older servers get `utf8mb4_bin`.
 */
async function binaryCollation(db: AnyKysely): Promise<string> {
  const { rows } = await sql<{ name: string }>`select collation_name as name from information_schema.collations
    where collation_name in ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')`.execute(db);
  const names = new Set(rows.map((row) => String(row.name)));
  for (const name of ["utf8mb4_nopad_bin", "utf8mb4_0900_bin"]) if (names.has(name)) return name;
  return "utf8mb4_bin";
}

/** The columns created with the `key` type: on MySQL each must have the byte collation. */
function keyColumns(t: TableNames): [string, string[]][] {
  return [
    [t.users, ["id", "email"]],
    [t.accounts, ["userId", "type", "provider", "providerAccountId"]],
    [t.sessions, ["sessionToken", "userId"]],
    [t.verificationTokens, ["identifier", "token"]],
    [t.authenticators, ["credentialID", "userId", "providerAccountId", "credentialDeviceType"]],
    [t.secondFactors, ["userId"]],
    [t.backupCodes, ["userId", "codeHash"]],
    [t.auditEvents, ["id", "type", "userId", "identifier"]],
    [t.refreshLocks, ["id"]],
    [t.revocations, ["kind", "id", "userId"]],
    [t.authorizationRecords, ["kind", "id", "userId", "clientId", "grantId"]],
  ];
}

/** The columns created with the `text` type (unindexed strings of any length). */
function textColumns(t: TableNames): [string, string[]][] {
  return [
    [t.users, ["name", "image"]],
    [t.accounts, ["refresh_token", "access_token", "token_type", "scope", "id_token", "session_state"]],
    [t.sessions, ["device", "clientAddress", "amr"]],
    [t.authenticators, ["credentialPublicKey", "transports"]],
    [t.secondFactors, ["secret"]],
    [t.auditEvents, ["data"]],
    [t.refreshLocks, ["value"]],
    [t.authorizationRecords, ["data"]],
  ];
}

/**
 * MySQL and MariaDB: widens Latchkey's text columns made as TEXT (64 KiB, by an earlier migrate) to LONGTEXT,
 * so that a provider's answer up to the 1 MiB Latchkey reads, and the refresh outcome sealed from
 * it, are stored whole instead of refused ("Data too long"). Columns an application added are
 * left alone.
 */
async function widenTextColumns(db: AnyKysely, t: TableNames, done: string[]): Promise<void> {
  const tables = textColumns(t).map(([table]) => table);
  const { rows } = await sql<Record<string, unknown>>`select table_name as tbl, column_name as col,
      is_nullable as nullable
    from information_schema.columns
    where table_schema = database() and table_name in (${sql.join(tables)})
      and data_type in ('tinytext', 'text', 'mediumtext')`.execute(db);
  for (const [table, columns] of textColumns(t)) {
    const narrow = rows.filter((r) => String(r.tbl) === table && columns.includes(String(r.col)));
    if (narrow.length === 0) continue;
    const modify = narrow.map(
      (r) =>
        sql`modify column ${sql.id(String(r.col))} longtext ${sql.raw(String(r.nullable) === "YES" ? "null" : "not null")}`,
    );
    await sql`alter table ${sql.id(table)} ${sql.join(modify)}`.execute(db);
    done.push(`widened ${narrow.map((r) => `${table}.${String(r.col)}`).join(", ")} to longtext`);
  }
}

interface ForeignKey {
  name: string;
  table: string;
  column: string;
  referencedTable: string;
  referencedColumn: string;
  onDelete: string;
}

async function foreignKeys(db: AnyKysely, tables: string[]): Promise<ForeignKey[]> {
  const { rows } = await sql<Record<string, unknown>>`select k.constraint_name as name, k.table_name as tbl,
      k.column_name as col, k.referenced_table_name as rtbl, k.referenced_column_name as rcol,
      r.delete_rule as rule
    from information_schema.key_column_usage k
    join information_schema.referential_constraints r
      on r.constraint_schema = k.constraint_schema and r.constraint_name = k.constraint_name
        and r.table_name = k.table_name
    where k.table_schema = database() and k.referenced_table_name is not null
      and (k.table_name in (${sql.join(tables)}) or k.referenced_table_name in (${sql.join(tables)}))`.execute(db);
  return rows.map((row) => ({
    name: String(row.name),
    table: String(row.tbl),
    column: String(row.col),
    referencedTable: String(row.rtbl),
    referencedColumn: String(row.rcol),
    onDelete: String(row.rule),
  }));
}

const onDeleteRules = new Set(["CASCADE", "SET NULL", "RESTRICT", "NO ACTION", "SET DEFAULT"]);

/**
 * MySQL/MariaDB: gives every key column of tables made before (by an older Latchkey, by the Auth.js
 * Kysely adapter, by hand) the byte collation. Neither server lets a column in a foreign key change
 * collation, so the foreign keys on these columns are dropped, the columns changed (one ALTER per
 * table) and the foreign keys added back as they were.
 */
async function migrateKeyCollation(db: AnyKysely, t: TableNames, collation: string, done: string[]): Promise<void> {
  const id = (name: string) => sql.id(name);
  const tables = keyColumns(t).map(([table]) => table);
  const { rows } = await sql<Record<string, unknown>>`select table_name as tbl, column_name as col,
      column_type as type, is_nullable as nullable, collation_name as coll
    from information_schema.columns
    where table_schema = database() and table_name in (${sql.join(tables)})`.execute(db);
  const changes = new Map<string, { column: string; type: string; nullable: boolean }[]>();
  for (const [table, columns] of keyColumns(t)) {
    for (const column of columns) {
      const row = rows.find((r) => String(r.tbl) === table && String(r.col) === column);
      // A column another tool made non-textual (an integer id) has no collation to change.
      if (!row || row.coll == null || String(row.coll) === collation) continue;
      const list = changes.get(table) ?? [];
      list.push({ column, type: String(row.type), nullable: String(row.nullable) === "YES" });
      changes.set(table, list);
    }
  }
  const changed = (table: string, column: string) =>
    changes.get(table)?.some((change) => change.column === column) ?? false;
  const keys = await foreignKeys(db, tables);
  const dropped = keys.filter((fk) => changed(fk.table, fk.column) || changed(fk.referencedTable, fk.referencedColumn));
  for (const fk of dropped) {
    await sql`alter table ${id(fk.table)} drop foreign key ${id(fk.name)}`.execute(db);
    done.push(`dropped foreign key ${fk.name} on ${fk.table} (${fk.column}) to change its collation`);
  }
  for (const [table, columns] of changes) {
    const modify = columns.map(
      ({ column, type, nullable }) =>
        sql`modify column ${id(column)} ${sql.raw(type)} character set utf8mb4 collate ${sql.raw(collation)} ${sql.raw(nullable ? "null" : "not null")}`,
    );
    await sql`alter table ${id(table)} ${sql.join(modify)}`.execute(db);
    done.push(`changed ${columns.map(({ column }) => `${table}.${column}`).join(", ")} to collation ${collation}`);
  }
  // A run that fails between the drop and the add leaves these foreign keys out (the adapter still
  // works: it deletes a user's rows itself); the failing statement's error names the constraint.
  for (const fk of dropped) {
    const rule = onDeleteRules.has(fk.onDelete) ? fk.onDelete : "NO ACTION";
    await sql`alter table ${id(fk.table)} add constraint ${id(fk.name)} foreign key (${id(fk.column)})
      references ${id(fk.referencedTable)} (${id(fk.referencedColumn)}) on delete ${sql.raw(rule)}`.execute(db);
    done.push(`added foreign key ${fk.name} on ${fk.table} (${fk.column}) back`);
  }
}

/**
 * The nullable columns that describe a session (Latchkey extension): when it was created and last
 * seen, the device, and the client address if the application records it. The adapter stores
 * them only once they exist (see `SqlAdapter`), so a database migrated by Auth.js keeps working.
 */
export const sessionMetadataColumns = ["createdAt", "lastSeenAt", "device", "clientAddress", "amr"] as const;

async function columnsOf(db: AnyKysely, dialect: DialectName, table: string): Promise<Set<string>> {
  const query =
    dialect === "sqlite"
      ? sql<{ name: string }>`select name from pragma_table_info(${table})`
      : dialect === "postgres"
        ? sql<{ name: string }>`select column_name as name from information_schema.columns
            where table_schema = current_schema() and table_name = ${table}`
        : sql<{ name: string }>`select column_name as name from information_schema.columns
            where table_schema = database() and table_name = ${table}`;
  const { rows } = await query.execute(db);
  return new Set(rows.map((row) => String(row.name)));
}

/**
 * Adds the columns a table made before them (or by Auth.js) lacks: the session metadata
 * (nullable) and `second_factors.generation` (0 on every existing row).
 */
async function addMissingColumns(
  db: AnyKysely,
  dialect: DialectName,
  t: TableNames,
  type: ColumnTypes,
  done: string[],
): Promise<void> {
  const wanted = [
    ...sessionMetadataColumns.map((column) => ({
      table: t.sessions,
      column,
      columnType: column === "createdAt" || column === "lastSeenAt" ? type.date : type.text,
      zero: false,
    })),
    { table: t.secondFactors, column: "generation", columnType: type.bigint, zero: true },
  ];
  const existing = new Map<string, Set<string>>();
  for (const { table, column, columnType, zero } of wanted) {
    if (!existing.has(table)) existing.set(table, await columnsOf(db, dialect, table));
    if (existing.get(table)?.has(column)) continue;
    await db.schema
      .alterTable(table)
      .addColumn(column, sql.raw(columnType), (col) => (zero ? col.notNull().defaultTo(0) : col))
      .execute();
    done.push(`added column ${table}.${column}`);
  }
}

interface IndexSpec {
  name: string;
  table: string;
  columns: string[];
  unique: boolean;
}

function indexSpecs(t: TableNames): IndexSpec[] {
  const index = (table: string, columns: string[], unique: boolean): IndexSpec => ({
    name: `${table}_${columns.join("_")}_${unique ? "key" : "idx"}`,
    table,
    columns,
    unique,
  });
  return [
    index(t.users, ["email"], true),
    index(t.accounts, ["provider", "providerAccountId"], true),
    index(t.accounts, ["userId"], false),
    index(t.sessions, ["sessionToken"], true),
    index(t.sessions, ["userId"], false),
    index(t.verificationTokens, ["identifier", "token"], true),
    // Expired tokens are swept by expiry when a token is created: an index range, not a scan.
    index(t.verificationTokens, ["expires"], false),
    index(t.authenticators, ["credentialID"], true),
    index(t.authenticators, ["userId"], false),
    // The retention sweep deletes by time, and listings read the newest first.
    index(t.auditEvents, ["at"], false),
    index(t.auditEvents, ["userId"], false),
  ];
}

/** The names of the tables (or indexes) the database has, in the current schema. */
export async function existingNames(
  db: AnyKysely,
  dialect: DialectName,
  kind: "table" | "index",
): Promise<Set<string>> {
  let query: RawBuilder<{ name: string }>;
  if (dialect === "sqlite") {
    query = sql`select name from sqlite_master where type = ${kind}`;
  } else if (dialect === "postgres") {
    query =
      kind === "table"
        ? sql`select tablename as name from pg_tables where schemaname = current_schema()`
        : sql`select indexname as name from pg_indexes where schemaname = current_schema()`;
  } else {
    query =
      kind === "table"
        ? sql`select table_name as name from information_schema.tables where table_schema = database()`
        : sql`select distinct index_name as name from information_schema.statistics where table_schema = database()`;
  }
  const { rows } = await query.execute(db);
  return new Set(rows.map((row) => String(row.name)));
}

/** Options of {@link migrate}. */
export interface MigrateOptions extends SqlOptions {
  /**
   * PostgreSQL: the `LISTEN/NOTIFY` channel its triggers announce session changes on; the same
   * `channel` as the `SqlRevocationStore` (with `listen`) that carries `session.cache`.
   * @default "latchkey_revocations"
   */
  channel?: string;
}

/**
 * Creates the tables and indexes that are missing, and leaves the rest alone, so running it again
 * changes nothing. Returns a line per thing it created (empty when the schema was complete).
 *
 * Tables: `users`, `accounts`, `sessions`, `verification_tokens` and `authenticators`, with the
 * column names of Auth.js's schema (plus `sessions.amr`, added to an existing table too), and
 * `second_factors`, `backup_codes`, `audit_events` (the audit trail: id, type, at, userId,
 * identifier, and the event as JSON in `data`). Unique indexes on `users.email`, `accounts(provider,
 * providerAccountId)`, `sessions.sessionToken`, `verification_tokens(identifier, token)` and
 * `authenticators.credentialID`; plain indexes on every `userId`, on `verification_tokens.expires` and on `audit_events.at`.
 * The sessions table gets the nullable metadata columns `createdAt`, `lastSeenAt`, `device` and
 * `clientAddress` (added to a table made before them, or by Auth.js). The table `refresh_locks`
 * (with an index on `expires`) holds `SqlRefreshStore`'s locks and outcome records.
 * On PostgreSQL, triggers on `sessions` and `users` NOTIFY `channel` of every update and delete,
 * for the session caches (see `migrateChangeTriggers`).
 * On MySQL and MariaDB, key columns compare bytes (collation `utf8mb4_nopad_bin` or
 * `utf8mb4_0900_bin`): existing tables whose keys use another collation are changed.
 *
 * @example
 * ```ts
 * import { migrate } from "@latchkey/sql-adapter"
 * const done = await migrate(db) // ["created table users", "created unique index users_email_key on users (email)", ...]
 * ```
 */
export async function migrate(db: AnyKysely, options: MigrateOptions = {}): Promise<string[]> {
  const dialect = dialectOf(db);
  const t = tableNames(options);
  const collation = dialect === "mysql" ? await binaryCollation(db) : "";
  const type = columnTypes(dialect, collation);
  const as = (name: string): Expression<unknown> => sql.raw(name);
  const done: string[] = [];

  const tables = await existingNames(db, dialect, "table");
  const userReference = (table: string) =>
    [`${table}_userId_fkey`, ["userId"], t.users, ["id"]] as [string, ["userId"], string, ["id"]];
  const builders = [
    db.schema
      .createTable(t.users)
      .ifNotExists()
      .addColumn("id", as(type.key), (col) => col.primaryKey())
      .addColumn("name", as(type.text))
      .addColumn("email", as(type.key))
      .addColumn("emailVerified", as(type.date))
      .addColumn("image", as(type.text)),
    db.schema
      .createTable(t.accounts)
      .ifNotExists()
      .addColumn("userId", as(type.key), (col) => col.notNull())
      .addColumn("type", as(type.key), (col) => col.notNull())
      .addColumn("provider", as(type.key), (col) => col.notNull())
      .addColumn("providerAccountId", as(type.key), (col) => col.notNull())
      .addColumn("refresh_token", as(type.text))
      .addColumn("access_token", as(type.text))
      .addColumn("expires_at", as(type.bigint))
      .addColumn("token_type", as(type.text))
      .addColumn("scope", as(type.text))
      .addColumn("id_token", as(type.text))
      .addColumn("session_state", as(type.text))
      .addForeignKeyConstraint(...userReference(t.accounts), (fk) => fk.onDelete("cascade")),
    db.schema
      .createTable(t.sessions)
      .ifNotExists()
      .addColumn("sessionToken", as(type.key), (col) => col.notNull())
      .addColumn("userId", as(type.key), (col) => col.notNull())
      .addColumn("expires", as(type.date), (col) => col.notNull())
      .addColumn("createdAt", as(type.date))
      .addColumn("lastSeenAt", as(type.date))
      .addColumn("device", as(type.text))
      .addColumn("clientAddress", as(type.text))
      // How the user signed in (JSON list, e.g. ["pwd","otp"]), for requireAuth's factors/amr.
      .addColumn("amr", as(type.text))
      .addForeignKeyConstraint(...userReference(t.sessions), (fk) => fk.onDelete("cascade")),
    db.schema
      .createTable(t.verificationTokens)
      .ifNotExists()
      .addColumn("identifier", as(type.key), (col) => col.notNull())
      .addColumn("token", as(type.key), (col) => col.notNull())
      .addColumn("expires", as(type.date), (col) => col.notNull()),
    db.schema
      .createTable(t.authenticators)
      .ifNotExists()
      .addColumn("credentialID", as(type.key), (col) => col.notNull())
      .addColumn("userId", as(type.key), (col) => col.notNull())
      .addColumn("providerAccountId", as(type.key), (col) => col.notNull())
      .addColumn("credentialPublicKey", as(type.text), (col) => col.notNull())
      .addColumn("counter", as(type.bigint), (col) => col.notNull())
      .addColumn("credentialDeviceType", as(type.key), (col) => col.notNull())
      .addColumn("credentialBackedUp", as(type.bool), (col) => col.notNull())
      .addColumn("transports", as(type.text))
      .addForeignKeyConstraint(...userReference(t.authenticators), (fk) => fk.onDelete("cascade")),
    // No foreign key to users: a credentials provider's users may live outside these tables.
    db.schema
      .createTable(t.secondFactors)
      .ifNotExists()
      .addColumn("userId", as(type.key), (col) => col.primaryKey())
      .addColumn("secret", as(type.text), (col) => col.notNull())
      .addColumn("active", as(type.bool), (col) => col.notNull())
      .addColumn("lastStep", as(type.bigint), (col) => col.notNull())
      .addColumn("generation", as(type.bigint), (col) => col.notNull().defaultTo(0)),
    db.schema
      .createTable(t.backupCodes)
      .ifNotExists()
      .addColumn("userId", as(type.key), (col) => col.notNull())
      .addColumn("codeHash", as(type.key), (col) => col.notNull())
      .addPrimaryKeyConstraint(`${t.backupCodes}_pkey`, ["userId", "codeHash"]),
    // The whole event is `data` (JSON); the columns beside it are what listings filter on.
    db.schema
      .createTable(t.auditEvents)
      .ifNotExists()
      .addColumn("id", as(type.key), (col) => col.primaryKey())
      .addColumn("type", as(type.key), (col) => col.notNull())
      .addColumn("at", as(type.date), (col) => col.notNull())
      .addColumn("userId", as(type.key))
      .addColumn("identifier", as(type.key))
      .addColumn("data", as(type.text), (col) => col.notNull()),
  ];
  const order = [
    t.users,
    t.accounts,
    t.sessions,
    t.verificationTokens,
    t.authenticators,
    t.secondFactors,
    t.backupCodes,
    t.auditEvents,
  ];
  for (const [i, builder] of builders.entries()) {
    const table = order[i] as string;
    if (tables.has(table)) continue;
    await builder.execute();
    done.push(`created table ${table}`);
  }
  if (dialect === "mysql") await migrateKeyCollation(db, t, collation, done);
  await addMissingColumns(db, dialect, t, type, done);

  const indexes = await existingNames(db, dialect, "index");
  for (const index of indexSpecs(t)) {
    if (indexes.has(index.name)) continue;
    let builder = db.schema.createIndex(index.name).on(index.table).columns(index.columns);
    if (index.unique) builder = builder.unique();
    await builder.execute();
    done.push(
      `created ${index.unique ? "unique " : ""}index ${index.name} on ${index.table} (${index.columns.join(", ")})`,
    );
  }
  await migrateRefreshLocks(db, t.refreshLocks, type, done);
  await migrateRevocations(db, t.revocations, type, done);
  await migrateAuthorizationRecords(db, t.authorizationRecords, type, done);
  await migrateOrganizations(db, t, type, done);
  await migrateApiKeys(db, t.apiKeys, type, done);
  await migrateAdmin(db, t, type, done);
  if (dialect === "mysql") await widenTextColumns(db, t, done);
  if (dialect === "postgres") await migrateChangeTriggers(db, t, options.channel ?? DEFAULT_CHANNEL, done);
  return done;
}

/** The `LISTEN/NOTIFY` channel of `SqlRevocationStore` and of the triggers, unless configured. */
export const DEFAULT_CHANNEL = "latchkey_revocations";

/** A PostgreSQL channel name the store and the triggers accept: a lower-case SQL identifier. */
export const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * PostgreSQL only: triggers that announce every change of a session or a user to the instances'
 * session caches (`session.cache` over a `SqlRevocationStore` with `listen`: a `NOTIFY` is heard
 * by `LISTEN` only, not by a polling store nor a Redis channel), whoever makes it: Latchkey, another program, or plain SQL (`DELETE FROM
 * sessions ...`). After each `UPDATE` or `DELETE` of a row of `sessions` (or of `users`, which
 * cascades to sessions), `NOTIFY <channel>` with the session change of `@latchkey/core/stores`:
 * `{"c":"s","i":<SHA-256 of the token, hex>}` or `{"c":"u","i":<user id>}`. PostgreSQL sends it
 * when the transaction commits, and never for one rolled back. A trigger whose channel differs is
 * replaced; the function is created when missing (SHA-256 needs PostgreSQL 11 or later).
 */
async function migrateChangeTriggers(db: AnyKysely, t: TableNames, channel: string, done: string[]): Promise<void> {
  if (!CHANNEL_NAME.test(channel)) {
    throw new TypeError(
      `migrate: \`channel\` must be a lower-case SQL identifier; received ${JSON.stringify(channel)}`,
    );
  }
  const fn = "latchkey_session_change";
  const { rows: functions } = await sql<{
    name: string;
  }>`select proname as name from pg_proc where proname = ${fn}`.execute(db);
  if (functions.length === 0) {
    // The channel is the trigger's second argument, so one function serves every channel.
    await sql`create or replace function ${sql.id(fn)}() returns trigger language plpgsql as $body$
begin
  if TG_ARGV[0] = 's' then
    perform pg_notify(TG_ARGV[1], '{"c":"s","i":"' || encode(sha256(convert_to(OLD."sessionToken", 'UTF8')), 'hex') || '"}');
  else
    perform pg_notify(TG_ARGV[1], json_build_object('c', 'u', 'i', OLD.id::text)::text);
  end if;
  return null;
end
$body$`.execute(db);
    done.push(`created function ${fn}`);
  }
  for (const [table, kind] of [
    [t.sessions, "s"],
    [t.users, "u"],
  ] as const) {
    const name = `${fn}_${kind === "s" ? "sessions" : "users"}`;
    const { rows } = await sql<{ definition: string }>`select pg_get_triggerdef(tg.oid) as definition
      from pg_trigger tg join pg_class c on c.oid = tg.tgrelid
      where tg.tgname = ${name} and c.relname = ${table} and pg_table_is_visible(c.oid)`.execute(db);
    const current = rows[0]?.definition;
    if (current?.includes(`'${channel}'`)) continue;
    if (current) await sql`drop trigger ${sql.id(name)} on ${sql.table(table)}`.execute(db);
    await sql`create trigger ${sql.id(name)} after update or delete on ${sql.table(table)}
      for each row execute function ${sql.id(fn)}(${sql.lit(kind)}, ${sql.lit(channel)})`.execute(db);
    done.push(`${current ? "replaced" : "created"} trigger ${name} on ${table} (notifies ${channel})`);
  }
}

/**
 * The table of `SqlRefreshStore`, created when missing: `id` (a key column: byte collation on
 * MySQL), `value`, `expires` (milliseconds since the epoch by the database's clock, indexed for
 * the sweep of expired rows). A step of its own, apart from the adapter's tables.
 */
async function migrateRefreshLocks(db: AnyKysely, table: string, type: ColumnTypes, done: string[]): Promise<void> {
  const dialect = dialectOf(db);
  if (!(await existingNames(db, dialect, "table")).has(table)) {
    await db.schema
      .createTable(table)
      .addColumn("id", sql.raw(type.key), (col) => col.primaryKey())
      .addColumn("value", sql.raw(type.text), (col) => col.notNull())
      .addColumn("expires", sql.raw(type.bigint), (col) => col.notNull())
      .execute();
    done.push(`created table ${table}`);
  }
  await addMissingIndexes(db, table, [["expires", "expires_idx"]], done);
}

/**
 * The table of `SqlRevocationStore`, created when missing: one row per entry, keyed by (`kind`,
 * `id`); `revokedBefore` and `expiresAt` in epoch milliseconds of the revoking instance's clock,
 * `userId` (a session entry's user), and `changedAt` (epoch milliseconds by the database's clock,
 * set by every write, indexed: what a polling store reads since its last poll).
 */
async function migrateRevocations(db: AnyKysely, table: string, type: ColumnTypes, done: string[]): Promise<void> {
  const dialect = dialectOf(db);
  if (!(await existingNames(db, dialect, "table")).has(table)) {
    await db.schema
      .createTable(table)
      .addColumn("kind", sql.raw(type.key), (col) => col.notNull())
      .addColumn("id", sql.raw(type.key), (col) => col.notNull())
      .addColumn("revokedBefore", sql.raw(type.bigint), (col) => col.notNull())
      .addColumn("expiresAt", sql.raw(type.bigint), (col) => col.notNull())
      .addColumn("userId", sql.raw(type.key))
      .addColumn("changedAt", sql.raw(type.bigint), (col) => col.notNull())
      .addPrimaryKeyConstraint(`${table}_pkey`, ["kind", "id"])
      .execute();
    done.push(`created table ${table}`);
  }
  await addMissingIndexes(
    db,
    table,
    [
      ["changedAt", "changed_idx"],
      ["expiresAt", "expires_idx"],
    ],
    done,
  );
}

/**
 * The table of `SqlAuthorizationStore`, created when missing: one row per record, keyed by
 * (`kind`, `id`); `data` (JSON text), the index columns `userId`, `clientId` and `grantId`,
 * `expiresAt` (epoch milliseconds, null for a record kept until deleted) and `version`.
 */
async function migrateAuthorizationRecords(
  db: AnyKysely,
  table: string,
  type: ColumnTypes,
  done: string[],
): Promise<void> {
  const dialect = dialectOf(db);
  if (!(await existingNames(db, dialect, "table")).has(table)) {
    await db.schema
      .createTable(table)
      .addColumn("kind", sql.raw(type.key), (col) => col.notNull())
      .addColumn("id", sql.raw(type.key), (col) => col.notNull())
      .addColumn("data", sql.raw(type.text), (col) => col.notNull())
      .addColumn("userId", sql.raw(type.key))
      .addColumn("clientId", sql.raw(type.key))
      .addColumn("grantId", sql.raw(type.key))
      .addColumn("expiresAt", sql.raw(type.bigint))
      .addColumn("version", sql.raw(type.bigint), (col) => col.notNull())
      .addPrimaryKeyConstraint(`${table}_pkey`, ["kind", "id"])
      .execute();
    done.push(`created table ${table}`);
  }
  await addMissingIndexes(
    db,
    table,
    [
      ["userId", "user_idx"],
      ["clientId", "client_idx"],
      ["grantId", "grant_idx"],
      ["expiresAt", "expires_idx"],
    ],
    done,
  );
}

/**
 * The tables of `SqlOrganizationStore`, created when missing: `organizations` (`id`, `name`, a
 * unique `slug`, `createdAt` in epoch milliseconds), `organization_members` (keyed by
 * (`organizationId`, `userId`), with `role` and `createdAt`, indexed by `userId`) and
 * `organization_invitations` (keyed by `id`, a unique `tokenHash`, with `organizationId`, `email`,
 * `role`, `invitedBy`, `createdAt` and `expiresAt` in epoch milliseconds, indexed by
 * `organizationId` and `expiresAt`), `organization_teams` (keyed by `id`, with `organizationId`,
 * `name` unique within it, `createdAt`) and `organization_team_members` (keyed by (`teamId`,
 * `userId`), with `organizationId`, `role`, `createdAt`, indexed by `organizationId` and `userId`).
 */
async function migrateOrganizations(db: AnyKysely, t: TableNames, type: ColumnTypes, done: string[]): Promise<void> {
  const dialect = dialectOf(db);
  const tables = await existingNames(db, dialect, "table");
  if (!tables.has(t.organizations)) {
    await db.schema
      .createTable(t.organizations)
      .addColumn("id", sql.raw(type.key), (col) => col.primaryKey())
      .addColumn("name", sql.raw(type.text), (col) => col.notNull())
      .addColumn("slug", sql.raw(type.key), (col) => col.notNull())
      .addColumn("createdAt", sql.raw(type.bigint), (col) => col.notNull())
      .addUniqueConstraint(`${t.organizations}_slug_key`, ["slug"])
      .execute();
    done.push(`created table ${t.organizations}`);
  }
  if (!tables.has(t.organizationMembers)) {
    await db.schema
      .createTable(t.organizationMembers)
      .addColumn("organizationId", sql.raw(type.key), (col) => col.notNull())
      .addColumn("userId", sql.raw(type.key), (col) => col.notNull())
      .addColumn("role", sql.raw(type.key), (col) => col.notNull())
      .addColumn("createdAt", sql.raw(type.bigint), (col) => col.notNull())
      .addPrimaryKeyConstraint(`${t.organizationMembers}_pkey`, ["organizationId", "userId"])
      .execute();
    done.push(`created table ${t.organizationMembers}`);
  }
  await addMissingIndexes(db, t.organizationMembers, [["userId", "user_idx"]], done);
  if (!tables.has(t.organizationInvitations)) {
    await db.schema
      .createTable(t.organizationInvitations)
      .addColumn("id", sql.raw(type.key), (col) => col.primaryKey())
      .addColumn("organizationId", sql.raw(type.key), (col) => col.notNull())
      .addColumn("email", sql.raw(type.key), (col) => col.notNull())
      .addColumn("role", sql.raw(type.key), (col) => col.notNull())
      .addColumn("invitedBy", sql.raw(type.key), (col) => col.notNull())
      .addColumn("tokenHash", sql.raw(type.key), (col) => col.notNull())
      .addColumn("createdAt", sql.raw(type.bigint), (col) => col.notNull())
      .addColumn("expiresAt", sql.raw(type.bigint), (col) => col.notNull())
      .addUniqueConstraint(`${t.organizationInvitations}_token_key`, ["tokenHash"])
      .execute();
    done.push(`created table ${t.organizationInvitations}`);
  }
  await addMissingIndexes(
    db,
    t.organizationInvitations,
    [
      ["organizationId", "organization_idx"],
      ["expiresAt", "expires_idx"],
    ],
    done,
  );
  if (!tables.has(t.organizationTeams)) {
    await db.schema
      .createTable(t.organizationTeams)
      .addColumn("id", sql.raw(type.key), (col) => col.primaryKey())
      .addColumn("organizationId", sql.raw(type.key), (col) => col.notNull())
      .addColumn("name", sql.raw(type.key), (col) => col.notNull())
      .addColumn("createdAt", sql.raw(type.bigint), (col) => col.notNull())
      .addUniqueConstraint(`${t.organizationTeams}_name_key`, ["organizationId", "name"])
      .execute();
    done.push(`created table ${t.organizationTeams}`);
  }
  if (!tables.has(t.organizationTeamMembers)) {
    await db.schema
      .createTable(t.organizationTeamMembers)
      .addColumn("teamId", sql.raw(type.key), (col) => col.notNull())
      .addColumn("userId", sql.raw(type.key), (col) => col.notNull())
      .addColumn("organizationId", sql.raw(type.key), (col) => col.notNull())
      .addColumn("role", sql.raw(type.key), (col) => col.notNull())
      .addColumn("createdAt", sql.raw(type.bigint), (col) => col.notNull())
      .addPrimaryKeyConstraint(`${t.organizationTeamMembers}_pkey`, ["teamId", "userId"])
      .execute();
    done.push(`created table ${t.organizationTeamMembers}`);
  }
  await addMissingIndexes(
    db,
    t.organizationTeamMembers,
    [
      ["organizationId", "organization_idx"],
      ["userId", "user_idx"],
    ],
    done,
  );
}

/**
 * The table of `SqlApiKeyStore`, created when missing: one row per key, keyed by its public `id`;
 * `hash` (the key's HMAC, never the key), `name`, `userId`, `organizationId` (null for a user's
 * own key), `scopes` (JSON text), the times `createdAt`, `expiresAt`, `lastUsedAt`, `revokedAt` in
 * epoch milliseconds (null when unset), and the key's limit (`rateLimitMax`, `rateLimitWindow` in
 * seconds; null without one). Indexed by `userId` and `organizationId`, what lists ask by.
 */
async function migrateApiKeys(db: AnyKysely, table: string, type: ColumnTypes, done: string[]): Promise<void> {
  const dialect = dialectOf(db);
  if (!(await existingNames(db, dialect, "table")).has(table)) {
    await db.schema
      .createTable(table)
      .addColumn("id", sql.raw(type.key), (col) => col.primaryKey())
      .addColumn("hash", sql.raw(type.key), (col) => col.notNull())
      .addColumn("name", sql.raw(type.text), (col) => col.notNull())
      .addColumn("userId", sql.raw(type.key), (col) => col.notNull())
      .addColumn("organizationId", sql.raw(type.key))
      .addColumn("scopes", sql.raw(type.text), (col) => col.notNull())
      .addColumn("createdAt", sql.raw(type.bigint), (col) => col.notNull())
      .addColumn("expiresAt", sql.raw(type.bigint))
      .addColumn("lastUsedAt", sql.raw(type.bigint))
      .addColumn("revokedAt", sql.raw(type.bigint))
      .addColumn("rateLimitMax", sql.raw(type.bigint))
      .addColumn("rateLimitWindow", sql.raw(type.bigint))
      .execute();
    done.push(`created table ${table}`);
  }
  await addMissingIndexes(
    db,
    table,
    [
      ["userId", "user_idx"],
      ["organizationId", "organization_idx"],
    ],
    done,
  );
}

/**
 * The tables of `SqlAdminStore`, created when missing: `admin_roles` (`userId` primary key, `role`)
 * and `admin_bans` (`userId` primary key, `reason` (null when none), `bannedBy`, `bannedAt` and
 * `expiresAt` in epoch milliseconds, `expiresAt` null for a ban until lifted). Kept apart from
 * `users`, so that a database of another adapter (an Auth.js schema) needs no new column.
 */
async function migrateAdmin(db: AnyKysely, t: TableNames, type: ColumnTypes, done: string[]): Promise<void> {
  const tables = await existingNames(db, dialectOf(db), "table");
  if (!tables.has(t.adminRoles)) {
    await db.schema
      .createTable(t.adminRoles)
      .addColumn("userId", sql.raw(type.key), (col) => col.primaryKey())
      .addColumn("role", sql.raw(type.key), (col) => col.notNull())
      .execute();
    done.push(`created table ${t.adminRoles}`);
  }
  if (!tables.has(t.adminBans)) {
    await db.schema
      .createTable(t.adminBans)
      .addColumn("userId", sql.raw(type.key), (col) => col.primaryKey())
      .addColumn("reason", sql.raw(type.text))
      .addColumn("bannedBy", sql.raw(type.key), (col) => col.notNull())
      .addColumn("bannedAt", sql.raw(type.bigint), (col) => col.notNull())
      .addColumn("expiresAt", sql.raw(type.bigint))
      .execute();
    done.push(`created table ${t.adminBans}`);
  }
}

/** Creates each missing one-column index `<table>_<suffix>` of `indexes` ([column, suffix]), noting it in `done`. */
async function addMissingIndexes(
  db: AnyKysely,
  table: string,
  indexes: readonly (readonly [column: string, suffix: string])[],
  done: string[],
): Promise<void> {
  const existing = await existingNames(db, dialectOf(db), "index");
  for (const [column, suffix] of indexes) {
    const index = `${table}_${suffix}`;
    if (existing.has(index)) continue;
    await db.schema.createIndex(index).on(table).column(column).execute();
    done.push(`created index ${index} on ${table} (${column})`);
  }
}
