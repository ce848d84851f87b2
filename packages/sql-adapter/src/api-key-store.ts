/**
 * `SqlApiKeyStore`: API keys in the table `migrate` creates, shared by every instance of an
 * application.
 * @module api-key-store
 */
import type { ApiKeyRecord, ApiKeyStore } from "@latchkey/core/api-keys";
import { type AnyKysely, isDriverError, type SqlOptions, tableNames } from "./schema.js";

interface ApiKeyRow {
  id: string;
  hash: string;
  name: string;
  userId: string;
  organizationId: string | null;
  scopes: string;
  createdAt: number | string | bigint;
  expiresAt: number | string | bigint | null;
  lastUsedAt: number | string | bigint | null;
  revokedAt: number | string | bigint | null;
  rateLimitMax: number | string | bigint | null;
  rateLimitWindow: number | string | bigint | null;
}

const NO_TABLE = { postgres: "42P01", mysql: "ER_NO_SUCH_TABLE", errno: 1146, sqlite: /no such table/i };

const time = (value: number | string | bigint | null) => (value === null ? null : new Date(Number(value)));
const millis = (value: Date | null) => (value === null ? null : value.getTime());

function recordOf(row: ApiKeyRow): ApiKeyRecord {
  const scopes: unknown = JSON.parse(row.scopes);
  return {
    id: row.id,
    hash: row.hash,
    name: row.name,
    userId: row.userId,
    organizationId: row.organizationId,
    scopes: Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : [],
    createdAt: new Date(Number(row.createdAt)),
    expiresAt: time(row.expiresAt),
    lastUsedAt: time(row.lastUsedAt),
    revokedAt: time(row.revokedAt),
    rateLimit:
      row.rateLimitMax === null || row.rateLimitWindow === null
        ? null
        : { max: Number(row.rateLimitMax), windowSeconds: Number(row.rateLimitWindow) },
  };
}

function rowOf(record: ApiKeyRecord): ApiKeyRow {
  return {
    id: record.id,
    hash: record.hash,
    name: record.name,
    userId: record.userId,
    organizationId: record.organizationId,
    scopes: JSON.stringify(record.scopes),
    createdAt: record.createdAt.getTime(),
    expiresAt: millis(record.expiresAt),
    lastUsedAt: millis(record.lastUsedAt),
    revokedAt: millis(record.revokedAt),
    rateLimitMax: record.rateLimit?.max ?? null,
    rateLimitWindow: record.rateLimit?.windowSeconds ?? null,
  };
}

/**
 * An `ApiKeyStore` (`@latchkey/core/api-keys`) in the table `api_keys`, which `migrate`
 * (`npx latchkey migrate <url>`) creates: for an application whose instances share a SQL database
 * (PostgreSQL, MySQL/MariaDB, SQLite). Every method is one statement, except a rotation: it stores
 * the replacement, then revokes the old key on the condition that it is live, and deletes the
 * replacement when that found none (a replacement nobody has seen, since its key is shown only
 * once the rotation succeeded).
 *
 * @example
 * ```ts
 * import { SqlApiKeyStore, openDatabase } from "@latchkey/sql-adapter"
 * const keys = ApiKeys(authConfig, { store: SqlApiKeyStore(await openDatabase(process.env.DATABASE_URL)) })
 * ```
 */
export function SqlApiKeyStore(db: AnyKysely, options: SqlOptions = {}): ApiKeyStore {
  const table = tableNames(options).apiKeys;
  // A database not migrated yet fails with the fix named, not the driver's bare message.
  const guarded = <T>(work: () => Promise<T>): Promise<T> =>
    work().catch((error: unknown) => {
      if (!isDriverError(error, NO_TABLE)) throw error;
      throw new Error(
        `@latchkey/sql-adapter: SqlApiKeyStore needs the table ${table}: run \`npx latchkey migrate <database-url>\` (@latchkey/cli) or \`migrate(db)\``,
        { cause: error },
      );
    });
  /** Sets `revokedAt` of the live key `id`; true when it did. */
  const revokeLive = async (id: string, at: Date) => {
    const result = await db
      .updateTable(table)
      .set({ revokedAt: at.getTime() })
      .where("id", "=", id)
      .where("revokedAt", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  };

  return {
    createApiKey: (record) =>
      guarded(async () => {
        await db.insertInto(table).values(rowOf(record)).execute();
      }),
    getApiKey: (id) =>
      guarded(async () => {
        const row = (await db.selectFrom(table).selectAll().where("id", "=", id).executeTakeFirst()) as
          | ApiKeyRow
          | undefined;
        return row ? recordOf(row) : null;
      }),
    listApiKeys: (owner) =>
      guarded(async () => {
        let query = db.selectFrom(table).selectAll();
        query =
          owner.organizationId !== undefined
            ? query.where("organizationId", "=", owner.organizationId)
            : query.where("userId", "=", owner.userId).where("organizationId", "is", null);
        const rows = (await query.orderBy("createdAt").orderBy("id").execute()) as ApiKeyRow[];
        return rows.map(recordOf);
      }),
    revokeApiKey: (id, at) => guarded(() => revokeLive(id, at)),
    rotateApiKey: (id, at, replacement) =>
      guarded(async () => {
        await db.insertInto(table).values(rowOf(replacement)).execute();
        let revoked = false;
        try {
          revoked = await revokeLive(id, at);
        } finally {
          if (!revoked) await db.deleteFrom(table).where("id", "=", replacement.id).execute();
        }
        return revoked;
      }),
    touchApiKey: (id, at, before) =>
      guarded(async () => {
        await db
          .updateTable(table)
          .set({ lastUsedAt: at.getTime() })
          .where("id", "=", id)
          .where((eb) => eb.or([eb("lastUsedAt", "is", null), eb("lastUsedAt", "<", before.getTime())]))
          .execute();
      }),
  };
}
