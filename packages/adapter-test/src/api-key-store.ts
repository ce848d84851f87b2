/**
 * The conformance suite every `ApiKeyStore` runs: keys kept and read back from the other
 * instance field by field, lists by owner that never mix a user's keys with an organization's,
 * revocations and rotations that happen once however many instances race for them (a rotation
 * stores its replacement only when it revoked the old key), and the conditional write of
 * `lastUsedAt` that lets many instances record a key's use at most once per interval.
 * @module api-key-store
 */
import { randomBytes } from "node:crypto";
import type { ApiKeyRecord, ApiKeyStore } from "@latchkey/core/api-keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** What an API key store's setup hands the suite. */
export interface ApiKeyStoreFixture {
  /** Two stores over one shared backend, as two instances of an application hold them. */
  stores: [ApiKeyStore, ApiKeyStore];
  /** Closes connections and removes what the run stored. */
  teardown: () => Promise<void>;
}

/**
 * Registers the conformance tests of one API key store with vitest, in a `describe` block named
 * `name`. Every test uses ids and owners of its own.
 *
 * @example
 * ```ts
 * import { runApiKeyStoreConformance } from "@latchkey/adapter-test/api-key-store"
 * runApiKeyStoreConformance("MemoryApiKeyStore", async () => {
 *   const store = MemoryApiKeyStore()
 *   return { stores: [store, store], teardown: async () => {} }
 * })
 * ```
 */
