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
}

/** The default table names. */
export const defaultTableNames: Readonly<TableNames> = Object.freeze({
  users: "users",
  accounts: "accounts",
  sessions: "sessions",
  verificationTokens: "verification_tokens",
  authenticators: "authenticators",
});

/** Options shared by `SqlAdapter` and `migrate`. */
export interface SqlOptions {
  /**
   * Other table names, for example those of a database made for the Auth.js Kysely adapter:
   * `{ users: "User", accounts: "Account", sessions: "Session", verificationTokens: "VerificationToken" }`.
   * The column names are Auth.js's either way.
   */
  tables?: Partial<TableNames>;
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
// VARCHAR(255), small enough for a two-column utf8mb4 unique index.
const columnTypes: Record<DialectName, ColumnTypes> = {
  sqlite: { key: "text", text: "text", date: "text", bool: "integer", bigint: "integer" },
  postgres: { key: "text", text: "text", date: "timestamptz", bool: "boolean", bigint: "bigint" },
  mysql: { key: "varchar(255)", text: "text", date: "datetime(3)", bool: "boolean", bigint: "bigint" },
};

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
    index(t.authenticators, ["credentialID"], true),
    index(t.authenticators, ["userId"], false),
  ];
}

async function existingNames(db: AnyKysely, dialect: DialectName, kind: "table" | "index"): Promise<Set<string>> {
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

/**
 * Creates the tables and indexes that are missing, and leaves the rest alone, so running it again
 * changes nothing. Returns a line per thing it created (empty when the schema was complete).
 *
 * Tables: `users`, `accounts`, `sessions`, `verification_tokens` and `authenticators`, with the
 * column names of Auth.js's schema. Unique indexes on `users.email`, `accounts(provider,
 * providerAccountId)`, `sessions.sessionToken`, `verification_tokens(identifier, token)` and
 * `authenticators.credentialID`; plain indexes on every `userId`.
 *
 * @example
 * ```ts
 * import { migrate } from "@latchkey/sql-adapter"
 * const done = await migrate(db) // ["created table users", "created unique index users_email_key on users (email)", ...]
 * ```
 */
export async function migrate(db: AnyKysely, options: SqlOptions = {}): Promise<string[]> {
  const dialect = dialectOf(db);
  const t = tableNames(options);
  const type = columnTypes[dialect];
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
  ];
  const order = [t.users, t.accounts, t.sessions, t.verificationTokens, t.authenticators];
  for (const [i, builder] of builders.entries()) {
    const table = order[i] as string;
    if (tables.has(table)) continue;
    await builder.execute();
    done.push(`created table ${table}`);
  }

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
  return done;
}
