/**
 * The conformance suite every `AuthorizationStore` runs (memory, SQL on each database, Redis):
 * records kept and replaced, expiry for every method, the three atomic operations (insert if
 * absent, take once, compare-and-set by version) under 50 calls at once from two instances,
 * finding and deleting by user, client and grant, and ids compared byte for byte.
 * @module authorization-store
 */
import { randomUUID } from "node:crypto";
import type {
  AuthorizationRecord,
  AuthorizationRecordKind,
  AuthorizationStore,
} from "@latchkey/core/authorization-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { untilTrue } from "./wait.js";

/** What an authorization store's setup hands the suite. */
export interface AuthorizationStoreFixture {
  /** Two stores over one shared backend, as two instances of an application hold them. */
  stores: [AuthorizationStore, AuthorizationStore];
  /** Closes connections and removes what the run stored. */
  teardown: () => Promise<void>;
}

/**
 * Registers the conformance tests of one authorization store with vitest, in a `describe` block
 * named `name`. Every test uses ids of its own.
 *
 * @example
 * ```ts
 * import { runAuthorizationStoreConformance } from "@latchkey/adapter-test/authorization-store"
 * runAuthorizationStoreConformance("MemoryAuthorizationStore", async () => {
 *   const store = new MemoryAuthorizationStore()
 *   return { stores: [store, store], teardown: async () => {} }
 * })
 * ```
 */
