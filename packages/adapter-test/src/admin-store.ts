/**
 * The conformance suite every `AdminStore` runs: roles and bans kept and read back from the other
 * instance field by field, a ban that ends by itself at its expiry (and one that never does), roles
 * changed by compare-and-set, and 50 writes at once from two instances: one whole ban or none,
 * exactly one role change applied.
 * @module admin-store
 */
import { randomBytes } from "node:crypto";
import type { AdminBan, AdminStore } from "@latchkey/core/admin";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** What an admin store's setup hands the suite. */
export interface AdminStoreFixture {
  /** Two stores over one shared backend, as two instances of an application hold them. */
  stores: [AdminStore, AdminStore];
  /** Closes connections and removes what the run stored. */
  teardown: () => Promise<void>;
}

/**
 * Registers the conformance tests of one admin store with vitest, in a `describe` block named
 * `name`. Every test uses user ids of its own.
 *
 * @example
 * ```ts
 * import { runAdminStoreConformance } from "@latchkey/adapter-test/admin-store"
 * runAdminStoreConformance("MemoryAdminStore", async () => {
 *   const store = MemoryAdminStore()
 *   return { stores: [store, store], teardown: async () => {} }
 * })
 * ```
 */
export function runAdminStoreConformance(
  name: string,
  setup: () => Promise<AdminStoreFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(name, () => {
    let fixture: AdminStoreFixture;
    const base = Date.now();
    const userId = () => `u-${randomBytes(6).toString("hex")}`;
    const ban = (overrides: Partial<AdminBan> = {}): AdminBan => ({
      userId: userId(),
      reason: "Spam in the forum ✉",
      bannedBy: `admin-${randomBytes(4).toString("hex")}`,
      bannedAt: new Date(base - 1_234),
      expiresAt: new Date(base + 86_400_123),
      ...overrides,
    });

    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.teardown();
    });

    it("a role is read back on the other instance; setRole is a compare-and-set on the role before, and null takes it away", async () => {
      const [one, two] = fixture.stores;
      const id = userId();
      expect(await two.getRole(id)).toBeNull();
      expect(await one.setRole(id, null, "admin")).toBe(true);
      expect(await two.getRole(id)).toBe("admin");
      expect(await two.setRole(id, null, "support"), "from a role it no longer has").toBe(false);
      expect(await two.setRole(id, "support", "user"), "from a role it never had").toBe(false);
      expect(await one.getRole(id)).toBe("admin");
      expect(await two.setRole(id, "admin", "support")).toBe(true);
      expect(await one.getRole(id)).toBe("support");
      expect(await one.setRole(id, "support", null)).toBe(true);
      expect(await two.getRole(id)).toBeNull();
      expect(await two.setRole(id, "support", null), "taking away a role already gone").toBe(false);
      expect(await two.setRole(id, null, "user")).toBe(true);
      expect(await one.getRole(id)).toBe("user");
    });

    it("a ban is read back on the other instance with every field, dates to the millisecond", async () => {
      const [one, two] = fixture.stores;
      const full = ban();
      await one.setBan(full);
      expect(await two.getBan(full.userId, new Date(base))).toEqual(full);
      const bare = ban({ reason: null, expiresAt: null });
      await two.setBan(bare);
      expect(await one.getBan(bare.userId, new Date(base + 10 * 365 * 86_400_000))).toEqual(bare);
      expect(await one.getBan(userId(), new Date(base))).toBeNull();
    });

    it("a ban ends by itself at its expiry (expiresAt <= now is over), and a ban without one never does", async () => {
      const [one, two] = fixture.stores;
      const expiring = ban({ expiresAt: new Date(base + 5_000) });
      await one.setBan(expiring);
      expect(await two.getBan(expiring.userId, new Date(base + 4_999))).toEqual(expiring);
      expect(await two.getBan(expiring.userId, new Date(base + 5_000))).toBeNull();
      expect(await two.getBan(expiring.userId, new Date(base + 60_000))).toBeNull();
      const again = ban({ userId: expiring.userId, expiresAt: null });
      await one.setBan(again);
      expect(await two.getBan(expiring.userId, new Date(base + 60_000))).toEqual(again);
    });

    it("setBan replaces the user's ban; removeBan removes it (true), then finds none (false)", async () => {
      const [one, two] = fixture.stores;
      const first = ban();
      const second = ban({ userId: first.userId, reason: "Again", bannedAt: new Date(base + 1), expiresAt: null });
      await one.setBan(first);
      await two.setBan(second);
      expect(await one.getBan(first.userId, new Date(base))).toEqual(second);
      expect(await two.removeBan(first.userId)).toBe(true);
      expect(await one.getBan(first.userId, new Date(base))).toBeNull();
      expect(await one.removeBan(first.userId)).toBe(false);
      const expired = ban({ expiresAt: new Date(base - 1) });
      await one.setBan(expired);
      expect(await two.getBan(expired.userId, new Date(base))).toBeNull();
      expect(await two.removeBan(expired.userId), "an expired ban is still there to remove").toBe(true);
    });

    it("roles and bans are kept apart per user: one user's writes change no other's", async () => {
      const [one, two] = fixture.stores;
      const a = userId();
      const b = userId();
      await one.setRole(a, null, "admin");
      await one.setBan(ban({ userId: a }));
      expect(await two.getRole(b)).toBeNull();
      expect(await two.getBan(b, new Date(base))).toBeNull();
      expect(await two.removeBan(b)).toBe(false);
      expect(await two.setRole(b, "admin", null)).toBe(false);
      expect(await one.getRole(a)).toBe("admin");
      expect(await one.getBan(a, new Date(base))).not.toBeNull();
    });

    it("50 bans and unbans at once from two instances leave one whole ban or none, never a mix of two", async () => {
      const [one, two] = fixture.stores;
      const id = userId();
      const bans = Array.from({ length: 50 }, (_, i) =>
        ban({ userId: id, reason: `reason ${i}`, bannedBy: `admin-${i}`, bannedAt: new Date(base + i) }),
      );
      await Promise.all(
        bans.map((b, i) => {
          const store = i % 2 ? one : two;
          return i % 5 === 4 ? store.removeBan(id) : store.setBan(b);
        }),
      );
      const left = await one.getBan(id, new Date(base));
      if (left !== null) {
        const i = Number(left.reason?.slice("reason ".length));
        expect(left).toEqual(bans[i]);
      }
      expect(await two.getBan(id, new Date(base))).toEqual(left);
    });

    it("50 role changes from no role at once, from two instances: exactly one is applied, and its role is kept", async () => {
      const [one, two] = fixture.stores;
      const id = userId();
      const roles = Array.from({ length: 50 }, (_, i) => `role-${i}`);
      const applied = await Promise.all(roles.map((role, i) => (i % 2 ? one : two).setRole(id, null, role)));
      expect(applied.filter(Boolean)).toHaveLength(1);
      expect(await two.getRole(id)).toBe(roles[applied.indexOf(true)]);
      // 50 changes from that role to others at once: again exactly one.
      const from = roles[applied.indexOf(true)] as string;
      const next = await Promise.all(roles.map((role, i) => (i % 2 ? two : one).setRole(id, from, `${role}-b`)));
      expect(next.filter(Boolean)).toHaveLength(1);
      expect(await one.getRole(id)).toBe(`${roles[next.indexOf(true)]}-b`);
    });
  });
}
