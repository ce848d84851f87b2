/**
 * Where instances of one application coordinate the refresh of a provider's access token: a short
 * lock, so that one instance calls the provider while the others wait, and short-lived records of
 * the outcome, so that a request still carrying the refresh token from before a rotation gets the
 * new tokens instead of replaying the rotated one. Latchkey hashes every key and encrypts every
 * value (with a key derived from the secret) before it reaches the store: the store never sees a
 * token.
 *
 * In memory by default (one process); for several instances, `RedisRefreshStore` of
 * `@latchkey/redis-adapter`, or `SqlRefreshStore` of `@latchkey/sql-adapter` (SQLite, PostgreSQL,
 * MySQL/MariaDB, its table made by `latchkey migrate`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRefreshStore } from "@latchkey/redis-adapter"
 * const config = { providers, accessTokens: { store: RedisRefreshStore(new Redis(), { prefix: "myapp:refresh:" }) } }
 * ```
 * @module refresh-store
 */
export { MemoryRefreshStore } from "./lib/refresh/index.js";
export type { RefreshStore } from "./shapes/refresh.js";