export function runAuthorizationStoreConformance(
  name: string,
  setup: () => Promise<AuthorizationStoreFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(name, () => {
    let fixture: AuthorizationStoreFixture;
    const id = () => `r-${randomUUID()}`;
    const record = (
      kind: AuthorizationRecordKind,
      overrides: Partial<AuthorizationRecord> = {},
    ): AuthorizationRecord => ({
      kind,
      id: id(),
      data: { n: 1 },
      version: 1,
      ...overrides,
    });
    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.teardown();
    });

    it("rule: a record reads back on the other instance as it was set, nested data and index fields included; set replaces it", async () => {
      const [a, b] = fixture.stores;
      const stored = record("grant", {
        data: {
          scopes: ["openid", "email"],
          nested: { at: 1_700_000_000_123, flag: true, none: null },
          text: "é ✓ \u0000",
        },
        userId: "user-1",
        clientId: "client-1",
        grantId: "grant-1",
        expiresAt: Date.now() + 60_000,
      });
      await a.set(stored);
      expect(await b.get("grant", stored.id)).toEqual(stored);
      await b.set({ ...stored, data: { replaced: true }, version: 4 });
      expect(await a.get("grant", stored.id)).toEqual({ ...stored, data: { replaced: true }, version: 4 });
      expect(await a.get("client", stored.id)).toBeNull();
      expect(await a.get("grant", id())).toBeNull();
      const forever = record("client");
      await a.set(forever);
      expect(await b.get("client", forever.id)).toEqual(forever);
    });

    it("rule: a record past its expiry is absent for get, take, swap, delete and find, and add takes its place", async () => {
      const [a, b] = fixture.stores;
      const past = record("code", { clientId: `c-${randomUUID()}`, expiresAt: Date.now() - 1 });
      await a.set(past);
      expect(await b.get("code", past.id)).toBeNull();
      expect(await b.take("code", past.id)).toBeNull();
      expect(await b.swap({ ...past, version: 2, expiresAt: Date.now() + 60_000 })).toBe(false);
      expect(await b.delete("code", past.id)).toBe(false);
      expect(await b.find("code", { clientId: past.clientId ?? "" })).toEqual([]);
      expect(await b.add({ ...past, expiresAt: Date.now() + 60_000 })).toBe(true);
      const soon = record("interaction", { expiresAt: Date.now() + 300 });
      await a.set(soon);
      expect(await b.get("interaction", soon.id)).not.toBeNull();
      await untilTrue(async () => (await b.get("interaction", soon.id)) === null);
      expect(await b.add({ ...soon, expiresAt: Date.now() + 60_000 })).toBe(true);
    });

    it("rule: of 50 adds of one id at once from two instances, exactly one stores its record; a live record is never replaced by add", async () => {
      const [a, b] = fixture.stores;
      const shared = id();
      const added = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? a : b).add({ kind: "jti", id: shared, data: { by: i }, expiresAt: Date.now() + 60_000, version: 1 }),
        ),
      );
      expect(added.filter(Boolean)).toHaveLength(1);
      const winner = added.indexOf(true);
      expect((await a.get("jti", shared))?.data).toEqual({ by: winner });
      expect(await b.add({ kind: "jti", id: shared, data: { by: "late" }, version: 1 })).toBe(false);
    });

    it("rule: of 50 takes of one record at once from two instances, exactly one gets it, and it is gone", async () => {
      const [a, b] = fixture.stores;
      const code = record("code", { data: { code: "c" }, expiresAt: Date.now() + 60_000 });
      await a.set(code);
      const taken = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).take("code", code.id)));
      const got = taken.filter((r) => r !== null);
      expect(got).toHaveLength(1);
      expect(got[0]).toEqual(code);
      expect(await b.get("code", code.id)).toBeNull();
    });

    it("rule: of 50 swaps from one version at once from two instances, exactly one moves it on; a stale or absent version swaps nothing", async () => {
      const [a, b] = fixture.stores;
      const family = record("family", { data: { generation: 1 }, expiresAt: Date.now() + 60_000 });
      await a.set(family);
      const swapped = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).swap({ ...family, data: { by: i }, version: 2 })),
      );
      expect(swapped.filter(Boolean)).toHaveLength(1);
      const stored = await a.get("family", family.id);
      expect(stored?.version).toBe(2);
      expect(stored?.data).toEqual({ by: swapped.indexOf(true) });
      expect(await b.swap({ ...family, version: 2 })).toBe(false);
      expect(await b.swap({ ...family, version: 4 })).toBe(false);
      expect(await b.swap({ ...family, id: id(), version: 2 })).toBe(false);
      expect(await a.swap({ ...family, data: { again: true }, version: 3 })).toBe(true);
    });

    it("rule: delete answers whether a live record was there", async () => {
      const [a, b] = fixture.stores;
      const client = record("client");
      await a.set(client);
      expect(await b.delete("client", client.id)).toBe(true);
      expect(await a.delete("client", client.id)).toBe(false);
      expect(await a.get("client", client.id)).toBeNull();
    });

    it("rule: find names the live records of one kind by user, client or grant, or all of a kind", async () => {
      const [a, b] = fixture.stores;
      const user = `u-${randomUUID()}`;
      const client = `c-${randomUUID()}`;
      const grant = `g-${randomUUID()}`;
      const family = record("family", {
        userId: user,
        clientId: client,
        grantId: grant,
        expiresAt: Date.now() + 60_000,
      });
      const otherKind = record("token", {
        userId: user,
        clientId: client,
        grantId: grant,
        expiresAt: Date.now() + 60_000,
      });
      const otherUser = record("family", {
        userId: `u-${randomUUID()}`,
        clientId: client,
        expiresAt: Date.now() + 60_000,
      });
      const expired = record("family", { userId: user, clientId: client, grantId: grant, expiresAt: Date.now() - 1 });
      for (const r of [family, otherKind, otherUser, expired]) await a.set(r);
      expect(await b.find("family", { userId: user })).toEqual([family]);
      expect(await b.find("family", { grantId: grant })).toEqual([family]);
      const byClient = await b.find("family", { clientId: client });
      expect(byClient.map((r) => r.id).sort()).toEqual([family.id, otherUser.id].sort());
      const key = record("key", { data: { kid: "k" } });
      await a.set(key);
      expect((await b.find("key")).map((r) => r.id)).toContain(key.id);
      expect((await b.find("key")).every((r) => r.kind === "key")).toBe(true);
    });

    it("rule: deleteWhere deletes the records of the kinds named that the filter names, and nothing else", async () => {
      const [a, b] = fixture.stores;
      const grant = `g-${randomUUID()}`;
      const code = record("code", { grantId: grant, expiresAt: Date.now() + 60_000 });
      const family = record("family", { grantId: grant, expiresAt: Date.now() + 60_000 });
      const kept = record("grant", { grantId: grant });
      const other = record("family", { grantId: `g-${randomUUID()}`, expiresAt: Date.now() + 60_000 });
      const expired = record("token", { grantId: grant, expiresAt: Date.now() - 1 });
      for (const r of [code, family, kept, other, expired]) await a.set(r);
      expect(await b.deleteWhere({ grantId: grant }, ["code", "family", "token"])).toBe(2);
      expect(await a.get("code", code.id)).toBeNull();
      expect(await a.get("family", family.id)).toBeNull();
      expect(await a.get("grant", kept.id)).toEqual(kept);
      expect(await a.get("family", other.id)).toEqual(other);
      expect(await a.find("token", { grantId: grant })).toEqual([]);
    });

    it("rule: ids and index values are compared byte for byte (case, accents, trailing spaces, long ids)", async () => {
      const [a, b] = fixture.stores;
      const base = id();
      const ids = [`${base}a`, `${base}A`, `${base}é`, `${base}e\u0301`, `${base}a `, `${base}:${"x".repeat(180)}`];
      for (const [i, value] of ids.entries()) await a.set({ kind: "user-code", id: value, data: { i }, version: 1 });
      for (const [i, value] of ids.entries()) expect((await b.get("user-code", value))?.data).toEqual({ i });
      const user = `u-${randomUUID()}`;
      await a.set(record("grant", { userId: user }));
      await a.set(record("grant", { userId: user.toUpperCase() }));
      expect(await b.find("grant", { userId: user })).toHaveLength(1);
    });
  });
}
