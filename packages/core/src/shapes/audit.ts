/**
 * The shapes of the audit trail: the events, the reasons, the store. A leaf module (it imports
 * nothing), so that `adapters.ts`, the public `audit.ts` and `lib/audit` can all use it without a
 * cycle. Documented in `@latchkey/core/audit`.
 */

/**
 * Why a sign-in failed, for the operator only: the client sees the same answer for all of them
 * (spec §5.9).
 *
 * - `wrong-credentials`: `authorize()` returned null or threw `CredentialsSignin`, or the form
 *   lacked the identifier field.
 * - `unknown-user`: `authorize()` threw `UnknownUserSignin` (the application says no such user).
 * - `authorize-error`: `authorize()` (or the provider's `identifier()`) threw something else.
 * - `sign-in-refused`: the `signIn` callback returned false or threw.
 * - `email-token-invalid`: a magic link that is unknown, used, expired or for another address.
 * - `email-code-invalid`: an e-mail code that is wrong, expired, used, or without its cookie.
 * - `second-factor-invalid`: a wrong, reused or unknown TOTP or backup code.
 * - `oauth-error`: the provider answered with an error, a check (state, PKCE, nonce) failed, or
 *   the code exchange or profile failed.
 * - `account-not-linked`: the provider's address belongs to another user.
 * - `webauthn-error`: a passkey assertion or registration failed verification.
 * - `missing-csrf`: the sign-in was posted without a valid CSRF token.
 * - `server-error`: anything else (an adapter that failed, a configuration error).
 */
export type SignInFailureReason =
  | "wrong-credentials"
  | "unknown-user"
  | "authorize-error"
  | "sign-in-refused"
  | "email-token-invalid"
  | "email-code-invalid"
  | "second-factor-invalid"
  | "oauth-error"
  | "account-not-linked"
  | "webauthn-error"
  | "missing-csrf"
  | "server-error";

/** What every audit event may carry. Strings are capped and made harmless before delivery. */
export interface AuditEventBase {
  /** When it happened. */
  at: Date;
  /** The user, when known (a successful sign-in, a second factor, a revocation, a link). */
  userId?: string;
  /** The provider's id (`credentials`, `github`, `email`, ...). */
  provider?: string;
  /**
   * What the client tried to sign in as (the credentials provider's identifier field, an e-mail
   * address): NFKC, trimmed, lower case, at most 255 characters, control characters replaced.
   * Never a password or any other submitted field.
   */
  identifier?: string;
  /** The client's address, when the framework knows it (at most 64 characters). */
  clientAddress?: string;
  /**
   * The session, by a reference that is not its token: the keyed-hash id `listSessions` shows
   * (database sessions) or the JWT's `sid`.
   */
  sessionId?: string;
}

/** A sign-in that completed: the session exists. */
export interface SignInSucceededEvent extends AuditEventBase {
  type: "signin.succeeded";
}

/** A sign-in that failed, with the internal reason. */
export interface SignInFailedEvent extends AuditEventBase {
  type: "signin.failed";
  reason: SignInFailureReason;
}

/**
 * An attempt refused by a rate limit. `reason` names the limit (the `rateLimit` option's name,
 * such as `credentialsPerIdentifierAndIp`). Recorded once per limit window of a counter, not once
 * per refused request. `signin.locked-out` when the limit is one that counts an identifier across
 * all clients (`credentialsPerIdentifier`, `emailPerIdentifier`, `emailCodePerIdentifier`,
 * `secondFactorPerUser`): its owner cannot sign in that way either until the window ends.
 */
export interface SignInLimitedEvent extends AuditEventBase {
  type: "signin.rate-limited" | "signin.locked-out";
  reason: string;
}

/**
 * A session ended by the application rather than by its user signing out: `reason` is the
 * `signOut` event's (`revoked`, `revoked-others`, `revoked-all`, or the application's own). A JWT
 * revocation of all of a user's sessions has a `userId` and no `sessionId`.
 */
export interface SessionRevokedEvent extends AuditEventBase {
  type: "session.revoked";
  reason: string;
}

/**
 * A sign-out or a revocation that did not happen: its store (the revocation store, or the adapter)
 * did not confirm it in time, and the answer said so (`POST /signout`: the error page or a 503;
 * the functions: a `SignOutError`). `reason` is what was asked: `signed-out` (the user's own
 * sign-out), or the revocation's reason. The session goes on until a retry succeeds. Without a
 * `userId` (a database session whose user the failed store could not tell) it can come from an
 * anonymous client, and is budgeted per client address like a failed sign-in.
 */
export interface SessionRevokeFailedEvent extends AuditEventBase {
  type: "session.revoke-failed";
  reason: string;
}

/** An account linked to, or unlinked from, a user. */
export interface AccountEvent extends AuditEventBase {
  type: "account.linked" | "account.unlinked";
  providerAccountId: string;
}

/** The application reported a password change (`recordPasswordChange`). */
export interface PasswordChangedEvent extends AuditEventBase {
  type: "password.changed";
}

/**
 * The configuration's secrets changed (noticed when the configuration was resolved again). The
 * secrets themselves are never recorded: each is named by a fingerprint, a short keyed hash that
 * cannot be turned back into it. `fingerprints[0]` is the secret that now signs.
 */
export interface SecretRotatedEvent extends AuditEventBase {
  type: "secret.rotated";
  fingerprints: string[];
  previousFingerprints: string[];
}

