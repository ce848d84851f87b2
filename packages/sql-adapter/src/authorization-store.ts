/**
 * The authorization server's store in the application's SQL database (SQLite, PostgreSQL, MySQL
 * or MariaDB).
 * @module authorization-store
 */
import type {
  AuthorizationRecord,
  AuthorizationRecordFilter,
  AuthorizationRecordKind,
  AuthorizationStore,
} from "@latchkey/core/authorization-server";
import type { ExpressionBuilder } from "kysely";
import { type AnyKysely, dialectOf, isDriverError, type SqlOptions, tableNames } from "./schema.js";

/** How often one store deletes the expired rows (on a write), at most. */
const SWEEP_EVERY_MS = 60_000;

interface Row {
  kind: string;
  id: string;
  data: string;
  userId: string | null;
  clientId: string | null;
  grantId: string | null;
  expiresAt: string | number | bigint | null;
  version: string | number | bigint;
}

const COLUMNS = ["kind", "id", "data", "userId", "clientId", "grantId", "expiresAt", "version"] as const;

function toRow(record: AuthorizationRecord): Row {
  return {
    kind: record.kind,
    id: record.id,
    data: JSON.stringify(record.data),
    userId: record.userId ?? null,
    clientId: record.clientId ?? null,
    grantId: record.grantId ?? null,
    expiresAt: record.expiresAt ?? null,
    version: record.version,
  };
}

/** A row as the record it stores. The kind is the one asked for (the query matched it). */
function fromRow(row: Row, kind: AuthorizationRecordKind): AuthorizationRecord {
  const data: unknown = JSON.parse(row.data);
  const record: AuthorizationRecord = {
    kind,
    id: String(row.id),
    data: typeof data === "object" && data !== null && !Array.isArray(data) ? { ...data } : {},
    version: Number(row.version),
  };
  if (row.userId !== null) record.userId = String(row.userId);
  if (row.clientId !== null) record.clientId = String(row.clientId);
  if (row.grantId !== null) record.grantId = String(row.grantId);
  if (row.expiresAt !== null) record.expiresAt = Number(row.expiresAt);
  return record;
}

/** The column a filter names, and its value. */
function filterOf(filter: AuthorizationRecordFilter): ["userId" | "clientId" | "grantId", string] {
  if ("userId" in filter) return ["userId", filter.userId];
  if ("clientId" in filter) return ["clientId", filter.clientId];
  return ["grantId", filter.grantId];
}

/**
 * An `AuthorizationStore` (see `@latchkey/core/authorization-server`) in the table
 * `authorization_records`, which `migrate` (`npx latchkey migrate <url>`) creates: for an
 * authorization server whose instances share a SQL database. One row per record, keyed by
 * (`kind`, `id`) and compared byte for byte (MySQL/MariaDB: a NO PAD binary collation); expiry is
 * checked by every read against the application's clock (the clock the server set it by), and
 * expired rows are deleted now and then as the table is written. `add` is an insert that does
 * nothing on a conflict (after an expired row of that id is cleared), `take` a `DELETE ...
 * RETURNING` (MySQL: `SELECT ... FOR UPDATE` then `DELETE` in a transaction), `swap` an update
 * whose `WHERE` names the version it replaces: each is one atomic step whatever the instances do.
 *
 * @example
 * ```ts
 * import { SqlAdapter, SqlAuthorizationStore, openDatabase } from "@latchkey/sql-adapter"
 * const db = await openDatabase(process.env.DATABASE_URL)
 * const server = AuthorizationServer({ issuer, auth: { adapter: SqlAdapter(db), providers }, store: SqlAuthorizationStore(db) })
 * ```
 */
