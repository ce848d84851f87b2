/**
 * The refresh stores of `@latchkey/core/refresh-store` against the conformance suite every
 * `RefreshStore` runs (the SQL adapter's runs it in its own package): in memory, on Redis and on
 * PostgreSQL, each as two instances over one backend.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { runRefreshStoreConformance } from "../../adapter-test/src/refresh-store.js";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { MemoryRefreshStore, PostgresRefreshStore, RedisRefreshStore } from "../src/refresh-store.js";

const redisUp = await serviceAvailable("Redis", 6379);
const postgresUp = await serviceAvailable("PostgreSQL", 5432);

runRefreshStoreConformance("MemoryRefreshStore", async () => {
  const store = new MemoryRefreshStore();
  return { stores: [store, store], teardown: async () => {} };
});

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

runRefreshStoreConformance(
  "PostgresRefreshStore (PostgreSQL at 127.0.0.1:5432)",
  async () => {
    const database = `latchkey_refresh_conformance_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const pools = [0, 1].map(() => new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database, max: 10 }));
    // DROP ... WITH (FORCE) at teardown can reach a connection that is still closing (57P01).
    for (const pool of pools) {
      pool.on("error", (error) => {
        if ((error as { code?: string }).code !== "57P01") throw error;
      });
    }
    return {
      stores: [PostgresRefreshStore(pools[0] as pg.Pool), PostgresRefreshStore(pools[1] as pg.Pool)],
      async teardown() {
        for (const pool of pools) await pool.end();
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.end();
      },
    };
  },
  { skip: !postgresUp },
);