export function runApiKeyStoreConformance(
  name: string,
  setup: () => Promise<ApiKeyStoreFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(name, () => {
    let fixture: ApiKeyStoreFixture;
    const base = Date.now() - 60_000;
    const record = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
      id: randomBytes(8).toString("hex"),
      hash: randomBytes(32).toString("base64url"),
      name: "CI deploys",
      userId: `u-${randomBytes(6).toString("hex")}`,
      organizationId: null,
      scopes: ["project:read", "project:deploy"],
      createdAt: new Date(base + 1),
      expiresAt: new Date(base + 86_400_123),
      lastUsedAt: null,
      revokedAt: null,
      rateLimit: { max: 10, windowSeconds: 60 },
      ...overrides,
    });

    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.teardown();
    });

    it("a key is read back on the other instance with every field, dates to the millisecond", async () => {
      const [one, two] = fixture.stores;
      const key = record({ name: "Déploiement ✓", organizationId: `o-${randomBytes(6).toString("hex")}` });
      await one.createApiKey(key);
      expect(await two.getApiKey(key.id)).toEqual(key);
      const bare = record({ scopes: [], expiresAt: null, rateLimit: null });
      await one.createApiKey(bare);
      expect(await two.getApiKey(bare.id)).toEqual(bare);
      expect(await two.getApiKey(randomBytes(8).toString("hex"))).toBeNull();
    });

    it("a user's list holds their own keys only, an organization's its keys only, oldest first, revoked ones included", async () => {
      const [one, two] = fixture.stores;
      const userId = `u-${randomBytes(6).toString("hex")}`;
      const organizationId = `o-${randomBytes(6).toString("hex")}`;
      const first = record({ userId, createdAt: new Date(base + 10) });
      const second = record({ userId, createdAt: new Date(base + 20) });
      const ofOrganization = record({ userId, organizationId, createdAt: new Date(base + 15) });
      const otherUser = record({ createdAt: new Date(base + 12) });
      const otherOrganization = record({ organizationId: `o-${randomBytes(6).toString("hex")}` });
      for (const key of [second, ofOrganization, first, otherUser, otherOrganization]) await one.createApiKey(key);
      expect(await one.revokeApiKey(first.id, new Date(base + 30))).toBe(true);
      const mine = await two.listApiKeys({ userId });
      expect(mine.map((k) => k.id)).toEqual([first.id, second.id]);
      expect(mine[0]?.revokedAt).toEqual(new Date(base + 30));
      expect((await two.listApiKeys({ organizationId })).map((k) => k.id)).toEqual([ofOrganization.id]);
      expect(await two.listApiKeys({ userId: `u-${randomBytes(6).toString("hex")}` })).toEqual([]);
    });

    it("a revocation is seen by the other instance, and happens once: 30 at once, exactly one revokes", async () => {
      const [one, two] = fixture.stores;
      const key = record();
      await one.createApiKey(key);
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).revokeApiKey(key.id, new Date(base + 100 + i))),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const winner = outcomes.indexOf(true);
      expect((await two.getApiKey(key.id))?.revokedAt).toEqual(new Date(base + 100 + winner));
      expect(await one.revokeApiKey(key.id, new Date()), "a revoked key is not revoked again").toBe(false);
      expect(await one.revokeApiKey(randomBytes(8).toString("hex"), new Date())).toBe(false);
    });

    it("a rotation revokes the old key and stores the new one together; 20 racing rotations leave one replacement", async () => {
      const [one, two] = fixture.stores;
      const userId = `u-${randomBytes(6).toString("hex")}`;
      const old = record({ userId });
      await one.createApiKey(old);
      const replacements = Array.from({ length: 20 }, (_, i) =>
        record({ userId, createdAt: new Date(base + 200 + i) }),
      );
      const outcomes = await Promise.all(
        replacements.map((r, i) => (i % 2 ? one : two).rotateApiKey(old.id, new Date(base + 200), r)),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const winner = replacements[outcomes.indexOf(true)] as ApiKeyRecord;
      expect((await two.getApiKey(old.id))?.revokedAt).toEqual(new Date(base + 200));
      expect(await two.getApiKey(winner.id)).toEqual(winner);
      const listed = await one.listApiKeys({ userId });
      expect(listed.map((k) => k.id).sort()).toEqual([old.id, winner.id].sort());
      for (const loser of replacements.filter((r) => r !== winner))
        expect(await two.getApiKey(loser.id), "a rotation that lost stored nothing").toBeNull();
    });

    it("a rotation of a missing or revoked key changes nothing", async () => {
      const [one, two] = fixture.stores;
      const revoked = record();
      await one.createApiKey(revoked);
      await one.revokeApiKey(revoked.id, new Date(base + 300));
      const replacement = record();
      expect(await two.rotateApiKey(revoked.id, new Date(), replacement)).toBe(false);
      expect(await two.rotateApiKey(randomBytes(8).toString("hex"), new Date(), replacement)).toBe(false);
      expect(await one.getApiKey(replacement.id)).toBeNull();
      expect((await one.getApiKey(revoked.id))?.revokedAt).toEqual(new Date(base + 300));
    });

    it("lastUsedAt is written when unset or older than the bound given, and left alone otherwise", async () => {
      const [one, two] = fixture.stores;
      const key = record();
      await one.createApiKey(key);
      await two.touchApiKey(key.id, new Date(base + 1_000), new Date(base + 400));
      expect((await one.getApiKey(key.id))?.lastUsedAt).toEqual(new Date(base + 1_000));
      await one.touchApiKey(key.id, new Date(base + 1_500), new Date(base + 1_000));
      expect((await two.getApiKey(key.id))?.lastUsedAt, "not older than `before`: kept").toEqual(
        new Date(base + 1_000),
      );
      await one.touchApiKey(key.id, new Date(base + 70_000), new Date(base + 10_000));
      expect((await two.getApiKey(key.id))?.lastUsedAt).toEqual(new Date(base + 70_000));
      await one.touchApiKey(randomBytes(8).toString("hex"), new Date(), new Date());
    });

    it("30 instances recording one use at once leave one of their times, and the key otherwise unchanged", async () => {
      const [one, two] = fixture.stores;
      const key = record();
      await one.createApiKey(key);
      const times = Array.from({ length: 30 }, (_, i) => new Date(base + 5_000 + i));
      await Promise.all(times.map((at, i) => (i % 2 ? one : two).touchApiKey(key.id, at, new Date(base + 4_000))));
      const after = await one.getApiKey(key.id);
      expect(times.map((t) => t.getTime())).toContain(after?.lastUsedAt?.getTime());
      expect({ ...after, lastUsedAt: null }).toEqual(key);
    });
  });
}
