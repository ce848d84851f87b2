// The Adapter interface and the records it stores (the public face is adapters.ts, whose
// documentation shows an adapter written against it). What an adapter's code shares, the method
// names and the audit helpers, is lib/stores/records.ts.
import type { AuditEvent, AuditEventFilter, StoredAuditEvent } from "./audit.js";
import type { Account, Authenticator, Awaitable, ProviderType, User } from "./data.js";

/** A user as stored: always has an id and an e-mail (which may be empty for some providers). */
export interface AdapterUser extends User {
  id: string;
  email: string;
  emailVerified: Date | null;
}

/** The provider types an account can be stored for (credentials: the `databaseSessions` opt-in). */
export type AdapterAccountType = Extract<ProviderType, "oauth" | "oidc" | "email" | "webauthn" | "credentials">;

/** An account as stored, linked to its user. */
export interface AdapterAccount extends Account {
  userId: string;
  type: AdapterAccountType;
}

/** The token fields `updateAccount` writes: `undefined` leaves a field alone, `null` clears it. */
export interface AccountTokenChanges {
  access_token?: string | null;
  refresh_token?: string | null;
  expires_at?: number | null;
  token_type?: string | null;
  scope?: string | null;
  id_token?: string | null;
}
/**
 * A database session. The four fields after `expires` are a Latchkey extension: an adapter that
 * implements {@link Adapter.listSessions} receives them in `createSession` (and `lastSeenAt` in
 * `updateSession`) and must store them; Latchkey passes none of them to an adapter without it, so
 * an Auth.js adapter never sees a field its schema lacks. Absent or null for sessions created
 * before they were stored.
 */
export interface AdapterSession {
  sessionToken: string;
  userId: string;
  expires: Date;
  /**
   * Latchkey extension: how the user signed in (`["pwd", "otp"]`), written only when a second
   * factor is configured. Adapters that cannot store it leave it out (the session then counts
   * as one factor for `requireAuth`).
   */
  amr?: string[];
  /** When the session was created (the sign-in). */
  createdAt?: Date | null;
  /** When a request last used it, at most `session.updateAge` old (refreshed with the expiry). */
  lastSeenAt?: Date | null;
  /** A short description of the device from its user agent, such as "Firefox on macOS". */
  device?: string | null;
  /** The client's address at sign-in, only when `session.recordClientAddress` is on. */
  clientAddress?: string | null;
}

/** A single-use token of an e-mail sign-in. `token` is stored hashed. */
export interface VerificationToken {
  identifier: string;
  expires: Date;
  token: string;
}

/** A passkey as stored. */
export interface AdapterAuthenticator extends Authenticator {
  userId: string;
}

/**
 * Latchkey extension: a user's second factor (TOTP) as stored. `secret` is sealed with a key
 * derived from the configuration's secret (never the raw TOTP key); backup codes are stored as
 * hashes only, each usable once.
 */
export interface AdapterSecondFactor {
  userId: string;
  /** The sealed TOTP secret (opaque to the adapter). */
  secret: string;
  /** False between enrolment and the first valid code that confirms it. */
  active: boolean;
  /** The last TOTP time step used (a code of this step or an earlier one is refused). */
  lastStep: number;
  /** How many unused backup codes are left (what `getSecondFactor` reports). */
  backupCodesLeft?: number;
  /**
   * How many times the user's pending sign-ins were ended (`endSecondFactorSignIns`); absent is 0.
   * A pending sign-in completes only while it is the value it sealed. `setSecondFactor` leaves it.
   */
  generation?: number;
}

