/**
 * Where users, accounts and passkeys are kept: PostgreSQL when DATABASE_URL is set (any URL
 * `openDatabase` takes), Redis when REDIS_URL is set, otherwise a SQLite file in the data folder.
 * SQL databases are migrated on start (what `npx latchkey migrate <url>` does).
 */
import { join } from "node:path";
import type { Adapter } from "@latchkey/core/adapters";
import { RedisAdapter, redisKeys } from "@latchkey/redis-adapter";
import { defaultTableNames, migrate, openDatabase, SqlAdapter } from "@latchkey/sql-adapter";
import { Redis } from "ioredis";

/** A linked account, as the account page lists it. */
export interface LinkedAccount {
  provider: string;
  type: string;
  providerAccountId: string;
}

export interface Storage {
  adapter: Adapter;
  /** What it is, for the start-up message: "SQLite data/demo.sqlite", "Redis", ... */
  label: string;
  /** The accounts linked to a user. The adapter interface has no such query, so each store has its own. */
  listAccounts(userId: string): Promise<LinkedAccount[]>;
  close(): Promise<void>;
}

export async function openStorage(options: {
  dataDir: string;
  databaseUrl?: string | undefined;
  redisUrl?: string | undefined;
}): Promise<Storage> {
  if (options.redisUrl && !options.databaseUrl) {
    const redis = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
    await redis.connect();
    const keys = redisKeys(); // the adapter's default key prefix, "latchkey:"
    return {
      adapter: RedisAdapter(redis),
      label: `Redis (${new URL(options.redisUrl).host})`,
      async listAccounts(userId) {
        const accountKeys = await redis.smembers(keys.userAccounts(userId));
        const records = accountKeys.length ? await redis.mget(...accountKeys) : [];
        return records.flatMap((json) => (json ? [JSON.parse(json) as LinkedAccount] : []));
      },
      close: async () => void (await redis.quit()),
    };
  }

  const file = join(options.dataDir, "demo.sqlite");
  const db = await openDatabase(options.databaseUrl ?? file);
  await migrate(db); // creates the tables on first start; a no-op afterwards
  // Printed at start: the URL without its password.
  const label = options.databaseUrl ? options.databaseUrl.replace(/\/\/[^@/]*@/, "//") : `SQLite ${file}`;
  return {
    adapter: SqlAdapter(db),
    label,
    listAccounts: (userId) =>
      db
        .selectFrom(defaultTableNames.accounts)
        .select(["provider", "type", "providerAccountId"])
        .where("userId", "=", userId)
        .orderBy("provider")
        .execute() as Promise<LinkedAccount[]>,
    close: () => db.destroy(),
  };
}
