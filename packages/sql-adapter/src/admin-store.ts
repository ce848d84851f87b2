/**
 * `SqlAdminStore`: application-level roles and bans in two tables that `migrate` creates, shared by
 * every instance of an application.
 * @module admin-store
 */
import type { AdminBan, AdminStore } from "@latchkey/core/admin";
import { type AnyKysely, dialectOf, isDriverError, type SqlOptions, tableNames } from "./schema.js";

interface BanRow {
  userId: string;
  reason: string | null;
  bannedBy: string;
  bannedAt: number | string | bigint;
  expiresAt: number | string | bigint | null;
}

const NO_TABLE = { postgres: "42P01", mysql: "ER_NO_SUCH_TABLE", errno: 1146, sqlite: /no such table/i };

function banOf(row: BanRow): AdminBan {
  return {
    userId: row.userId,
    reason: row.reason,
    bannedBy: row.bannedBy,
    bannedAt: new Date(Number(row.bannedAt)),
    expiresAt: row.expiresAt === null ? null : new Date(Number(row.expiresAt)),
  };
}

/**
 * An `AdminStore` (`@latchkey/core/admin`) in the tables `admin_roles` and `admin_bans`, which
 * `migrate` (`npx latchkey migrate <url>`) creates: for an application whose instances share a SQL
 * database (PostgreSQL, MySQL/MariaDB, SQLite), whatever adapter keeps its users. Every method is
 * one statement: a role change is a conditional insert, update or delete on the role it expects
 * (so of two changes decided on one role, one is applied), a ban an upsert, an expired ban is
 * read as none.
 *
 * @example
 * ```ts
 * import { SqlAdminStore, openDatabase } from "@latchkey/sql-adapter"
 * const store = SqlAdminStore(await openDatabase(process.env.DATABASE_URL))
 * const config = { ...authConfig, admin: { store } }
 * const admin = Admin(config, { admins: { userIds: [process.env.OWNER_ID] } })
 * ```
 */
export function SqlAdminStore(db: AnyKysely, options: SqlOptions = {}): AdminStore {
  const dialect = dialectOf(db);
  const { adminRoles: roles, adminBans: bans } = tableNames(options);
  // A database not migrated yet fails with the fix named, not the driver's bare message.
  const guarded = <T>(work: () => Promise<T>): Promise<T> =>
    work().catch((error: unknown) => {
      if (!isDriverError(error, NO_TABLE)) throw error;
      throw new Error(
        `@latchkey/sql-adapter: SqlAdminStore needs the tables ${roles} and ${bans}: run \`npx latchkey migrate <database-url>\` (@latchkey/cli) or \`migrate(db)\``,
        { cause: error },
      );
    });
  const roleOf = async (userId: string) =>
    ((await db.selectFrom(roles).select("role").where("userId", "=", userId).executeTakeFirst())?.role as
      | string
      | undefined) ?? null;

  return {
    getRole: (userId) => guarded(() => roleOf(userId)),
    setRole: (userId, from, to) =>
      guarded(async () => {
        if (from === to) return (await roleOf(userId)) === from;
        if (from === null) {
          const insert = db.insertInto(roles).values({ userId, role: to });
          const result = await (dialect === "mysql"
            ? insert.ignore()
            : insert.onConflict((oc) => oc.column("userId").doNothing())
          ).executeTakeFirst();
          return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
        }
        if (to === null) {
          const result = await db
            .deleteFrom(roles)
            .where("userId", "=", userId)
            .where("role", "=", from)
            .executeTakeFirst();
          return Number(result.numDeletedRows) === 1;
        }
        const result = await db
          .updateTable(roles)
          .set({ role: to })
          .where("userId", "=", userId)
          .where("role", "=", from)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
    getBan: (userId, now) =>
      guarded(async () => {
        const row = (await db
          .selectFrom(bans)
          .selectAll()
          .where("userId", "=", userId)
          .where((eb) => eb.or([eb("expiresAt", "is", null), eb("expiresAt", ">", now.getTime())]))
          .executeTakeFirst()) as BanRow | undefined;
        return row ? banOf(row) : null;
      }),
    setBan: (ban) =>
      guarded(async () => {
        const fields = {
          reason: ban.reason,
          bannedBy: ban.bannedBy,
          bannedAt: ban.bannedAt.getTime(),
          expiresAt: ban.expiresAt?.getTime() ?? null,
        };
        const insert = db.insertInto(bans).values({ userId: ban.userId, ...fields });
        await (dialect === "mysql"
          ? insert.onDuplicateKeyUpdate(fields)
          : insert.onConflict((oc) => oc.column("userId").doUpdateSet(fields))
        ).execute();
      }),
    removeBan: (userId) =>
      guarded(async () => {
        const result = await db.deleteFrom(bans).where("userId", "=", userId).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      }),
  };
}
