/**
 * `SqlApiKeyStore`: the conformance suite every `ApiKeyStore` runs, on PostgreSQL,
 * MariaDB and SQLite, two instances (two connection pools, or two connections to one SQLite file)
 * sharing the table `migrate` made; then a database that was never migrated.
 */
import { runApiKeyStoreConformance } from "@latchkey/adapter-test/api-key-store";
import { SqlApiKeyStore } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { backendsFor } from "./backends.js";

const backends = backendsFor("apikeys");

for (const backend of backends) {
  const available = await backend.up();
  runApiKeyStoreConformance(
    `SqlApiKeyStore (${backend.name})`,
    async () => {
      const { dbs, drop } = await backend.open();
      return { stores: [SqlApiKeyStore(dbs[0]), SqlApiKeyStore(dbs[1])], teardown: drop };
    },
    { skip: !available },
  );
}

describe("SqlApiKeyStore on a database that was never migrated", () => {
  it("names the fix: run latchkey migrate", async () => {
    const db = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    try {
      await expect(SqlApiKeyStore(db).getApiKey("0123456789abcdef")).rejects.toThrow(/latchkey migrate/);
    } finally {
      await db.destroy();
    }
  });
});
