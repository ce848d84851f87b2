/**
 * `SqlOrganizationStore`: the conformance suite every `OrganizationStore` runs, on PostgreSQL,
 * MariaDB and SQLite, two instances (two connection pools, or two connections to one SQLite file)
 * sharing the tables `migrate` made; then a database that was never migrated.
 */
import { runOrganizationStoreConformance } from "@latchkey/adapter-test/organization-store";
import { SqlOrganizationStore } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { backendsFor } from "./backends.js";

const backends = backendsFor("orgs");

for (const backend of backends) {
  const available = await backend.up();
  runOrganizationStoreConformance(
    `SqlOrganizationStore (${backend.name})`,
    async () => {
      const { dbs, drop } = await backend.open();
      return { stores: [SqlOrganizationStore(dbs[0]), SqlOrganizationStore(dbs[1])], teardown: drop };
    },
    { skip: !available },
  );
}

describe("SqlOrganizationStore on a database that was never migrated", () => {
  it("names the fix: run latchkey migrate", async () => {
    const db = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    try {
      await expect(SqlOrganizationStore(db).getOrganization("x")).rejects.toThrow(/latchkey migrate/);
    } finally {
      await db.destroy();
    }
  });
});
