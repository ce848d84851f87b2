/**
 * The admin tools as an attacker tries them (issue 38.5, 38.8): who may act is the server's fact,
 * read from the store on every call; nobody acts on themselves, owners are untouchable, only an
 * owner acts on another admin; a ban ends every session and key at once, or nothing at all when a
 * store fails; listing users is bounded, paged by a stable cursor, and takes its query literally.
 * Everything runs through `Auth(new Request(...))` and the real memory stores.
 */
import { describe, expect, it } from "vitest";
import type { Adapter } from "../../src/adapters.js";
import { Admin, type AdminStore, MemoryAdminStore } from "../../src/admin.js";
import { ApiKeys, MemoryApiKeyStore } from "../../src/api-keys.js";
import type { AuditEvent } from "../../src/audit.js";
import { MissingAdapterMethods, SignOutError, UnsupportedStrategy } from "../../src/errors.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import type { AuthConfig } from "../../src/types.js";
import { CookieJar, call, csrfToken, SECRET } from "../helpers.js";

const OWNER = "u-owner";
const ADMIN = "u-admin";
const OTHER_ADMIN = "u-admin-2";
const USER = "u-user";
const MALLORY = "u-mallory";
const PASSWORD = "correct horse battery staple";

interface Setup {
  strategy?: "jwt" | "database";
  revocation?: boolean;
  adapter?: (adapter: Adapter) => Adapter;
  store?: AdminStore;
}

/** One application: users in a MemoryAdapter, a password for each, the admin store in the configuration. */
async function app(setup: Setup = {}) {
  const memory = createMemoryStore();
  const base = MemoryAdapter(memory);
  const adapter = setup.adapter ? setup.adapter(base) : base;
  const store = setup.store ?? MemoryAdminStore();
  const events: AuditEvent[] = [];
  const errors: Error[] = [];
  const strategy = setup.strategy ?? "database";
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: strategy === "jwt" ? { strategy, ...(setup.revocation !== false && { revocation: true }) } : { strategy },
    admin: { store },
    events: { audit: (event) => void events.push(event) },
    logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
    rateLimit: false,
    providers: [
      Credentials({
        databaseSessions: strategy === "database",
        credentials: { email: {}, password: { type: "password" } },
        authorize: async (c) =>
          c.password === PASSWORD ? ((await base.getUserByEmail?.(String(c.email))) ?? null) : null,
      }),
    ],
  };
  for (const id of [OWNER, ADMIN, OTHER_ADMIN, USER, MALLORY])
    await base.createUser?.({ id, email: `${id}@example.com`, emailVerified: null, name: id });
  await store.setRole(ADMIN, null, "admin");
  await store.setRole(OTHER_ADMIN, null, "admin");
  const keys = ApiKeys(config, { store: MemoryApiKeyStore() });
  const admin = Admin(config, { admins: { userIds: [OWNER] }, apiKeys: keys });
  return { config, store, admin, keys, memory, events, errors };
}
type App = Awaited<ReturnType<typeof app>>;

/** The adapter with a `deleteSessions` that fails while `outage.on`, as a database that went away. */
function failingDeleteSessions(outage: { on: boolean }) {
  return (adapter: Adapter): Adapter => ({
    ...adapter,
    deleteSessions: (userId, except) => {
      if (outage.on) throw new Error("connection refused");
      return adapter.deleteSessions!(userId, except);
    },
  });
}

/** Signs `userId` in with the password; the jar and the error the sign-in answered (null: signed in). */
async function signIn(a: App, userId: string, jar = new CookieJar()) {
  const response = await call(a.config, "/auth/callback/credentials", {
    jar,
    form: { csrfToken: await csrfToken(a.config, jar), email: `${userId}@example.com`, password: PASSWORD },
  });
  const location = response.headers.get("location") ?? "";
  return { jar, error: new URL(location, "http://localhost:3000").searchParams.get("error") };
}

