/**
 * `RedisApiKeyStore` against the conformance suite every `ApiKeyStore` runs: two
 * instances, each on its own connection to one Redis, under a fresh prefix; then the keys of
 * `ApiKeys` over it: a revocation seen by the other instance, and a Redis that cannot be reached.
 */
import { randomBytes } from "node:crypto";
import { runApiKeyStoreConformance } from "@latchkey/adapter-test/api-key-store";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { ApiKeys } from "@latchkey/core/api-keys";
import { RedisApiKeyStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";

const redisUp = await serviceAvailable("Redis", 6379);

runApiKeyStoreConformance(
  "RedisApiKeyStore (Redis at 127.0.0.1:6379)",
  async () => {
    const prefix = `latchkey-apikeys-conformance:${randomBytes(4).toString("hex")}:`;
    const clients = [
      new Redis({ host: "127.0.0.1", port: 6379 }),
      new Redis({ host: "127.0.0.1", port: 6379 }),
    ] as const;
    return {
      stores: [RedisApiKeyStore(clients[0], { prefix }), RedisApiKeyStore(clients[1], { prefix })],
      async teardown() {
        const keys = await clients[0].keys(`${prefix}*`);
        if (keys.length) await clients[0].del(...keys);
        for (const client of clients) client.disconnect();
      },
    };
  },
  { skip: !redisUp },
);

describe.skipIf(!redisUp)("API keys over RedisApiKeyStore, two instances", () => {
  const config = { secret: randomBytes(32).toString("base64url"), trustHost: true, providers: [] };

  it("rule: a key revoked on one instance is refused by the other at its next request", async () => {
    const prefix = `latchkey-apikeys-instances:${randomBytes(4).toString("hex")}:`;
    const clients = [new Redis({ host: "127.0.0.1", port: 6379 }), new Redis({ host: "127.0.0.1", port: 6379 })];
    try {
      const one = ApiKeys(config, { store: RedisApiKeyStore(clients[0] as Redis, { prefix }) });
      const two = ApiKeys(config, { store: RedisApiKeyStore(clients[1] as Redis, { prefix }) });
      const made = await one.create("ursula", { name: "CI" });
      if (!made.ok) throw new Error(made.reason);
      expect((await two.verify(made.value.key)).ok).toBe(true);
      expect((await one.revoke("ursula", made.value.record.id)).ok).toBe(true);
      expect(await two.verify(made.value.key)).toMatchObject({ ok: false, status: 401 });
    } finally {
      const keys = await (clients[0] as Redis).keys(`${prefix}*`);
      if (keys.length) await (clients[0] as Redis).del(...keys);
      for (const client of clients) client.disconnect();
    }
  });

  it("rule: a Redis that cannot be reached refuses the key with 503 and a log line, never the key", async () => {
    const prefix = `latchkey-apikeys-outage:${randomBytes(4).toString("hex")}:`;
    const live = new Redis({ host: "127.0.0.1", port: 6379 });
    // A port nothing listens on, with no queue and no retries: each command fails at once.
    const dead = new Redis({
      host: "127.0.0.1",
      port: 1,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    dead.on("error", () => {});
    const lines: string[] = [];
    const logged = {
      ...config,
      logger: {
        error: (e: Error) => void lines.push(`${e.message} ${String((e.cause as { err?: unknown })?.err ?? "")}`),
        warn: (code: string) => void lines.push(code),
        debug: (message: string) => void lines.push(message),
      },
    };
    try {
      const made = await ApiKeys(logged, { store: RedisApiKeyStore(live, { prefix }) }).create("ursula", {
        name: "CI",
      });
      if (!made.ok) throw new Error(made.reason);
      const check = await ApiKeys(logged, { store: RedisApiKeyStore(dead, { prefix }) }).verify(made.value.key);
      expect(check).toMatchObject({ ok: false, status: 503, error: "temporarily_unavailable" });
      expect(lines.some((l) => l.includes("API key store could not be read"))).toBe(true);
      for (const line of lines) expect(line).not.toContain(made.value.key.slice(20));
    } finally {
      const keys = await live.keys(`${prefix}*`);
      if (keys.length) await live.del(...keys);
      live.disconnect();
      dead.disconnect();
    }
  });
});