/** The storage methods Latchkey calls. */
export interface Adapter {
  createUser?(user: AdapterUser): Awaitable<AdapterUser>;
  getUser?(id: string): Awaitable<AdapterUser | null>;
  getUserByEmail?(email: string): Awaitable<AdapterUser | null>;
  getUserByAccount?(account: Pick<AdapterAccount, "provider" | "providerAccountId">): Awaitable<AdapterUser | null>;
  updateUser?(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Awaitable<AdapterUser>;
  /** Deletes the user with its accounts, sessions and authenticators. */
  deleteUser?(userId: string): Promise<void> | Awaitable<AdapterUser | null | undefined>;
  linkAccount?(account: AdapterAccount): Promise<void> | Awaitable<AdapterAccount | null | undefined>;
  unlinkAccount?(
    account: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Promise<void> | Awaitable<AdapterAccount | undefined>;
  createSession?(session: AdapterSession): Awaitable<AdapterSession>;
  getSessionAndUser?(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>;
  updateSession?(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Awaitable<AdapterSession | null | undefined>;
  deleteSession?(sessionToken: string): Promise<void> | Awaitable<AdapterSession | null | undefined>;
  createVerificationToken?(token: VerificationToken): Awaitable<VerificationToken | null | undefined>;
  /** Returns the token and deletes it, atomically: of concurrent calls with one token, one wins. */
  useVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>;
  getAccount?(providerAccountId: string, provider: string): Awaitable<AdapterAccount | null>;
  /**
   * Latchkey extension: the accounts of a user (for `getAccessToken` under database sessions).
   */
  getAccountsByUserId?(userId: string): Awaitable<AdapterAccount[]>;
  /**
   * Latchkey extension: writes the token fields of an account (`undefined` leaves a field alone,
   * `null` clears it). With `expected`, it writes only while the stored `refresh_token` still is
   * `expected.refresh_token` (a compare-and-set in one statement or script), so a rotated refresh
   * token is never overwritten by a stale one. Returns the account as written, or null when the
   * account is gone or its refresh token changed.
   */
  updateAccount?(
    account: Pick<AdapterAccount, "provider" | "providerAccountId"> & AccountTokenChanges,
    expected?: { refresh_token: string | null },
  ): Awaitable<AdapterAccount | null>;
  getAuthenticator?(credentialID: string): Awaitable<AdapterAuthenticator | null>;
  createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>;
  listAuthenticatorsByUserId?(userId: string): Awaitable<AdapterAuthenticator[]>;
  updateAuthenticatorCounter?(credentialID: string, newCounter: number): Awaitable<AdapterAuthenticator>;
  /**
   * Latchkey extension: deletes the authenticator with this credential id; returns it, or null
   * when there was none. `unlinkAccount` calls it for an unlinked passkey, so that the passkey
   * can be registered again.
   */
  deleteAuthenticator?(credentialID: string): Awaitable<AdapterAuthenticator | null>;
  /** Latchkey extension (second factor): the user's TOTP record, with `backupCodesLeft`. */
  getSecondFactor?(userId: string): Awaitable<AdapterSecondFactor | null>;
  /**
   * Latchkey extension (second factor): writes the user's record, replacing any earlier one, and
   * with `backupCodes` (hashes) replaces the user's backup codes. With `expected: { active: false }`
   * it writes only while the user has no record or one that is not active, as one compare-and-set
   * (a statement, or a script, with the backup codes), and answers whether it wrote: a new
   * enrolment never overwrites a factor confirmed meanwhile. An adapter that ignores `expected`
   * (answers nothing) keeps that race.
   */
  setSecondFactor?(
    record: Omit<AdapterSecondFactor, "backupCodesLeft">,
    backupCodes?: string[],
    expected?: { active: false },
    // biome-ignore lint/suspicious/noConfusingVoidType: adapters written before `expected` answer void, and still fit
  ): Awaitable<boolean | undefined | void>;
  /** Latchkey extension (second factor): removes the record and the backup codes of the user. */
  deleteSecondFactor?(userId: string): Awaitable<void>;
  /**
   * Latchkey extension (second factor): moves `lastStep` from `expected` to `next`, atomically
   * (a compare-and-set in one statement): true for exactly one of concurrent callers, false when
   * the stored value is no longer `expected` or the record is gone or not active.
   */
  useSecondFactorStep?(userId: string, expected: number, next: number): Awaitable<boolean>;
  /**
   * Latchkey extension (second factor): adds one to the record's `generation`, atomically (of N
   * concurrent calls, N are counted), leaving `lastStep` and the rest as they are; nothing when
   * the user has no record. Without it, ending pending sign-ins moves `lastStep` on instead.
   */
  endSecondFactorSignIns?(userId: string): Awaitable<void>;
  /** Latchkey extension (second factor): deletes one backup code by its hash; true if it existed. */
  useBackupCode?(userId: string, codeHash: string): Awaitable<boolean>;
  /**
   * Latchkey extension: the user's sessions that have not expired, with their metadata (see
   * {@link AdapterSession}), in any order. Implementing it also tells Latchkey that the adapter
   * stores the metadata fields. Used by `@latchkey/core/sessions`.
   */
  listSessions?(userId: string): Awaitable<AdapterSession[]>;
  /**
   * Latchkey extension: deletes every session of the user except the one whose token is
   * `exceptSessionToken` (when given), and returns the deleted ones. A session deleted here never
   * comes back through a concurrent `updateSession`.
   */
  deleteSessions?(userId: string, exceptSessionToken?: string): Awaitable<AdapterSession[]>;
  /**
   * Latchkey extension (admin, `listUsers` of `@latchkey/core/admin`): at most `limit` users ordered
   * by `id`, only those whose id sorts after `after` when given, and when `query` is given only
   * those whose e-mail or name contains it, case aside (taken literally: `%`, `_` and the like are
   * no wildcards).
   */
  listUsers?(options: { query?: string; after?: string; limit: number }): Awaitable<AdapterUser[]>;
  /** Latchkey extension: the user's linked accounts (with their tokens: Latchkey strips them). */
  listAccounts?(userId: string): Awaitable<AdapterAccount[]>;
  /**
   * Latchkey extension: runs `work` in one database transaction, with an adapter bound to it.
   * Core uses it where several writes must land together (a new user and its account). Adapters
   * over stores without transactions leave it out.
   */
  transaction?<T>(work: (adapter: Adapter) => Promise<T>): Promise<T>;
  /**
   * Latchkey extension (audit trail, `audit: { store: true }`): stores one security event. The
   * event's strings are already capped; store them as given (see `@latchkey/core/audit`).
   */
  createAuditEvent?(event: AuditEvent): Awaitable<void>;
  /**
   * Latchkey extension (audit trail): deletes the events older than `before` (the retention
   * sweep, run at most once per interval, never per request); returns how many when known.
   */
  deleteAuditEvents?(before: Date): Awaitable<number | undefined>;
  /** Latchkey extension (audit trail): the events matching `filter`, newest first, each with its id. */
  listAuditEvents?(filter: AuditEventFilter): Awaitable<StoredAuditEvent[]>;
}
