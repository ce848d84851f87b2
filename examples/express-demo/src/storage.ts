/**
 * Where users, accounts, passkeys, organizations, API keys and the admin tools' roles and bans are kept: PostgreSQL when DATABASE_URL is set (any URL
 * `openDatabase` takes), Redis when REDIS_URL is set, otherwise a SQLite file in the data folder.
 * SQL databases are migrated on start (what `npx latchkey migrate <url>` of @latchkey/cli does).
 */
import { join } from "node:path";
import type { Adapter } from "@latchkey/core/adapters";
import type { AdminStore } from "@latchkey/core/admin";
import type { ApiKeyStore } from "@latchkey/core/api-keys";
import type { OrganizationStore } from "@latchkey/core/organizations";
import { RedisAdapter, RedisAdminStore, RedisApiKeyStore, RedisOrganizationStore } from "@latchkey/redis-adapter";
import {
  migrate,
  openDatabase,
  SqlAdapter,
  SqlAdminStore,
  SqlApiKeyStore,
  SqlOrganizationStore,
} from "@latchkey/sql-adapter";
import { Redis } from "ioredis";

export interface Storage {
  adapter: Adapter;
  /** Organizations, members, invitations and teams, in the same database (teams.ts). */
  organizations: OrganizationStore;
  /** API keys (their hashes), in the same database (teams.ts). */
  apiKeys: ApiKeyStore;
  /** The admin tools' application-level roles and bans (admin.ts); every sign-in reads the bans. */
  admin: AdminStore;
  /** What it is, for the start-up message: "SQLite data/demo.sqlite", "Redis", ... */
  label: string;
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
    return {
      adapter: RedisAdapter(redis),
      organizations: RedisOrganizationStore(redis),
      apiKeys: RedisApiKeyStore(redis),
      admin: RedisAdminStore(redis),
      label: `Redis (${new URL(options.redisUrl).host})`,
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
    organizations: SqlOrganizationStore(db),
    apiKeys: SqlApiKeyStore(db),
    admin: SqlAdminStore(db),
    label,
    close: () => db.destroy(),
  };
}
