/**
 * The conformance suite every audit store runs (the memory, Redis and SQL adapters' audit
 * methods): events stored as given and listed newest first with an id, the filters, the
 * retention sweep, 50 writes at once, the rule that a flood of anonymous events (failed, limited,
 * locked-out sign-ins: `isAnonymousAuditEvent`) stays within the store's bound and never evicts
 * what happened to an account, and a store that cannot be reached reporting failure.
 * @module audit-store
 */
import { randomUUID } from "node:crypto";
import type { AuditEvent, AuditEventFilter, AuditStore, StoredAuditEvent } from "@latchkey/core/audit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settled } from "./wait.js";

/** An audit store that can list what it keeps (the suite reads back through `listAuditEvents`). */
export type ListingAuditStore = AuditStore & Required<Pick<AuditStore, "listAuditEvents">>;

/**
 * The audit methods of an adapter, as the store the suite runs over; throws when one is missing.
 *
 * @example
 * ```ts
 * const store = auditStoreOf(RedisAdapter(redis, { auditMaxLength: 200 }))
 * ```
 */
export function auditStoreOf(adapter: Partial<ListingAuditStore>): ListingAuditStore {
  const { createAuditEvent, deleteAuditEvents, listAuditEvents } = adapter;
  if (!createAuditEvent || !deleteAuditEvents || !listAuditEvents) {
    throw new TypeError("the adapter lacks createAuditEvent, deleteAuditEvents or listAuditEvents");
  }
  return {
    createAuditEvent: (event) => createAuditEvent.call(adapter, event),
    deleteAuditEvents: (before) => deleteAuditEvents.call(adapter, before),
    listAuditEvents: (filter) => listAuditEvents.call(adapter, filter),
  };
}

/** What an audit store's setup hands the suite. */
export interface AuditStoreFixture {
  store: ListingAuditStore;
  /** Closes connections and removes what the run stored. */
  teardown: () => Promise<void>;
  /**
   * How many anonymous events the store keeps at most (`max`; per window, for a store that caps
   * a window), and by how many it may overshoot (a store that trims in whole blocks). The flood
   * test writes past it.
   */
  anonymousBound: { max: number; slack?: number };
  /** A store of the same kind whose backend cannot be reached; the outage test is skipped without it. */
  unreachable?: () => Promise<{ store: ListingAuditStore; close: () => Promise<void> }>;
}

const ANONYMOUS_TYPES = ["signin.failed", "signin.rate-limited", "signin.locked-out"] as const;

function sampleEvents(userId: string, at: Date): AuditEvent[] {
  return [
    {
      type: "signin.failed",
      at,
      reason: "wrong-credentials",
      identifier: `ada-${userId}@example.com`,
      provider: "credentials",
      clientAddress: "203.0.113.7",
    },
    {
      type: "signin.succeeded",
      at: new Date(at.getTime() + 1),
      userId,
      provider: "credentials",
      sessionId: "k3y3dH4sh0fTh3S3ss10nT0k3nAbCdEf",
      clientAddress: "2001:db8::1",
    },
    {
      type: "account.linked",
      at: new Date(at.getTime() + 2),
      userId,
      provider: "acme",
      providerAccountId: "ÀBC-001 ",
    },
    {
      type: "secret.rotated",
      at: new Date(at.getTime() + 3),
      userId,
      fingerprints: ["a1b2c3d4e5f6"],
      previousFingerprints: ["f6e5d4c3b2a1"],
    },
  ];
}

function withoutId({ id, ...event }: StoredAuditEvent): AuditEvent {
  expect(typeof id).toBe("string");
  expect(id).not.toBe("");
  return event as AuditEvent;
}

/**
 * Registers the conformance tests of one audit store with vitest, in a `describe` block named
 * `name`. Every test uses user ids and identifiers of its own.
 *
 * @example
 * ```ts
 * import { auditStoreOf, runAuditStoreConformance } from "@latchkey/adapter-test/audit-store"
 * runAuditStoreConformance("MemoryAdapter", async () => ({
 *   store: auditStoreOf(MemoryAdapter()),
 *   anonymousBound: { max: MEMORY_AUDIT_LIMIT },
 *   teardown: async () => {},
 * }))
 * ```
 */