async function whoIs(a: App, jar: CookieJar): Promise<string | null> {
  const session = (await (await call(a.config, "/auth/session", { jar })).json()) as {
    user?: { email?: string };
  } | null;
  return session?.user?.email?.replace("@example.com", "") ?? null;
}

describe("who may act: the server's facts, read on every call", () => {
  it("rule: a user who is no admin is refused every admin function ('forbidden'), and nothing changes", async () => {
    const a = await app();
    expect(await a.admin.listUsers(MALLORY, {})).toEqual({ ok: false, reason: "forbidden" });
    expect(await a.admin.status(MALLORY, USER)).toEqual({ ok: false, reason: "forbidden" });
    expect(await a.admin.ban(MALLORY, USER, { reason: "because" })).toEqual({ ok: false, reason: "forbidden" });
    expect(await a.admin.setRole(MALLORY, MALLORY, "admin")).toEqual({ ok: false, reason: "forbidden" });
    expect(await a.admin.setRole(MALLORY, USER, "user")).toEqual({ ok: false, reason: "forbidden" });
    await a.store.setBan({ userId: USER, reason: null, bannedBy: OWNER, bannedAt: new Date(), expiresAt: null });
    expect(await a.admin.unban(MALLORY, USER)).toEqual({ ok: false, reason: "forbidden" });
    expect(await a.store.getBan(USER, new Date())).not.toBeNull();
    expect(await a.store.getRole(MALLORY)).toBeNull();
    expect(await a.admin.isAdmin(MALLORY)).toBe(false);
    expect(a.events.filter((e) => e.type.startsWith("admin."))).toEqual([]);
    // The ban stored above, not Mallory's calls, decides the user's next sign-in.
    expect((await signIn(a, USER)).error).toBe("AccessDenied");
  });

  it("rule: a role given to oneself in a session or request counts for nothing; a role taken away holds at the next call", async () => {
    const a = await app();
    // What a session, a JWT or a request says is never asked: only the store and the owners list.
    expect((await a.admin.listUsers(MALLORY, { query: "admin" })).ok).toBe(false);
    expect(await a.admin.isAdmin(ADMIN)).toBe(true);
    expect((await a.admin.listUsers(ADMIN)).ok).toBe(true);
    // Another instance (its own Admin over the same store) takes the role away.
    const other = Admin({ ...a.config }, { admins: { userIds: [OWNER] } });
    expect(await other.setRole(OWNER, ADMIN, null)).toEqual({ ok: true, value: null });
    expect(await a.admin.listUsers(ADMIN)).toEqual({ ok: false, reason: "forbidden" });
    expect(await a.admin.ban(ADMIN, USER)).toEqual({ ok: false, reason: "forbidden" });
  });

  it("rule: a banned admin is no admin", async () => {
    const a = await app();
    expect((await a.admin.ban(OWNER, OTHER_ADMIN, { reason: "compromised" })).ok).toBe(true);
    expect(await a.admin.isAdmin(OTHER_ADMIN)).toBe(false);
    expect(await a.admin.ban(OTHER_ADMIN, USER)).toEqual({ ok: false, reason: "forbidden" });
    expect(await a.admin.unban(OTHER_ADMIN, OTHER_ADMIN)).toEqual({ ok: false, reason: "forbidden" });
  });

  it("rule: nobody acts on themselves ('self'): no self-ban, self-unban or self-promotion", async () => {
    const a = await app();
    expect(await a.admin.ban(ADMIN, ADMIN)).toEqual({ ok: false, reason: "self" });
    expect(await a.admin.ban(OWNER, OWNER)).toEqual({ ok: false, reason: "self" });
    expect(await a.admin.setRole(ADMIN, ADMIN, "user")).toEqual({ ok: false, reason: "self" });
    await a.store.setBan({ userId: ADMIN, reason: null, bannedBy: OWNER, bannedAt: new Date(), expiresAt: null });
    // Banned, ADMIN is no admin at all, so cannot lift its own ban either.
    expect(await a.admin.unban(ADMIN, ADMIN)).toEqual({ ok: false, reason: "forbidden" });
  });

  it("rule: an admin cannot ban, unban or change the role of another admin or an owner, nor make an admin; an owner can, but not another owner", async () => {
    const a = await app();
    const ownerTwo = "u-owner-2";
    const admin = Admin(a.config, { admins: { userIds: [OWNER, ownerTwo] }, apiKeys: a.keys });
    expect(await admin.ban(ADMIN, OTHER_ADMIN)).toEqual({ ok: false, reason: "protected" });
    expect(await admin.ban(ADMIN, OWNER)).toEqual({ ok: false, reason: "protected" });
    expect(await admin.setRole(ADMIN, OTHER_ADMIN, "user")).toEqual({ ok: false, reason: "protected" });
    expect(await admin.setRole(ADMIN, OWNER, "user")).toEqual({ ok: false, reason: "protected" });
    expect(await admin.setRole(ADMIN, USER, "admin")).toEqual({ ok: false, reason: "forbidden" });
    expect(await a.store.getRole(USER)).toBeNull();
    expect(await admin.setRole(ADMIN, USER, "superuser")).toEqual({ ok: false, reason: "unknown-role" });
    expect(await admin.setRole(ADMIN, USER, "user")).toEqual({ ok: true, value: "user" });
    // The owner acts on admins, never on another owner.
    expect(await admin.ban(OWNER, ownerTwo)).toEqual({ ok: false, reason: "protected" });
    expect(await admin.setRole(OWNER, ownerTwo, "user")).toEqual({ ok: false, reason: "protected" });
    expect(await admin.setRole(OWNER, USER, "admin")).toEqual({ ok: true, value: "admin" });
    expect(await admin.isAdmin(USER)).toBe(true);
    expect((await admin.ban(OWNER, OTHER_ADMIN, { reason: "left the company" })).ok).toBe(true);
    await a.store.setBan({ userId: OTHER_ADMIN, reason: null, bannedBy: OWNER, bannedAt: new Date(), expiresAt: null });
    expect(await admin.unban(ADMIN, OTHER_ADMIN)).toEqual({ ok: false, reason: "protected" });
    expect((await admin.unban(OWNER, OTHER_ADMIN)).ok).toBe(true);
  });

  it("rule: a role change decided on a role that changed meanwhile is not applied ('changed')", async () => {
    const a = await app();
    const store = a.store;
    // The store answers the role the rules were checked against, then an owner makes USER an admin
    // before the admin's change is written.
    const racing: AdminStore = {
      ...store,
      async getRole(userId) {
        const role = await store.getRole(userId);
        if (userId === USER && role === null) await store.setRole(USER, null, "admin");
        return role;
      },
    };
    const b = await app({ store: racing });
    await store.setRole(ADMIN, null, "admin");
    expect(await b.admin.setRole(ADMIN, USER, "user")).toEqual({ ok: false, reason: "changed" });
    expect(await store.getRole(USER)).toBe("admin");
  });

  it("newcomer mistakes are named with their fix: the store missing from the configuration, or another store", () => {
    const store = MemoryAdminStore();
    const config: AuthConfig = { secret: SECRET, providers: [] };
    expect(() => Admin(config, { store })).toThrow(/admin: \{ store \}/);
    expect(() => Admin({ ...config, admin: { store: MemoryAdminStore() } }, { store })).toThrow(
      /must be the store given to Admin/,
    );
    expect(() => Admin({ ...config, admin: { store } }, { admins: { userIds: [""] } })).toThrow(/admins.userIds/);
    expect(() => Admin({ ...config, admin: { store } })).not.toThrow();
  });
});

