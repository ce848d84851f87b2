/**
 * The structural Redis client every part of `@latchkey/redis-adapter` speaks to.
 * @module client
 */

/** The commands the adapter queues in a `MULTI` transaction. Return values are not used. */
export interface RedisTransaction {
  set(key: string, value: string): unknown;
  /** `SET key value PXAT unixTimeMilliseconds`. */
  set(key: string, value: string, pxat: "PXAT", unixTimeMilliseconds: number): unknown;
  del(...keys: string[]): unknown;
  sadd(key: string, ...members: string[]): unknown;
  srem(key: string, ...members: string[]): unknown;
  /**
   * Runs the queued commands. ioredis resolves `[error, result]` pairs (an error in any pair is
   * thrown by the adapter); other clients may resolve the results or reject.
   */
  exec(): Promise<unknown>;
}

/**
 * The Redis commands Latchkey sends, described structurally so that any client fits: the one
 * client type of this package. Each function takes the commands it calls (`Pick<RedisLike, ...>`):
 * the adapter its reads, writes and scripts; `RedisRateLimitStore` and `RedisRefreshStore` only
 * `eval`; `RedisRevocationStore` `eval`, `scan` and `mget` on one connection, and the pub/sub
 * members on a second one (a connection in subscriber mode can send nothing else).
 * An ioredis `Redis` (or `Cluster`, with a prefix in one hash slot) satisfies it as it is.
 * node-redis (v4/v5) needs a thin wrapper, because its methods are camel-cased and take options
 * objects; the adapter's part:
 *
 * @example
 * ```ts
 * import { createClient } from "redis"
 * const client = await createClient({ url: "redis://127.0.0.1:6379" }).connect()
 * const redis: Pick<RedisLike, "get" | "getdel" | "smembers" | "set" | "multi" | "eval"> = {
 *   get: (key) => client.get(key),
 *   getdel: (key) => client.getDel(key),
 *   smembers: (key) => client.sMembers(key),
 *   set: (key, value) => client.set(key, value, { NX: true }),
 *   multi() {
 *     const multi = client.multi()
 *     return {
 *       set: (key: string, value: string, _pxat?: "PXAT", at?: number) =>
 *         multi.set(key, value, at === undefined ? {} : { PXAT: at }),
 *       del: (...keys: string[]) => multi.del(keys),
 *       sadd: (key: string, ...members: string[]) => multi.sAdd(key, members),
 *       srem: (key: string, ...members: string[]) => multi.sRem(key, members),
 *       exec: () => multi.exec(),
 *     }
 *   },
 *   eval: (script, numkeys, ...args) =>
 *     client.eval(script, {
 *       keys: args.slice(0, numkeys).map(String),
 *       arguments: args.slice(numkeys).map(String),
 *     }),
 * }
 * const adapter = RedisAdapter(redis)
 * ```
 */
export interface RedisLike {
  get(key: string): Promise<string | null>;
  /** `GETDEL key` (Redis 6.2 or later). */
  getdel(key: string): Promise<string | null>;
  smembers(key: string): Promise<string[]>;
  /** `SET key value NX`: resolves `"OK"` when it set the key, `null` when the key existed. */
  set(key: string, value: string, nx: "NX"): Promise<string | null>;
  /** Starts a `MULTI` transaction. */
  multi(): RedisTransaction;
  /**
   * `EVAL script numkeys key... arg...`: runs a Lua script atomically. The adapter's scripts
   * compare a record with what it read and write only if it is unchanged, so that a write never
   * undoes a concurrent delete (`WATCH` cannot do this on a connection that concurrent calls share).
   */
  eval(script: string, numkeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** `SCAN cursor MATCH pattern COUNT count`: one page of the keys matching `pattern`. */
  scan(
    cursor: string,
    matchToken: "MATCH",
    pattern: string,
    countToken: "COUNT",
    count: number,
  ): Promise<[string, string[]]>;
  /** `MGET key...`. */
  mget(...keys: string[]): Promise<Array<string | null>>;
  /** The connection's status as ioredis reports it ("connect": connected, its ready check not answered yet). */
  readonly status?: string;
  /** `SUBSCRIBE channel` (the connection then delivers `message` events). */
  subscribe(channel: string): Promise<unknown>;
  unsubscribe?(channel: string): Promise<unknown>;
  ping(): Promise<unknown>;
  on(event: "message", listener: (channel: string, message: string) => void): unknown;
  on(event: "close" | "ready", listener: () => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: matches the listener type of Node's EventEmitter
  removeListener?(event: string, listener: (...args: any[]) => void): unknown;
}
