/**
 * For the authors of shared stores: the store interfaces and the helpers a revocation store needs
 * (the wire form of an entry, the heartbeat over its push channel, the bounds it must keep).
 * Latchkey's own stores over Redis and SQL (`@latchkey/redis-adapter`, `@latchkey/sql-adapter`)
 * are written on these; core itself holds the interfaces and the in-memory stores only.
 *
 * @example
 * ```ts
 * import { ChannelHealth, decodeRevocationEntry, type RevocationStore } from "@latchkey/core/stores"
 *
 * function MyRevocationStore(bus: MyBus): RevocationStore {
 *   let listener: RevocationListener | undefined
 *   const health = new ChannelHealth(() => listener, () => bus.ping(), 5000)
 *   bus.onMessage((text) => {
 *     const entry = decodeRevocationEntry(text)
 *     if (entry) listener?.entry(entry)
 *   })
 *   // ...add, load, subscribe (health.start()), close (health.stop())
 * }
 * ```
 * @module stores
 */

export {
  isEntry as isRevocationEntry,
  MAX_HEARTBEAT_MS,
} from "./lib/session/index.js";
export {
  ChannelHealth,
  decodeRevocationEntry,
  deliver,
  encodeRevocationEntry,
  encodeSessionChange,
  failAfter,
  revocationHeartbeatMs,
} from "./lib/stores/index.js";
export type { RateLimitHit, RateLimitStore } from "./rate-limit.js";
export { MemoryRateLimitStore } from "./rate-limit.js";
export type { RefreshStore } from "./refresh-store.js";
export type { AuditStore } from "./shapes/audit.js";
export type { RevocationEntry, RevocationListener, RevocationStore, SessionChange } from "./shapes/revocation.js";
