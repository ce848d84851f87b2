/**
 * The active organization on the session (issue 38.1) and `requireAuth`'s organization guard
 * (38.1, `guard`), attacked: a member choosing an organization they are not in, a member removed
 * or demoted on another instance (JWT and database sessions), forged fields in a session update,
 * a choice planted from another user's browser, a missing CSRF token, repeated fields.
 * "Two instances" are two configuration objects of one application sharing one organization
 * store, as two servers share their database.
 */
import { describe, expect, it } from "vitest";
import type { Adapter, AdapterUser } from "../../src/adapters.js";
import { guard } from "../../src/internal.js";
import { activeOrganizationCookie } from "../../src/lib/organizations/active.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import {
  builtInRoles,
  defineRoles,
  MemoryOrganizationStore,
  type OrganizationStore,
  Organizations,
} from "../../src/organizations.js";
import type { AuthConfig } from "../../src/types.js";
import { CookieJar, call, csrfToken, makeConfig, ORIGIN, recordingLogger, SECRET, signIn } from "../helpers.js";

const roles = defineRoles({
  ...builtInRoles,
  member: ["project:read"],
  admin: [...builtInRoles.admin, "project:read", "project:delete"],
});

/** Two instances of one application (JWT sessions) sharing `store`, and an organization where ada (u1) is an admin. */
async function jwtWorld(store: OrganizationStore = MemoryOrganizationStore()) {
  const { logger } = recordingLogger();
  const a = makeConfig({ logger, organizations: { store, roles } });
  const b = makeConfig({ logger, organizations: { store, roles } });
  const orgs = Organizations(b, { roles, store });
  const acme = await orgs.create("olivia", { name: "Acme", slug: `acme-${crypto.randomUUID().slice(0, 8)}` });
  const other = await orgs.create("olivia", { name: "Other", slug: `other-${crypto.randomUUID().slice(0, 8)}` });
  if (!acme.ok || !other.ok) throw new Error("setup");
  expect((await orgs.addMember("olivia", acme.value.id, { userId: "u1", role: "admin" })).ok).toBe(true);
  const { jar } = await signIn(a);
  return { a, b, orgs, acme: acme.value.id, other: other.value.id, jar, userId: "u1" };
}

/** The same with database sessions: one adapter (the shared database) behind both instances. */
async function databaseWorld() {
  const store = MemoryOrganizationStore();
  const adapter: Adapter = MemoryAdapter(createMemoryStore());
  const { logger } = recordingLogger();
  const a = makeConfig({ adapter, providers: [], logger, organizations: { store, roles } });
  const b = makeConfig({ adapter, providers: [], logger, organizations: { store, roles } });
  const user = (await adapter.createUser!({
    id: crypto.randomUUID(),
    name: "Grace",
    email: `grace+${crypto.randomUUID()}@example.com`,
    emailVerified: null,
    image: null,
  })) as AdapterUser;
  const sessionToken = crypto.randomUUID();
  await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 86_400_000) });
  const jar = new CookieJar();
  jar.cookies.set("authjs.session-token", sessionToken);
  const orgs = Organizations(b, { roles, store });
  const acme = await orgs.create("olivia", { name: "Acme", slug: `acme-${crypto.randomUUID().slice(0, 8)}` });
  if (!acme.ok) throw new Error("setup");
  expect((await orgs.addMember("olivia", acme.value.id, { userId: user.id, role: "admin" })).ok).toBe(true);
  return { a, b, orgs, acme: acme.value.id, jar, userId: user.id };
}

async function choose(config: AuthConfig, jar: CookieJar, organizationId: unknown) {
  const token = await csrfToken(config, jar);
  return call(config, "/auth/organization", { jar, json: { csrfToken: token, organizationId } });
}

async function sessionOf(config: AuthConfig, jar: CookieJar) {
  return (await (await call(config, "/auth/session", { jar })).json()) as {
    activeOrganization?: { id: string; role: string } | null;
  } | null;
}

