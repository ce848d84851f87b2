/**
 * A session cache (`session.cache`) whose Redis subscriber stops delivering without closing (a
 * black hole: no error, no `close`), on two instances in one process sharing one adapter store and
 * one Redis: the silent instance keeps serving what it holds until its heartbeat reports the
 * channel down (within two `heartbeatMs`: packages/core/test/security/channel-health.test.ts),
 * and from that `down` on it reads the database (issue 34.6).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { AuthConfig } from "@latchkey/core";
import type { Adapter } from "@latchkey/core/adapters";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { revokeUserSessions } from "@latchkey/core/sessions";
import { RedisRevocationStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { sessionEmailOf } from "../../../test/support/session-email.js";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { startTcpProxy } from "../../core/test/security/tcp-proxy.js";

const redisUp = await serviceAvailable("Redis", 6379);
const SECRET = `silent-channel-${randomBytes(16).toString("hex")}`;

/** Lets sockets and timers run between two reads that the cache answers without any. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe.skipIf(!redisUp)("session.cache over a Redis subscriber that falls silent", () => {
  it("the silent instance serves what it holds only until its heartbeat reports the channel down; from then a session signed out elsewhere is refused", async () => {
    const channel = `latchkey-test:silent:${randomBytes(4).toString("hex")}`;
    const proxy = await startTcpProxy(6379);
    const clients: Redis[] = [];
    const redis = (port: number) => {
      const client = new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 1 });
      client.on("error", () => {});
      clients.push(client);
      return client;
    };
    const store = createMemoryStore();
    const shared = MemoryAdapter(store);
    /** The shared adapter, with this instance's session reads counted. */
    const counted = () => {
      const reads = { count: 0 };
      const adapter: Adapter = {
        ...shared,
        getSessionAndUser: async (token) => {
          reads.count++;
          return shared.getSessionAndUser?.(token) ?? null;
        },
      };
      return { adapter, reads };
    };
    const warnings: Array<{ code: string; at: number }> = [];
    const instance = (adapter: Adapter, cacheChannel: ReturnType<typeof RedisRevocationStore>, log = false) =>
      ({
        secret: SECRET,
        trustHost: true,
        adapter,
        providers: [],
        logger: {
          error: () => {},
          debug: () => {},
          warn: (code: string) => {
            if (log) warnings.push({ code, at: performance.now() });
          },
        },
        session: { strategy: "database", cache: { channel: cacheChannel } },
      }) as AuthConfig;
    const a = instance(
      counted().adapter,
      RedisRevocationStore(redis(6379), redis(6379), { channel, heartbeatMs: 200 }),
    );
    // B's commands go straight to Redis; only its subscriber passes through the proxy.
    const silent = counted();
    const bStore = RedisRevocationStore(redis(6379), redis(proxy.port), { channel, heartbeatMs: 200 });
    const b = instance(silent.adapter, bStore, true);
    try {
      const user = await shared.createUser?.({ id: randomUUID(), email: "held@example.com", emailVerified: null });
      const token = randomUUID();
      await shared.createSession?.({
        sessionToken: token,
        userId: user?.id as string,
        expires: new Date(Date.now() + 86_400_000),
      });
      // B holds the session once its channel is confirmed: a read that makes no query.
      const deadline = performance.now() + 15_000 * inject("timeScale");
      for (;;) {
        const before = silent.reads.count;
        expect(await sessionEmailOf(b, token)).toBe("held@example.com");
        if (silent.reads.count === before) break;
        if (performance.now() > deadline) throw new Error("B never held the session");
        await turn();
      }
      expect(await sessionEmailOf(a, token)).toBe("held@example.com");

      await proxy.setMode("blackhole");
      const silentFrom = performance.now();
      await revokeUserSessions(a, user?.id as string);
      expect(await sessionEmailOf(a, token)).toBeNull();
      // B, deaf to the push, serves what it holds until the heartbeat notices; then it reads the database.
      let servedAfterSignOut = 0;
      while ((await sessionEmailOf(b, token)) !== null) {
        servedAfterSignOut++;
        if (performance.now() > deadline + 15_000 * inject("timeScale")) throw new Error("B never refused it");
        await turn();
      }
      const refusedAt = performance.now();
      const down = warnings.find((w) => w.code === "session-cache-unavailable");
      expect(down, "the refusal follows the channel's down").toBeDefined();
      expect(down?.at ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(refusedAt);
      console.log(
        `[session.cache] a black-holed subscriber (heartbeatMs 200): the signed-out session served ${servedAfterSignOut} times on it, refused ${(refusedAt - silentFrom).toFixed(0)} ms after the channel fell silent`,
      );
    } finally {
      await bStore.close?.();
      proxy.resetAll();
      await proxy.close();
      for (const client of clients) client.disconnect();
    }
  });
});
