/**
 * A banned user making API keys, as the attacker who owns the account and sees the ban coming: a
 * request of theirs that passed its session check before the ban must not leave a key that the
 * ban's `revokeUserKeys` never saw. The ban is made to land at the worst moment, between the key
 * creation's checks and its write, by the store the key is written to.
 */
import { describe, expect, it } from "vitest";
import { Admin, MemoryAdminStore } from "../../src/admin.js";
import { type ApiKeyStore, ApiKeys, MemoryApiKeyStore } from "../../src/api-keys.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import type { AuthConfig } from "../../src/types.js";
import { makeConfig } from "../helpers.js";

const OWNER = "u-owner";
const EVE = "u-eve";

/** Keys whose store runs `beforeWrite` just before it stores a new key. */
function world(beforeWrite: { run?: () => Promise<void> } = {}) {
  const adminStore = MemoryAdminStore();
  const config: AuthConfig = makeConfig({
    adapter: MemoryAdapter(),
    providers: [],
    session: { strategy: "database" },
    admin: { store: adminStore },
  });
  const memory = MemoryApiKeyStore();
  const store: ApiKeyStore = {
    ...memory,
    createApiKey: async (record) => {
      const run = beforeWrite.run;
      beforeWrite.run = undefined;
      await run?.();
      return memory.createApiKey(record);
    },
  };
  const keys = ApiKeys(config, { store, userScopes: ["reports:read"] });
  const admin = Admin(config, { admins: { userIds: [OWNER] }, apiKeys: keys });
  return { keys, admin, store: memory };
}

const bearer = (key: string) => new Request("http://localhost/api", { headers: { authorization: `Bearer ${key}` } });

describe("API keys of a banned user", () => {
  it("rule: a banned user makes no key ('forbidden'), and nothing is stored", async () => {
    const { keys, admin } = world();
    expect((await admin.ban(OWNER, EVE)).ok).toBe(true);
    const made = await keys.create(EVE, { name: "after the ban", scopes: ["reports:read"] });
    expect(made).toEqual({ ok: false, reason: "forbidden" });
    const listed = await keys.list(EVE);
    expect(listed.ok && listed.value).toEqual([]);
  });

  it("rule: a key whose creation the ban overtook (stored after the ban revoked the user's keys) is revoked, not left live", async () => {
    const hook: { run?: () => Promise<void> } = {};
    const { keys, admin } = world(hook);
    const before = await keys.create(EVE, { name: "before", scopes: ["reports:read"] });
    if (!before.ok) throw new Error(before.reason);
    hook.run = async () => {
      expect((await admin.ban(OWNER, EVE, { reason: "abuse" })).ok).toBe(true);
    };
    const racing = await keys.create(EVE, { name: "racing the ban", scopes: ["reports:read"] });
    expect(hook.run).toBeUndefined();
    expect((await keys.verify(bearer(before.value.key))).ok).toBe(false);
    if (racing.ok) expect((await keys.verify(bearer(racing.value.key))).ok).toBe(false);
    else expect(racing.reason).toBe("forbidden");
    const listed = await keys.list(EVE);
    if (!listed.ok) throw new Error(listed.reason);
    expect(listed.value.length).toBe(2);
    expect(listed.value.every((key) => key.revokedAt !== null)).toBe(true);
  });
});
