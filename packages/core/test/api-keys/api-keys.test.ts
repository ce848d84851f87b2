/**
 * API keys attacked from outside and inside: keys of another owner, revoked, expired, rotated and
 * forged keys, scopes above the creator's own, malformed and oversized headers, 30 requests at
 * once against a limit of 10, a store that fails, and logs searched for the key.
 */
import { describe, expect, it } from "vitest";
import {
  type ApiKeyRecord,
  type ApiKeyStore,
  ApiKeys,
  MemoryApiKeyStore,
  requireApiKey,
  verifyApiKey,
} from "../../src/api-keys.js";
import type { AuditEvent } from "../../src/audit.js";
import { builtInRoles, defineRoles, MemoryOrganizationStore, Organizations } from "../../src/organizations.js";
import type { AuthConfig } from "../../src/types.js";
import { makeConfig, testSecret } from "../helpers.js";

const roles = defineRoles({
  ...builtInRoles,
  member: ["project:read"],
  admin: [...builtInRoles.admin, "project:read", "project:deploy"],
});

/** A logger that keeps every line it is given, as text. */
function capturingLogger() {
  const lines: string[] = [];
  const text = (value: unknown) => {
    try {
      return value instanceof Error
        ? `${value.message} ${JSON.stringify(value)} ${String(value.cause ?? "")}`
        : JSON.stringify(value);
    } catch {
      return String(value);
    }
  };
  return {
    lines,
    logger: {
      error: (e: Error) => void lines.push(`error ${text(e)}`),
      warn: (code: string, detail?: string) => void lines.push(`warn ${code} ${detail ?? ""}`),
      debug: (message: string, metadata?: unknown) => void lines.push(`debug ${message} ${text(metadata)}`),
    },
  };
}

/** An application with an organization (olivia owner, adam admin, mia member), its keys and what it records. */
async function world(overrides: { store?: ApiKeyStore; config?: Partial<AuthConfig> } = {}) {
  const events: AuditEvent[] = [];
  const { lines, logger } = capturingLogger();
  const config = makeConfig({
    audit: {},
    events: { audit: (event) => void events.push(event) },
    logger,
    debug: true,
    ...overrides.config,
  });
  const orgs = Organizations(config, { roles, store: MemoryOrganizationStore() });
  const created = await orgs.create("olivia", { name: "Acme", slug: `acme-${crypto.randomUUID().slice(0, 8)}` });
  if (!created.ok) throw new Error(created.reason);
  const org = created.value.id;
  expect((await orgs.addMember("olivia", org, { userId: "adam", role: "admin" })).ok).toBe(true);
  expect((await orgs.addMember("olivia", org, { userId: "mia", role: "member" })).ok).toBe(true);
  const store = overrides.store ?? MemoryApiKeyStore();
  const keys = ApiKeys(config, {
    store,
    organizations: orgs,
    userScopes: (userId) => (userId === "ursula" ? ["reports:read"] : []),
  });
  return { config, orgs, org, store, keys, events, lines };
}

const made = async (result: Promise<{ ok: true; value: { key: string } } | { ok: false; reason: string }>) => {
  const r = await result;
  if (!r.ok) throw new Error(`not made: ${r.reason}`);
  return r.value.key;
};

const bearer = (key: string) => new Request("http://localhost/api", { headers: { authorization: `Bearer ${key}` } });