export function runAuditStoreConformance(
  name: string,
  setup: () => Promise<AuditStoreFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(`${name}: audit store conformance`, () => {
    let fixture: AuditStoreFixture;
    // The store's methods may answer synchronously: awaited alike.
    const create = async (event: AuditEvent) => await fixture.store.createAuditEvent(event);
    const list = async (filter: AuditEventFilter) => await fixture.store.listAuditEvents(filter);
    const anonymousCount = async (since?: Date) => {
      let n = 0;
      const limit = fixture.anonymousBound.max * 3 + (fixture.anonymousBound.slack ?? 0) + 1000;
      for (const type of ANONYMOUS_TYPES) n += (await list({ type, limit, ...(since && { since }) })).length;
      return n;
    };
    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.teardown();
    });

    it("stores events and lists them back as written, newest first, each with an id", async () => {
      const userId = randomUUID();
      // In the past: a store may key entries by time, and the deletion test below writes "now".
      const events = sampleEvents(userId, new Date(Date.now() - 120_123));
      for (const event of events) await create(event);
      const listed = await list({ userId });
      expect(listed.map(withoutId)).toEqual(events.filter((e) => e.userId === userId).reverse());
      expect(new Set(listed.map((e) => e.id)).size).toBe(listed.length);
      const [failed] = await list({ identifier: `ada-${userId}@example.com` });
      expect(failed && withoutId(failed)).toEqual(events[0]);
    });

    it("filters by type and time, and returns at most `limit`", async () => {
      const userId = randomUUID();
      const start = new Date(Date.now() - 60_123);
      for (let i = 0; i < 5; i++) {
        await create({ type: "session.revoked", at: new Date(start.getTime() + i * 1000), userId, reason: `r${i}` });
      }
      await create({ type: "password.changed", at: new Date(start.getTime() + 5000), userId });
      const revoked = await list({ userId, type: "session.revoked", limit: 2 });
      expect(revoked.map((e) => (e as { reason: string }).reason)).toEqual(["r4", "r3"]);
      const since = await list({ userId, since: new Date(start.getTime() + 3000) });
      expect(since.map((e) => e.type)).toEqual(["password.changed", "session.revoked", "session.revoked"]);
      expect(await list({ userId: randomUUID() })).toEqual([]);
      expect(await list({ identifier: `nobody-${userId}@example.com` })).toEqual([]);
    });

    it("rule: 50 events written at once are each stored once, with 50 distinct ids", async () => {
      const userId = randomUUID();
      const at = new Date(Date.now() - 30_000);
      const events: AuditEvent[] = Array.from({ length: 50 }, (_, i) => ({
        type: "session.revoked",
        at: new Date(at.getTime() + i),
        userId,
        reason: `concurrent-${i}`,
      }));
      await Promise.all(events.map(create));
      const listed = await list({ userId, limit: 200 });
      expect(listed).toHaveLength(50);
      expect(new Set(listed.map((e) => e.id)).size).toBe(50);
      expect(listed.map(withoutId)).toEqual([...events].reverse());
    });

    it("rule: an anonymous flood past the store's bound stays within it and evicts no user's records, written before or during it", async () => {
      const { max, slack = 0 } = fixture.anonymousBound;
      const users = [randomUUID(), randomUUID(), randomUUID()];
      const floodAt = new Date(Date.now() - 10_000);
      const before = new Date(floodAt.getTime() - 1000);
      const own = (userId: string, i: number, at: Date): AuditEvent =>
        i % 2
          ? { type: "signin.succeeded", at, userId, provider: "credentials" }
          : { type: "password.changed", at, userId };
      const earlier = users.map((userId, i) => own(userId, i, before));
      for (const event of earlier) await create(event);
      const anonymousBefore = await anonymousCount();
      // Made-up identifiers from fresh addresses, of every anonymous kind, 50 at a time, with
      // users' own records written among them.
      const flood = max + 60;
      const during: AuditEvent[] = [];
      for (let done = 0; done < flood; done += 50) {
        const batch: Array<Promise<void>> = [];
        for (let i = done; i < Math.min(flood, done + 50); i++) {
          const type = ANONYMOUS_TYPES[i % 3] as (typeof ANONYMOUS_TYPES)[number];
          const base = {
            at: floodAt,
            identifier: `made-up-${i}@example.com`,
            clientAddress: `198.51.${i >> 8}.${i & 255}`,
          };
          batch.push(
            create(
              type === "signin.failed"
                ? { ...base, type, reason: "unknown-user" }
                : { ...base, type, reason: "credentialsPerIdentifier" },
            ),
          );
        }
        const round = done / 50;
        const event = own(users[round % 3] as string, round, floodAt);
        during.push(event);
        batch.push(create(event));
        await Promise.all(batch);
      }
      const kept = await anonymousCount(floodAt);
      expect(kept, "the flood stays within the bound").toBeLessThanOrEqual(max + slack);
      expect(kept, "the bound is the store's, not a loss of records below it").toBeGreaterThanOrEqual(
        Math.max(0, max - anonymousBefore),
      );
      for (const userId of users) {
        const listed = (await list({ userId, limit: 1000 })).map(withoutId);
        const expected = [...earlier, ...during].filter((e) => e.userId === userId);
        expect(listed).toHaveLength(expected.length);
        for (const event of expected) expect(listed).toContainEqual(event);
      }
    });

    it("deleteAuditEvents removes the events before the cutoff and keeps the rest", async () => {
      const userId = randomUUID();
      const written = new Date();
      await create({ type: "password.changed", at: written, userId });
      // The cutoff is the next millisecond (a store may key entries by the millisecond).
      while (Date.now() <= written.getTime()) await new Promise((resolve) => setImmediate(resolve));
      const cutoff = new Date();
      const kept: AuditEvent = { type: "password.changed", at: new Date(cutoff.getTime() + 1), userId };
      await create(kept);
      const deleted = await fixture.store.deleteAuditEvents(cutoff);
      if (deleted !== undefined) expect(deleted).toBeGreaterThanOrEqual(1);
      expect((await list({ userId })).map(withoutId)).toEqual([kept]);
      expect(await fixture.store.deleteAuditEvents(cutoff), "nothing is left to delete").toBe(
        deleted === undefined ? undefined : 0,
      );
    });

    it("rule: a store that cannot be reached rejects writes, listings and sweeps: nothing is reported as stored", async (ctx) => {
      if (!fixture.unreachable) return ctx.skip();
      const { store, close } = await fixture.unreachable();
      try {
        const event: AuditEvent = { type: "password.changed", at: new Date(), userId: randomUUID() };
        for (const call of <Array<() => Promise<unknown>>>[
          async () => await store.createAuditEvent(event),
          async () => await store.listAuditEvents({ userId: event.userId }),
          async () => await store.deleteAuditEvents(new Date(0)),
        ]) {
          const outcome = await settled(call(), 15_000);
          expect(outcome.ok, "an unreachable store must not answer as if it had done it").toBe(false);
          if (!outcome.ok) expect(outcome.hung, `rejects rather than hangs (${outcome.error.message})`).toBe(false);
        }
      } finally {
        await close();
      }
    });
  });
}
