/**
 * The audit trail of `@latchkey/core/audit`, taking an Express request where the client matters
 * and reading the environment's defaults as `ExpressAuth` does.
 * @module audit
 */
import {
  type AuditEventFilter,
  listAuditEvents as listEvents,
  recordPasswordChange as recordChange,
  type StoredAuditEvent,
} from "@latchkey/core/audit";
import type { AuthConfig } from "@latchkey/core/types";
import { clientAddressOf, type ExpressRequestLike } from "./convert.js";

export type * from "@latchkey/core/audit";
export { UnknownUserSignin } from "@latchkey/core/audit";

/**
 * Records that the user's password changed (`password.changed`, with the request's client
 * address). Pair it with `revokeUserSessions`.
 * @example
 * ```ts
 * app.post("/account/password", async (req, res) => {
 *   await savePassword(user.id, req.body.password)
 *   await recordPasswordChange(req, config, { userId: user.id })
 *   await revokeUserSessions(config, user.id, { reason: "password-changed" })
 *   res.redirect("/account")
 * })
 * ```
 */
export function recordPasswordChange(
  req: ExpressRequestLike,
  config: AuthConfig,
  change: { userId: string },
): Promise<void> {
  return recordChange(
    config,
    { userId: change?.userId, clientAddress: clientAddressOf(req, config) },
    { env: process.env },
  );
}

/**
 * The stored audit events matching `filter`, newest first (needs `audit: { store }`).
 * @example
 * ```ts
 * const failures = await listAuditEvents(config, { type: "signin.failed", limit: 50 })
 * ```
 */
export function listAuditEvents(config: AuthConfig, filter: AuditEventFilter = {}): Promise<StoredAuditEvent[]> {
  return listEvents(config, filter, { env: process.env });
}
