import { randomUUID } from "node:crypto";
import { type RecordKind, runAdapterConformance } from "@latchkey/adapter-test";
import { auditStoreOf, runAuditStoreConformance } from "@latchkey/adapter-test/audit-store";
import { downRedisOptions, serviceAvailable } from "@latchkey/adapter-test/services";
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

runAuditStoreConformance(
  "RedisAdapter, auditMaxLength 200 (Redis at 127.0.0.1:6379)",
  async () => {
    const client = new Redis(url);
    const prefix = `conform_audit:${randomUUID()}:`;
    return {
      store: auditStoreOf(RedisAdapter(client, { prefix, auditMaxLength: 200 })),
      // MAXLEN ~ trims whole macro nodes (100 entries each by default).
      anonymousBound: { max: 200, slack: 100 },
      async unreachable() {
        const down = new Redis(await downRedisOptions());
        down.on("error", () => {});
        return { store: auditStoreOf(RedisAdapter(down, { prefix })), close: async () => down.disconnect() };
      },
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

  it("keeps the anonymous audit stream bounded: every XADD of a failure trims it to about auditMaxLength, entries keyed by the event's time; failures never trim an account's events", async () => {
    const adapter = RedisAdapter(client, { prefix, auditMaxLength: 100 });
    const start = Date.now() - 10_000;
    await adapter.createAuditEvent?.({ type: "signin.succeeded", at: new Date(start - 1), userId: "u-flood" });
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        adapter.createAuditEvent?.({ type: "signin.failed", at: new Date(start + i), reason: "missing-csrf" }),
      ),
    );
    const length = await client.xlen(key.auditFailures());
    // MAXLEN ~ trims whole macro nodes (100 entries each by default): between the bound and one node more.
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThanOrEqual(200);
    const [[newest]] = (await client.xrevrange(key.auditFailures(), "+", "-", "COUNT", 1)) as [[string, string[]]];
    expect(Number(newest.split("-")[0])).toBe(start + 999);
    expect(await client.xlen(key.auditEvents())).toBe(1);
    // Listed together, newest first across both streams.
    const listed = await adapter.listAuditEvents?.({ limit: 1000 });
    expect(listed?.[0]).toMatchObject({ type: "signin.failed", at: new Date(start + 999) });
    expect(listed?.at(-1)).toMatchObject({ type: "signin.succeeded", userId: "u-flood" });
    expect(listed).toHaveLength(length + 1);
    expect(() => RedisAdapter(client, { prefix, auditMaxLength: 0 })).toThrow(TypeError);
  });

  it("rule: no write trims the account events by count: 300 locked-out records and 300 sign-ins of other users past auditMaxLength 100 leave the first user's events", async () => {
    const streams = redisKeys(`${prefix}accounts:`);
    const adapter = RedisAdapter(client, { prefix: `${prefix}accounts:`, auditMaxLength: 100 });
    const start = Date.now() - 10_000;
    await adapter.createAuditEvent?.({ type: "signin.succeeded", at: new Date(start - 2), userId: "u-victim" });
    await adapter.createAuditEvent?.({ type: "password.changed", at: new Date(start - 1), userId: "u-victim" });
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        adapter.createAuditEvent?.({
          type: "signin.locked-out",
          at: new Date(start + i),
          reason: "credentialsPerIdentifier",
          identifier: `made-up-${i}`,
        }),
      ),
    );
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        adapter.createAuditEvent?.({ type: "signin.succeeded", at: new Date(start + i), userId: `u-loop-${i % 3}` }),
      ),
    );
    expect(await client.xlen(streams.auditFailures())).toBeLessThanOrEqual(200);
    expect(await client.xlen(streams.auditEvents())).toBe(302);
    expect(await adapter.listAuditEvents?.({ userId: "u-victim" })).toMatchObject([
      { type: "password.changed" },
      { type: "signin.succeeded" },
    ]);
  });

  it("keeps prefixes apart", async () => {
    const otherPrefix = `${prefix}other:`;
    await RedisAdapter(client, { prefix }).createUser?.({ id: "u3", email: "u3@example.com", emailVerified: null });
    expect(await RedisAdapter(client, { prefix: otherPrefix }).getUser?.("u3")).toBeNull();
    expect(await RedisAdapter(client, { prefix: otherPrefix }).getUserByEmail?.("u3@example.com")).toBeNull();
  });
});

