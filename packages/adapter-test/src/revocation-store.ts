/**
 * The conformance suite every `RevocationStore` runs (memory; Redis; SQL: PostgreSQL by
 * LISTEN/NOTIFY and by polling, MariaDB, SQLite): an entry that is durable once `add` resolves
 * (another instance, and one that starts later, loads it), entries of one kind and id merged so
 * that a revocation never moves backwards, pushes that reach every subscribed instance, expiry, no
 * lost revocation among 50 at once, an outage that is reported (`add` and `load` reject, the
 * channel goes `down`, then `up`) rather than answered as done, and a link slower than the
 * heartbeat that never starves the store of its connections.
 * @module revocation-store
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { RevocationEntry, RevocationListener, RevocationStore } from "@latchkey/core/revocation";
import type { SessionChange } from "@latchkey/core/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settled, untilTrue } from "./wait.js";

/**
 * A store whose backend the test cuts off for real (connections refused and reset, or terminated
 * by the server) and brings back.
 */
export interface RevocationOutage {
  /** A store over the connections that `cut` takes away (built to notice within seconds: a short heartbeat). */
  store: RevocationStore;
  cut: () => Promise<void>;
  restore: () => Promise<void>;
  /** Closes what the outage opened (the suite closes `store` itself). */
  close: () => Promise<void>;
}

/**
 * A store whose every connection passes through a link the test slows down for real (a TCP proxy
 * that delays each chunk), as a congested network or a database far away does.
 */
export interface SlowLink {
  /** A store over the connections of the link, its heartbeat 200 ms (shorter than the latency the test adds). */
  store: RevocationStore;
  /** Adds `ms` of latency each way to everything on the link, connections already open included. */
  slow: (ms: number) => Promise<void>;
  /** Swallows everything on the link (a black hole: connections stay open, nothing comes back). */
  blackhole: () => Promise<void>;
  /** Makes the link fast again (after a black hole, its connections are reset). */
  restore: () => Promise<void>;
  /**
   * Ends the connections the store ran on, as an application does at shutdown (`pool.end()`, a
   * client's `quit`), and the link: it must resolve once the store is closed.
   */
  end: () => Promise<void>;
}

/** What a revocation store's setup hands the suite. */
export interface RevocationStoreFixture {
  /**
   * Another store over the one shared backend, on connections of its own, as another instance
   * (or one started later) holds it. The suite closes each store it opens.
   */
  open: () => RevocationStore | Promise<RevocationStore>;
  /** Closes connections and removes what the run stored. */
  teardown: () => Promise<void>;
  /** The outage test is skipped without it (a store in one process's memory has none). */
  outage?: () => Promise<RevocationOutage>;
  /** The slowed-link test is skipped without it (a store with no connection, in memory or a file). */
  slowLink?: () => Promise<SlowLink>;
}

/** A listener that remembers what it heard, and lets a test wait on it. */
class Heard implements RevocationListener {
  readonly entries: RevocationEntry[] = [];
  readonly changes: SessionChange[] = [];
  downs = 0;
  ups = 0;
  #waiters: Array<() => void> = [];
  entry(entry: RevocationEntry): void {
    this.entries.push(entry);
    this.#wake();
  }
  change(change: SessionChange): void {
    this.changes.push(change);
    this.#wake();
  }
  down(): void {
    this.downs += 1;
    this.#wake();
  }
  up(): void {
    this.ups += 1;
    this.#wake();
  }
  /** Resolves once `done()` holds, re-checked on every report; rejects after `deadlineMs`. */
  until(done: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`never heard ${what} within ${deadlineMs} ms`)), deadlineMs);
      const check = () => {
        if (!done()) return this.#waiters.push(check);
        clearTimeout(timer);
        resolve();
      };
      this.#waiters.push(check);
    });
  }
  ids(): Set<string> {
    return new Set(this.entries.map((e) => `${e.kind}:${e.id}`));
  }
  #wake(): void {
    for (const check of this.#waiters.splice(0)) check();
  }
}

const HOUR = 3_600_000;

/**
 * Registers the conformance tests of one revocation store with vitest, in a `describe` block
 * named `name`. Every test uses entry ids of its own (the list is shared with the other tests).
 *
 * @example
 * ```ts
 * import { runRevocationStoreConformance } from "@latchkey/adapter-test/revocation-store"
 * runRevocationStoreConformance("MemoryRevocationStore", async () => {
 *   const store = new MemoryRevocationStore()
 *   return { open: () => store, teardown: async () => {} }
 * })
 * ```
 */
