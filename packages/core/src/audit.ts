/**
 * The audit trail: one stream of security events, for the operator. Latchkey records where each
 * outcome is decided:
 *
 * | `type` | when |
 * |---|---|
 * | `signin.succeeded` | a session started (any provider; after the second factor when there is one) |
 * | `signin.failed` | a sign-in failed; `reason` says why (see {@link SignInFailureReason}) |
 * | `signin.rate-limited` | a limit refused an attempt (first refusal per counter and window) |
 * | `signin.locked-out` | a limit that counts the identifier across all clients refused it: the owner is affected too |
 * | `session.revoked` | the application ended a session (`@latchkey/core/sessions`, `@latchkey/core/revocation`) |
 * | `session.revoke-failed` | a sign-out (`reason: "signed-out"`) or a revocation did not happen: the store did not confirm it, and the caller was told so |
 * | `account.linked`, `account.unlinked` | an account was linked to or unlinked from a user |
 * | `password.changed` | the application called {@link recordPasswordChange} |
 * | `secret.rotated` | the configuration's secrets changed (fingerprints only) |
 * | `apikey.created`, `apikey.revoked`, `apikey.rotated` | an API key was made, revoked, or replaced by a new one (`@latchkey/core/api-keys`); `keyId` is its public id, never the key |
 * | `organization.created`, `organization.updated`, `organization.deleted`, `member.added`, `member.role-changed`, `member.removed` | an organization or its members changed (`@latchkey/core/organizations`); `userId` is who changed it |
 *
 * Events go to `events.audit` when the application sets it, and with `audit: { store: true }` to
 * the adapter's audit table (SQL) or stream (Redis), kept for `audit.retention` seconds. Reasons
 * never reach the client: every failure answers alike. Never recorded: passwords, any submitted
 * field but the identifier, session tokens, secrets. Session reads record nothing.
 *
 * @example
 * ```ts
 * const config = {
 *   adapter: SqlAdapter(db),
 *   audit: { store: true, retention: 30 * 24 * 60 * 60 },
 *   events: { audit: (event) => console.log(event.type, event.reason ?? "") },
 *   providers,
 * }
 * const failures = await listAuditEvents(config, { type: "signin.failed", limit: 20 })
 * ```
 * @module audit
 */
import { MissingAdapterMethods } from "./errors.js";
import { asRecorded, recordAudit } from "./lib/audit/index.js";
import type { Env } from "./lib/config/index.js";
import { resolveConfig } from "./lib/config/index.js";
import type { AuditEventFilter, StoredAuditEvent } from "./shapes/audit.js";
import type { AuthConfig } from "./types.js";

export { UnknownUserSignin } from "./lib/audit/index.js";
export type {
  AccountEvent,
  ApiKeyEvent,
  AuditEvent,
  AuditEventBase,
  AuditEventFilter,
  AuditEventType,
  AuditOptions,
  AuditStore,
  OrganizationEvent,
  PasswordChangedEvent,
  SecretRotatedEvent,
  SessionRevokedEvent,
  SessionRevokeFailedEvent,
  SignInFailedEvent,
  SignInFailureReason,
  SignInLimitedEvent,
  SignInSucceededEvent,
  StoredAuditEvent,
} from "./shapes/audit.js";

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
