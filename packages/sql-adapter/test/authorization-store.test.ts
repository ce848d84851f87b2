/**
 * `SqlAuthorizationStore`: the conformance suite every `AuthorizationStore` runs, on PostgreSQL,
 * MariaDB and SQLite, two instances (two connection pools, or two connections to one SQLite
 * file) sharing the table `migrate` made; then the authorization server's races over it (a code
 * exchanged by 30 requests at once, a refresh token used by 30 at once) and a database that was
 * never migrated.
 */
import { runAuthorizationStoreConformance } from "@latchkey/adapter-test/authorization-store";
import { SqlAuthorizationStore } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import {
  codeFor,
  exchange,
  makeApp,
  publicClient,
  send,
  signedInBrowser,
  tokensFor,
} from "../../core/test/authorization-server/support.js";
import { backendsFor } from "./backends.js";

const backends = backendsFor("authz");

for (const backend of backends) {
  const available = await backend.up();
  runAuthorizationStoreConformance(
    `SqlAuthorizationStore (${backend.name})`,
    async () => {
      const { dbs, drop } = await backend.open();
      return { stores: [SqlAuthorizationStore(dbs[0]), SqlAuthorizationStore(dbs[1])], teardown: drop };
    },
    { skip: !available },
  );

  describe.skipIf(!available)(`the authorization server over SqlAuthorizationStore (${backend.name})`, () => {
    it("exchanges a code once, and moves a refresh family on once, when 30 requests arrive at once", async () => {
      const { dbs, drop } = await backend.open();
      try {
        const app = await makeApp({ store: SqlAuthorizationStore(dbs[0]), signing: { algorithms: ["ES256"] } });
        const client = await publicClient(app);
        const jar = await signedInBrowser(app);
        const { code, verifier } = await codeFor(app, client.clientId, jar);
        const exchanges = await Promise.all(
          Array.from({ length: 30 }, () => exchange(app, client.clientId, code, verifier)),
        );
        expect(exchanges.filter((r) => r.status === 200)).toHaveLength(1);
        const tokens = await tokensFor(app, client.clientId, jar);
        // The other instance, on its own pool, sees the same records.
        const other = { ...app, server: (await makeApp({ store: SqlAuthorizationStore(dbs[1]) })).server };
        const refreshes = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            send(i % 2 ? app : other, "/oauth/token", {
              form: {
                grant_type: "refresh_token",
                refresh_token: tokens.refresh_token ?? "",
                client_id: client.clientId,
              },
            }),
          ),
        );
        expect(refreshes.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      } finally {
        await drop();
      }
    });
  });
}

describe("SqlAuthorizationStore on a database never migrated", () => {
  it("fails naming the fix: latchkey migrate", async () => {
    const db = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    await expect(SqlAuthorizationStore(db).get("client", "x")).rejects.toThrow(/npx latchkey migrate/);
    await db.destroy();
  });
});
