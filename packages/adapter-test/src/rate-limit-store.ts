/**
 * The conformance suite every `RateLimitStore` runs (memory, Redis): windows that open on the
 * first count and are never extended, reservations given back without going below zero, counts
 * that stay exact when two instances count at once, keys compared byte for byte, and a store that
 * cannot be reached reporting failure (the limiter then logs and lets the attempt through; it must
 * never be handed a made-up count).
 * @module rate-limit-store
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { RateLimitStore } from "@latchkey/core/rate-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settled, untilTrue } from "./wait.js";

/** A store whose backend is really out of reach (a closed port, a refused connection). */
export interface UnreachableStore {
  store: RateLimitStore;
  /** Closes what the unreachable store opened. */
  close: () => Promise<void>;
}

/** What a rate-limit store's setup hands the suite. */
export interface RateLimitStoreFixture {
  /** Two stores over one shared backend, as two instances of an application hold them. */
  stores: [RateLimitStore, RateLimitStore];
  /** Closes connections and removes what the run stored. */
  teardown: () => Promise<void>;
  /** A store of the same kind whose backend cannot be reached; the outage test is skipped without it. */
  unreachable?: () => Promise<UnreachableStore>;
}

const MINUTE = 60_000;

/**
 * Registers the conformance tests of one rate-limit store with vitest, in a `describe` block named
 * `name`. Every test uses keys of its own.
 *
 * @example
 * ```ts
 * import { runRateLimitStoreConformance } from "@latchkey/adapter-test/rate-limit-store"
 * runRateLimitStoreConformance("MemoryRateLimitStore", async () => {
 *   const store = new MemoryRateLimitStore()
 *   return { stores: [store, store], teardown: async () => {} }
 * })
 * ```
 */
export function runRateLimitStoreConformance(
  name: string,
  setup: () => Promise<RateLimitStoreFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(`${name}: rate-limit store conformance`, () => {
    let fixture: RateLimitStoreFixture;
    const key = () => `conform:${randomUUID()}`;
    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.teardown();
    });

    it("increment opens a window of windowMs on the first count and counts on in it without extending it; get reads without counting", async () => {
      const [a, b] = fixture.stores;
      const k = key();
      expect(await b.get(k)).toBeNull();
      const before = Date.now();
      const first = await a.increment(k, 10 * MINUTE);
      const after = Date.now();
      expect(first.count).toBe(1);
      // Stores keep whole milliseconds and may take their clock from the server: a little slack.
      expect(first.resetAt).toBeGreaterThanOrEqual(before + 10 * MINUTE - 50);
      expect(first.resetAt).toBeLessThanOrEqual(after + 10 * MINUTE + 50);
      const second = await b.increment(k, 60 * MINUTE);
      expect(second.count).toBe(2);
      expect(
        Math.abs(second.resetAt - first.resetAt),
        "a later, longer window does not extend the open one",
      ).toBeLessThan(100);
      const read = await a.get(k);
      expect(read?.count).toBe(2);
      expect(Math.abs((read?.resetAt ?? 0) - first.resetAt)).toBeLessThan(100);
      expect((await b.get(k))?.count, "get counts nothing").toBe(2);
    });

    it("a window that ends reads as none, and the next count opens a fresh one at 1", async () => {
      const [a, b] = fixture.stores;
      const k = key();
      const started = performance.now();
      await a.increment(k, 300);
      await a.increment(k, 300);
      expect((await b.get(k))?.count).toBe(2);
      await untilTrue(async () => (await b.get(k)) === null, 10_000);
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      const fresh = await b.increment(k, 10 * MINUTE);
      expect(fresh.count).toBe(1);
      expect(fresh.resetAt).toBeGreaterThan(Date.now() + 9 * MINUTE);
    });

    it("decrement takes one back, never below zero, never opens a window and never extends one", async () => {
      const [a, b] = fixture.stores;
      const absent = key();
      await a.decrement(absent);
      expect(await b.get(absent), "no window is opened by a decrement").toBeNull();
      expect((await b.increment(absent, MINUTE)).count, "nor is one left below zero").toBe(1);

      const k = key();
      const opened = await a.increment(k, 10 * MINUTE);
      await a.increment(k, 10 * MINUTE);
      await b.decrement(k);
      expect((await a.get(k))?.count).toBe(1);
      await b.decrement(k);
      await b.decrement(k);
      const read = await a.get(k);
      expect(read?.count).toBe(0);
      expect(Math.abs((read?.resetAt ?? 0) - opened.resetAt), "the window keeps its end").toBeLessThan(100);
      expect((await a.increment(k, 10 * MINUTE)).count).toBe(1);

      const ended = key();
      await a.increment(ended, 200);
      await untilTrue(async () => (await a.get(ended)) === null, 10_000);
      await b.decrement(ended);
      expect(await a.get(ended), "a decrement after the window ended opens none").toBeNull();
    });

    it("rule: 50 concurrent increments from two instances count exactly 1..50 in one window", async () => {
      const [a, b] = fixture.stores;
      const k = key();
      const hits = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).increment(k, 10 * MINUTE)));
      expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      const ends = hits.map((h) => h.resetAt);
      expect(Math.max(...ends) - Math.min(...ends), "one window, not several").toBeLessThan(1000);
      expect((await a.get(k))?.count).toBe(50);
    });

    it("rule: 75 reservations and 25 give-backs at once, from two instances, leave exactly 50; 50 give-backs of 10 leave 0", async () => {
      const [a, b] = fixture.stores;
      const k = key();
      await Promise.all([
        ...Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).increment(k, 10 * MINUTE)),
        // Each give-back follows a reservation of its own, as the limiter's do.
        ...Array.from({ length: 25 }, async (_, i) => {
          await (i % 2 ? b : a).increment(k, 10 * MINUTE);
          await (i % 2 ? a : b).decrement(k);
        }),
      ]);
      expect((await a.get(k))?.count).toBe(50);

      const small = key();
      for (let i = 0; i < 10; i++) await a.increment(small, 10 * MINUTE);
      await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).decrement(small)));
      expect((await b.get(small))?.count).toBe(0);
      expect((await b.increment(small, 10 * MINUTE)).count).toBe(1);
    });

    it("keys compare byte for byte: case, trailing spaces, tabs and accents count apart", async () => {
      const [a, b] = fixture.stores;
      const base = `credentials:id:AdA-${randomBytes(4).toString("hex")}`;
      for (let i = 0; i < 3; i++) await a.increment(base, 10 * MINUTE);
      for (const lookalike of [base.toLowerCase(), base.toUpperCase(), `${base} `, `${base}\t`, `À${base.slice(1)}`]) {
        expect(await b.get(lookalike)).toBeNull();
        expect((await b.increment(lookalike, 10 * MINUTE)).count).toBe(1);
      }
      expect((await b.get(base))?.count).toBe(3);
    });

    it("rule: a store that cannot be reached rejects every call: no made-up count, no silent success", async (ctx) => {
      if (!fixture.unreachable) return ctx.skip();
      const { store, close } = await fixture.unreachable();
      try {
        for (const call of <Array<() => Promise<unknown>>>[
          () => store.increment(key(), MINUTE),
          () => store.get(key()),
          () => store.decrement(key()),
        ]) {
          const outcome = await settled(call(), 15_000);
          expect(outcome.ok, "an unreachable store must not answer as if it counted").toBe(false);
          if (!outcome.ok) expect(outcome.hung, `rejects rather than hangs (${outcome.error.message})`).toBe(false);
        }
      } finally {
        await close();
      }
    });
  });
}