describe.skipIf(!redisUp)("RedisAdapter races: a write never undoes a concurrent delete", () => {
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

  /**
   * The real client, except that the first read of `target` runs `between` (another request's
   * delete) after Redis answered and before the adapter sees the answer: the widest race window,
   * every time instead of 6 times in 100.
   */
  function interleaved(target: string, between: () => Promise<unknown>): Parameters<typeof RedisAdapter>[0] {
    let fired = false;
    return {
      get: async (name) => {
        const value = await client.get(name);
        if (name === target && !fired) {
          fired = true;
          await between();
        }
        return value;
      },
      getdel: (name) => client.getdel(name),
      smembers: (name) => client.smembers(name),
      set: (name, value, nx) => client.set(name, value, nx),
      multi: () => client.multi(),
      eval: (script, numkeys, ...args) => client.eval(script, numkeys, ...args),
    };
  }

  it("updateSession after a sign-out's delete read the session: the session stays deleted", async () => {
    const plain = RedisAdapter(client, { prefix });
    await plain.createUser?.({ id: "u-race", email: "race@example.com", emailVerified: null });
    await plain.createSession?.({ sessionToken: "s-race", userId: "u-race", expires: new Date(Date.now() + 60_000) });
    const racing = RedisAdapter(
      interleaved(key.session("s-race"), () => plain.deleteSession?.("s-race") as Promise<unknown>),
      { prefix },
    );
    expect(
      await racing.updateSession?.({ sessionToken: "s-race", expires: new Date(Date.now() + 3_600_000) }),
    ).toBeNull();
    expect(await client.exists(key.session("s-race"))).toBe(0);
    expect(await client.smembers(key.userSessions("u-race"))).toEqual([]);
  });

  it("100 rounds of updateSession racing deleteSession: no deleted session comes back (PTTL -2)", async () => {
    const adapter = RedisAdapter(client, { prefix });
    for (let round = 0; round < 100; round++) {
      const sessionToken = `round-${round}-${randomUUID()}`;
      await adapter.createSession?.({ sessionToken, userId: "u-rounds", expires: new Date(Date.now() + 60_000) });
      await Promise.all([
        adapter.updateSession?.({ sessionToken, expires: new Date(Date.now() + 3_600_000) }),
        adapter.deleteSession?.(sessionToken),
      ]);
      expect(await client.pttl(key.session(sessionToken))).toBe(-2);
    }
    expect(await client.smembers(key.userSessions("u-rounds"))).toEqual([]);
  });

  it("updateUser after deleteUser read the user: no user and no e-mail index entry come back", async () => {
    const plain = RedisAdapter(client, { prefix });
    await plain.createUser?.({ id: "u-del", email: "del@example.com", emailVerified: null });
    const racing = RedisAdapter(
      interleaved(key.user("u-del"), () => plain.deleteUser?.("u-del") as Promise<unknown>),
      { prefix },
    );
    await expect(racing.updateUser?.({ id: "u-del", email: "moved@example.com" })).rejects.toThrow(/no user/);
    for (const name of [key.user("u-del"), key.userByEmail("del@example.com"), key.userByEmail("moved@example.com")]) {
      expect(await client.exists(name)).toBe(0);
    }
  });

  it("deleteUser after updateUser moved the address: the new e-mail index entry goes too", async () => {
    const plain = RedisAdapter(client, { prefix });
    await plain.createUser?.({ id: "u-move", email: "before@example.com", emailVerified: null });
    const racing = RedisAdapter(
      interleaved(
        key.user("u-move"),
        () => plain.updateUser?.({ id: "u-move", email: "after@example.com" }) as Promise<unknown>,
      ),
      { prefix },
    );
    expect((await racing.deleteUser?.("u-move"))?.email).toBe("after@example.com");
    for (const name of [
      key.user("u-move"),
      key.userByEmail("before@example.com"),
      key.userByEmail("after@example.com"),
    ]) {
      expect(await client.exists(name)).toBe(0);
    }
  });

  it("updateUser never takes an address another user claimed meanwhile", async () => {
    const plain = RedisAdapter(client, { prefix });
    await plain.createUser?.({ id: "u-slow", email: "slow@example.com", emailVerified: null });
    const racing = RedisAdapter(
      interleaved(
        key.user("u-slow"),
        () =>
          plain.createUser?.({ id: "u-fast", email: "wanted@example.com", emailVerified: null }) as Promise<unknown>,
      ),
      { prefix },
    );
    await expect(racing.updateUser?.({ id: "u-slow", email: "wanted@example.com" })).rejects.toThrow(/already exists/);
    expect(await client.get(key.userByEmail("wanted@example.com"))).toBe("u-fast");
    expect((await plain.getUser?.("u-slow"))?.email).toBe("slow@example.com");
    expect(await client.get(key.userByEmail("slow@example.com"))).toBe("u-slow");
  });

  it("updateAuthenticatorCounter after deleteUser read the authenticator: it stays deleted", async () => {
    const plain = RedisAdapter(client, { prefix });
    await plain.createUser?.({ id: "u-key", email: "key@example.com", emailVerified: null });
    const authenticator = {
      credentialID: "cred-race",
      userId: "u-key",
      providerAccountId: "cred-race",
      credentialPublicKey: "pQECAyYgASFYIDx2",
      counter: 1,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
      transports: null,
    };
    await plain.createAuthenticator?.(authenticator);
    const racing = RedisAdapter(
      interleaved(key.authenticator("cred-race"), () => plain.deleteUser?.("u-key") as Promise<unknown>),
      { prefix },
    );
    await expect(racing.updateAuthenticatorCounter?.("cred-race", 2)).rejects.toThrow(/no authenticator/);
    expect(await client.exists(key.authenticator("cred-race"))).toBe(0);
  });

  it("a later counter update wins over the value read before it, not the other way round", async () => {
    const plain = RedisAdapter(client, { prefix });
    await plain.createAuthenticator?.({
      credentialID: "cred-order",
      userId: "u-order",
      providerAccountId: "cred-order",
      credentialPublicKey: "pQECAyYgASFYIDx2",
      counter: 1,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
      transports: null,
    });
    const racing = RedisAdapter(
      interleaved(
        key.authenticator("cred-order"),
        () => plain.updateAuthenticatorCounter?.("cred-order", 7) as Promise<unknown>,
      ),
      { prefix },
    );
    // The racing call read counter 1, then lost the compare-and-set to the write of 7: it read
    // again and wrote its own value over 7, with every other field as stored.
    expect((await racing.updateAuthenticatorCounter?.("cred-order", 8))?.counter).toBe(8);
    expect(JSON.parse((await client.get(key.authenticator("cred-order"))) ?? "{}").counter).toBe(8);
  });
});