export function runRevocationStoreConformance(
  name: string,
  setup: () => Promise<RevocationStoreFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(`${name}: revocation store conformance`, () => {
    let fixture: RevocationStoreFixture;
    const opened: RevocationStore[] = [];
    const open = async () => {
      const store = await fixture.open();
      opened.push(store);
      return store;
    };
    const id = (label: string) => `conform-${label}-${randomUUID()}`;
    const find = async (store: RevocationStore, kind: RevocationEntry["kind"], entryId: string) =>
      (await store.load()).filter((e) => e.kind === kind && e.id === entryId);
    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      for (const store of new Set(opened)) await store.close?.();
      await fixture?.teardown();
    });

    it("add resolves once the entry is durable: another instance, and one opened afterwards, loads it as written", async () => {
      const a = await open();
      const b = await open();
      const now = Date.now();
      const session: RevocationEntry = {
        kind: "session",
        id: id("s"),
        before: now,
        expiresAt: now + HOUR,
        userId: id("u"),
      };
      const user: RevocationEntry = { kind: "user", id: id("u"), before: now - 5000, expiresAt: now + 2 * HOUR };
      const untagged: RevocationEntry = { kind: "session", id: id("s"), before: now, expiresAt: now + HOUR };
      await a.add(session);
      await a.add(user);
      await a.add(untagged);
      const late = await open();
      for (const store of [b, late]) {
        expect(await find(store, "session", session.id)).toEqual([session]);
        expect(await find(store, "user", user.id)).toEqual([user]);
        expect(await find(store, "session", untagged.id)).toEqual([untagged]);
      }
    });

    it("rule: entries of one kind and id merge to the later before and the later expiry, in whatever order they arrive; kinds stay apart", async () => {
      const [a, b] = [await open(), await open()];
      const userId = id("u");
      const now = Date.now();
      await a.add({ kind: "user", id: userId, before: now, expiresAt: now + HOUR });
      // An older sign-in time with a later expiry (a sign-out past the bound on an instance that had not heard).
      await b.add({ kind: "user", id: userId, before: now - 60_000, expiresAt: now + 2 * HOUR });
      expect(await find(a, "user", userId)).toEqual([
        { kind: "user", id: userId, before: now, expiresAt: now + 2 * HOUR },
      ]);
      // A later revocation with an earlier expiry.
      await a.add({ kind: "user", id: userId, before: now + 1000, expiresAt: now + HOUR });
      expect(await find(b, "user", userId)).toEqual([
        { kind: "user", id: userId, before: now + 1000, expiresAt: now + 2 * HOUR },
      ]);
      // A session entry of the same id is another entry.
      await b.add({ kind: "session", id: userId, before: now - 1, expiresAt: now + HOUR });
      expect(await find(a, "session", userId)).toEqual([
        { kind: "session", id: userId, before: now - 1, expiresAt: now + HOUR },
      ]);
      expect((await find(a, "user", userId))[0]?.before).toBe(now + 1000);
    });

    it("every subscribed instance hears an added entry, the adding one included", async () => {
      const [a, b] = [await open(), await open()];
      const [onA, onB] = [new Heard(), new Heard()];
      await a.subscribe(onA);
      await b.subscribe(onB);
      const now = Date.now();
      const entry: RevocationEntry = { kind: "session", id: id("s"), before: now, expiresAt: now + HOUR, userId: "u" };
      await a.add(entry);
      for (const heard of [onA, onB]) {
        await heard.until(() => heard.ids().has(`session:${entry.id}`), `the push of ${entry.id}`);
        expect(heard.entries.find((e) => e.id === entry.id)).toEqual(entry);
      }
      expect(onA.downs + onB.downs).toBe(0);
    });

    it("a pushed session change (session.cache) reaches every subscribed instance as a change, never as an entry, and is never loaded", async (ctx) => {
      const [a, b] = [await open(), await open()];
      if (!a.push) return ctx.skip();
      const [onA, onB] = [new Heard(), new Heard()];
      await a.subscribe(onA);
      await b.subscribe(onB);
      const changes: SessionChange[] = [
        { kind: "session", id: "a".repeat(64) },
        { kind: "user", id: id("u") },
        { kind: "user", id: 'Zoë \t "quoted"' },
      ];
      for (const change of changes) await a.push(change);
      for (const heard of [onA, onB]) {
        await heard.until(
          () => changes.every((c) => heard.changes.some((h) => h.kind === c.kind && h.id === c.id)),
          "the changes",
        );
        expect(heard.entries.filter((e) => changes.some((c) => c.id === e.id))).toEqual([]);
      }
      expect((await b.load()).filter((e) => changes.some((c) => c.id === e.id))).toEqual([]);
    });

    it("an entry is loaded until its expiresAt passes, and not after", async () => {
      const [a, b] = [await open(), await open()];
      const entry: RevocationEntry = { kind: "session", id: id("s"), before: Date.now(), expiresAt: Date.now() + 400 };
      const kept: RevocationEntry = { kind: "session", id: id("s"), before: Date.now(), expiresAt: Date.now() + HOUR };
      await a.add(entry);
      await a.add(kept);
      expect(await find(b, "session", entry.id)).toHaveLength(1);
      await untilTrue(async () => (await find(b, "session", entry.id)).length === 0, 10_000);
      // Stores count whole milliseconds (a server's clock may round): allow for it.
      expect(Date.now()).toBeGreaterThanOrEqual(entry.expiresAt - 5);
      expect(await find(b, "session", kept.id)).toHaveLength(1);
    });

    it("ids compare byte for byte: case, trailing spaces, tabs and accents revoke no other id", async () => {
      const [a, b] = [await open(), await open()];
      const base = `AbC-${randomBytes(4).toString("hex")}`;
      const now = Date.now();
      await a.add({ kind: "user", id: base, before: now, expiresAt: now + HOUR });
      const lookalikes = [base.toLowerCase(), base.toUpperCase(), `${base} `, `${base}\t`, `À${base.slice(1)}`];
      const loaded = await b.load();
      for (const lookalike of lookalikes) expect(loaded.filter((e) => e.id === lookalike)).toEqual([]);
      for (const lookalike of lookalikes)
        await b.add({ kind: "user", id: lookalike, before: now - 1, expiresAt: now + HOUR });
      expect(await find(a, "user", base)).toEqual([{ kind: "user", id: base, before: now, expiresAt: now + HOUR }]);
      for (const lookalike of lookalikes) expect(await find(a, "user", lookalike)).toHaveLength(1);
    });

    it("rule: 50 revocations at once from two instances: none is lost, in the store or in the pushes", async () => {
      const [a, b] = [await open(), await open()];
      const [onA, onB] = [new Heard(), new Heard()];
      await a.subscribe(onA);
      await b.subscribe(onB);
      const now = Date.now();
      const entries: RevocationEntry[] = Array.from({ length: 50 }, (_, i) => ({
        kind: "session",
        id: id(`s${i}`),
        before: now + i,
        expiresAt: now + HOUR,
      }));
      await Promise.all(entries.map((entry, i) => (i % 2 ? a : b).add(entry)));
      const late = await open();
      const stored = new Set((await late.load()).map((e) => `${e.kind}:${e.id}`));
      for (const entry of entries) expect(stored.has(`session:${entry.id}`), entry.id).toBe(true);
      for (const heard of [onA, onB]) {
        await heard.until(() => entries.every((e) => heard.ids().has(`session:${e.id}`)), "all 50 pushes");
      }
    });

    it("rule: 50 concurrent revocations of one user from two instances keep the latest before and the latest expiry", async () => {
      const [a, b] = [await open(), await open()];
      const userId = id("u");
      const now = Date.now();
      // Shuffled so that neither the first nor the last to arrive is the latest.
      const offsets = Array.from({ length: 50 }, (_, i) => (i * 37) % 50);
      await Promise.all(
        offsets.map((offset, i) =>
          (i % 2 ? a : b).add({
            kind: "user",
            id: userId,
            before: now - 100_000 + offset * 1000,
            expiresAt: now + HOUR + (49 - offset) * 1000,
          }),
        ),
      );
      expect(await find(await open(), "user", userId)).toEqual([
        { kind: "user", id: userId, before: now - 100_000 + 49_000, expiresAt: now + HOUR + 49_000 },
      ]);
    });

    it("rule: a store cut off reports it: add and load reject (nothing half done), the channel goes down, then up once back, and an add then holds", async (ctx) => {
      if (!fixture.outage) return ctx.skip();
      const outage = await fixture.outage();
      const heard = new Heard();
      try {
        await outage.store.subscribe(heard);
        await outage.cut();
        await heard.until(() => heard.downs > 0, "down after the cut");
        const now = Date.now();
        const lost: RevocationEntry = { kind: "session", id: id("cut"), before: now, expiresAt: now + HOUR };
        const added = await settled(outage.store.add(lost), 15_000);
        expect(added.ok, "an add the store cannot take must not resolve").toBe(false);
        const loaded = await settled(outage.store.load(), 15_000);
        expect(loaded.ok, "a load of an unreachable store must not answer an empty list").toBe(false);

        await outage.restore();
        await heard.until(() => heard.ups > 0, "up once the store is back", 20_000);
        const direct = await open();
        expect(await find(direct, "session", lost.id), "the rejected add stored nothing").toEqual([]);
        const kept: RevocationEntry = {
          kind: "session",
          id: id("back"),
          before: Date.now(),
          expiresAt: Date.now() + HOUR,
        };
        // The store may still be reconnecting its command connection: each retry is the wait.
        await untilTrue(async () => (await settled(outage.store.add(kept), 5_000)).ok, 20_000);
        expect(await find(direct, "session", kept.id)).toEqual([kept]);
        await heard.until(() => heard.ids().has(`session:${kept.id}`), "the push after the outage");
      } finally {
        await outage.store.close?.();
        await outage.restore();
        await outage.close();
      }
    });

    /**
     * Runs `body` on a store behind a link the test slows down (subscribed to `heard`), then closes
     * the store (in whatever state `body` left the link) and expects its connections to end.
     */
    const onSlowLink = async (
      ctx: { skip(): void },
      body: (link: SlowLink, heard: Heard) => Promise<void>,
    ): Promise<void> => {
      if (!fixture.slowLink) return ctx.skip();
      const link = await fixture.slowLink();
      const heard = new Heard();
      let ended = false;
      try {
        await link.store.subscribe(heard);
        await body(link, heard);
        const closed = await settled(link.store.close?.() ?? Promise.resolve(), 15_000);
        expect(closed.ok, `close(): ${closed.ok ? "" : closed.error.message}`).toBe(true);
        await link.restore();
        const end = await settled(link.end(), 15_000);
        ended = true;
        expect(end.ok, `the store's connections end once it is closed: ${end.ok ? "" : end.error.message}`).toBe(true);
      } finally {
        await link.restore();
        if (!ended) await settled(link.end(), 1000);
      }
    };

    it("rule: close() resolves while the link is a black hole (nothing answers, nothing closes), and the store's connections then end", (ctx) =>
      onSlowLink(ctx, (link) => link.blackhole()));

    it("rule: a link slower than the heartbeat never starves the store: add and load still answer while it is slow, the channel is down meanwhile and up once it is fast again, and once closed its connections end", (ctx) =>
      onSlowLink(ctx, async (link, heard) => {
        // 250 ms each way: every check of the channel (and every reconnection) takes longer than the
        // 200 ms heartbeat, so the store keeps giving up on them while the link stays slow.
        await link.slow(250);
        await heard.until(() => heard.downs > 0, "down once the link is slower than the heartbeat");
        // Six writes and a read in a row outlast many heartbeats and reconnections: each must still
        // find a connection (issue 34.5: abandoned reconnections kept every one of a pool of 4).
        const written: RevocationEntry[] = [];
        for (let i = 0; i < 6; i++) {
          const now = Date.now();
          const entry: RevocationEntry = { kind: "session", id: id(`slow${i}`), before: now, expiresAt: now + HOUR };
          const added = await settled(link.store.add(entry), 15_000);
          expect(added.ok, `add ${i} over the slow link: ${added.ok ? "" : added.error.message}`).toBe(true);
          written.push(entry);
        }
        const loaded = await settled(link.store.load(), 15_000);
        expect(loaded.ok, `load over the slow link: ${loaded.ok ? "" : loaded.error.message}`).toBe(true);
        const ids = new Set((loaded.ok ? loaded.value : []).map((e) => e.id));
        for (const entry of written) expect(ids.has(entry.id), entry.id).toBe(true);
        expect(heard.ups, "no up while every check takes longer than the heartbeat").toBe(0);

        await link.restore();
        await heard.until(() => heard.ups > 0, "up once the link is fast again", 20_000);
        const now = Date.now();
        const after: RevocationEntry = { kind: "session", id: id("fast"), before: now, expiresAt: now + HOUR };
        await link.store.add(after);
        await heard.until(() => heard.ids().has(`session:${after.id}`), "the push once the link is fast again");
      }));
  });
}
