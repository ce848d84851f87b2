/**
 * Instant revocation of JWT sessions, on every instance at once, with no storage round trip on a
 * session read. Each JWT session carries an id (`sid`) and its sign-in time (`auth_time`), set at
 * sign-in and kept by every re-issue. A revocation (one session, or all of a user's sessions begun
 * before now) is saved in a shared store with a lifetime of the longest session, pushed to every
 * instance, and checked in each instance's memory. An instance loads the whole list before its
 * first session read, and again after losing the store. `POST /signout` revokes the session it
 * ends.
 *
 * The shared stores live with their databases: `RedisRevocationStore` in `@latchkey/redis-adapter`
 * (pub/sub), `SqlRevocationStore` in `@latchkey/sql-adapter` (PostgreSQL `LISTEN/NOTIFY`, or
 * polling on MySQL/MariaDB and SQLite). This module keeps the in-memory store (one process).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRevocationStore } from "@latchkey/redis-adapter"
 * import { revokeUserSessions } from "@latchkey/core/revocation"
 *
 * const config = {
 *   providers,
 *   session: { revocation: { store: RedisRevocationStore(new Redis(), new Redis()) } },
 * }
 * // after a password change: every session of the user, on every instance
 * await revokeUserSessions(config, user.id)
 * ```
 * @module revocation
 */

export { MemoryRevocationStore, revokeJwtSession } from "./lib/session/index.js";
/**
 * `revokeUserSessions` of `@latchkey/core/sessions`, the same function: every session of a user,
 * JWT sessions (with `session.revocation`: every session begun before now, on every instance) and
 * database sessions (deleted) alike.
 */
export { revokeUserSessions } from "./sessions.js";
export type { RevocationEntry, RevocationListener, RevocationOptions, RevocationStore } from "./shapes/revocation.js";
