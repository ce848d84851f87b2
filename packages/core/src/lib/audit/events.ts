// The code of @latchkey/core's public module src/audit.ts (which documents it and re-exports it).

import type { AuditEventFilter, StoredAuditEvent } from "../../shapes/audit.js";
import { MissingAdapterMethods } from "../base/errors.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import { asRecorded, recordAudit } from "./record.js";

/** Options of the functions of this module. */
export interface AuditFunctionOptions {
  /** Fill unset options from this environment (`AUTH_SECRET`, ...), as framework packages do. */
  env?: Env;
}

/**
 * Records that a user's password changed (Latchkey does not own passwords, so the application
 * says so). Pair it with `revokeUserSessions` (of `@latchkey/core/sessions` for database
 * sessions, `@latchkey/core/revocation` for JWT sessions) so the old password's sessions end.
 * Never throws for a failing store (logged).
 *
 * @example
 * ```ts
 * await db.users.setPasswordHash(user.id, await hashPassword(newPassword))
 * await recordPasswordChange(config, { userId: user.id, clientAddress: req.ip })
 * await revokeUserSessions(config, user.id, { reason: "password-changed" })
 * ```
 */
export async function recordPasswordChange(
  config: AuthConfig,
  change: { userId: string; clientAddress?: string; sessionId?: string },
  options: AuditFunctionOptions = {},
): Promise<void> {
  if (typeof change?.userId !== "string" || change.userId === "") {
    throw new TypeError("recordPasswordChange: `userId` must be the user's id (a non-empty string)");
  }
  const resolved = resolveConfig(config, options.env);
  await recordAudit(resolved, {
    type: "password.changed",
    at: new Date(),
    userId: change.userId,
    clientAddress: change.clientAddress,
    sessionId: change.sessionId,
  });
}

/**
 * The stored audit events matching `filter`, newest first (at most `filter.limit`, default 100,
 * never more than 1000). `identifier` and `userId` are read as the trail records them: an
 * identifier in any case or width (`Ada@Example.com`) finds the events of `ada@example.com`. Needs `audit.store` with a store that lists (`listAuditEvents`); for
 * operators' pages and tests, not for clients.
 *
 * @example
 * ```ts
 * const recent = await listAuditEvents(config, { userId: user.id, since: new Date(Date.now() - 86_400_000) })
 * ```
 */
export async function listAuditEvents(
  config: AuthConfig,
  filter: AuditEventFilter = {},
  options: AuditFunctionOptions = {},
): Promise<StoredAuditEvent[]> {
  for (const field of ["userId", "identifier", "type"] as const) {
    if (filter[field] !== undefined && typeof filter[field] !== "string")
      throw new TypeError(`listAuditEvents: \`filter.${field}\` must be a string`);
  }
  if (filter.since !== undefined && !(filter.since instanceof Date && Number.isFinite(filter.since.getTime())))
    throw new TypeError("listAuditEvents: `filter.since` must be a valid Date");
  const store = resolveConfig(config, options.env).audit?.store;
  if (!store?.listAuditEvents) {
    throw new MissingAdapterMethods(
      "`listAuditEvents` needs `audit: { store }` with a store that has `listAuditEvents` (the SQL, Redis and memory adapters do).",
    );
  }
  const limit = Math.min(1000, Math.max(1, Math.floor(filter.limit ?? 100)));
  return await store.listAuditEvents({ ...asRecorded(filter), limit: Number.isFinite(limit) ? limit : 100 });
}