const guardRequest = (jar: CookieJar) => ({
  protocol: "http",
  host: new URL(ORIGIN).host,
  cookieHeader: jar.header(),
  accept: "application/json",
  url: "/projects",
});

describe("the active organization", () => {
  it("is chosen among the user's organizations, and read with the role the store holds", async () => {
    const { a, b, acme, jar } = await jwtWorld();
    const chosen = await choose(a, jar, acme);
    expect(chosen.status).toBe(200);
    expect(await chosen.json()).toEqual({ activeOrganization: { id: acme, role: "admin" } });
    // Read on the other instance: the same organization and role.
    expect((await sessionOf(b, jar))?.activeOrganization).toEqual({ id: acme, role: "admin" });
    const passed = await guard(b, { permission: "project:delete" })(guardRequest(jar));
    // The guard's session carries it (the application augments its `Session` type to say so).
    const session = passed.session as { activeOrganization?: { id: string; role: string } | null } | undefined;
    expect(session?.activeOrganization).toEqual({ id: acme, role: "admin" });
    expect(roles.can(session, "project:delete")).toBe(true);
  });

  it("rule: a member cannot make an organization they are not in active (answered as one that does not exist)", async () => {
    const { a, other, jar } = await jwtWorld();
    const notMine = await choose(a, jar, other);
    const missing = await choose(a, jar, crypto.randomUUID());
    expect(notMine.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await notMine.json()).toEqual(await missing.json());
    expect([...jar.cookies.keys()].some((name) => name.endsWith("-organization"))).toBe(false);
    expect((await sessionOf(a, jar))?.activeOrganization).toBeNull();
    expect(await guard(a, { organization: true })(guardRequest(jar))).toMatchObject({
      response: { status: 403, body: { error: "OrganizationRequired" } },
    });
  });

  it("rule: a member removed on another instance loses the active organization at the next read (JWT sessions)", async () => {
    const { a, orgs, acme, jar, userId } = await jwtWorld();
    expect((await choose(a, jar, acme)).status).toBe(200);
    expect((await orgs.removeMember("olivia", acme, userId)).ok).toBe(true); // on instance b
    // The JWT cookie is unchanged; the membership is read from the store on every read.
    expect((await sessionOf(a, jar))?.activeOrganization).toBeNull();
    expect(await guard(a, { organization: true })(guardRequest(jar))).toMatchObject({
      response: { status: 403, body: { error: "OrganizationRequired" } },
    });
    // Re-choosing it is refused too.
    expect((await choose(a, jar, acme)).status).toBe(404);
  });

  it("rule: a member demoted on another instance loses the role's permissions at the next read (JWT sessions)", async () => {
    const { a, orgs, acme, jar, userId } = await jwtWorld();
    expect((await choose(a, jar, acme)).status).toBe(200);
    const deleting = guard(a, { permission: "project:delete" });
    expect((await deleting(guardRequest(jar))).session).toBeDefined();
    expect((await orgs.setRole("olivia", acme, userId, "member")).ok).toBe(true);
    expect((await sessionOf(a, jar))?.activeOrganization).toEqual({ id: acme, role: "member" });
    expect(await deleting(guardRequest(jar))).toMatchObject({
      response: { status: 403, body: { error: "Forbidden" } },
    });
    expect(await guard(a, { role: "admin" })(guardRequest(jar))).toMatchObject({ response: { status: 403 } });
    expect((await guard(a, { role: ["admin", "member"] })(guardRequest(jar))).session).toBeDefined();
  });

  it("rule: a member removed on another instance loses the active organization at the next read (database sessions)", async () => {
    const { a, b, orgs, acme, jar, userId } = await databaseWorld();
    expect((await choose(a, jar, acme)).status).toBe(200);
    expect((await sessionOf(b, jar))?.activeOrganization).toEqual({ id: acme, role: "admin" });
    expect((await orgs.removeMember("olivia", acme, userId)).ok).toBe(true);
    expect((await sessionOf(a, jar))?.activeOrganization).toBeNull();
    expect((await sessionOf(b, jar))?.activeOrganization).toBeNull();
    expect(await guard(a, { permission: "project:read" })(guardRequest(jar))).toMatchObject({
      response: { status: 403, body: { error: "OrganizationRequired" } },
    });
  });

  it("rule: a session update cannot forge the active organization, whatever the callbacks copy", async () => {
    const store = MemoryOrganizationStore();
    const { logger } = recordingLogger();
    // An application whose callbacks copy whatever the client sends into the token and the session.
    const config = makeConfig({
      logger,
      organizations: { store, roles },
      callbacks: {
        jwt: ({ token, trigger, session }) =>
          trigger === "update" && session && typeof session === "object" ? { ...token, ...session } : token,
        session: ({ session, token }) => ({ ...session, activeOrganization: token.activeOrganization }) as never,
      },
    });
    const orgs = Organizations(config, { roles, store });
    const victim = await orgs.create("olivia", { name: "Victim", slug: `victim-${crypto.randomUUID().slice(0, 8)}` });
    if (!victim.ok) throw new Error("setup");
    const { jar } = await signIn(config);
    const token = await csrfToken(config, jar);
    const forged = { activeOrganization: { id: victim.value.id, role: "owner" } };
    const updated = await call(config, "/auth/session", { jar, json: { csrfToken: token, data: forged } });
    expect(((await updated.json()) as { activeOrganization: unknown }).activeOrganization).toBeNull();
    expect((await sessionOf(config, jar))?.activeOrganization).toBeNull();
    expect(await guard(config, { role: "owner" })(guardRequest(jar))).toMatchObject({ response: { status: 403 } });
  });

  it("rule: a choice planted from another user's browser, or altered, does not open", async () => {
    const { a, acme, jar } = await jwtWorld();
    const orgs = Organizations(a, { roles, store: (a.organizations as { store: OrganizationStore }).store });
    // Mallory (another user of the same application) is an owner of her own organization.
    const mallorys = await orgs.create("mallory", { name: "M", slug: `m-${crypto.randomUUID().slice(0, 8)}` });
    if (!mallorys.ok) throw new Error("setup");
    expect((await orgs.addMember("mallory", mallorys.value.id, { userId: "u1", role: "member" })).ok).toBe(true);
    expect((await choose(a, jar, acme)).status).toBe(200);
    const name = [...jar.cookies.keys()].find((n) => n.endsWith("-organization")) as string;
    const [id, mac] = (jar.get(name) as string).split(".") as [string, string];
    // The value of the cookie sealed for ada, with another organization's id under the same seal.
    jar.cookies.set(name, `${Buffer.from(mallorys.value.id).toString("base64url")}.${mac}`);
    expect((await sessionOf(a, jar))?.activeOrganization).toBeNull();
    jar.cookies.set(name, `${id}.${mac.slice(0, -2)}AA`);
    expect((await sessionOf(a, jar))?.activeOrganization).toBeNull();
    // The cookie the server seals for mallory's own browser, copied into ada's: it names an
    // organization ada is a member of, and still does not open for ada.
    const forMallory = activeOrganizationCookie([SECRET], { name, options: {} }, "mallory", mallorys.value.id);
    jar.cookies.set(name, forMallory.value);
    expect((await sessionOf(a, jar))?.activeOrganization).toBeNull();
    for (const garbage of ["", ".", "x.y", "%00", "a".repeat(5000)]) {
      jar.cookies.set(name, garbage);
      expect((await sessionOf(a, jar))?.activeOrganization ?? null).toBeNull();
    }
  });

  it("rule: switching needs the CSRF token and a session; a repeated or non-string id is a 400", async () => {
    const { a, acme, jar } = await jwtWorld();
    const noToken = await call(a, "/auth/organization", { jar, json: { organizationId: acme } });
    // Refused as every action refuses a missing token: to the error page, naming MissingCSRF.
    expect(noToken.status).toBe(302);
    expect(noToken.headers.get("location")).toContain("error=MissingCSRF");
    expect([...jar.cookies.keys()].some((n) => n.endsWith("-organization"))).toBe(false);
    for (const organizationId of [[acme, acme], { id: acme }, 42, "x".repeat(300), "a\u0000b"]) {
      const answer = await choose(a, jar, organizationId);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error: "InvalidOrganization" });
    }
    const signedOut = new CookieJar();
    expect((await choose(a, signedOut, acme)).status).toBe(401);
  });

  it("is cleared with an empty id", async () => {
    const { a, acme, jar } = await jwtWorld();
    expect((await choose(a, jar, acme)).status).toBe(200);
    expect(await (await choose(a, jar, "")).json()).toEqual({ activeOrganization: null });
    expect((await sessionOf(a, jar))?.activeOrganization).toBeNull();
  });

  it("rule: a sign-out clears the active organization's cookie with the session's", async () => {
    const { a, acme, jar } = await jwtWorld();
    expect((await choose(a, jar, acme)).status).toBe(200);
    const name = [...jar.cookies.keys()].find((n) => n.endsWith("-organization"));
    expect(name).toBeDefined();
    const token = await csrfToken(a, jar);
    const out = await call(a, "/auth/signout", { jar, form: { csrfToken: token } });
    expect(out.status).toBe(302);
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
    expect(cleared).toMatch(/max-age=0/i);
    expect(jar.cookies.has(name as string)).toBe(false);
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
  });

  it("rule: 40 concurrent switches and reads while the member is removed never read the organization after the removal", async () => {
    const { a, b, orgs, acme, jar, userId } = await jwtWorld();
    expect((await choose(a, jar, acme)).status).toBe(200);
    expect((await orgs.removeMember("olivia", acme, userId)).ok).toBe(true);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? sessionOf(i % 4 === 1 ? a : b, jar).then((s) => s?.activeOrganization ?? null)
          : choose(a, jar, acme).then((r) => r.status),
      ),
    );
    for (const [i, answer] of answers.entries()) expect(answer).toEqual(i % 2 ? null : 404);
  });

  it("a configuration without `organizations` serves no /organization, and a guard demanding one is refused when made", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    const { jar } = await signIn(config);
    const answer = await choose(config, jar, "x");
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(() => guard(config, { permission: "project:read" })).toThrow(/organizations: \{ store, roles \}/);
    expect(() =>
      guard(makeConfig({ organizations: { store: MemoryOrganizationStore(), roles } }), { role: "boss" }),
    ).toThrow(/not declared/);
  });

  it("rule: a store that fails reads as no active organization, and the guard refuses (fail closed)", async () => {
    const store = MemoryOrganizationStore();
    const { a, acme, jar } = await jwtWorld(store);
    expect((await choose(a, jar, acme)).status).toBe(200);
    store.getMembership = async () => {
      throw new Error("connection refused");
    };
    expect((await sessionOf(a, jar))?.activeOrganization).toBeNull();
    expect(await guard(a, { organization: true })(guardRequest(jar))).toMatchObject({ response: { status: 403 } });
  });

  it("rule: a switch while the store is down is a 503 with Retry-After, logged, and chooses nothing", async () => {
    const store = MemoryOrganizationStore();
    const { a, acme, other, jar } = await jwtWorld(store);
    expect((await choose(a, jar, acme)).status).toBe(200);
    const chosen = jar.header();
    const membership = store.getMembership;
    store.getMembership = async () => {
      throw new Error("connection refused");
    };
    const down = await choose(a, jar, other);
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(down.headers.getSetCookie().filter((c) => c.includes("-organization="))).toEqual([]);
    expect(JSON.stringify(await down.json())).not.toContain("connection refused");
    store.getMembership = membership;
    expect(jar.header()).toBe(chosen);
    expect((await sessionOf(a, jar))?.activeOrganization?.id).toBe(acme);
  });
});
