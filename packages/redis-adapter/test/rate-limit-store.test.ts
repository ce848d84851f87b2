/**
 * `RedisRateLimitStore`: counters shared by instances through one Redis, each change one Lua
 * script. It runs the conformance suite every `RateLimitStore` runs (two instances over one
 * server, and a client whose server is down); then what is Redis's own (the key's expiry, two
 * applications limiting one account). The limiter's own rules, over this store and the memory
 * one, are proved in core's `rate-limit.test.ts`.
 */
import { randomBytes } from "node:crypto";
import { runRateLimitStoreConformance } from "@latchkey/adapter-test/rate-limit-store";
import { downRedisOptions, serviceAvailable } from "@latchkey/adapter-test/services";
import { RedisRateLimitStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { AuthConfig } from "../../core/src/index.js";
import { CookieJar, call, csrfToken, makeConfig, recordingLogger } from "../../core/test/helpers.js";

const redisUp = await serviceAvailable("Redis", 6379);
const redis = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
const prefix = `latchkey-test:rl:${process.pid}:${Date.now()}:`;

afterAll(async () => {
  if (redisUp) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  }
  redis.disconnect();
});

runRateLimitStoreConformance(
  "RedisRateLimitStore (Redis at 127.0.0.1:6379)",
  async () => {
    const shared = `conform2_rl:${randomBytes(4).toString("hex")}:`;
    // Two instances, each on a client of its own.
    const clients = [
      new Redis({ host: "127.0.0.1", port: 6379 }),
      new Redis({ host: "127.0.0.1", port: 6379 }),
    ] as const;
    return {
      stores: [
        RedisRateLimitStore(clients[0], { prefix: shared }),
        RedisRateLimitStore(clients[1], { prefix: shared }),
      ],
      async unreachable() {
        const down = new Redis(await downRedisOptions());
        down.on("error", () => {});
        return { store: RedisRateLimitStore(down, { prefix: shared }), close: async () => down.disconnect() };
      },
      async teardown() {
        const keys = await clients[0].keys(`${shared}*`);
        if (keys.length) await clients[0].del(...keys);
        for (const client of clients) client.disconnect();
      },
    };
  },
  { skip: !redisUp },
);

/** One credentials sign-in of "ada" with `password`. */
async function guess(config: AuthConfig, password: string) {
  const jar = new CookieJar();
  const token = await csrfToken(config, jar);
  return call(config, "/auth/callback/credentials", { jar, form: { csrfToken: token, username: "ada", password } });
}

describe("RedisRateLimitStore", () => {
  it("is atomic: 50 concurrent increments from two instances count 1..50, with one expiry", async (t) => {
    if (!redisUp) return t.skip();
    const a = RedisRateLimitStore(redis, { prefix });
    const b = RedisRateLimitStore(redis, { prefix });
    const hits = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).increment("k", 60_000)));
    expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const ttl = await redis.pttl(`${prefix}k`);
    expect(ttl).toBeGreaterThan(50_000);
    expect((await a.get("k"))?.count).toBe(50);
    expect(await a.get("missing")).toBeNull();
  });
  it("decrement keeps the expiry, never goes below zero and never creates a key", async (t) => {
    if (!redisUp) return t.skip();
    const store = RedisRateLimitStore(redis, { prefix });
    await store.decrement("absent");
    expect(await redis.exists(`${prefix}absent`)).toBe(0);
    await store.increment("d", 60_000);
    await Promise.all(Array.from({ length: 10 }, () => store.decrement("d")));
    expect((await store.get("d"))?.count).toBe(0);
    expect(await redis.pttl(`${prefix}d`)).toBeGreaterThan(50_000);
  });
  it("limits sign-ins across two application instances sharing Redis", async (t) => {
    if (!redisUp) return t.skip();
    const store = () => RedisRateLimitStore(redis, { prefix: `${prefix}app:` });
    const one = makeConfig({ rateLimit: { store: store() }, logger: recordingLogger().logger });
    const two = makeConfig({ rateLimit: { store: store() }, logger: recordingLogger().logger });
    for (let i = 0; i < 5; i++) await guess(i % 2 ? one : two, "wrong");
    expect((await guess(one, "lovelace")).status).toBe(429);
    expect((await guess(two, "lovelace")).status).toBe(429);
  });
});