describe("ApiKeys: making and showing", () => {
  it("shows the key once and keeps only its keyed hash; lists never show either", async () => {
    const { keys, store } = await world();
    const result = await keys.create("ursula", { name: "Reports", scopes: ["reports:read"] });
    if (!result.ok) throw new Error(result.reason);
    const { key, record } = result.value;
    expect(key).toMatch(/^lk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(key.split("_")[1]).toBe(record.id);
    const stored = (await store.getApiKey(record.id)) as ApiKeyRecord;
    expect(stored.hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(stored)).not.toContain(key.slice(20));
    const listed = await keys.list("ursula");
    expect(listed.ok && listed.value.map((k) => k.id)).toEqual([record.id]);
    expect(JSON.stringify(listed)).not.toContain(key.slice(20));
    expect(JSON.stringify(listed)).not.toContain(stored.hash);
  });

  it("verifies from a Request, Headers, a Node.js request and a header value, Bearer or X-API-Key", async () => {
    const { keys } = await world();
    const key = await made(keys.create("ursula", { name: "Reports", scopes: ["reports:read"] }));
    const inputs = [
      bearer(key),
      new Request("http://localhost/api", { headers: { "x-api-key": key } }),
      new Headers({ authorization: `bearer ${key}` }),
      { headers: { authorization: `Bearer ${key}`, "x-api-key": key } },
      `Bearer ${key}`,
      key,
    ];
    for (const input of inputs) {
      const check = await keys.verify(input, { scopes: ["reports:read"] });
      expect(check.ok && check.key).toMatchObject({ owner: { type: "user", id: "ursula" }, scopes: ["reports:read"] });
    }
  });

  it("makes an organization's key owned by the organization, with the creator recorded", async () => {
    const { keys, org } = await world();
    const key = await made(keys.create("adam", { name: "Deploys", organizationId: org, scopes: ["project:deploy"] }));
    const check = await verifyApiKey(bearer(key), keys, { scopes: ["project:deploy"] });
    expect(check.ok && check.key).toMatchObject({
      owner: { type: "organization", id: org },
      organizationId: org,
      userId: "adam",
    });
  });

  it("records apikey.created, apikey.rotated and apikey.revoked with the key's id and never the key", async () => {
    const { keys, events, org } = await world();
    const created = await keys.create("adam", { name: "Deploys", organizationId: org, scopes: ["project:read"] });
    if (!created.ok) throw new Error(created.reason);
    const rotated = await keys.rotate("olivia", created.value.record.id);
    if (!rotated.ok) throw new Error(rotated.reason);
    expect((await keys.revoke("olivia", rotated.value.record.id)).ok).toBe(true);
    const mine = events.filter((e) => e.type.startsWith("apikey."));
    expect(mine.map((e) => e.type)).toEqual(["apikey.created", "apikey.rotated", "apikey.revoked"]);
    expect(mine[0]).toMatchObject({ userId: "adam", keyId: created.value.record.id, organizationId: org });
    expect(mine[1]).toMatchObject({
      userId: "olivia",
      keyId: created.value.record.id,
      replacedBy: rotated.value.record.id,
    });
    const recorded = JSON.stringify(mine);
    expect(recorded).not.toContain(created.value.key.slice(20));
    expect(recorded).not.toContain(rotated.value.key.slice(20));
  });
});

describe("ApiKeys: scopes only within the creator's own permissions", () => {
  it("rule: a user grants their key only scopes of their own", async () => {
    const { keys } = await world();
    expect(await keys.create("ursula", { name: "x", scopes: ["reports:write"] })).toEqual({
      ok: false,
      reason: "forbidden",
    });
    expect(await keys.create("mallory", { name: "x", scopes: ["reports:read"] })).toEqual({
      ok: false,
      reason: "forbidden",
    });
    expect((await keys.create("mallory", { name: "x" })).ok, "a key with no scopes only says who it is").toBe(true);
  });

  it("rule: an organization's key carries only the creator's role's permissions, and only managers make one", async () => {
    const { keys, org } = await world();
    expect(await keys.create("adam", { name: "x", organizationId: org, scopes: ["organization:delete"] })).toEqual({
      ok: false,
      reason: "forbidden",
    });
    expect(await keys.create("mia", { name: "x", organizationId: org, scopes: ["project:read"] })).toEqual({
      ok: false,
      reason: "forbidden",
    });
    expect(await keys.create("eve", { name: "x", organizationId: org })).toEqual({ ok: false, reason: "forbidden" });
    expect((await keys.create("olivia", { name: "x", organizationId: org, scopes: ["organization:delete"] })).ok).toBe(
      true,
    );
  });

  it("rule: a rotation is refused to a manager who does not hold the key's scopes", async () => {
    const { keys, org } = await world();
    const made = await keys.create("olivia", { name: "x", organizationId: org, scopes: ["organization:delete"] });
    if (!made.ok) throw new Error(made.reason);
    expect(await keys.rotate("adam", made.value.record.id)).toEqual({ ok: false, reason: "forbidden" });
    const check = await keys.verify(made.value.key);
    expect(check.ok, "the key refused to rotate still works").toBe(true);
  });

  it("answers a request needing a scope the key lacks with 403 insufficient_scope", async () => {
    const { keys } = await world();
    const key = await made(keys.create("ursula", { name: "Reports", scopes: ["reports:read"] }));
    const check = await keys.verify(bearer(key), { scopes: ["reports:read", "reports:write"] });
    expect(check).toMatchObject({ ok: false, status: 403, error: "insufficient_scope" });
    expect(!check.ok && check.headers["www-authenticate"]).toContain('scope="reports:read reports:write"');
  });

  it.each([
    [{ name: "" }, "invalid-name"],
    [{ name: "a\u202eb" }, "invalid-name"],
    [{ name: "x".repeat(101) }, "invalid-name"],
    [{ name: "x", scopes: ["reports"] }, "invalid-scopes"],
    [{ name: "x", scopes: "reports:read" }, "invalid-scopes"],
    [{ name: "x", expiresIn: -1 }, "invalid-expiry"],
    [{ name: "x", expiresIn: Number.POSITIVE_INFINITY }, "invalid-expiry"],
    [{ name: "x", rateLimit: { max: 0, windowSeconds: 60 } }, "invalid-rate-limit"],
    [{ name: "x", rateLimit: { max: 10 } }, "invalid-rate-limit"],
    [{ name: "x", rateLimit: { max: 10, windowSeconds: 0.5 } }, "invalid-rate-limit"],
  ])("refuses %j as %s, storing nothing", async (input, reason) => {
    const { keys } = await world();
    expect(await keys.create("ursula", input as never)).toEqual({ ok: false, reason });
    const listed = await keys.list("ursula");
    expect(listed.ok && listed.value).toEqual([]);
  });
});

describe("ApiKeys: keys of another owner", () => {
  it("rule: nobody lists, revokes or rotates a key that is not theirs; each answers as for a missing key", async () => {
    const { keys, org, orgs } = await world();
    const own = await keys.create("ursula", { name: "mine", scopes: ["reports:read"] });
    const ofOrg = await keys.create("adam", { name: "org", organizationId: org, scopes: ["project:read"] });
    if (!own.ok || !ofOrg.ok) throw new Error("not made");
    const other = await orgs.create("eve", { name: "Evil", slug: `evil-${crypto.randomUUID().slice(0, 8)}` });
    if (!other.ok) throw new Error(other.reason);
    for (const actor of ["eve", "mia", "adam"]) {
      expect(await keys.revoke(actor, own.value.record.id)).toEqual({ ok: false, reason: "not-found" });
      expect(await keys.rotate(actor, own.value.record.id)).toEqual({ ok: false, reason: "not-found" });
    }
    for (const actor of ["eve", "mia", "ursula"]) {
      expect(await keys.revoke(actor, ofOrg.value.record.id)).toEqual({ ok: false, reason: "not-found" });
      expect(await keys.list(actor, { organizationId: org })).toEqual({ ok: false, reason: "forbidden" });
    }
    expect(await keys.revoke("eve", "0123456789abcdef")).toEqual({ ok: false, reason: "not-found" });
    expect(await keys.revoke("eve", "../../etc" as string)).toEqual({ ok: false, reason: "not-found" });
    const evesList = await keys.list("eve", { organizationId: other.value.id });
    expect(evesList.ok && evesList.value, "another organization's keys are not among eve's").toEqual([]);
    expect((await keys.verify(own.value.key)).ok, "the keys still work").toBe(true);
    expect((await keys.verify(ofOrg.value.key)).ok).toBe(true);
  });

  it("throws a TypeError for an acting user that is not a session's user id, naming the fix", async () => {
    const { keys } = await world();
    await expect(keys.create(undefined as never, { name: "x" })).rejects.toThrow(/acting user's id/);
  });
});

describe("ApiKeys: keys that must not open anything", () => {
  it("rule: a revoked key is refused at once, by every instance over the store", async () => {
    const { keys, store, config, orgs } = await world();
    const otherInstance = ApiKeys(config, { store, organizations: orgs });
    const made = await keys.create("ursula", { name: "x", scopes: ["reports:read"] });
    if (!made.ok) throw new Error(made.reason);
    expect((await otherInstance.verify(made.value.key)).ok).toBe(true);
    expect((await keys.revoke("ursula", made.value.record.id)).ok).toBe(true);
    expect(await otherInstance.verify(made.value.key)).toMatchObject({
      ok: false,
      status: 401,
      error: "invalid_token",
    });
    expect(await keys.revoke("ursula", made.value.record.id), "revoked once").toEqual({
      ok: false,
      reason: "not-found",
    });
  });

  it("rule: a deleted user's keys, their own and the organization's they made, are refused once revokeUserKeys runs", async () => {
    const { keys, org, config, store, orgs } = await world();
    const otherInstance = ApiKeys(config, { store, organizations: orgs });
    const own = await keys.create("adam", { name: "mine" });
    const ofOrganization = await keys.create("adam", { name: "deploys", organizationId: org });
    const neighbour = await keys.create("olivia", { name: "hers", organizationId: org });
    if (!own.ok || !ofOrganization.ok || !neighbour.ok) throw new Error("create refused");
    for (const made of [own, ofOrganization]) expect((await otherInstance.verify(made.value.key)).ok).toBe(true);
    expect(await keys.revokeUserKeys("adam")).toBe(2);
    for (const made of [own, ofOrganization])
      expect(await otherInstance.verify(made.value.key)).toMatchObject({ ok: false, status: 401 });
    expect((await otherInstance.verify(neighbour.value.key)).ok, "another member's key").toBe(true);
    expect(await keys.revokeUserKeys("adam"), "nothing left").toBe(0);
  });

  it("rule: an expired key is refused", async () => {
    const { keys, store } = await world();
    const made = await keys.create("ursula", { name: "x", expiresIn: 3600 });
    if (!made.ok) throw new Error(made.reason);
    expect((await keys.verify(made.value.key)).ok).toBe(true);
    const stored = (await store.getApiKey(made.value.record.id)) as ApiKeyRecord;
    await store.createApiKey({ ...stored, expiresAt: new Date(Date.now() - 1) });
    expect(await keys.verify(made.value.key)).toMatchObject({ ok: false, status: 401, error: "invalid_token" });
  });

  it("rule: a rotated key is refused and its replacement carries the same scopes", async () => {
    const { keys } = await world();
    const made = await keys.create("ursula", { name: "x", scopes: ["reports:read"] });
    if (!made.ok) throw new Error(made.reason);
    const rotated = await keys.rotate("ursula", made.value.record.id);
    if (!rotated.ok) throw new Error(rotated.reason);
    expect((await keys.verify(made.value.key)).ok).toBe(false);
    const check = await keys.verify(rotated.value.key, { scopes: ["reports:read"] });
    expect(check.ok && check.key.name).toBe("x");
  });

  it("rule: the id finds the record and the secret is compared as a keyed hash: a key off by one character is refused alike", async () => {
    const { keys, store } = await world();
    const key = await made(keys.create("ursula", { name: "x" }));
    const last = key.at(-1) === "A" ? "B" : "A";
    const first = key.slice(0, 20) + (key[20] === "A" ? "B" : "A") + key.slice(21);
    const refusals = [];
    for (const forged of [key.slice(0, -1) + last, first, `lk_0123456789abcdef_${key.slice(20)}`]) {
      refusals.push(await keys.verify(forged));
    }
    for (const refusal of refusals) expect(refusal).toEqual(refusals[0]);
    expect(refusals[0]).toMatchObject({ ok: false, status: 401, error: "invalid_token" });
    // What is stored cannot be compared piece by piece with what is sent: keys sharing 62 characters hash apart.
    const id = key.split("_")[1] as string;
    const stored = (await store.getApiKey(id)) as ApiKeyRecord;
    expect(stored.hash.slice(0, 8)).not.toBe(key.slice(20, 28));
  });

  it("rule: a key made under a secret still listed after a rotation of secrets keeps working; one whose secret is gone does not", async () => {
    const old = testSecret("apikey-old");
    const { keys, store, orgs } = await world({ config: { secret: old } });
    const key = await made(keys.create("ursula", { name: "x" }));
    const rotated = ApiKeys(makeConfig({ secret: [testSecret("apikey-new"), old] }), { store, organizations: orgs });
    expect((await rotated.verify(key)).ok).toBe(true);
    const retired = ApiKeys(makeConfig({ secret: testSecret("apikey-new") }), { store, organizations: orgs });
    expect((await retired.verify(key)).ok).toBe(false);
  });

  it.each([
    ["no key", new Request("http://localhost/api"), 401, undefined],
    ["Basic credentials", new Headers({ authorization: "Basic dXNlcjpwYXNz" }), 401, undefined],
    ["a key of 10 kB", `lk_0123456789abcdef_${"A".repeat(10_000)}`, 400, "invalid_request"],
    ["a header sent twice", { headers: { "x-api-key": ["lk_a", "lk_b"] } }, 400, "invalid_request"],
    ["two different keys", { headers: { authorization: "Bearer lk_a", "x-api-key": "lk_b" } }, 400, "invalid_request"],
    [
      "Authorization twice, joined by a Web Headers",
      new Headers([
        ["authorization", "Bearer lk_a"],
        ["authorization", "Bearer lk_a"],
      ]),
      400,
      "invalid_request",
    ],
    ["X-API-Key twice, joined by Node.js", { headers: { "x-api-key": "lk_a, lk_b" } }, 400, "invalid_request"],
    [
      "Authorization twice, its second only in Node.js's rawHeaders",
      {
        headers: { authorization: "Bearer lk_a" },
        rawHeaders: ["Authorization", "Bearer lk_a", "authorization", "Bearer lk_b"],
      },
      400,
      "invalid_request",
    ],
    ["a Bearer value of two tokens", "Bearer lk_a lk_b", 400, "invalid_request"],
    ["control characters", "lk_0123456789abcdef_\u0000\r\nset-cookie: x", 401, "invalid_token"],
    ["another prefix", `gh_0123456789abcdef_${"A".repeat(43)}`, 401, "invalid_token"],
    ["a JWT", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", 401, "invalid_token"],
    ["a number", 42, 400, "invalid_request"],
  ])("answers %s with %i, never a throw", async (_, input, status, error) => {
    const { keys } = await world();
    const check = await keys.verify(input as never);
    expect(check).toMatchObject({ ok: false, status, ...(error ? { error } : {}) });
    if (!check.ok) expect(check.headers["cache-control"]).toBe("no-store");
  });
});

describe("ApiKeys: limits and last use", () => {
  it("rule: 30 requests at once against a key limited to 10 let exactly 10 through, the rest 429 with Retry-After", async () => {
    const { keys } = await world();
    const key = await made(keys.create("ursula", { name: "x", rateLimit: { max: 10, windowSeconds: 60 } }));
    const checks = await Promise.all(Array.from({ length: 30 }, () => keys.verify(bearer(key))));
    expect(checks.filter((c) => c.ok)).toHaveLength(10);
    const limited = checks.filter((c) => !c.ok);
    expect(limited).toHaveLength(20);
    for (const c of limited) {
      expect(c).toMatchObject({ status: 429, error: "rate_limited" });
      expect(Number(!c.ok && c.headers["retry-after"])).toBeGreaterThan(0);
    }
  });

  it("rule: 50 requests at once through two ApiKeys objects over two configuration objects of one application count in one limit", async () => {
    const { keys, store } = await world();
    const key = await made(keys.create("ursula", { name: "x", rateLimit: { max: 10, windowSeconds: 60 } }));
    // Another configuration object and another ApiKeys, as a second mount or a per-request configuration makes them.
    const again = ApiKeys(makeConfig({ audit: {} }), { store });
    const checks = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? keys : again).verify(i % 3 ? bearer(key) : { headers: { "x-api-key": key } }),
      ),
    );
    expect(checks.filter((c) => c.ok)).toHaveLength(10);
    expect(checks.filter((c) => !c.ok && c.status === 429)).toHaveLength(40);
  });

  it("rule: a refused key counts nothing against the real key's limit", async () => {
    const { keys } = await world();
    const key = await made(keys.create("ursula", { name: "x", rateLimit: { max: 2, windowSeconds: 60 } }));
    const forged = `${key.slice(0, -1)}${key.at(-1) === "A" ? "B" : "A"}`;
    await Promise.all(Array.from({ length: 20 }, () => keys.verify(forged)));
    expect((await keys.verify(key)).ok).toBe(true);
    expect((await keys.verify(key)).ok).toBe(true);
    expect((await keys.verify(key)).ok).toBe(false);
  });

  it("writes lastUsedAt once for 30 requests at once, not once per request", async () => {
    const inner = MemoryApiKeyStore();
    let writes = 0;
    const store: ApiKeyStore = {
      ...inner,
      touchApiKey: (...args) => {
        writes++;
        return inner.touchApiKey(...args);
      },
    };
    const { keys } = await world({ store });
    const made = await keys.create("ursula", { name: "x" });
    if (!made.ok) throw new Error(made.reason);
    const before = Date.now();
    await Promise.all(Array.from({ length: 30 }, () => keys.verify(made.value.key)));
    for (let i = 0; i < 5; i++) await keys.verify(made.value.key);
    expect(writes).toBe(1);
    const listed = await keys.list("ursula");
    const lastUsed = listed.ok ? listed.value[0]?.lastUsedAt : null;
    expect(lastUsed?.getTime()).toBeGreaterThanOrEqual(before);
  });
});

