/**
 * The data of an application's admin tools (`@latchkey/core/admin`): a user's application-level
 * role, a ban, and the store that keeps both apart from the adapter, so any Auth.js adapter works
 * unchanged. Plain shapes: this file imports nothing.
 */

/** A ban of one user: while it holds (until `expiresAt`, or for good when null) every sign-in of the user is refused. */
export interface AdminBan {
  userId: string;
  /** Why, for the operators (never shown to the user); null when none was given. */
  reason: string | null;
  /** The admin who banned. */
  bannedBy: string;
  bannedAt: Date;
  /** When the ban ends by itself; null: until `unban`. */
  expiresAt: Date | null;
}

/**
 * Where roles and bans are kept. Each method is one atomic step: a store shared by several
 * instances (SQL, Redis) makes it one statement or one script.
 */
export interface AdminStore {
  /** The user's application-level role; null when they have none. */
  getRole(userId: string): Promise<string | null>;
  /**
   * Sets the user's role to `to` (`null` takes it away) only if it is `from` now (`null`: none),
   * as one compare-and-set; true when it did, false (nothing written) when the role was not `from`.
   */
  setRole(userId: string, from: string | null, to: string | null): Promise<boolean>;
  /** The user's ban unless there is none or it expired (`expiresAt <= now`). */
  getBan(userId: string, now: Date): Promise<AdminBan | null>;
  /** Stores `ban`, replacing any earlier ban of the user. */
  setBan(ban: AdminBan): Promise<void>;
  /** Removes the user's ban (expired or not); true when there was one. */
  removeBan(userId: string): Promise<boolean>;
}

/**
 * The configuration's `admin` option: the store given to `Admin`, so that every sign-in, on every
 * instance, refuses a banned user.
 */
export interface AdminConfig {
  store: AdminStore;
}
