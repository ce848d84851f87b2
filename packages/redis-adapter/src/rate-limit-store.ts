/**
 * Rate-limit counters in Redis, shared by every instance of an application.
 * @module rate-limit-store
 */
import type { RateLimitHit, RateLimitStore } from "@latchkey/core/stores";
import type { RedisLike } from "./client.js";

// INCR and the first PEXPIRE in one script: atomic, so two instances never both start a window,
// and a crash between the two commands cannot leave a counter without expiry.
const INCREMENT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); t = tonumber(ARGV[1]) end
return {c, t}`;
const READ = `local c = redis.call('GET', KEYS[1])
if not c then return nil end
return {tonumber(c), redis.call('PTTL', KEYS[1])}`;
// DECR keeps the key's TTL; a key that expired (or never was) is not created at -1.
const DECREMENT = `local c = redis.call('GET', KEYS[1])
if c and tonumber(c) > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * Counters in Redis (`rateLimit.store`), shared by every instance, each window a key with a TTL;
 * every change is one Lua script, atomic across instances. Sends `EVAL` only (see `RedisLike` for
 * node-redis).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRateLimitStore } from "@latchkey/redis-adapter"
 * const config = { providers, rateLimit: { store: RedisRateLimitStore(new Redis(process.env.REDIS_URL), { prefix: "myapp:rl:" }) } }
 * ```
 */
export function RedisRateLimitStore(
  client: Pick<RedisLike, "eval">,
  options: { prefix?: string } = {},
): RateLimitStore {
  const prefix = options.prefix ?? "latchkey:rl:";
  const parse = (reply: unknown): RateLimitHit | null => {
    if (!Array.isArray(reply)) return null;
    const [count, ttl] = reply.map(Number) as [number, number];
    return { count, resetAt: Date.now() + Math.max(0, ttl) };
  };
  return {
    async increment(key, windowMs) {
      return parse(await client.eval(INCREMENT, 1, prefix + key, Math.max(1, Math.ceil(windowMs)))) as RateLimitHit;
    },
    async decrement(key) {
      await client.eval(DECREMENT, 1, prefix + key);
    },
    async get(key) {
      return parse(await client.eval(READ, 1, prefix + key));
    },
  };
}