describe("ApiKeys: a store that fails, and the logs", () => {
  it("rule: a store outage fails closed with 503 and a log line naming the store", async () => {
    const inner = MemoryApiKeyStore();
    const down = { value: false };
    const store: ApiKeyStore = {
      ...inner,
      getApiKey: (id) =>
        down.value ? Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6379")) : inner.getApiKey(id),
    };
    const { keys, lines } = await world({ store });
    const key = await made(keys.create("ursula", { name: "x" }));
    down.value = true;
    const check = await keys.verify(bearer(key));
    expect(check).toMatchObject({ ok: false, status: 503, error: "temporarily_unavailable" });
    expect(lines.some((l) => l.startsWith("error") && l.includes("API key store could not be read"))).toBe(true);
    const response = await requireApiKey(bearer(key), keys);
    expect(response instanceof Response && response.status).toBe(503);
  });

  it("rule: no key reaches the logs, for a succeeding, a refused and a failing request", async () => {
    const inner = MemoryApiKeyStore();
    const down = { value: false };
    const store: ApiKeyStore = {
      ...inner,
      getApiKey: (id) => (down.value ? Promise.reject(new Error("store down")) : inner.getApiKey(id)),
      touchApiKey: () => Promise.reject(new Error("store down")),
    };
    const { keys, lines } = await world({ store });
    const key = await made(keys.create("ursula", { name: "x", scopes: ["reports:read"] }));
    const secret = key.slice(20);
    expect((await keys.verify(bearer(key))).ok).toBe(true);
    await keys.verify(bearer(`${key.slice(0, -1)}${key.at(-1) === "A" ? "B" : "A"}`));
    await keys.verify(bearer(key), { scopes: ["reports:write"] });
    down.value = true;
    await keys.verify(bearer(key));
    // The failed write of lastUsedAt is logged in the background: wait for its line.
    await expect.poll(() => lines.some((l) => l.includes("last use"))).toBe(true);
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) {
      expect(line).not.toContain(secret);
      expect(line).not.toContain(secret.slice(0, 16));
    }
  });

  it("requireApiKey answers a refusal as a JSON Response with its challenge, and a pass with the principal", async () => {
    const { keys } = await world();
    const key = await made(keys.create("ursula", { name: "x", scopes: ["reports:read"] }));
    const refused = await requireApiKey(bearer(`${key}x`), keys);
    if (!(refused instanceof Response)) throw new Error("not refused");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await refused.json()).toEqual({ error: "invalid_token", error_description: "The API key is not valid" });
    const passed = await requireApiKey(bearer(key), keys, { scopes: ["reports:read"] });
    expect(passed instanceof Response ? passed.status : passed.owner).toEqual({ type: "user", id: "ursula" });
  });

  it.each([
    [{ store: undefined }, /`store` must be an ApiKeyStore/],
    [{ prefix: "LK_" }, /`prefix` must be 1 to 16 lower-case/],
    [{ managePermission: "admin" }, /`managePermission` must be a "resource:action"/],
    [{ userScopes: "reports:read" }, /`userScopes` must be a list/],
  ])("names the mistake in %j", (options, message) => {
    expect(() => ApiKeys(makeConfig(), { store: MemoryApiKeyStore(), ...(options as object) } as never)).toThrow(
      message,
    );
    expect(() => verifyApiKey("x", {} as never)).toThrow(/pass the object ApiKeys/);
  });
});
