/**
 * Rate limiting (on by default) of what an anonymous client can make Latchkey do:
 *
 * - credentials sign-in: per (identifier, client address) tightly, per identifier loosely, per
 *   client address for any identifier; the identifier is the field the provider declares
 *   (`identifier`, else its first credentials field), never a field the client adds;
 * - sign-in e-mails: per (address, client address), per address, per client address;
 * - `GET /webauthn-options/<provider>` (it stores a challenge): per client address.
 *
 * An attempt is reserved (counted) before `authorize()` runs, so concurrent guesses cannot
 * overtake the limit; a credentials attempt that signs in gives its reservation back. A limited
 * request gets `429` with `Retry-After`, or for a browser's form post the sign-in page with
 * `?error=RateLimited`. The counters live in a store: in memory by default (one per application
 * configuration object, one process), or for several instances in Redis (`RedisRateLimitStore` of
 * `@latchkey/redis-adapter`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRateLimitStore } from "@latchkey/redis-adapter"
 * const config = { providers, rateLimit: { store: RedisRateLimitStore(new Redis(), { prefix: "myapp:rl:" }) } }
 * ```
 * @module rate-limit
 */

export { MemoryRateLimitStore } from "./lib/limits/index.js";
export type { RateLimit, RateLimitHit, RateLimitOptions, RateLimitStore } from "./shapes/rate-limit.js";
