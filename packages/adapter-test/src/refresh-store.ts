/**
 * The conformance suite every `RefreshStore` runs (memory, Redis, PostgreSQL, the SQL adapter's):
 * the lock that one caller of many takes, that only its owner releases and that expires; records
 * that expire and are replaced; keys compared byte for byte.
 * @module refresh-store
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { RefreshStore } from "@latchkey/core/refresh-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { untilTrue } from "./wait.js";

/** What a refresh store's setup hands the suite. */
export interface RefreshStoreFixture {
  /** Two stores over one shared backend, as two instances of an application hold them. */
  stores: [RefreshStore, RefreshStore];
  /** Closes connections and removes what the run stored. */
  teardown: () => Promise<void>;
}

/**
 * Registers the conformance tests of one refresh store with vitest, in a `describe` block named
 * `name`. Every test uses keys of its own.
 *
 * @example
 * ```ts
 * import { runRefreshStoreConformance } from "@latchkey/adapter-test/refresh-store"
 * runRefreshStoreConformance("MemoryRefreshStore", async () => {
 *   const store = new MemoryRefreshStore()
 *   return { stores: [store, store], teardown: async () => {} }
 * })
 * ```
 */
export function runRefreshStoreConformance(
  name: string,
  setup: () => Promise<RefreshStoreFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(name, () => {
    let fixture: RefreshStoreFixture;
    const key = () => `k-${randomUUID()}`;
    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.teardown();
    });

    it("rule: of 50 concurrent lock attempts by two instances, exactly one takes the lock; only its owner releases it", async () => {
      const [a, b] = fixture.stores;
      const k = key();
      const owners = Array.from({ length: 50 }, () => randomUUID());
      const taken = await Promise.all(owners.map((owner, i) => (i % 2 ? a : b).acquire(k, owner, 20_000)));
      expect(taken.filter(Boolean)).toHaveLength(1);
      const holder = owners[taken.indexOf(true)] as string;
      const loser = owners[taken.indexOf(false)] as string;
      await a.release(k, loser);
      expect(await b.acquire(k, loser, 20_000)).toBe(false);
      await b.release(k, holder);
      expect(await a.acquire(k, loser, 20_000)).toBe(true);
    });

    it("rule: a lock whose holder's time ran out is taken again, and not before; the late holder's release frees nothing", async () => {
      const [a, b] = fixture.stores;
      const k = key();
      const started = performance.now();
      expect(await a.acquire(k, "crashed-holder", 300)).toBe(true);
      expect(await b.acquire(k, "next", 300)).toBe(false);
      await untilTrue(() => b.acquire(k, "next", 20_000));
      // Stores count whole milliseconds (a database's clock may round): allow for it.
      expect(performance.now() - started).toBeGreaterThanOrEqual(295);
      await a.release(k, "crashed-holder");
      expect(await a.acquire(k, "third", 20_000)).toBe(false);
    });

    it("rule: a record reads back on the other instance until it expires; a later put replaces it", async () => {
      const [a, b] = fixture.stores;
      const k = key();
      await a.put(k, "first", 20_000);
      await a.put(k, "second", 300);
      const started = performance.now();
      expect(await b.get(k)).toBe("second");
      await untilTrue(async () => (await b.get(k)) === null);
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      // A lock and a record of one key are different entries.
      expect(await a.acquire(k, "owner", 20_000)).toBe(true);
      expect(await a.get(k)).toBeNull();
    });

    it("rule: a record as large as a provider's largest answer makes reads back whole (1 MiB answer, sealed under two secrets)", async () => {
      const [a, b] = fixture.stores;
      const k = key();
      // Latchkey reads a provider's answer up to 1 MiB; sealed and base64url-encoded that is about
      // 1.4 MiB per configured secret, and during a rotation there are two.
      const sealed = randomBytes(1024 * 1024 + 64).toString("base64url");
      const value = `${sealed} ${sealed.split("").reverse().join("")}`;
      await a.put(k, value, 20_000);
      expect((await b.get(k))?.length).toBe(value.length);
      expect(await b.get(k)).toBe(value);
    });

    it("rule: keys compare byte for byte: case, trailing spaces, tabs and accents reach no other key", async () => {
      const [a, b] = fixture.stores;
      const base = `AbC-${randomBytes(4).toString("hex")}`;
      await a.put(base, "victim", 20_000);
      expect(await a.acquire(base, "victim", 20_000)).toBe(true);
      // (Latchkey's keys are base64url hashes; these prove the store, not what reaches it.)
      for (const lookalike of [base.toLowerCase(), base.toUpperCase(), `${base} `, `${base}\t`, `À${base.slice(1)}`]) {
        expect(await b.get(lookalike)).toBeNull();
        expect(await b.acquire(lookalike, "attacker", 20_000)).toBe(true);
      }
      expect(await b.get(base)).toBe("victim");
    });
  });
}
