/**
 * The shapes of instant revocation of JWT sessions: an entry of the list, the store that shares
 * it between instances, and the `session.revocation` option. `@latchkey/core/revocation`
 * re-exports them; `lib/session/revocation-list.ts` keeps the list in memory.
 */

/**
 * One revocation. `session`: every token of the session `id` (its `sid` claim). `user`: every
 * session of the user `id` (its `sub` claim) signed in at or before `before`.
 */
export interface RevocationEntry {
  kind: "session" | "user";
  id: string;
  /** Epoch milliseconds: when the session was revoked, or the user's "revoked before" time. */
  before: number;
  /** Epoch milliseconds after which no token the entry concerns can still be valid. */
  expiresAt: number;
  /**
   * A `session` entry: the user whose session it is (its `sub`), when known. It lets every
   * instance count a user's entries, so sign-in/sign-out loops cannot grow the list without bound
   * (see `RevocationOptions.sessionsPerUser`).
   */
  userId?: string;
}

/**
 * A change of database sessions that every instance's session cache must hear of (`session.cache`).
 * `session`: the session whose token hashes to `id` (SHA-256, lower-case hex: {@link sessionKeyOf}
 * of `@latchkey/core/stores`) was updated or deleted. `user`: the user `id`, or any of the
 * user's sessions, was updated or deleted. It carries no token, and is never stored.
 */
export interface SessionChange {
  kind: "session" | "user";
  id: string;
}

/** What a store tells the instance that subscribed. */
export interface RevocationListener {
  /** An entry added by any instance (this one included). */
  entry(entry: RevocationEntry): void;
  /** A change of database sessions pushed by any instance (this one included) or by a database trigger. */
  change?(change: SessionChange): void;
  /** The push channel is lost: entries may be missed until `up`. */
  down(error: Error): void;
  /** The push channel works again: the caller reloads the list to catch up. */
  up(): void;
}

/**
 * Where the revocation list lives and how instances hear of new entries. Latchkey provides one in
 * memory (`@latchkey/core/revocation`), `RedisRevocationStore` (`@latchkey/redis-adapter`) and
 * `SqlRevocationStore` (`@latchkey/sql-adapter`); any object with these methods works, if it keeps
 * these promises (`@latchkey/core/stores` has the helpers the built-in ones share):
 *
 * - `add` resolves only once the entry is durable: every instance that loads the list afterwards,
 *   a new one included, gets it. A store that cannot say so rejects. Latchkey reports a sign-out
 *   or a revocation as done only when `add` resolved (within `timeout`); otherwise it says "not
 *   done" and changes nothing, not even this instance's memory.
 * - An entry is kept at least until its `expiresAt` (a store may delete it after that).
 * - A lost push channel is reported (`down`) within two minutes: an instance that reads as current
 *   may re-issue sessions, and entries outlive cookies by that much
 *   (`UNAWARE_MARGIN_MS`). The built-in stores check their channel every `heartbeatMs` (a polling
 *   `SqlRevocationStore`: poll every `pollMs`), at most 60 s, so they report within two periods.
 */
export interface RevocationStore {
  /**
   * Saves `entry` in the shared store, merged with the stored entry of the same kind and id: `before`
   * and `expiresAt` each the later of the two (an older `before` with a later expiry must not replace
   * a later revocation), and pushes it to every instance. Resolves only once the entry is durable.
   */
  add(entry: RevocationEntry): Promise<void>;
  /** Every entry that has not expired. */
  load(): Promise<RevocationEntry[]>;
  /** Starts pushing entries (and connection changes) to `listener`; resolves once listening. */
  subscribe(listener: RevocationListener): Promise<void>;
  /** Stops listening and releases what the store opened itself (not the clients it was given). */
  close?(): Promise<void>;
  /**
   * Sends `change` to every subscribed instance (this one included) without storing it: what a
   * session cache (`session.cache`) drops. Resolves once the channel has taken it. Stores without
   * it cannot carry a session cache's changes.
   */
  push?(change: SessionChange): Promise<void>;
}

/**
 * The `session.revocation` option (JWT sessions only). `true` is `{}`: an in-memory list, for a
 * single process.
 *
 * @example
 * ```ts
 * // RedisRevocationStore from @latchkey/redis-adapter
 * session: { revocation: { store: RedisRevocationStore(redis, new Redis()), onUnavailable: "refuse" } }
 * ```
 */
export interface RevocationOptions {
  /** @default a MemoryRevocationStore kept for this configuration object (one process only) */
  store?: RevocationStore;
  /**
   * While the list cannot be known to be current (the store is unreachable, or was at start):
   * `"refuse"` answers every JWT session read with an error (`GET /session` 500, `getSession`
   * null; cookies are kept), `"serve"` keeps serving against the entries already known, but never
   * re-issues or extends a session meanwhile (no new cookie on a read, a session update is refused
   * with a 500, `getAccessToken` does not refresh): a session revoked where this instance cannot
   * hear it ends when its cookie does, not later.
   * @default "refuse"
   */
  onUnavailable?: "serve" | "refuse";
  /**
   * Milliseconds a store call may take (the first load is awaited at most this long; a sign-out
   * or a revocation the store has not confirmed by then is answered as not done). @default 3000
   */
  timeout?: number;
  /**
   * Live session entries one user may have on the list. A sign-out of a user who has this many
   * writes (or moves on) the user's one entry "sessions begun at or before this session's sign-in"
   * instead of another session entry: the list holds at most this many entries per user plus one,
   * however often a user signs in and out. The price, paid only past the bound: such a sign-out
   * also ends the user's other sessions begun before the one signed out.
   * @default 50
   */
  sessionsPerUser?: number;
}

/**
 * The `session.cache` option (database sessions only): a per-instance cache of session reads,
 * dropped on every instance when a session or its user changes. `true` is `{}`: a channel in this
 * process's memory, for a single process.
 *
 * @example
 * ```ts
 * // RedisRevocationStore from @latchkey/redis-adapter: its pub/sub carries the changes
 * session: { strategy: "database", cache: { channel: RedisRevocationStore(redis, redis.duplicate()) } }
 * ```
 */
export interface SessionCacheOptions {
  /**
   * The store whose push channel carries the changes to every instance (it needs `push`):
   * `RedisRevocationStore`, or `SqlRevocationStore` (PostgreSQL `LISTEN/NOTIFY` with `listen`, or
   * polling every `pollMs`). A store carries either a cache's changes or a revocation list, not both.
   * @default a channel in this process's memory (one process only)
   */
  channel?: RevocationStore;
  /** Sessions held at most; past it the oldest is dropped. @default 10000 */
  maxEntries?: number;
  /**
   * Seconds a held read is served before the database is read again: the bound for a change no
   * push announced (a row changed by SQL on a database without triggers, a push lost on its way).
   * @default 60
   */
  maxAge?: number;
  /** Milliseconds the subscription may take; until it is confirmed every read goes to the database. @default 3000 */
  timeout?: number;
}
