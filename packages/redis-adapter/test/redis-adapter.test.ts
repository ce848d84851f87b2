import { randomUUID } from "node:crypto";
import { type RecordKind, runAdapterConformance } from "@latchkey/adapter-test";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { RedisAdapter, redisKeys } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const redisUp = await serviceAvailable("Redis", 6379);
const url = "redis://127.0.0.1:6379";

async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  const escaped = prefix.replace(/[*?[\]\\]/g, "\\$&");
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${escaped}*`, "COUNT", 500);
    found.push(...keys);
    cursor = next;
  } while (cursor !== "0");
  return found;
}

async function removeKeysUnder(client: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  if (keys.length > 0) await client.del(...keys);
}

function probe(client: Redis, prefix: string) {
  const key = redisKeys(prefix);
  return {
    async exists(kind: RecordKind, ...parts: string[]) {
      const [a = "", b = ""] = parts;
      const name = {
        user: () => key.user(a),
        account: () => key.account(a, b),
        session: () => key.session(a),
        verificationToken: () => key.verificationToken(a, b),
        authenticator: () => key.authenticator(a),
      }[kind]();
      return (await client.exists(name)) === 1;
    },
    async recordsOf(userId: string) {
      const sets = [key.userSessions(userId), key.userAccounts(userId), key.userAuthenticators(userId)];
      let count = 0;
      for (const name of await keysUnder(client, prefix)) {
        if (name === key.user(userId) || sets.includes(name)) {
          count++;
          continue;
        }
        if ((await client.type(name)) !== "string") continue;
        const value = (await client.get(name)) ?? "";
        if (value === userId)
          count++; // an e-mail index entry
        else if (value.startsWith("{") && (JSON.parse(value) as { userId?: string }).userId === userId) count++;
      }
      return count;
    },
  };
}

runAdapterConformance(
  "RedisAdapter (Redis at 127.0.0.1:6379)",
  async () => {
    const client = new Redis(url);
    const prefix = `latchkey-test:${randomUUID()}:`;
    return {
      adapter: RedisAdapter(client, { prefix }),
      db: probe(client, prefix),
      teardown: async () => {
        await removeKeysUnder(client, prefix);
        await client.quit();
      },
    };
  },
  { skip: !redisUp },
);

describe.skipIf(!redisUp)("RedisAdapter storage", () => {
  const prefix = `latchkey-test:${randomUUID()}:`;
  const key = redisKeys(prefix);
  let client: Redis;
  beforeAll(() => {
    client = new Redis(url);
  });
  afterAll(async () => {
    await removeKeysUnder(client, prefix);
    await client.quit();
  });

  it("gives sessions and verification tokens a TTL that ends at their expires", async () => {
    const adapter = RedisAdapter(client, { prefix });
    const expires = new Date(Date.now() + 60_000);
    await adapter.createSession?.({ sessionToken: "s1", userId: "u1", expires });
    await adapter.createVerificationToken?.({ identifier: "a@example.com", token: "t1", expires });
    for (const name of [key.session("s1"), key.verificationToken("a@example.com", "t1")]) {
      const ttl = await client.pttl(name);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    const later = new Date(Date.now() + 3_600_000);
    await adapter.updateSession?.({ sessionToken: "s1", expires: later });
    expect(await client.pttl(key.session("s1"))).toBeGreaterThan(3_500_000);
  });

  it("stores users, accounts and authenticators without a TTL", async () => {
    const adapter = RedisAdapter(client, { prefix });
    await adapter.createUser?.({ id: "u2", email: "u2@example.com", emailVerified: null });
    await adapter.linkAccount?.({ userId: "u2", type: "oauth", provider: "acme", providerAccountId: "p2" });
    for (const name of [key.user("u2"), key.userByEmail("u2@example.com"), key.account("acme", "p2")]) {
      expect(await client.pttl(name)).toBe(-1);
    }
    expect(await client.smembers(key.userAccounts("u2"))).toEqual([key.account("acme", "p2")]);
  });

  it("keeps prefixes apart", async () => {
    const otherPrefix = `${prefix}other:`;
    await RedisAdapter(client, { prefix }).createUser?.({ id: "u3", email: "u3@example.com", emailVerified: null });
    expect(await RedisAdapter(client, { prefix: otherPrefix }).getUser?.("u3")).toBeNull();
    expect(await RedisAdapter(client, { prefix: otherPrefix }).getUserByEmail?.("u3@example.com")).toBeNull();
  });
});
