/**
 * Attacks on the audit trail from outside, over Express on every store that keeps it (memory,
 * PostgreSQL, MariaDB, Redis): an attacker who tries to keep their guesses out of the trail, and
 * an operator who looks a victim up the way the application knows them.
 */

import { randomBytes } from "node:crypto";
import type { Adapter } from "@latchkey/core/adapters";
import { recordPasswordChange } from "@latchkey/core/audit";
import { MEMORY_AUDIT_LIMIT, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { type AuthConfig, ExpressAuth, listAuditEvents } from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import { RedisAdapter } from "@latchkey/redis-adapter";
import express from "express";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { Jar, listen } from "./helpers.js";
import { type Backend, backends } from "./stores.js";

/** Every client of a test is its own address, so one test's per-client budgets never touch another's. */
function address(): string {
  return `10.${[...randomBytes(3)].join(".")}`;
}

/**
 * The application under attack, storing its audit trail in `adapter`: one credentials provider
 * whose only account is `owner` with the password `right horse battery`.
 */
async function start(adapter: Adapter, extra: Partial<AuthConfig> = {}) {
  // Two accounts: `owner`, and `mallory` (an attacker with an account of their own).
  const passwords: Record<string, string> = { owner: "right horse battery", mallory: "mallory's own" };
  const config: AuthConfig = {
    // An application of its own (Latchkey keeps limits and audit counters per application).
    secret: `audit-attacks-${randomBytes(16).toString("hex")}`,
    trustHost: true,
    adapter,
    audit: { store: true },
    session: { strategy: "jwt" },
    logger: { error() {}, warn() {}, debug() {} },
    providers: [
      Credentials({
        credentials: { login: {}, password: {} },
        authorize: async ({ login, password }) =>
          typeof login === "string" && Object.hasOwn(passwords, login) && password === passwords[login]
            ? { id: `user-${login}`, name: login }
            : null,
      }),
    ],
    ...extra,
  };
  const application = express();
  // The tests play many clients through X-Forwarded-For, which Express trusts from loopback only.
  application.set("trust proxy", "loopback");
  application.use("/auth", ExpressAuth(config));
  const { url, close } = await listen(application);

  /** A sign-in of `login` with `password` from `from`, as a browser posts it (with its CSRF token). */
  async function guess(from: string, login: string, password: string): Promise<number> {
    const jar = new Jar();
    const headers = { "x-forwarded-for": from };
    const { csrfToken } = (await (await jar.fetch(`${url}/auth/csrf`, { headers })).json()) as { csrfToken: string };
    const response = await jar.fetch(`${url}/auth/callback/credentials`, {
      headers,
      form: { csrfToken, login, password },
    });
    return response.status;
  }

  /** `count` posts without a CSRF token from `from`, 25 at a time: failures nobody rate-limits. */
  async function flood(from: string, count: number): Promise<void> {
    for (let sent = 0; sent < count; sent += 25) {
      const statuses = await Promise.all(
        Array.from({ length: Math.min(25, count - sent) }, () =>
          fetch(`${url}/auth/callback/credentials`, {
            method: "POST",
            redirect: "manual",
            headers: { "x-forwarded-for": from, "content-type": "application/x-www-form-urlencoded" },
            body: "login=x&password=y",
          }).then((r) => r.status),
        ),
      );
      expect(statuses.every((s) => s === 302)).toBe(true);
    }
  }
  return { config, guess, flood, close };
}

describe.each(await backends("auditattack", ["memory", "postgres", "mariadb", "redis"]))(
  "audit trail attacks over Express with %s",
  (_name, up, open) => {
    let backend: Backend;
    let app: Awaited<ReturnType<typeof start>>;
    let config: AuthConfig;
    let guess: (from: string, login: string, password: string) => Promise<number>;

    beforeAll(async () => {
      if (!up) return;
      backend = await open();
      app = await start(backend.adapter);
      ({ config, guess } = app);
    });

    afterAll(async () => {
      await app?.close();
      await backend?.close();
    });

    it("a flood of cheap failures from a client never hides the password guesses it makes next", async (t) => {
      if (!up) return t.skip();
      const from = address();
      // 250 posts without a CSRF token: nobody rate-limits them, and each is a failure to record.
      await app.flood(from, 250);
      // Then the real attack: one password against each of three accounts (a spray, under every limit).
      const victims = ["ada", "grace", "linus"].map((name) => `${name}-${randomBytes(3).toString("hex")}`);
      for (const victim of victims) expect(await guess(from, victim, "Summer2026!")).toBe(302);
      for (const victim of victims) {
        const stored = await listAuditEvents(config, { identifier: victim });
        expect(stored, `the guess at ${victim}`).toMatchObject([
          { type: "signin.failed", reason: "wrong-credentials", identifier: victim, clientAddress: from },
        ]);
      }
    });

    it("the operator finds a victim's failures by the identifier as the application knows it", async (t) => {
      if (!up) return t.skip();
      const tag = randomBytes(3).toString("hex");
      // The attacker types the address in any case and width; the application stores it as the user gave it.
      expect(await guess(address(), ` ＡＤＡ.${tag}@Example.COM `, "guess")).toBe(302);
      const asTheApplicationKnowsIt = `Ada.${tag}@example.com`;
      expect(await listAuditEvents(config, { identifier: asTheApplicationKnowsIt })).toMatchObject([
        { type: "signin.failed", identifier: `ada.${tag}@example.com` },
      ]);
      // A value the trail escaped when recording is found by the value itself, and never fails the lookup.
      expect(await guess(address(), `nul\u0000${tag}`, "guess")).toBe(302);
      expect(await listAuditEvents(config, { identifier: `nul\u0000${tag}` })).toMatchObject([
        { type: "signin.failed", identifier: `nul\\u0000${tag}` },
      ]);
      await expect(listAuditEvents(config, { userId: `user\u0000${tag}` })).resolves.toEqual([]);
    });
  },
);

/** The stores that keep a bounded number of events, each with its bound. */
const bounded: Array<[string, boolean, number, () => { adapter: Adapter; close(): Promise<void> }]> = [
  ["MemoryAdapter", true, MEMORY_AUDIT_LIMIT, () => ({ adapter: MemoryAdapter(), close: async () => {} })],
  [
    "RedisAdapter (auditMaxLength 200)",
    await serviceAvailable("RedisAdapter", 6379),
    200,
    () => {
      const prefix = `latchkey-auditattack-test:${randomBytes(6).toString("hex")}:`;
      const client = new Redis({ host: "127.0.0.1", port: 6379 });
      return {
        adapter: RedisAdapter(client, { prefix, auditMaxLength: 200 }),
        async close() {
          const keys = await client.keys(`${prefix}*`);
          if (keys.length) await client.del(...keys);
          client.disconnect();
        },
      };
    },
  ],
];

describe.each(bounded)("a bounded audit store under a flood: %s", (_name, up, bound, open) => {
  // The flood is 1.2 times the store's bound in HTTP requests (12,000 for the memory store): the
  // test's time budget grows with that work (5 ms a request) and with the machine's load.
  const timeout = Math.max(30_000, bound * 1.2 * 5) * inject("timeScale");
  it("anonymous failures from many addresses never push out what happened to an account", { timeout }, async (t) => {
    if (!up) return t.skip();
    const store = open();
    const app = await start(store.adapter);
    try {
      // The owner signs in; then a botnet floods the trail with free failures, 200 per address.
      expect(await app.guess(address(), "owner", "right horse battery")).toBe(302);
      const addresses = Math.ceil((bound * 1.2) / 200);
      for (let i = 0; i < addresses; i += 10) {
        await Promise.all(Array.from({ length: Math.min(10, addresses - i) }, () => app.flood(address(), 200)));
      }
      expect((await listAuditEvents(app.config, { type: "signin.failed", limit: 1000 })).length).toBeGreaterThan(0);
      expect(await listAuditEvents(app.config, { userId: "user-owner" })).toMatchObject([
        { type: "signin.succeeded", userId: "user-owner", identifier: "owner" },
      ]);
    } finally {
      await app.close();
      await store.close();
    }
  });
});

/**
 * The stores, each where a bound would show: memory, PostgreSQL, and Redis with its anonymous
 * stream bounded at 50 (`MAXLEN ~` drops whole nodes of 100 entries once a stream holds 150: a
 * flood of 175 records into a trimmed stream would take its oldest entries with it).
 */
const floodable: Array<[string, boolean, () => Promise<{ adapter: Adapter; close(): Promise<void> }>]> = [
  ...(await backends("auditflood", ["memory", "postgres"])),
  [
    "RedisAdapter (auditMaxLength 50)",
    await serviceAvailable("RedisAdapter", 6379),
    async () => {
      const prefix = `latchkey-auditflood-test:${randomBytes(6).toString("hex")}:`;
      const client = new Redis({ host: "127.0.0.1", port: 6379 });
      return {
        adapter: RedisAdapter(client, { prefix, auditMaxLength: 50 }),
        async close() {
          const keys = await client.keys(`${prefix}*`);
          if (keys.length) await client.del(...keys);
          client.disconnect();
        },
      };
    },
  ],
];

describe.each(floodable)(
  "rule: no flood, anonymous or a user's own, evicts another's audit records, with %s",
  (_name, up, open) => {
    // Attacker review (round 3): signin.locked-out records for made-up identifiers went to Redis's
    // main stream, which each write trims, so an anonymous flood pushed real users' records out.
    it("175 made-up identifiers locked out from fresh addresses leave the owner's records in place", async (t) => {
      if (!up) return t.skip();
      const store = await open();
      // One failure per identifier across all clients locks it: each made-up identifier costs two requests.
      const app = await start(store.adapter, {
        rateLimit: {
          credentialsPerIdentifierAndIp: { max: 1, windowSeconds: 900 },
          credentialsPerIdentifier: { max: 1, windowSeconds: 900 },
        },
      });
      try {
        expect(await app.guess(address(), "owner", "right horse battery")).toBe(302);
        const owner = await listAuditEvents(app.config, { userId: "user-owner" });
        expect(owner).toMatchObject([{ type: "signin.succeeded", userId: "user-owner" }]);
        for (let i = 0; i < 175; i += 25) {
          await Promise.all(
            Array.from({ length: 25 }, async (_, j) => {
              const ghost = `ghost-${i + j}-${randomBytes(3).toString("hex")}@example.com`;
              expect(await app.guess(address(), ghost, "guess")).toBe(302);
              // From another address: the identifier's limit across all clients refuses it (locked out).
              expect(await app.guess(address(), ghost, "guess")).toBe(429);
            }),
          );
        }
        const lockedOut = await listAuditEvents(app.config, { type: "signin.locked-out", limit: 1000 });
        expect(lockedOut.length).toBeGreaterThan(0);
        expect(lockedOut.every((e) => (e.identifier ?? "").startsWith("ghost-"))).toBe(true);
        expect(await listAuditEvents(app.config, { userId: "user-owner" })).toEqual(owner);
      } finally {
        await app.close();
        await store.close();
      }
    }, 120_000);

    it("a user signing in to their own account 250 times leaves the owner's records, and is recorded at most recordsPerUser times", async (t) => {
      if (!up) return t.skip();
      const store = await open();
      const app = await start(store.adapter, {
        // Mallory's own address may sign in as often as she likes: only the audit bound is at play.
        rateLimit: { credentialsPerIp: { max: 10_000, windowSeconds: 900 } },
      });
      try {
        expect(await app.guess(address(), "owner", "right horse battery")).toBe(302);
        const owner = await listAuditEvents(app.config, { userId: "user-owner" });
        const from = address();
        for (let i = 0; i < 250; i += 25) {
          const statuses = await Promise.all(
            Array.from({ length: 25 }, () => app.guess(from, "mallory", "mallory's own")),
          );
          expect(statuses.every((s) => s === 302)).toBe(true);
        }
        const mallory = await listAuditEvents(app.config, { userId: "user-mallory", limit: 1000 });
        expect(mallory).toHaveLength(200);
        expect(await listAuditEvents(app.config, { userId: "user-owner" })).toEqual(owner);
        // Her loop spent her budget of sign-in records only: what else happens to her account is still recorded.
        await recordPasswordChange(app.config, { userId: "user-mallory" });
        expect(await listAuditEvents(app.config, { userId: "user-mallory", type: "password.changed" })).toHaveLength(1);
      } finally {
        await app.close();
        await store.close();
      }
    }, 120_000);
  },
);
