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
import type { JWT } from "./jwt.js";
import type { Env } from "./lib/config/index.js";
import { MemoryRevocationStore, revocationOf, revokeOneJwtSession } from "./lib/session/index.js";
import type { RevocationEntry, RevocationListener, RevocationOptions, RevocationStore } from "./shapes/revocation.js";
import type { AuthConfig } from "./types.js";

export {
  MemoryRevocationStore,
  type RevocationEntry,
  type RevocationListener,
  type RevocationOptions,
  type RevocationStore,
};

/**
 * Revokes one JWT session on every instance sharing the store: each of its tokens, the re-issued
 * ones included, reads as signed out from now on. `target` is the session's id (`sid`, as the
 * `jwt` and `session` callbacks see it), its decoded claims, or a session token (the cookie's
 * value). Resolves once the store has it; rejects with `SignOutError` when the store does not
 * confirm it within `timeout` (then nothing was revoked, on any instance, and `session.revoke-failed`
 * is recorded: retry).
 *
 * @example
 * ```ts
 * // "sign out this device" from a list of the user's sessions
 * await revokeJwtSession(config, sessionId)
 * ```
 */
export async function revokeJwtSession(
  config: AuthConfig,
  target: string | JWT,
  options: { env?: Env } = {},
): Promise<void> {
  await revokeOneJwtSession(revocationOf(config, options.env), target);
}

/**
 * `revokeUserSessions` of `@latchkey/core/sessions`, the same function: every session of a user,
 * JWT sessions (with `session.revocation`: every session begun before now, on every instance) and
 * database sessions (deleted) alike.
 */
export { revokeUserSessions } from "./sessions.js";
