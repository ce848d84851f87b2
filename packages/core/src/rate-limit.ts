/**
 * Rate limiting of sign-in attempts (on by default): the credentials callback and e-mail sign-in
 * are limited per client IP and per identifier (the submitted e-mail or user name). A limited
 * request gets `429` with `Retry-After`, or for a browser's form post the sign-in page with
 * `?error=RateLimited`. The counters live in a store: in memory by default (one process), or
 * in Redis for several instances.
 *
 * @example
 * ```ts
 * import Redis from "ioredis"
 * import { RedisRateLimitStore } from "@latchkey/core/rate-limit"
 * const config = { providers, rateLimit: { store: RedisRateLimitStore(new Redis(), { prefix: "myapp:rl:" }) } }
 * ```
 * @module rate-limit
 */

/** The state of one counter. */
export interface RateLimitHit {
  count: number;
  /** Epoch milliseconds when the window ends. */
  resetAt: number;
}

/** Where counters live. `increment` must be atomic across the instances that share the store. */
export interface RateLimitStore {
  /** Adds one to `key` (starting a window of `windowMs` if none is open) and returns the state. */
  increment(key: string, windowMs: number): Promise<RateLimitHit>;
  /** The state of `key` without changing it; null when no window is open. */
  get(key: string): Promise<RateLimitHit | null>;
}

/** A limit: at most `max` within `windowSeconds`. */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}

/** The `rateLimit` option. Pass `false` to turn rate limiting off. */
export interface RateLimitOptions {
  /** @default a MemoryRateLimitStore for this configuration */
  store?: RateLimitStore;
  /** Failed credentials attempts per identifier. @default 5 per 15 minutes */
  credentialsPerIdentifier?: RateLimit;
  /** Credentials attempts (any outcome) per client IP. @default 100 per 15 minutes */
  credentialsPerIp?: RateLimit;
  /** Sign-in e-mails per address. @default 5 per 15 minutes */
  emailPerIdentifier?: RateLimit;
  /** Sign-in e-mails per client IP. @default 30 per 15 minutes */
  emailPerIp?: RateLimit;
}

/**
 * Counters in this process's memory, in fixed windows. Right for a single instance; several
 * instances each count on their own (use `RedisRateLimitStore`). Expired windows are swept as
 * the map is used, and the map never holds more than `maxKeys` entries (oldest dropped first).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, RateLimitHit>();
  readonly #maxKeys: number;
  #lastSweep = 0;

  constructor(options: { maxKeys?: number } = {}) {
    this.#maxKeys = options.maxKeys ?? 100_000;
  }

  async increment(key: string, windowMs: number): Promise<RateLimitHit> {
    const now = Date.now();
    this.#sweep(now);
    let hit = this.#windows.get(key);
    if (!hit || hit.resetAt <= now) {
      hit = { count: 0, resetAt: now + windowMs };
      this.#windows.delete(key);
      if (this.#windows.size >= this.#maxKeys) this.#windows.delete(this.#windows.keys().next().value as string);
      this.#windows.set(key, hit);
    }
    hit.count++;
    return { ...hit };
  }

  async get(key: string): Promise<RateLimitHit | null> {
    const hit = this.#windows.get(key);
    return hit && hit.resetAt > Date.now() ? { ...hit } : null;
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    for (const [key, hit] of this.#windows) if (hit.resetAt <= now) this.#windows.delete(key);
  }
}

/**
 * The one Redis command the Redis store needs: `EVAL` as ioredis exposes it
 * (`eval(script, numKeys, ...keysAndArgs)`). For node-redis, pass
 * `{ eval: (script, n, ...rest) => client.eval(script, { keys: rest.slice(0, n), arguments: rest.slice(n) }) }`.
 */
export interface RedisEvalLike {
  eval(script: string, numKeys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
}

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

/**
 * Counters in Redis, shared by every instance, each window a key with a TTL.
 *
 * @example
 * ```ts
 * RedisRateLimitStore(new Redis(process.env.REDIS_URL), { prefix: "latchkey:rl:" })
 * ```
 */
export function RedisRateLimitStore(client: RedisEvalLike, options: { prefix?: string } = {}): RateLimitStore {
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
    async get(key) {
      return parse(await client.eval(READ, 1, prefix + key));
    },
  };
}
