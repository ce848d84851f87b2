/**
 * The revocation stores of `@latchkey/core/revocation` against the conformance suite every
 * `RevocationStore` runs: in memory, on Redis and on PostgreSQL, each instance on connections of
 * its own. The outages are real: Redis behind a TCP proxy that refuses and resets every
 * connection; PostgreSQL refusing connections to the database (`ALLOW_CONNECTIONS false`) after
 * `pg_terminate_backend` ended the store's own.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { runRevocationStoreConformance } from "../../adapter-test/src/revocation-store.js";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { MemoryRevocationStore, PostgresRevocationStore, RedisRevocationStore } from "../src/revocation.js";
import { startTcpProxy } from "./security/tcp-proxy.js";

const redisUp = await serviceAvailable("Redis", 6379);
const postgresUp = await serviceAvailable("PostgreSQL", 5432);

runRevocationStoreConformance("MemoryRevocationStore", async () => {
  const store = new MemoryRevocationStore();
  return { open: () => store, teardown: async () => {} };
});

runRevocationStoreConformance(
  "RedisRevocationStore (Redis at 127.0.0.1:6379)",
  async () => {
    const run = `conform_revoke:${randomBytes(4).toString("hex")}:`;
    const clients: Redis[] = [];
    const connect = (port: number) => {
      const client = new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
      client.on("error", () => {});
      clients.push(client);
      return client;
    };
    const storeOn = (port: number) =>
      RedisRevocationStore(connect(port), connect(port), {
        prefix: `${run}revoked:`,
        channel: `${run}revocations`,
        heartbeatMs: 200,
      });
    return {
      open: () => storeOn(6379),
      async outage() {
        const proxy = await startTcpProxy(6379);
        return {
          store: storeOn(proxy.port),
          // The server goes away: open connections are reset, new ones refused.
          cut: () => proxy.setMode("refuse"),
          restore: () => proxy.setMode("pass"),
          close: () => proxy.close(),
        };
      },
      async teardown() {
        const admin = new Redis({ host: "127.0.0.1", port: 6379 });
        const keys = await admin.keys(`${run}*`);
        if (keys.length) await admin.del(...keys);
        admin.disconnect();
        for (const client of clients) client.disconnect();
      },
    };
  },
  { skip: !redisUp },
);

runRevocationStoreConformance(
  "PostgresRevocationStore (PostgreSQL at 127.0.0.1:5432)",
  async () => {
    const database = `conform_revoke_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const pools: pg.Pool[] = [];
    const pool = () => {
      const made = new pg.Pool({
        host: "127.0.0.1",
        port: 5432,
        user: "postgres",
        database,
        max: 4,
        connectionTimeoutMillis: 2000,
      });
      // Terminated connections report on the pool's idle clients; the store's calls reject on their own.
      made.on("error", () => {});
      pools.push(made);
      return made;
    };
    return {
      open: () => PostgresRevocationStore(pool(), { heartbeatMs: 200 }),
      async outage() {
        return {
          store: PostgresRevocationStore(pool(), { heartbeatMs: 200 }),
          async cut() {
            await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
            await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [database]);
          },
          restore: async () => void (await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`)),
          close: async () => {},
        };
      },
      async teardown() {
        await Promise.all(pools.map((p) => p.end().catch(() => {})));
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.end();
      },
    };
  },
  { skip: !postgresUp },
);
