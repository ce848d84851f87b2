/**
 * `SqlApiKeyStore`: the conformance suite every `ApiKeyStore` runs, on PostgreSQL,
 * MariaDB and SQLite, two instances (two connection pools, or two connections to one SQLite file)
 * sharing the table `migrate` made; then a database that was never migrated.
 */
import { randomUUID } from "node:crypto";
import { runApiKeyStoreConformance } from "@latchkey/adapter-test/api-key-store";
import { ApiKeys } from "@latchkey/core/api-keys";
import { SqlAdapter, SqlApiKeyStore, SqlOrganizationStore } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { backendsFor } from "./backends.js";

const backends = backendsFor("apikeys");
const config = { secret: "a-secret-of-at-least-thirty-two-characters!", trustHost: true, providers: [] };

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

  describe.skipIf(!available)(`SqlAdapter.deleteUser and the user's API keys (${backend.name})`, () => {
    it("rule: a deleted user's keys are refused at once, and their memberships and team rows are gone, in deleteUser's transaction", async () => {
      const { dbs, drop } = await backend.open();
      try {
        const adapter = SqlAdapter(dbs[0]);
        const orgStore = SqlOrganizationStore(dbs[0]);
        const keys = ApiKeys(config, { store: SqlApiKeyStore(dbs[1]) });
        const user = await adapter.createUser?.({
          id: randomUUID(),
          email: `gone-${randomUUID()}@example.com`,
          emailVerified: null,
        });
        const other = await adapter.createUser?.({
          id: randomUUID(),
          email: `stays-${randomUUID()}@example.com`,
          emailVerified: null,
        });
        if (!user || !other) throw new Error("createUser returned nothing");
        const organization = {
          id: randomUUID(),
          name: "Acme",
          slug: `acme-${randomUUID().slice(0, 8)}`,
          createdAt: new Date(),
        };
        await orgStore.createOrganization(organization, {
          organizationId: organization.id,
          userId: user.id,
          role: "owner",
          createdAt: new Date(),
        });
        const team = { id: randomUUID(), organizationId: organization.id, name: "Ops", createdAt: new Date() };
        expect(await orgStore.createTeam(team)).toBe("created");
        const teamRole = { teamId: team.id, organizationId: organization.id, role: "member", createdAt: new Date() };
        expect(await orgStore.addTeamMember({ ...teamRole, userId: user.id })).toBe("added");
        const made = await keys.create(user.id, { name: "CI" });
        const kept = await keys.create(other.id, { name: "CI" });
        if (!made.ok || !kept.ok) throw new Error("create refused");
        expect((await keys.verify(made.value.key)).ok).toBe(true);
        await adapter.deleteUser?.(user.id);
        expect(await keys.verify(made.value.key), "the deleted user's key").toMatchObject({ ok: false, status: 401 });
        expect((await keys.verify(kept.value.key)).ok, "another user's key").toBe(true);
        expect(await orgStore.getMembership(organization.id, user.id), "the deleted user's membership").toBeNull();
        const teamRows = await dbs[0]
          .selectFrom("organization_team_members")
          .select("teamId")
          .where("userId", "=", user.id)
          .execute();
        expect(teamRows, "the deleted user's team rows").toEqual([]);
      } finally {
        await drop();
      }
    });
  });
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