describe.skipIf(!redisUp)("RedisAdapter storage stays bounded by what is live", () => {
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

  it("expired verification tokens are gone from Redis itself, without a read", async () => {
    const adapter = RedisAdapter(client, { prefix });
    const tokens = Array.from({ length: 200 }, (_, i) => ({
      identifier: "webauthn-challenge:passkey",
      token: `expired-${i}`,
      expires: new Date(Date.now() - 1 - i),
    }));
    for (const token of tokens) await adapter.createVerificationToken?.(token);
    expect(await keysUnder(client, key.verificationToken("webauthn-challenge:passkey", ""))).toEqual([]);
  });

  it("a sign-in drops the tokens of the user's expired and deleted sessions from the user's set", async () => {
    const adapter = RedisAdapter(client, { prefix });
    const expired = Array.from({ length: 30 }, (_, i) => `expired-${i}`);
    for (const sessionToken of expired) {
      await adapter.createSession?.({ sessionToken, userId: "u-prune", expires: new Date(Date.now() - 1) });
    }
    await adapter.createSession?.({
      sessionToken: "signed-out",
      userId: "u-prune",
      expires: new Date(Date.now() + 60_000),
    });
    await client.del(key.session("signed-out")); // as if gone by some other way than deleteSession
    await adapter.createSession?.({ sessionToken: "live", userId: "u-prune", expires: new Date(Date.now() + 60_000) });
    expect(await client.smembers(key.userSessions("u-prune"))).toEqual(["live"]);
  });
});

