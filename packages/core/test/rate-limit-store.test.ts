/**
 * The rate-limit stores of `@latchkey/core/rate-limit` against the conformance suite every
 * `RateLimitStore` runs: in memory, and on Redis as two instances over one server (and one client
 * whose server is down). What only the memory store has (its bound against a flood of fresh keys)
 * is proven in `security/rate-limit.test.ts`.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { runRateLimitStoreConformance } from "../../adapter-test/src/rate-limit-store.js";
import { downRedisOptions, serviceAvailable } from "../../adapter-test/src/services.js";
import { MemoryRateLimitStore, RedisRateLimitStore } from "../src/rate-limit.js";

const redisUp = await serviceAvailable("Redis", 6379);

runRateLimitStoreConformance("MemoryRateLimitStore", async () => {
  const store = new MemoryRateLimitStore();
  return { stores: [store, store], teardown: async () => {} };
});

runRateLimitStoreConformance(
  "RedisRateLimitStore (Redis at 127.0.0.1:6379)",
  async () => {
    const prefix = `conform_rl:${randomBytes(4).toString("hex")}:`;
    const clients = [
      new Redis({ host: "127.0.0.1", port: 6379 }),
      new Redis({ host: "127.0.0.1", port: 6379 }),
    ] as const;
    return {
      stores: [RedisRateLimitStore(clients[0], { prefix }), RedisRateLimitStore(clients[1], { prefix })],
      async unreachable() {
        const down = new Redis(await downRedisOptions());
        down.on("error", () => {});
        return { store: RedisRateLimitStore(down, { prefix }), close: async () => down.disconnect() };
      },
      async teardown() {
        const keys = await clients[0].keys(`${prefix}*`);
        if (keys.length) await clients[0].del(...keys);
        for (const client of clients) client.disconnect();
      },
    };
  },
  { skip: !redisUp },
);
