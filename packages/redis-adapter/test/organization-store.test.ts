/**
 * `RedisOrganizationStore` against the conformance suite every `OrganizationStore` runs: two
 * instances, each on its own connection to one Redis, under a fresh prefix.
 */
import { randomBytes } from "node:crypto";
import { runOrganizationStoreConformance } from "@latchkey/adapter-test/organization-store";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { RedisOrganizationStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";

const redisUp = await serviceAvailable("Redis", 6379);

runOrganizationStoreConformance(
  "RedisOrganizationStore (Redis at 127.0.0.1:6379)",
  async () => {
    const prefix = `latchkey-orgs-conformance:${randomBytes(4).toString("hex")}:`;
    const clients = [
      new Redis({ host: "127.0.0.1", port: 6379 }),
      new Redis({ host: "127.0.0.1", port: 6379 }),
    ] as const;
    return {
      stores: [RedisOrganizationStore(clients[0], { prefix }), RedisOrganizationStore(clients[1], { prefix })],
      async teardown() {
        const keys = await clients[0].keys(`${prefix}*`);
        if (keys.length) await clients[0].del(...keys);
        for (const client of clients) client.disconnect();
      },
    };
  },
  { skip: !redisUp },
);