describe.skipIf(!redisUp)("RedisAdapter second factor (TOTP): each time step and backup code used once", () => {
  const prefix = `latchkey-test:${randomUUID()}:`;
  const key = redisKeys(prefix);
  // Several connections, so the concurrent calls below really are apart until Redis orders them.
  let clients: Redis[];
  const adapters = () => clients.map((client) => RedisAdapter(client, { prefix }));
  beforeAll(() => {
    clients = Array.from({ length: 4 }, () => new Redis(url));
  });
  afterAll(async () => {
    await removeKeysUnder(clients[0] as Redis, prefix);
    await Promise.all(clients.map((client) => client.quit()));
  });

  it("stores the record and the backup-code hashes, and reports how many codes are left", async () => {
    const [adapter] = adapters() as [ReturnType<typeof RedisAdapter>];
    const userId = `u-${randomUUID()}`;
    expect(await adapter.getSecondFactor?.(userId)).toBeNull();
    const step = Math.floor(Date.now() / 30_000); // a real step: exact through Lua and cjson
    await adapter.setSecondFactor?.({ userId, secret: "sealed", active: true, lastStep: step }, ["h1", "h2", "h3"]);
    expect(await adapter.getSecondFactor?.(userId)).toEqual({
      userId,
      secret: "sealed",
      active: true,
      lastStep: step,
      backupCodesLeft: 3,
      generation: 0,
    });
    expect((await clients[0]?.smembers(key.backupCodes(userId)))?.sort()).toEqual(["h1", "h2", "h3"]);
    // Without codes the stored ones stay; with a list they are replaced.
    await adapter.setSecondFactor?.({ userId, secret: "sealed-2", active: true, lastStep: step });
    expect(await adapter.getSecondFactor?.(userId)).toMatchObject({ secret: "sealed-2", backupCodesLeft: 3 });
    await adapter.setSecondFactor?.({ userId, secret: "sealed-2", active: true, lastStep: step }, ["h4"]);
    expect(await adapter.useBackupCode?.(userId, "h1")).toBe(false);
    expect(await adapter.getSecondFactor?.(userId)).toMatchObject({ backupCodesLeft: 1 });
    expect(await adapter.useSecondFactorStep?.(userId, step, step + 1)).toBe(true);
    expect(await adapter.getSecondFactor?.(userId)).toMatchObject({ lastStep: step + 1, secret: "sealed-2" });

    await adapter.deleteSecondFactor?.(userId);
    expect(await adapter.getSecondFactor?.(userId)).toBeNull();
    expect(
      await clients[0]?.exists(key.secondFactor(userId), key.backupCodes(userId), key.secondFactorGeneration(userId)),
    ).toBe(0);
    expect(await adapter.useSecondFactorStep?.(userId, step + 1, step + 2)).toBe(false);
    expect(await adapter.useBackupCode?.(userId, "h4")).toBe(false);
  });

  it("rule: 40 concurrent ends of pending sign-ins count 40, leave the time step, and survive a rewrite of the record", async () => {
    const all = adapters();
    const userId = `u-${randomUUID()}`;
    await all[0]?.endSecondFactorSignIns?.(userId);
    expect(await clients[0]?.exists(key.secondFactorGeneration(userId))).toBe(0);
    await all[0]?.setSecondFactor?.({ userId, secret: "sealed", active: true, lastStep: 100 }, []);
    await Promise.all(Array.from({ length: 40 }, (_, i) => all[i % all.length]?.endSecondFactorSignIns?.(userId)));
    expect(await all[0]?.getSecondFactor?.(userId)).toMatchObject({ lastStep: 100, generation: 40 });
    await all[1]?.setSecondFactor?.({ userId, secret: "resealed", active: true, lastStep: 101 });
    expect(await all[0]?.getSecondFactor?.(userId)).toMatchObject({ lastStep: 101, generation: 40 });
    await all[0]?.deleteSecondFactor?.(userId);
  });

  it("moves the time step once under 40 concurrent compare-and-sets, to the winner's value", async () => {
    const all = adapters();
    const userId = `u-${randomUUID()}`;
    await all[0]?.setSecondFactor?.({ userId, secret: "sealed", active: true, lastStep: 100 }, []);
    // Forty callers that all read step 100, each moving it to a different next step.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => all[i % all.length]?.useSecondFactorStep?.(userId, 100, 101 + i)),
    );
    expect(results.filter((won) => won === true)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect((await all[0]?.getSecondFactor?.(userId))?.lastStep).toBe(101 + winner);
    // A stale expected value never wins afterwards.
    expect(await all[1]?.useSecondFactorStep?.(userId, 100, 200)).toBe(false);
  });

  it("spends one backup code once under 40 concurrent uses, leaving the others", async () => {
    const all = adapters();
    const userId = `u-${randomUUID()}`;
    await all[0]?.setSecondFactor?.({ userId, secret: "sealed", active: true, lastStep: 7 }, ["c1", "c2"]);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => all[i % all.length]?.useBackupCode?.(userId, "c1")),
    );
    expect(results.filter((won) => won === true)).toHaveLength(1);
    expect(await clients[0]?.smembers(key.backupCodes(userId))).toEqual(["c2"]);
    expect(await all[2]?.getSecondFactor?.(userId)).toMatchObject({ backupCodesLeft: 1, lastStep: 7 });
  });

  it("refuses the time step of an enrolment not yet confirmed", async () => {
    const [adapter] = adapters() as [ReturnType<typeof RedisAdapter>];
    const userId = `u-${randomUUID()}`;
    await adapter.setSecondFactor?.({ userId, secret: "sealed", active: false, lastStep: 0 }, []);
    expect(await adapter.useSecondFactorStep?.(userId, 0, 1)).toBe(false);
    expect(await adapter.getSecondFactor?.(userId)).toEqual({
      userId,
      secret: "sealed",
      active: false,
      lastStep: 0,
      backupCodesLeft: 0,
      generation: 0,
    });
  });

  it("deletes the second factor and its codes with the user", async () => {
    const [adapter] = adapters() as [ReturnType<typeof RedisAdapter>];
    const userId = `u-${randomUUID()}`;
    await adapter.createUser?.({ id: userId, email: `${userId}@example.com`, emailVerified: null });
    await adapter.setSecondFactor?.({ userId, secret: "sealed", active: true, lastStep: 5 }, ["d1"]);
    await adapter.deleteUser?.(userId);
    expect(
      await clients[0]?.exists(key.secondFactor(userId), key.backupCodes(userId), key.secondFactorGeneration(userId)),
    ).toBe(0);
  });
});
