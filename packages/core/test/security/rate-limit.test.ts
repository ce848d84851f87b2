import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MemoryRateLimitStore, type RateLimitStore, RedisRateLimitStore } from "../../src/rate-limit.js";
import { CookieJar, call, csrfToken, makeConfig, ORIGIN, recordingLogger } from "../helpers.js";

async function attempt(config: ReturnType<typeof makeConfig>, password: string, headers: Record<string, string> = {}) {
  const jar = new CookieJar();
  const token = await csrfToken(config, jar);
  return call(config, "/auth/callback/credentials", {
    jar,
    headers,
    form: { csrfToken: token, username: "ada", password },
  });
}

describe("credentials are rate limited per identifier (rule: 5 failures per 15 minutes)", () => {
  it("refuses even the right password after 5 failures, as a 429 with Retry-After for scripts", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    for (let i = 0; i < 5; i++) {
      expect((await attempt(config, "wrong")).headers.get("location")).toMatch(/error=CredentialsSignin/);
    }
    const limited = await attempt(config, "lovelace");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(limited.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false);
  });
  it("sends a browser's form post to the sign-in page with error=RateLimited", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    for (let i = 0; i < 5; i++) await attempt(config, "wrong");
    const limited = await attempt(config, "lovelace", { accept: "text/html,application/xhtml+xml" });
    expect(limited.status).toBe(302);
    expect(limited.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=RateLimited`);
  });
  it("does not count successful sign-ins", async () => {
    const config = makeConfig();
    for (let i = 0; i < 8; i++) expect((await attempt(config, "lovelace")).headers.get("location")).toBe(ORIGIN);
  });
  it("opens again when the window ends", async () => {
    vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
    try {
      const config = makeConfig({ logger: recordingLogger().logger });
      for (let i = 0; i < 5; i++) await attempt(config, "wrong");
      expect((await attempt(config, "lovelace")).status).toBe(429);
      vi.setSystemTime(Date.now() + 15 * 60_000 + 1000);
      expect((await attempt(config, "lovelace")).headers.get("location")).toBe(ORIGIN);
    } finally {
      vi.useRealTimers();
    }
  });
  it("can be configured and turned off", async () => {
    const strict = makeConfig({
      rateLimit: { credentialsPerIdentifier: { max: 1, windowSeconds: 60 } },
      logger: recordingLogger().logger,
    });
    await attempt(strict, "wrong");
    expect((await attempt(strict, "lovelace")).status).toBe(429);
    const off = makeConfig({ rateLimit: false, logger: recordingLogger().logger });
    for (let i = 0; i < 7; i++) await attempt(off, "wrong");
    expect((await attempt(off, "lovelace")).headers.get("location")).toBe(ORIGIN);
  });
  it("lets attempts through, and logs, when the store fails", async () => {
    const broken: RateLimitStore = {
      increment: () => Promise.reject(new Error("store down")),
      get: () => Promise.reject(new Error("store down")),
    };
    const { logger, errors } = recordingLogger();
    const config = makeConfig({ rateLimit: { store: broken }, logger });
    expect((await attempt(config, "lovelace")).headers.get("location")).toBe(ORIGIN);
    expect(errors.some((e) => /rate-limit store failed/.test(e.message))).toBe(true);
  });
});

describe("MemoryRateLimitStore", () => {
  it("counts in fixed windows and keeps at most maxKeys entries", async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 2 });
    expect((await store.increment("a", 1000)).count).toBe(1);
    expect((await store.increment("a", 1000)).count).toBe(2);
    await store.increment("b", 1000);
    await store.increment("c", 1000);
    expect(await store.get("a")).toBeNull();
    expect((await store.get("c"))?.count).toBe(1);
  });
});

const redis = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
let redisUp = false;
beforeAll(async () => {
  try {
    await redis.connect();
    redisUp = true;
  } catch {
    if (process.env.CI) throw new Error("Redis on 127.0.0.1:6379 is required in CI");
    console.warn("[skip] Redis is not reachable on 127.0.0.1:6379: the Redis rate-limit tests are skipped");
  }
});
afterAll(async () => {
  if (redisUp) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  }
  redis.disconnect();
});
const prefix = `latchkey-test:rl:${process.pid}:${Date.now()}:`;

describe("RedisRateLimitStore", () => {
  it("is atomic: 50 concurrent increments from two instances count 1..50, with one expiry", async (t) => {
    if (!redisUp) return t.skip();
    const a = RedisRateLimitStore(redis, { prefix });
    const b = RedisRateLimitStore(redis, { prefix });
    const hits = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).increment("k", 60_000)));
    expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const ttl = await redis.pttl(`${prefix}k`);
    expect(ttl).toBeGreaterThan(50_000);
    expect((await a.get("k"))?.count).toBe(50);
    expect(await a.get("missing")).toBeNull();
  });
  it("limits sign-ins across two application instances sharing Redis", async (t) => {
    if (!redisUp) return t.skip();
    const store = () => RedisRateLimitStore(redis, { prefix: `${prefix}app:` });
    const one = makeConfig({ rateLimit: { store: store() }, logger: recordingLogger().logger });
    const two = makeConfig({ rateLimit: { store: store() }, logger: recordingLogger().logger });
    for (let i = 0; i < 5; i++) await attempt(i % 2 ? one : two, "wrong");
    expect((await attempt(one, "lovelace")).status).toBe(429);
    expect((await attempt(two, "lovelace")).status).toBe(429);
  });
});
