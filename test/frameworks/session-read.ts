/**
 * The session-read table (`sessionReadTable` of `@latchkey/adapter-test`) as the framework
 * contract runs it for each framework package: its rows are the package's readers, guard and
 * session action (`frameworkReadRows` of the contract's driver), read from a real PostgreSQL
 * database (skipped where none runs).
 */
import { type FrameworkTable, frameworkReadRows } from "@latchkey/adapter-test/framework";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { sessionReadTable } from "@latchkey/adapter-test/session-read-table";
import GitHub from "@latchkey/core/providers/github";
import { revokeUserSessions } from "@latchkey/core/sessions";
import { postgresSessionStore } from "../../packages/core/test/support/session-read-store.js";

/** The table for `runFrameworkContract(driver, [await sessionReadTableOfContract()])`. */
export async function sessionReadTableOfContract(): Promise<FrameworkTable> {
  const skip = !(await serviceAvailable("PostgreSQL", 5432));
  return (driver) =>
    sessionReadTable(driver.name, frameworkReadRows(driver), {
      store: postgresSessionStore,
      providers: [GitHub({ clientId: "table-client", clientSecret: "table-secret" })],
      revoke: revokeUserSessions,
      skip,
    });
}
