// The session-read table's rows of a framework package (issue 35.1), as each package's contract
// test passes them to runFrameworkContract: the package's session read and guard over the one
// PostgreSQL store the table uses (and JWT sessions, sealed by the same core), with the built
// @latchkey/core the packages use.
import type { FrameworkTable } from "@latchkey/adapter-test/framework";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { type FrameworkReadOptions, frameworkSessionReads } from "@latchkey/adapter-test/session-read-table";
import { encode } from "@latchkey/core/jwt";
import GitHub from "@latchkey/core/providers/github";
import { revokeUserSessions } from "@latchkey/core/sessions";
import { postgresSessionStore } from "../../packages/core/test/support/session-read-store.js";

/**
 * The session-read table for a framework package: `sessionReadWritesCookies` says whether its
 * session read (`GET /contract/session`) can write cookies; `notApplicable`, the columns its
 * contract application cannot be asked (with why).
 *
 * @example
 * ```ts
 * runFrameworkContract(hono, [await sessionReads(true)])
 * ```
 */
export async function sessionReads(
  sessionReadWritesCookies: boolean,
  notApplicable?: FrameworkReadOptions["notApplicable"],
): Promise<FrameworkTable> {
  return frameworkSessionReads({
    store: postgresSessionStore,
    ...(notApplicable && { notApplicable }),
    providers: [GitHub({ clientId: "table-client", clientSecret: "table-secret" })],
    revoke: revokeUserSessions,
    sessionReadWritesCookies,
    // The JWT pass too (with `session.revocation`): a sealed cookie read by the package's readers.
    jwt: { seal: (token, secret, salt, maxAge) => encode({ token, secret, salt, maxAge }) },
    skip: !(await serviceAvailable("PostgreSQL", 5432)),
  });
}
