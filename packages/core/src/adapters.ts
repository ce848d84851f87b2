/**
 * The storage interface of Latchkey. An adapter connects Latchkey to a database; every method is
 * optional, and the features a configuration turns on say which ones must be there (checked when
 * the configuration is resolved). The shapes match Auth.js's, so an Auth.js adapter works as is.
 *
 * @example
 * ```ts
 * import type { Adapter } from "@latchkey/core/adapters"
 * export function MyAdapter(db: Db): Adapter {
 *   return { async getUser(id) { return db.users.find(id) ?? null }, ... }
 * }
 * ```
 * @module adapters
 */

export {
  adapterMethods,
  auditEventMatches,
  isAnonymousAuditEvent,
  isDate,
  parseAuditEvent,
} from "./lib/stores/index.js";
export type {
  AccountTokenChanges,
  Adapter,
  AdapterAccount,
  AdapterAccountType,
  AdapterAuthenticator,
  AdapterSecondFactor,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "./shapes/adapters.js";
export type { AuditEvent, AuditEventFilter, StoredAuditEvent } from "./shapes/audit.js";