describe("ban: every session and key ends at once, or nothing happens", () => {
  it("rule: a ban deletes the user's database sessions and revokes their API keys; unban lets them sign in again", async () => {
    const a = await app();
    const first = await signIn(a, USER);
    const second = await signIn(a, USER);
    expect(await whoIs(a, first.jar)).toBe(USER);
    const key = await a.keys.create(USER, { name: "CI" });
    if (!key.ok) throw new Error(key.reason);
    expect((await a.keys.verify(key.value.key)).ok).toBe(true);
    const stays = await signIn(a, MALLORY);

    const expiresAt = new Date(Date.now() + 3_600_000);
    const banned = await a.admin.ban(ADMIN, USER, { reason: "spam", expiresAt });
    expect(banned).toMatchObject({ ok: true, value: { userId: USER, reason: "spam", bannedBy: ADMIN, expiresAt } });
    expect(await whoIs(a, first.jar)).toBeNull();
    expect(await whoIs(a, second.jar)).toBeNull();
    expect([...a.memory.sessions.values()].filter((s) => s.userId === USER)).toEqual([]);
    expect(await a.keys.verify(key.value.key)).toMatchObject({ ok: false, status: 401 });
    expect(await whoIs(a, stays.jar), "another user's session").toBe(MALLORY);
    expect((await signIn(a, USER)).error).toBe("AccessDenied");

    expect(await a.admin.status(ADMIN, USER)).toMatchObject({ ok: true, value: { ban: { reason: "spam" } } });
    expect((await a.admin.unban(ADMIN, USER)).ok).toBe(true);
    expect(await a.admin.unban(ADMIN, USER)).toEqual({ ok: false, reason: "not-found" });
    const after = await signIn(a, USER);
    expect(after.error).toBeNull();
    expect(await whoIs(a, after.jar)).toBe(USER);
    expect(a.events.filter((e) => e.type.startsWith("admin.")).map((e) => e.type)).toEqual([
      "admin.user.banned",
      "admin.user.unbanned",
    ]);
    expect(a.events.find((e) => e.type === "admin.user.banned")).toMatchObject({
      userId: ADMIN,
      targetUserId: USER,
      reason: "spam",
      expiresAt,
    });
  });

  it("rule: a ban ends the user's JWT sessions through the revocation list", async () => {
    const a = await app({ strategy: "jwt" });
    const { jar } = await signIn(a, USER);
    expect(await whoIs(a, jar)).toBe(USER);
    expect((await a.admin.ban(ADMIN, USER)).ok).toBe(true);
    expect(await whoIs(a, jar)).toBeNull();
    expect((await signIn(a, USER)).error).toBe("AccessDenied");
  });

  it("rule: with JWT sessions and no session.revocation a ban throws UnsupportedStrategy naming session.revocation, and stores nothing", async () => {
    const a = await app({ strategy: "jwt", revocation: false });
    const { jar } = await signIn(a, USER);
    const attempt = a.admin.ban(ADMIN, USER, { reason: "spam" });
    await expect(attempt).rejects.toThrow(UnsupportedStrategy);
    await expect(a.admin.ban(ADMIN, USER)).rejects.toThrow(/session\.revocation/);
    expect(await a.store.getBan(USER, new Date())).toBeNull();
    expect(await whoIs(a, jar)).toBe(USER);
  });

  it("rule: a ban whose sessions cannot be ended (the adapter fails) is undone and throws SignOutError: nothing half-done, retry works", async () => {
    const outage = { on: true };
    const a = await app({ adapter: failingDeleteSessions(outage) });
    const { jar } = await signIn(a, USER);
    await expect(a.admin.ban(ADMIN, USER, { reason: "spam" })).rejects.toThrow(SignOutError);
    await expect(a.admin.ban(ADMIN, USER, { reason: "spam" })).rejects.toThrow(/Nothing was banned/);
    expect(await a.store.getBan(USER, new Date()), "the ban was undone").toBeNull();
    expect(a.events.some((e) => e.type === "admin.user.banned")).toBe(false);
    expect(await whoIs(a, jar)).toBe(USER);
    outage.on = false;
    expect((await a.admin.ban(ADMIN, USER, { reason: "spam" })).ok).toBe(true);
    expect(await whoIs(a, jar)).toBeNull();
  });

  it("rule: a re-ban that fails to end the sessions puts the earlier ban back as it was", async () => {
    const outage = { on: false };
    const a = await app({ adapter: failingDeleteSessions(outage) });
    const first = await a.admin.ban(ADMIN, USER, { reason: "first" });
    if (!first.ok) throw new Error(first.reason);
    outage.on = true;
    await expect(a.admin.ban(ADMIN, USER, { reason: "second" })).rejects.toThrow(SignOutError);
    expect(await a.store.getBan(USER, new Date())).toEqual(first.value);
  });

  it("rule: an admin store that fails refuses the ban with its error and ends nothing; sign-ins are refused while it cannot be read", async () => {
    const store = MemoryAdminStore();
    let down = false;
    const flaky: AdminStore = {
      getRole: (id) => (down ? Promise.reject(new Error("ECONNREFUSED")) : store.getRole(id)),
      setRole: (id, from, to) => store.setRole(id, from, to),
      getBan: (id, now) => (down ? Promise.reject(new Error("ECONNREFUSED")) : store.getBan(id, now)),
      setBan: (ban) => (down ? Promise.reject(new Error("ECONNREFUSED")) : store.setBan(ban)),
      removeBan: (id) => store.removeBan(id),
    };
    const a = await app({ store: flaky });
    const { jar } = await signIn(a, USER);
    down = true;
    await expect(a.admin.ban(ADMIN, USER)).rejects.toThrow(/ECONNREFUSED/);
    const refused = await signIn(a, MALLORY);
    expect(refused.error).toBe("Configuration");
    expect(refused.jar.get("authjs.session-token")).toBeUndefined();
    expect(a.errors.some((e) => /admin store could not be read/.test(e.message))).toBe(true);
    down = false;
    expect(await store.getBan(USER, new Date())).toBeNull();
    expect(await whoIs(a, jar)).toBe(USER);
  });

  it("rule: 30 bans and unbans of one user at once leave a state every instance agrees on, and sign-in follows it", async () => {
    const a = await app();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2 ? a.admin.ban(ADMIN, USER, { reason: `round ${i}` }) : a.admin.unban(OWNER, USER),
      ),
    );
    for (const outcome of outcomes) if (!outcome.ok) expect(outcome.reason).toBe("not-found");
    expect(outcomes.filter((o) => o.ok).length).toBeGreaterThanOrEqual(15);
    const left = await a.store.getBan(USER, new Date());
    const { error } = await signIn(a, USER);
    expect(error).toBe(left ? "AccessDenied" : null);
    if (left) expect(left.reason).toMatch(/^round \d+$/);
  });

  it("rule: a ban's reason with control or invisible characters, or over 500 characters, is refused, as is an expiry in the past", async () => {
    const a = await app();
    for (const reason of ["spam\u0000", "line\r\nforged: admin.user.unbanned", "\u202eevil", "x".repeat(501), "   "]) {
      expect(await a.admin.ban(ADMIN, USER, { reason })).toEqual({ ok: false, reason: "invalid-reason" });
    }
    for (const expiresAt of [new Date(Date.now() - 1), new Date(Number.NaN), "tomorrow" as unknown as Date]) {
      expect(await a.admin.ban(ADMIN, USER, { expiresAt })).toEqual({ ok: false, reason: "invalid-expiry" });
    }
    expect(await a.admin.ban(ADMIN, "\u0000", {})).toEqual({ ok: false, reason: "invalid-user" });
    expect(await a.store.getBan(USER, new Date())).toBeNull();
    await expect(a.admin.ban("", USER)).rejects.toThrow(TypeError);
  });
});

