/**
 * The refresh coordination of `getAccessToken` in Redis, for instances that share one.
 * @module refresh-store
 */
import type { RefreshStore } from "@latchkey/core/stores";
import type { RedisLike } from "./client.js";

// Release deletes the lock only while it still names its owner: a holder whose time ran out must
// not release the lock another instance took since.
const ACQUIRE = `return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;
const PUT = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 0`;
const GET = `return redis.call('GET', KEYS[1])`;

/**
 * A `RefreshStore` (`accessTokens.store`) in Redis, shared by every instance: the lock is
 * `SET NX PX`, released by a compare-and-delete script; records are keys with a TTL. Sends `EVAL`
 * only (see `RedisLike` for node-redis).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRefreshStore } from "@latchkey/redis-adapter"
 * const config = { providers, accessTokens: { store: RedisRefreshStore(new Redis(process.env.REDIS_URL), { prefix: "myapp:refresh:" }) } }
 * ```
 */
export function RedisRefreshStore(client: Pick<RedisLike, "eval">, options: { prefix?: string } = {}): RefreshStore {
  const prefix = options.prefix ?? "latchkey:refresh:";
  const ms = (ttl: number) => Math.max(1, Math.ceil(ttl));
  return {
    async acquire(key, owner, ttlMs) {
      return Number(await client.eval(ACQUIRE, 1, `${prefix}lock:${key}`, owner, ms(ttlMs))) === 1;
    },
    async release(key, owner) {
      await client.eval(RELEASE, 1, `${prefix}lock:${key}`, owner);
    },
    async put(key, value, ttlMs) {
      await client.eval(PUT, 1, `${prefix}value:${key}`, value, ms(ttlMs));
    },
    async get(key) {
      const value = await client.eval(GET, 1, `${prefix}value:${key}`);
      return typeof value === "string" ? value : null;
    },
  };
}