export function SqlAuthorizationStore(db: AnyKysely, options: SqlOptions = {}): AuthorizationStore {
  const dialect = dialectOf(db);
  const table = tableNames(options).authorizationRecords;
  // biome-ignore lint/suspicious/noExplicitAny: the table's name is the application's, so its type is Kysely<any>'s.
  const live = (eb: ExpressionBuilder<any, any>) =>
    eb.or([eb("expiresAt", "is", null), eb("expiresAt", ">", Date.now())]);
  // A database not migrated yet fails with the fix named, not the driver's bare message.
  const guarded = <T>(work: Promise<T>): Promise<T> =>
    work.catch((error: unknown) => {
      if (
        !isDriverError(error, { postgres: "42P01", mysql: "ER_NO_SUCH_TABLE", errno: 1146, sqlite: /no such table/i })
      )
        throw error;
      throw new Error(
        `@latchkey/sql-adapter: SqlAuthorizationStore needs the table ${table}: run \`npx latchkey migrate <database-url>\` (@latchkey/cli) or \`migrate(db)\``,
        { cause: error },
      );
    });
  let lastSweep = 0;
  const sweep = async () => {
    if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = Date.now();
    await db.deleteFrom(table).where("expiresAt", "<=", Date.now()).execute();
  };
  const byKey =
    (kind: string, id: string) =>
    // biome-ignore lint/suspicious/noExplicitAny: see `live`.
    (eb: ExpressionBuilder<any, any>) =>
      eb.and([eb("kind", "=", kind), eb("id", "=", id)]);

  async function take(kind: AuthorizationRecordKind, id: string): Promise<AuthorizationRecord | null> {
    if (dialect !== "mysql") {
      // One statement: of concurrent calls, exactly one gets the row back.
      const row = await db
        .deleteFrom(table)
        .where(byKey(kind, id))
        .where(live)
        .returning([...COLUMNS])
        .executeTakeFirst();
      return row ? fromRow(row as Row, kind) : null;
    }
    // MySQL has no DELETE ... RETURNING: lock the row, then delete it; waiting callers find it gone.
    return db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom(table)
        .select([...COLUMNS])
        .where(byKey(kind, id))
        .where(live)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return null;
      const { numDeletedRows } = await trx.deleteFrom(table).where(byKey(kind, id)).executeTakeFirstOrThrow();
      return numDeletedRows === 1n ? fromRow(row as Row, kind) : null;
    });
  }

  const store = {
    async set(record: AuthorizationRecord) {
      await sweep();
      const row = toRow(record);
      const { kind: _kind, id: _id, ...changes } = row;
      const insert = db.insertInto(table).values(row);
      await (dialect === "mysql"
        ? insert.onDuplicateKeyUpdate(changes)
        : insert.onConflict((oc) => oc.columns(["kind", "id"]).doUpdateSet(changes))
      ).execute();
    },
    async add(record: AuthorizationRecord) {
      await sweep();
      // An expired row of this id is no record: cleared first, so the insert below can take its place.
      await db.deleteFrom(table).where(byKey(record.kind, record.id)).where("expiresAt", "<=", Date.now()).execute();
      const insert = db.insertInto(table).values(toRow(record));
      const result = await (dialect === "mysql"
        ? insert.ignore()
        : insert.onConflict((oc) => oc.columns(["kind", "id"]).doNothing())
      ).executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async get(kind: AuthorizationRecordKind, id: string) {
      const row = await db
        .selectFrom(table)
        .select([...COLUMNS])
        .where(byKey(kind, id))
        .where(live)
        .executeTakeFirst();
      return row ? fromRow(row as Row, kind) : null;
    },
    async swap(record: AuthorizationRecord) {
      const { kind, id, ...changes } = toRow(record);
      const result = await db
        .updateTable(table)
        .set(changes)
        .where(byKey(kind, id))
        .where("version", "=", record.version - 1)
        .where(live)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async delete(kind: AuthorizationRecordKind, id: string) {
      const result = await db.deleteFrom(table).where(byKey(kind, id)).where(live).executeTakeFirst();
      await db.deleteFrom(table).where(byKey(kind, id)).execute();
      return Number(result.numDeletedRows) > 0;
    },
    async find(kind: AuthorizationRecordKind, filter?: AuthorizationRecordFilter) {
      let query = db
        .selectFrom(table)
        .select([...COLUMNS])
        .where("kind", "=", kind)
        .where(live);
      if (filter) {
        const [column, value] = filterOf(filter);
        query = query.where(column, "=", value);
      }
      return (await query.execute()).map((row) => fromRow(row as Row, kind));
    },
    async deleteWhere(filter: AuthorizationRecordFilter, kinds: readonly AuthorizationRecordKind[]) {
      if (kinds.length === 0) return 0;
      const [column, value] = filterOf(filter);
      const result = await db
        .deleteFrom(table)
        .where(column, "=", value)
        .where("kind", "in", [...kinds])
        .where(live)
        .executeTakeFirst();
      await db
        .deleteFrom(table)
        .where(column, "=", value)
        .where("kind", "in", [...kinds])
        .execute();
      return Number(result.numDeletedRows);
    },
  };
  return {
    set: (record) => guarded(store.set(record)),
    add: (record) => guarded(store.add(record)),
    get: (kind, id) => guarded(store.get(kind, id)),
    take: (kind, id) => guarded(take(kind, id)),
    swap: (record) => guarded(store.swap(record)),
    delete: (kind, id) => guarded(store.delete(kind, id)),
    find: (kind, filter) => guarded(store.find(kind, filter)),
    deleteWhere: (filter, kinds) => guarded(store.deleteWhere(filter, kinds)),
  };
}