describe("listUsers: bounded, paged by a stable cursor, the query taken literally", () => {
  async function many(n: number) {
    const a = await app();
    const adapter = a.config.adapter as Adapter;
    for (let i = 0; i < n; i++)
      await adapter.createUser?.({
        id: `p-${String(i).padStart(3, "0")}`,
        email: `person${i}@${i % 2 ? "odd" : "even"}.example`,
        emailVerified: null,
        name: i === 7 ? "100%_real Ada" : `Person ${i}`,
      });
    return a;
  }

  it("pages of `limit` users ordered by id, each page's cursor the next; every user once, none skipped when users join meanwhile", async () => {
    const a = await many(25);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await a.admin.listUsers(ADMIN, { limit: 10, ...(cursor !== undefined && { cursor }) });
      if (!page.ok) throw new Error(page.reason);
      seen.push(...page.value.users.map((u) => u.user.id));
      cursor = page.value.nextCursor ?? undefined;
      // A user joining with an id before the cursor does not shift the pages that follow.
      if (pages++ === 0)
        await a.config.adapter?.createUser?.({ id: "a-new", email: "new@x.example", emailVerified: null });
    } while (cursor !== undefined);
    const all = [...a.memory.users.keys()].filter((id) => id !== "a-new").sort();
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 10));
  });

  it("a query matches e-mail or name, case aside; % and _ are no wildcards; each user comes with role and ban", async () => {
    const a = await many(12);
    const odd = await a.admin.listUsers(ADMIN, { query: "ODD.example" });
    if (!odd.ok) throw new Error(odd.reason);
    expect(odd.value.users.map((u) => u.user.id)).toEqual(["p-001", "p-003", "p-005", "p-007", "p-009", "p-011"]);
    const literal = await a.admin.listUsers(ADMIN, { query: "100%_real" });
    expect(literal.ok && literal.value.users.map((u) => u.user.id)).toEqual(["p-007"]);
    for (const query of ["%", "_", "1_0"]) {
      const none = await a.admin.listUsers(ADMIN, { query });
      expect(none.ok && none.value.users.map((u) => u.user.id), query).toEqual(
        query === "%" || query === "_" ? ["p-007"] : [],
      );
    }
    await a.admin.ban(ADMIN, USER, { reason: "spam" });
    const found = await a.admin.listUsers(ADMIN, { query: USER });
    expect(found.ok && found.value.users).toMatchObject([{ user: { id: USER }, role: null, ban: { reason: "spam" } }]);
    const admins = await a.admin.listUsers(ADMIN, { query: "u-admin" });
    expect(admins.ok && admins.value.users.map((u) => [u.user.id, u.role])).toEqual([
      [ADMIN, "admin"],
      [OTHER_ADMIN, "admin"],
    ]);
  });

  it("rule: a limit outside 1..100, a query or cursor with control characters, or a query over 200 characters is refused", async () => {
    const a = await many(3);
    for (const input of [
      { limit: 0 },
      { limit: 101 },
      { limit: 1.5 },
      { query: "ada\u0000" },
      { query: "a\r\nb" },
      { query: "x".repeat(201) },
      { query: 42 as unknown as string },
      { cursor: "p-\u0007" },
      { cursor: "" },
    ]) {
      expect(await a.admin.listUsers(ADMIN, input), JSON.stringify(input)).toEqual({
        ok: false,
        reason: "invalid-query",
      });
    }
    const hundred = await a.admin.listUsers(ADMIN, { limit: 100 });
    expect(hundred.ok && hundred.value.users.length).toBe(8);
  });

  it("an adapter without listUsers (an Auth.js adapter) gets MissingAdapterMethods naming the adapters that have it", async () => {
    const a = await app({ adapter: ({ listUsers: _, ...rest }) => rest });
    const attempt = a.admin.listUsers(ADMIN);
    await expect(attempt).rejects.toThrow(MissingAdapterMethods);
    await expect(a.admin.listUsers(ADMIN)).rejects.toThrow(/MemoryAdapter and SqlAdapter/);
  });
});
