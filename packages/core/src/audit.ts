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

export {
  type AuditFunctionOptions,
  listAuditEvents,
  recordPasswordChange,
  UnknownUserSignin,
} from "./lib/audit/index.js";
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
