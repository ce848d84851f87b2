/**
 * The revocation list of JWT sessions in Redis: a key per entry and a pub/sub channel for the
 * pushes, watched by a heartbeat.
 * @module revocation-store
 */
import {
  ChannelHealth,
  decodeRevocationEntry,
  deliver,
  encodeRevocationEntry,
  encodeSessionChange,
  failAfter,
  type RevocationEntry,
  type RevocationListener,
  type RevocationStore,
  revocationHeartbeatMs,
} from "@latchkey/core/stores";
import type { RedisLike } from "./client.js";

/**
 * The connection the store subscribes on, as ioredis exposes it: `subscribe`, `ping`, and the
 * `message`, `close` and `ready` events (ioredis subscribes again by itself after a reconnection).
 */
type Subscriber = Pick<RedisLike, "status" | "subscribe" | "unsubscribe" | "ping" | "on" | "removeListener">;

/** Options of {@link RedisRevocationStore}. */
export interface RedisRevocationOptions {
  /** Prefix of the entries' keys. @default "latchkey:revoked:" */
  prefix?: string;
  /** The pub/sub channel. @default "latchkey:revocations" */
  channel?: string;
  /** Milliseconds between checks that the subscriber connection answers (at most 60,000). @default 5000 */
  heartbeatMs?: number;
}

/** Resolves on the connection's next `ready` event. */
function readyOf(subscriber: Subscriber): Promise<void> {
  return new Promise((resolve) => {
    const ready = () => {
      subscriber.removeListener?.("ready", ready);
      resolve();
    };
    subscriber.on("ready", ready);
  });
}

// Saves the entry merged with the stored one, each of `before` and `expiresAt` the later of the two
// (a user's entry only moves forward: an older sign-in time with a later expiry must not replace a
// later revocation), and publishes what is stored, in one script: no instance sees a push whose
// entry is not saved.
const SAVE_AND_PUBLISH = `local value = ARGV[1]
local ttl = ARGV[5]
local current = redis.call('GET', KEYS[1])
if current then
  local bs = string.match(current, '"b":(%d+)')
  local es = string.match(current, '"e":(%d+)')
  if bs and es then
    local keepB = tonumber(bs) >= tonumber(ARGV[2])
    local keepE = tonumber(es) >= tonumber(ARGV[3])
    if keepB and keepE then
      redis.call('PUBLISH', ARGV[4], current)
      return 0
    end
    if keepB then value = (string.gsub(value, '"b":%d+', '"b":' .. bs, 1)) end
    if keepE then
      value = (string.gsub(value, '"e":%d+', '"e":' .. es, 1))
      local left = redis.call('PTTL', KEYS[1])
      if left > 0 then ttl = left end
    end
  end
end
redis.call('SET', KEYS[1], value, 'PX', ttl)
redis.call('PUBLISH', ARGV[4], value)
return 1`;

const PUBLISH = "return redis.call('PUBLISH', ARGV[1], ARGV[2])";

/**
 * A revocation list in Redis (`session.revocation.store`): one key per entry, expiring with it,
 * and a pub/sub channel for the pushes. `client` runs commands; `subscriber` is a second
 * connection for the channel (ioredis: `new Redis(url)` twice, or `client.duplicate()`). Neither
 * is closed by `close()`.
 *
 * It also carries the changes of a database session cache (`session: { cache: { channel } }`):
 * `push` publishes them on the same channel, and a reconnected subscriber reports `up` only once
 * it has subscribed again. Give a cache and a revocation list each their own store.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRevocationStore } from "@latchkey/redis-adapter"
 * const redis = new Redis(process.env.REDIS_URL)
 * const store = RedisRevocationStore(redis, redis.duplicate(), { prefix: "myapp:revoked:" })
 * ```
 */
export function RedisRevocationStore(
  client: Pick<RedisLike, "eval" | "scan" | "mget">,
  subscriber: Subscriber,
  options: RedisRevocationOptions = {},
): RevocationStore {
  const prefix = options.prefix ?? "latchkey:revoked:";
  const channel = options.channel ?? "latchkey:revocations";
  let listener: RevocationListener | undefined;
  let subscribed = false;
  let attached = false;
  const heartbeatMs = revocationHeartbeatMs("RedisRevocationStore", options.heartbeatMs);
  const health = new ChannelHealth(
    () => listener,
    () => subscriber.ping(),
    heartbeatMs,
  );
  const keyOf = (entry: RevocationEntry) => `${prefix}${entry.kind === "session" ? "s" : "u"}:${entry.id}`;
  const onMessage = (from: string, message: string) => {
    if (from === channel) deliver(listener, message);
  };
  const onClose = () => health.down(new Error("the Redis subscriber connection closed"));
  // ioredis re-subscribes on "ready"; pushes sent meanwhile are lost, which `up` makes the list
  // reload for (and a session cache start afresh). `up` only once the channel is subscribed again:
  // SUBSCRIBE answers after Redis has registered it, so every push from then on arrives.
  const onReady = () => {
    if (!subscribed) return;
    subscriber.subscribe(channel).then(
      () => health.up(),
      (e: unknown) => health.down(e instanceof Error ? e : new Error(String(e))),
    );
  };
  return {
    async add(entry) {
      const ttl = Math.max(1, Math.ceil(entry.expiresAt - Date.now()));
      await client.eval(
        SAVE_AND_PUBLISH,
        1,
        keyOf(entry),
        encodeRevocationEntry(entry),
        entry.before,
        entry.expiresAt,
        channel,
        ttl,
      );
    },
    async push(change) {
      await client.eval(PUBLISH, 0, channel, encodeSessionChange(change));
    },
    async load() {
      const entries: RevocationEntry[] = [];
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        cursor = String(next);
        if (keys.length === 0) continue;
        const values = await client.mget(...keys);
        for (const value of values) {
          const entry = decodeRevocationEntry(value);
          if (entry) entries.push(entry);
        }
      } while (cursor !== "0");
      return entries;
    },
    async subscribe(next) {
      listener = next;
      if (subscribed) return;
      // Once, even when an attempt before this one failed (or timed out) after attaching them.
      if (!attached) {
        subscriber.on("message", onMessage);
        subscriber.on("close", onClose);
        subscriber.on("ready", onReady);
        attached = true;
      }
      // ioredis checks a new connection (INFO) before it calls it ready. A SUBSCRIBE written in
      // between puts the connection in subscriber mode, the check then fails and ioredis
      // reconnects: the channel is lost as it starts, and the instance refuses its first reads.
      // Subscribe once the check has passed (commands sent before connecting wait in its queue).
      if (subscriber.status === "connect") await readyOf(subscriber);
      await subscriber.subscribe(channel);
      subscribed = true;
      health.start();
    },
    async close() {
      health.stop();
      listener = undefined;
      subscriber.removeListener?.("message", onMessage);
      subscriber.removeListener?.("close", onClose);
      subscriber.removeListener?.("ready", onReady);
      attached = false;
      // At most a heartbeat: an UNSUBSCRIBE on a subscriber that stopped answering (a black hole)
      // would otherwise hold close() forever.
      if (subscribed) {
        const limit = failAfter(heartbeatMs, "unsubscribing");
        await Promise.race([subscriber.unsubscribe?.(channel), limit.promise]).catch(() => {});
        limit.cancel();
      }
      subscribed = false;
    },
  };
}