/**
 * A change of an organization, of its members or of its invitations (`@latchkey/core/organizations`).
 * `userId` is who made it; `memberId` whose membership changed; `role` the role given (added,
 * changed to, invited with) or held (removed); `previousRole` the role before a change. An
 * invitation's events carry its `invitationId` and the invited address as `identifier`;
 * `invitation.accepted` comes with the `member.added` of the user who accepted. A team's events
 * carry its `teamId` (and, for its members, `memberId` and the team `role`).
 */
export interface OrganizationEvent extends AuditEventBase {
  type:
    | "organization.created"
    | "organization.updated"
    | "organization.deleted"
    | "member.added"
    | "member.role-changed"
    | "member.removed"
    | "invitation.created"
    | "invitation.accepted"
    | "invitation.revoked"
    | "team.created"
    | "team.updated"
    | "team.deleted"
    | "team.member-added"
    | "team.member-removed"
    | "team.role-changed";
  organizationId: string;
  invitationId?: string;
  teamId?: string;
  memberId?: string;
  role?: string;
  previousRole?: string;
}

/**
 * A change of an API key (`@latchkey/core/api-keys`). `userId` is who made it; `keyId` the key's
 * public id (never the key); `organizationId` the organization of an organization's key;
 * `replacedBy` the new key's id of a rotation.
 */
export interface ApiKeyEvent extends AuditEventBase {
  type: "apikey.created" | "apikey.revoked" | "apikey.rotated";
  keyId: string;
  organizationId?: string;
  replacedBy?: string;
}

/**
 * An admin's act on a user (`@latchkey/core/admin`). `userId` is the admin who acted; `targetUserId`
 * the user acted on; `reason` the ban's reason; `expiresAt` when the ban ends (absent: until
 * unbanned); `role` the role given (null: taken away) and `previousRole` the one before.
 */
export interface AdminEvent extends AuditEventBase {
  type: "admin.user.banned" | "admin.user.unbanned" | "admin.role.changed";
  targetUserId: string;
  reason?: string;
  expiresAt?: Date;
  role?: string | null;
  previousRole?: string | null;
}

/** One security event. Switch on `type`. */
export type AuditEvent =
  | SignInSucceededEvent
  | SignInFailedEvent
  | SignInLimitedEvent
  | SessionRevokedEvent
  | SessionRevokeFailedEvent
  | AccountEvent
  | PasswordChangedEvent
  | SecretRotatedEvent
  | OrganizationEvent
  | ApiKeyEvent
  | AdminEvent;

/** The `type` of every audit event. */
export type AuditEventType = AuditEvent["type"];

/** An event as a store gives it back: with the id the store gave it. */
export type StoredAuditEvent = AuditEvent & { id: string };

/** What `listAuditEvents` selects. Every field narrows; none returns the newest events. */
export interface AuditEventFilter {
  userId?: string;
  /** As the user typed it or the application stores it: `listAuditEvents` normalises it as recorded. */
  identifier?: string;
  type?: AuditEventType;
  /** Only events at or after this time. */
  since?: Date;
  /** At most this many, newest first. @default 100 (at most 1000) */
  limit?: number;
}

/**
 * Where audit events are kept: the three adapter methods of the audit trail, which an adapter
 * (`@latchkey/sql-adapter`, `@latchkey/redis-adapter`, the MemoryAdapter) provides.
 */
export interface AuditStore {
  /**
   * Stores one event. A store that keeps a bounded number of events trims by count only those of
   * `isAnonymousAuditEvent` (`@latchkey/core/adapters`), kept apart, so that a flood of failures
   * never pushes out what happened to an account; the others go only with retention (the core
   * bounds them per user: `recordsPerUser`).
   */
  createAuditEvent(event: AuditEvent): PromiseLike<void> | void;
  /** Deletes the events older than `before`; returns how many (when the store can tell). */
  deleteAuditEvents(before: Date): PromiseLike<number | undefined> | number | undefined;
  /** The events that match `filter`, newest first. */
  listAuditEvents?(filter: AuditEventFilter): PromiseLike<StoredAuditEvent[]> | StoredAuditEvent[];
}

/** The `audit` option of the configuration. */
export interface AuditOptions {
  /**
   * Where to store events besides delivering them to `events.audit`: `true` for the configured
   * adapter, or any object with the audit methods (another adapter). Off by default.
   * @default false
   */
  store?: boolean | AuditStore;
  /** Seconds an event is kept; older ones are deleted by a sweep. @default 7776000 (90 days) */
  retention?: number;
  /**
   * Failed sign-ins recorded per client address (IPv6 per /64), failure reason and window; beyond
   * it they are not recorded (and a warning is logged once per window), so anonymous requests
   * cannot grow the store without bound. Per reason, so that failures nobody rate-limits (posts
   * without CSRF) cannot use up the budget of the password guesses that follow them.
   * @default { max: 200, windowSeconds: 900 }
   */
  failuresPerClient?: { max: number; windowSeconds: number };
  /**
   * Records of one kind kept per user and window (a user's sign-ins, revocations, links, ...);
   * beyond it they are not recorded (and a warning is logged once per window), so that a user
   * signing in to their own account in a loop cannot grow the store without bound. Per kind, so
   * that a loop of sign-ins never hides the link or the password change that follows.
   * @default { max: 200, windowSeconds: 900 }
   */
  recordsPerUser?: { max: number; windowSeconds: number };
}
