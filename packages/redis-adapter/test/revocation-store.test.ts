/**
 * `RedisRevocationStore`: the conformance suite every `RevocationStore` runs, each instance on
 * connections of its own, the outage real (Redis behind a TCP proxy that resets every open
 * connection and refuses new ones); revocation of JWT sessions across two instances sharing one
 * Redis, attacked through `Auth()` (the suite of `revocation-instances.ts` in core's tests); and
 * what is Redis's own: subscribing while ioredis still checks a new connection.
 */
import { randomBytes } from "node:crypto";
import { runRevocationStoreConformance } from "@latchkey/adapter-test/revocation-store";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import type { RevocationListener } from "@latchkey/core/stores";
import { RedisRevocationStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { closers, describeAcrossInstances, run } from "../../core/test/security/revocation-instances.js";
import { outageBehindProxy, slowLinkBehindProxy } from "../../core/test/security/tcp-proxy.js";

const redisUp = await serviceAvailable("Redis", 6379);

runRevocationStoreConformance(
  "RedisRevocationStore (Redis at 127.0.0.1:6379)",
  async () => {
    const namespace = `conform2_revoke:${randomBytes(4).toString("hex")}:`;
    const clients: Redis[] = [];
    const connect = (port: number) => {
      const client = new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
      client.on("error", () => {});
      clients.push(client);
      return client;
    };
    // A heartbeat of 200 ms notices the cut at once; the stores of the other tests get 1 s, so
    // that a PING slowed by a loaded machine is not taken for a lost channel.
    const ownStore = (port: number, heartbeatMs: number) => {
      const [client, subscriber] = [connect(port), connect(port)];
      const store = RedisRevocationStore(client, subscriber, {
        prefix: `${namespace}revoked:`,
        channel: `${namespace}revocations`,
        heartbeatMs,
      });
      // The store holds no connection of its own (ioredis reconnects the two it is given).
      const end = async () => {
        client.disconnect();
        subscriber.disconnect();
      };
      return { store, end };
    };
    const storeOn = (port: number, heartbeatMs: number) => ownStore(port, heartbeatMs).store;
    return {
      open: () => storeOn(6379, 1000),
      outage: () => outageBehindProxy(6379, (port) => storeOn(port, 200)),
      slowLink: () => slowLinkBehindProxy(6379, (port) => ownStore(port, 200)),
      async teardown() {
        const admin = new Redis({ host: "127.0.0.1", port: 6379 });
        const keys = await admin.keys(`${namespace}*`);
        if (keys.length) await admin.del(...keys);
        admin.disconnect();
        for (const client of clients) client.disconnect();
      },
    };
  },
  { skip: !redisUp },
);

describeAcrossInstances([
  {
    name: "Redis",
    serverPort: 6379,
    up: () => serviceAvailable("Redis", 6379),
    store: ({ port = 6379, heartbeatMs = 200 } = {}) => {
      const options = { host: "127.0.0.1", port, maxRetriesPerRequest: 1, retryStrategy: () => 50 };
      const client = new Redis(options);
      const subscriber = new Redis(options);
      // The outage cases cut these connections on purpose: each reset is an expected `error`
      // event, and a client with no listener prints it as "Unhandled error event".
      for (const redis of [client, subscriber]) redis.on("error", () => {});
      closers.push(
        () => client.disconnect(),
        () => subscriber.disconnect(),
      );
      return RedisRevocationStore(client, subscriber, {
        prefix: `latchkey-test:${run}:revoked:`,
        channel: `latchkey-test:${run}:revocations`,
        heartbeatMs,
      });
    },
    cleanup: async () => {
      const redis = new Redis({ host: "127.0.0.1", port: 6379 });
      const keys = await redis.keys(`latchkey-test:${run}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  },
]);

describe("RedisRevocationStore", () => {
  it("subscribing while ioredis still checks the new connection does not lose the channel", async (t) => {
    if (!(await serviceAvailable("Redis", 6379))) return t.skip();
    const prefix = `latchkey-test:${run}:ready:`;
    const client = new Redis({ host: "127.0.0.1", port: 6379 });
    const subscriber = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: true });
    const errors: string[] = [];
    subscriber.on("error", (e) => errors.push(e.message));
    const store = RedisRevocationStore(client, subscriber, {
      prefix: `${prefix}revoked:`,
      channel: `${prefix}revocations`,
      heartbeatMs: 60_000,
    });
    const events: string[] = [];
    let arrived: () => void = () => {};
    const entryArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const listener: RevocationListener = {
      entry: (e) => {
        events.push(`entry ${e.id}`);
        arrived();
      },
      down: () => events.push("down"),
      up: () => events.push("up"),
    };
    try {
      // Subscribe exactly when the socket is connected and ioredis's ready check is still to come.
      const subscribed = new Promise<void>((resolve, reject) => {
        subscriber.once("connect", () => {
          expect(subscriber.status).toBe("connect");
          store.subscribe(listener).then(resolve, reject);
        });
      });
      await subscriber.connect();
      await subscribed;
      await store.add({ kind: "session", id: "s1", before: Date.now(), expiresAt: Date.now() + 60_000 });
      await entryArrived;
      expect(events).toEqual(["entry s1"]);
      expect(errors).toEqual([]);
    } finally {
      await store.close?.();
      const keys = await client.keys(`${prefix}*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
      subscriber.disconnect();
    }
  });
});
