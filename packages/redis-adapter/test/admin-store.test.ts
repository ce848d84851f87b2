/**
 * `RedisAdminStore` against the conformance suite every `AdminStore` runs: two instances, each on
 * its own connection to one Redis, under a fresh prefix; then a Redis that cannot be reached, where
 * a ban fails with the store's error and a sign-in is refused (never let through unchecked).
 */
import { randomBytes } from "node:crypto";
import { runAdminStoreConformance } from "@latchkey/adapter-test/admin-store";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { Auth, type AuthConfig } from "@latchkey/core";
import { Admin } from "@latchkey/core/admin";
import Credentials from "@latchkey/core/providers/credentials";
import { RedisAdminStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";

const redisUp = await serviceAvailable("Redis", 6379);

runAdminStoreConformance(
  "RedisAdminStore (Redis at 127.0.0.1:6379)",
  async () => {
    const prefix = `latchkey-admin-conformance:${randomBytes(4).toString("hex")}:`;
    const clients = [
      new Redis({ host: "127.0.0.1", port: 6379 }),
      new Redis({ host: "127.0.0.1", port: 6379 }),
    ] as const;
    return {
      stores: [RedisAdminStore(clients[0], { prefix }), RedisAdminStore(clients[1], { prefix })],
      async teardown() {
        const keys = await clients[0].keys(`${prefix}*`);
        if (keys.length) await clients[0].del(...keys);
        for (const client of clients) client.disconnect();
      },
    };
  },
  { skip: !redisUp },
);

describe("RedisAdminStore that cannot be reached", () => {
  it("rule: a ban fails with the store's error and changes nothing; a sign-in is refused, not let through unchecked", async () => {
    // A port nothing listens on, with no queue and no retries: each command fails at once.
    const dead = new Redis({
      host: "127.0.0.1",
      port: 1,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    dead.on("error", () => {});
    const errors: Error[] = [];
    const store = RedisAdminStore(dead);
    const config: AuthConfig = {
      secret: randomBytes(32).toString("base64url"),
      trustHost: true,
      session: { strategy: "jwt", revocation: true },
      admin: { store },
      rateLimit: false,
      logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
      providers: [
        Credentials({
          credentials: { username: {} },
          authorize: (c) => (c.username === "eve" ? { id: "eve", email: "eve@example.com" } : null),
        }),
      ],
    };
    try {
      const admin = Admin(config, { admins: { userIds: ["owner"] } });
      await expect(admin.ban("owner", "eve", { reason: "fraud" })).rejects.toThrow();
      const csrf = await Auth(new Request("http://localhost:3000/auth/csrf"), config);
      const cookie = csrf.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const response = await Auth(
        new Request("http://localhost:3000/auth/callback/credentials", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie },
          body: new URLSearchParams({ csrfToken, username: "eve" }),
        }),
        config,
      );
      expect(response.headers.get("location")).toMatch(/error=Configuration/);
      expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(false);
      expect(errors.some((e) => /admin store could not be read/.test(e.message))).toBe(true);
    } finally {
      dead.disconnect();
    }
  });
});
