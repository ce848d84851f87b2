// What the code of an adapter or a store shares about the records of shapes/adapters.ts: the
// names of the adapter's methods and token fields, and the audit trail's helpers for stores that
// keep events as JSON or filter them in code. Public through adapters.ts.
import type { AccountTokenChanges } from "../../shapes/adapters.js";
import type { AuditEvent, AuditEventFilter, StoredAuditEvent } from "../../shapes/audit.js";

/** The fields of {@link AccountTokenChanges}, for adapters that copy them. */
export const accountTokenFields = [
  "access_token",
  "refresh_token",
  "expires_at",
  "token_type",
  "scope",
  "id_token",
] as const satisfies ReadonlyArray<keyof AccountTokenChanges>;

/** The names of every adapter method, for checks of what an adapter provides. */
export const adapterMethods = [
  "createUser",
  "getUser",
  "getUserByEmail",
  "getUserByAccount",
  "updateUser",
  "deleteUser",
  "linkAccount",
  "unlinkAccount",
  "createSession",
  "getSessionAndUser",
  "updateSession",
  "deleteSession",
  "createVerificationToken",
  "useVerificationToken",
  "getAccount",
  "getAccountsByUserId",
  "updateAccount",
  "getAuthenticator",
  "createAuthenticator",
  "listAuthenticatorsByUserId",
  "updateAuthenticatorCounter",
  "deleteAuthenticator",
  "listSessions",
  "deleteSessions",
  "listAccounts",
  "listUsers",
  "getSecondFactor",
  "setSecondFactor",
  "deleteSecondFactor",
  "useSecondFactorStep",
  "endSecondFactorSignIns",
  "useBackupCode",
  "createAuditEvent",
  "deleteAuditEvents",
  "listAuditEvents",
] as const;

/** True when `value` is an ISO 8601 date string, as adapters that store JSON need to revive. */
export function isDate(value: unknown): value is string {
  return (
    typeof value === "string" &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}

/**
 * True for the events an anonymous request can cause at will (a failed, limited or locked-out
 * sign-in, whatever identifier it names, made up or not; a sign-out that failed, which a made-up
 * cookie can cause while the store is down): a store that keeps a bounded number of events keeps
 * these apart and trims only them by count, so that a flood of them never pushes out what
 * happened to an account (a sign-in, a revocation, a link, a password change), which only
 * retention removes.
 *
 * @example
 * ```ts
 * const side = isAnonymousAuditEvent(event) ? failures : accountEvents // only `failures` is trimmed by count
 * ```
 */
export function isAnonymousAuditEvent(event: { type: string }): boolean {
  return (
    event.type === "signin.failed" ||
    event.type === "signin.rate-limited" ||
    event.type === "signin.locked-out" ||
    event.type === "session.revoke-failed"
  );
}

/**
 * True when `event` matches every field `filter` sets, for adapters that filter audit events in
 * code (the memory and Redis adapters). `limit` is the caller's to apply.
 *
 * @example
 * ```ts
 * events.filter((e) => auditEventMatches(e, { type: "signin.failed" }))
 * ```
 */
export function auditEventMatches(event: AuditEvent, filter: AuditEventFilter): boolean {
  return (
    (filter.type === undefined || event.type === filter.type) &&
    (filter.userId === undefined || event.userId === filter.userId) &&
    (filter.identifier === undefined || event.identifier === filter.identifier) &&
    (filter.since === undefined || event.at.getTime() >= filter.since.getTime())
  );
}

/**
 * An audit event read back from the JSON text an adapter stored (`JSON.stringify(event)`), with
 * the id the store gave it; null when the text is not an event (a row written by hand).
 *
 * @example
 * ```ts
 * parseAuditEvent("1-0", JSON.stringify(event)) // { ...event, id: "1-0" }
 * ```
 */
export function parseAuditEvent(id: string, text: string): StoredAuditEvent | null {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value?.type !== "string" || !isDate(value.at)) return null;
    return { ...value, at: new Date(value.at), id } as StoredAuditEvent;
  } catch {
    return null;
  }
}
