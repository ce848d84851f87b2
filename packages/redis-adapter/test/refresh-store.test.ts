/**
 * `RedisRefreshStore` against the conformance suite every `RefreshStore` runs: two instances, each
 * on its own connection to one Redis.
 */
import { randomBytes } from "node:crypto";
import { runRefreshStoreConformance } from "@latchkey/adapter-test/refresh-store";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { RedisRefreshStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";

const redisUp = await serviceAvailable("Redis", 6379);

runRefreshStoreConformance(
  "RedisRefreshStore (Redis at 127.0.0.1:6379)",
  async () => {
    const prefix = `latchkey-refresh-conformance:${randomBytes(4).toString("hex")}:`;
    const clients = [new Redis({ host: "127.0.0.1", port: 6379 }), new Redis({ host: "127.0.0.1", port: 6379 })];
    return {
      stores: [RedisRefreshStore(clients[0] as Redis, { prefix }), RedisRefreshStore(clients[1] as Redis, { prefix })],
      async teardown() {
        const keys = await (clients[0] as Redis).keys(`${prefix}*`);
        if (keys.length) await (clients[0] as Redis).del(...keys);
        for (const client of clients) client.disconnect();
      },
    };
  },
  { skip: !redisUp },
);
