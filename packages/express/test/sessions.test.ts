/**
 * Sessions a user can see and end, and linked accounts, over Express with the SQL adapter on
 * PostgreSQL and a real OpenID Provider: two devices sign in, list, revoke, revoke the others,
 * revoke all; accounts are listed without tokens and unlinked, never the last one. Attacks: other
 * users' and forged session ids, revocation racing session refreshes, concurrent lists and unlinks.
 */

import { randomBytes } from "node:crypto";
import {
  type AuthConfig,
  ExpressAuth,
  getSession,
  listAccounts,
  listSessions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  unlinkAccount,
} from "@latchkey/express";
import OIDC from "@latchkey/express/providers/generic-oidc";
import { SqlAdapter } from "@latchkey/sql-adapter";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { Browser } from "../../core/test/oauth/support/browser.js";
import { SECRET, signInThrough } from "../../core/test/oauth/support/flow.js";
import { startOP, type TestOP } from "../../core/test/oauth/support/op.js";
import { listen } from "./helpers.js";
import { type Db, type ScratchDatabase, scratchPostgres } from "./stores.js";

const FIREFOX_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const CHROME_WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/** A browser on one device: every request carries its user agent. */
class Device extends Browser {
  constructor(readonly userAgent: string) {
    super();
  }
  override request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("user-agent", this.userAgent);
    return super.request(url, { ...init, headers });
  }
  /** The raw session token in this device's cookie jar. */
  token(app: string): string | undefined {
    return this.jar(app).get("authjs.session-token");
  }
  /** The CSRF token a page of the application gives this device: the one of its CSRF cookie. */
  csrf(app: string): string {
    return decodeURIComponent(this.jar(app).get("authjs.csrf-token") ?? "").split("|")[0] ?? "";
  }
  /** A JSON post from a page of the application: it carries the device's CSRF token. */
  json(url: string, body: Record<string, unknown>): Promise<Response> {
    return this.request(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ csrfToken: this.csrf(url), ...body }),
    });
  }
}

interface Listed {
  id: string;
  current: boolean;
  device: string | null;
  clientAddress: string | null;
  createdAt: string | null;
  lastSeenAt: string | null;
  expires: string;
}

let up = false;
let database: ScratchDatabase;
let db: Db;
let op: TestOP;
let closeApp: (() => Promise<void>) | undefined;
let app = "";
const signOuts: { reason?: string; sessionToken?: string }[] = [];
const unlinked: { provider: string; account: Record<string, unknown> }[] = [];

const sessionRows = async (userId?: string) => {
  let query = db.selectFrom("sessions").selectAll();
  if (userId) query = query.where("userId", "=", userId);
  return query.execute();
};
const userIdOf = async (email: string) =>
  String((await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id);

beforeAll(async () => {
  up = await serviceAvailable("PostgreSQL", 5432);
  if (!up) return;
  database = await scratchPostgres("sessions", 10);
  db = database.db;

  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: SqlAdapter(db as never),
    // Every read refreshes the session: the most writes a revocation can race with.
    session: { updateAge: 0 },
    logger: { error() {}, warn() {}, debug() {} },
    events: {
      signOut: ({ session, reason }) => {
        signOuts.push({ reason, sessionToken: session?.sessionToken });
      },
      unlinkAccount: ({ account }) => {
        unlinked.push({ provider: account.provider, account: { ...account } });
      },
    },
    providers: [
      () => OIDC({ id: "op", name: "Test OP", issuer: op.issuer, clientId: "latchkey", clientSecret: "secret-one" }),
      () =>
        OIDC({
          id: "second",
          name: "Second OP",
          issuer: op.issuer,
          clientId: "latchkey-2",
          clientSecret: "secret-two",
        }),
    ],
  };
  const application = express();
  application.use("/auth", ExpressAuth(config));
  application.use(express.json());
  // The application's own routes, as the README shows them.
  application.get("/account/sessions", async (req, res) => {
    res.json(await listSessions(req, config));
  });
  application.post("/account/sessions/revoke", async (req, res) => {
    res.json({ revoked: await revokeSession(req, config, req.body?.id) });
  });
  application.post("/account/sessions/revoke-others", async (req, res) => {
    res.json({ revoked: await revokeOtherSessions(req, config) });
  });
  application.post("/admin/users/:id/revoke-all", async (req, res) => {
    res.json({ revoked: await revokeUserSessions(config, String(req.params.id), { reason: "password-changed" }) });
  });
  application.get("/account/accounts", async (req, res) => {
    res.json(await listAccounts(req, config));
  });
  application.post("/account/accounts/unlink", async (req, res) => {
    res.json(await unlinkAccount(req, config, { provider: req.body?.provider, providerAccountId: req.body?.id }));
  });
  // A second instance of the application: another configuration object (its own resolved
  // configuration and in-process state) over the same database.
  const twin: AuthConfig = { ...config };
  application.post("/twin/account/accounts/unlink", async (req, res) => {
    res.json(await unlinkAccount(req, twin, { provider: req.body?.provider, providerAccountId: req.body?.id }));
  });
  application.get("/me", async (req, res) => {
    res.json(await getSession(req, config));
  });
  application.use((error: Error, _req: unknown, res: express.Response, _next: unknown) => {
    console.error("route failed:", error, (error as { cause?: unknown }).cause);
    res.status(500).end();
  });
  ({ url: app, close: closeApp } = await listen(application, "127.0.0.1"));
  op = await startOP([
    { client_id: "latchkey", client_secret: "secret-one", redirect_uris: [`${app}/auth/callback/op`] },
    { client_id: "latchkey-2", client_secret: "secret-two", redirect_uris: [`${app}/auth/callback/second`] },
  ]);
});

afterAll(async () => {
  if (!up) return;
  await op?.close();
  await closeApp?.();
  await database?.close();
});

async function signedIn(userAgent: string, login = "alice", provider = "op"): Promise<Device> {
  const device = new Device(userAgent);
  const callback = await signInThrough(device, app, provider, { query: { login_hint: login } });
  expect(callback.status).toBe(302);
  expect(device.token(app)).toBeTruthy();
  return device;
}

async function listOf(device: Device): Promise<Listed[] | null> {
  const response = await device.get(`${app}/account/sessions`);
  expect(response.status).toBe(200);
  return (await response.json()) as Listed[] | null;
}

const revoke = async (device: Device, id: unknown) => {
  const response = await device.json(`${app}/account/sessions/revoke`, { id });
  expect(response.status).toBe(200);
  return ((await response.json()) as { revoked: boolean }).revoked;
};

async function signedOutEverywhere(userId: string) {
  await db.deleteFrom("sessions").where("userId", "=", userId).execute();
}

describe("sessions a user can see and end, over Express on PostgreSQL", () => {
  it("lists both devices' sessions with their device and times, the current one marked, named by ids that are not tokens", async (t) => {
    if (!up) return t.skip();
    const laptop = await signedIn(FIREFOX_MAC);
    const phone = await signedIn(SAFARI_IPHONE);
    const fromLaptop = (await listOf(laptop)) as Listed[];
    const fromPhone = (await listOf(phone)) as Listed[];
    expect(fromLaptop.map((s) => s.device).sort()).toEqual(["Firefox on macOS", "Safari on iPhone"]);
    expect(fromLaptop.filter((s) => s.current)).toEqual([expect.objectContaining({ device: "Firefox on macOS" })]);
    expect(fromLaptop[0]?.current).toBe(true);
    expect(fromPhone.filter((s) => s.current)).toEqual([expect.objectContaining({ device: "Safari on iPhone" })]);
    for (const session of fromLaptop) {
      expect(session.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(Date.parse(session.createdAt as string)).not.toBeNaN();
      expect(Date.parse(session.lastSeenAt as string)).not.toBeNaN();
      expect(session.clientAddress).toBeNull(); // not recorded unless the application opts in
    }
    // The same session has the same id whoever lists it; no token appears in the answer.
    expect(fromPhone.map((s) => s.id).sort()).toEqual(fromLaptop.map((s) => s.id).sort());
    const body = JSON.stringify(fromLaptop);
    for (const device of [laptop, phone]) expect(body).not.toContain(device.token(app));
    // Signed out: null, not someone's list.
    expect(await listOf(new Device(FIREFOX_MAC))).toBeNull();
    await signedOutEverywhere(await userIdOf("alice@example.com"));
  });

  it("revoking the other device signs it out on its next request, and emits signOut with reason revoked", async (t) => {
    if (!up) return t.skip();
    const laptop = await signedIn(FIREFOX_MAC);
    const phone = await signedIn(SAFARI_IPHONE);
    const phoneToken = phone.token(app);
    const other = ((await listOf(laptop)) as Listed[]).find((s) => !s.current) as Listed;
    expect(await revoke(laptop, other.id)).toBe(true);
    expect(signOuts.at(-1)).toEqual({ reason: "revoked", sessionToken: phoneToken });
    const next = await phone.get(`${app}/auth/session`);
    expect(await next.json()).toBeNull();
    expect(next.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=;"))).toBe(true);
    expect(await (await phone.get(`${app}/me`)).json()).toBeNull();
    expect((await (await laptop.get(`${app}/me`)).json())?.user?.email).toBe("alice@example.com");
    expect(await revoke(laptop, other.id)).toBe(false); // already gone
    await signedOutEverywhere(await userIdOf("alice@example.com"));
  });

  it("revoke the others keeps only the current session; revoke all (after a password change) ends that one too", async (t) => {
    if (!up) return t.skip();
    const devices = [
      await signedIn(FIREFOX_MAC),
      await signedIn(SAFARI_IPHONE),
      await signedIn(CHROME_WINDOWS),
    ] as const;
    const bob = await signedIn(CHROME_WINDOWS, "bob");
    const aliceId = await userIdOf("alice@example.com");
    const others = await devices[0].json(`${app}/account/sessions/revoke-others`, {});
    expect(await others.json()).toEqual({ revoked: 2 });
    expect(signOuts.slice(-2).map((s) => s.reason)).toEqual(["revoked-others", "revoked-others"]);
    expect((await sessionRows(aliceId)).map((row) => row.sessionToken)).toEqual([devices[0].token(app)]);
    for (const device of devices.slice(1)) expect(await (await device.get(`${app}/me`)).json()).toBeNull();

    const all = await bob.json(`${app}/admin/users/${encodeURIComponent(aliceId)}/revoke-all`, {});
    expect(await all.json()).toEqual({ revoked: 1 });
    expect(signOuts.at(-1)?.reason).toBe("password-changed");
    expect(await (await devices[0].get(`${app}/me`)).json()).toBeNull();
    expect((await (await bob.get(`${app}/me`)).json())?.user?.email).toBe("bob@example.com");
    await signedOutEverywhere(await userIdOf("bob@example.com"));
  });

  it("RULE: a user revokes only their own sessions: another user's id, a guessed or forged id, the token itself revoke nothing", async (t) => {
    if (!up) return t.skip();
    const alice = await signedIn(FIREFOX_MAC);
    const mallory = await signedIn(CHROME_WINDOWS, "bob");
    const aliceId = await userIdOf("alice@example.com");
    const [victim] = (await listOf(alice)) as Listed[];
    const id = (victim as Listed).id;
    const token = alice.token(app) as string;
    const forged: unknown[] = [
      id,
      id.toUpperCase(),
      id.toLowerCase(),
      `${id} `,
      `${id}\u0000`,
      `${id.slice(0, 31)}é`,
      `${id}${id}`,
      token,
      randomBytes(24).toString("base64url"),
      "",
      [id],
      { id },
      null,
      42,
      "\u202e\u0007\r\n",
      "x".repeat(100_000),
    ];
    // 40 attempts at once, and the same again with the field repeated in a form body.
    const attempts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        mallory.json(`${app}/account/sessions/revoke`, { id: forged[i % forged.length] }),
      ),
    );
    for (const response of attempts) {
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ revoked: false });
    }
    const repeated = await mallory.request(`${app}/account/sessions/revoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"csrfToken":"${mallory.csrf(app)}","id":"${randomBytes(24).toString("base64url")}","id":"${id}"}`,
    });
    expect(await repeated.json()).toEqual({ revoked: false });
    expect((await sessionRows(aliceId)).map((row) => row.sessionToken)).toEqual([token]);
    expect((await (await alice.get(`${app}/me`)).json())?.user?.email).toBe("alice@example.com");
    await signedOutEverywhere(aliceId);
    await signedOutEverywhere(await userIdOf("bob@example.com"));
  });

  it("RULE: a revoked session never comes back: a revocation racing 40 refreshes of that session leaves it deleted", async (t) => {
    if (!up) return t.skip();
    const laptop = await signedIn(FIREFOX_MAC);
    const phone = await signedIn(SAFARI_IPHONE);
    const phoneToken = phone.token(app) as string;
    const other = ((await listOf(laptop)) as Listed[]).find((s) => !s.current) as Listed;
    // updateAge 0: each of these reads writes the session's expiry and lastSeenAt.
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => phone.get(`${app}/auth/session`)),
      revoke(laptop, other.id),
      ...Array.from({ length: 20 }, () => phone.get(`${app}/auth/session`)),
    ]);
    expect(results[20]).toBe(true);
    for (const response of results) if (response instanceof Response) expect(response.status).toBe(200);
    expect(await db.selectFrom("sessions").selectAll().where("sessionToken", "=", phoneToken).execute()).toEqual([]);
    const after = new Device(SAFARI_IPHONE);
    after.jar(app).set("authjs.session-token", phoneToken);
    expect(await (await after.get(`${app}/auth/session`)).json()).toBeNull();
    await signedOutEverywhere(await userIdOf("alice@example.com"));
  });

  it("30 concurrent lists answer the same sessions, each with the current one marked", async (t) => {
    if (!up) return t.skip();
    const laptop = await signedIn(FIREFOX_MAC);
    await signedIn(SAFARI_IPHONE);
    const lists = await Promise.all(Array.from({ length: 30 }, () => listOf(laptop)));
    const ids = (list: Listed[] | null) => (list ?? []).map((s) => s.id).sort();
    const first = lists[0] as Listed[];
    expect(first).toHaveLength(2);
    for (const list of lists) {
      expect(ids(list)).toEqual(ids(first));
      expect(list?.filter((s) => s.current)).toHaveLength(1);
    }
    await signedOutEverywhere(await userIdOf("alice@example.com"));
  });
});

describe("linked accounts, over Express on PostgreSQL", () => {
  const unlink = async (device: Device, provider: unknown, id: unknown, instance = "") => {
    const response = await device.json(`${app}${instance}/account/accounts/unlink`, { provider, id });
    expect(response.status).toBe(200);
    return (await response.json()) as { unlinked: boolean; reason?: string; account?: Record<string, unknown> };
  };
  const accountsOf = async (device: Device) =>
    (await (await device.get(`${app}/account/accounts`)).json()) as Record<string, unknown>[] | null;

  it("lists accounts without tokens; unlink refuses the last way to sign in and allows one of two", async (t) => {
    if (!up) return t.skip();
    const alice = await signedIn(FIREFOX_MAC);
    const listed = (await accountsOf(alice)) as Record<string, unknown>[];
    expect(listed).toEqual([{ provider: "op", providerAccountId: "alice", type: "oidc", providerName: "Test OP" }]);
    const stored = await db.selectFrom("accounts").selectAll().where("provider", "=", "op").execute();
    expect(stored.some((row) => row.access_token)).toBe(true); // the tokens exist, and are not shown
    expect(await unlink(alice, "op", "alice")).toEqual({ unlinked: false, reason: "last-sign-in-method" });
    expect(await accountsOf(alice)).toHaveLength(1);

    // Signed in, the user connects a second provider (a plain sign-in would not link it).
    const linked = await signInThrough(alice, app, "second", { query: { login_hint: "alice" }, connect: true });
    expect(linked.status).toBe(302);
    expect(((await accountsOf(alice)) ?? []).map((a) => a.provider).sort()).toEqual(["op", "second"]);
    expect(await unlink(alice, "op", "alice")).toEqual({
      unlinked: true,
      account: { provider: "op", providerAccountId: "alice", type: "oidc", providerName: "Test OP" },
    });
    expect(unlinked.at(-1)?.provider).toBe("op");
    expect(Object.keys(unlinked.at(-1)?.account ?? {}).sort()).toEqual([
      "provider",
      "providerAccountId",
      "type",
      "userId",
    ]);
    expect(await accountsOf(alice)).toEqual([
      { provider: "second", providerAccountId: "alice", type: "oidc", providerName: "Second OP" },
    ]);
    expect(await unlink(alice, "second", "alice")).toEqual({ unlinked: false, reason: "last-sign-in-method" });
    // The unlinked provider no longer leads to this user; the remaining one does.
    expect(
      await db
        .selectFrom("accounts")
        .selectAll()
        .where("provider", "=", "op")
        .where("providerAccountId", "=", "alice")
        .execute(),
    ).toEqual([]);
    await signedOutEverywhere(await userIdOf("alice@example.com"));
  });

  it("RULE: a user unlinks only their own accounts; odd input is not-found; signed out is signed-out", async (t) => {
    if (!up) return t.skip();
    const alice = await signedIn(FIREFOX_MAC, "alice", "second");
    const mallory = await signedIn(CHROME_WINDOWS, "bob");
    await signInThrough(mallory, app, "second", { query: { login_hint: "bob" }, connect: true });
    const before = await db.selectFrom("accounts").selectAll().orderBy("provider").execute();
    for (const [provider, id] of [
      ["second", "alice"],
      ["op", "alice"],
      ["SECOND", "alice"],
      ["second", "ALICE"],
      ["second", "alice\u0000"],
      [["second"], "alice"],
      ["second", { $ne: null }],
      ["x".repeat(5000), "alice"],
    ] as [unknown, unknown][]) {
      expect(await unlink(mallory, provider, id)).toEqual({ unlinked: false, reason: "not-found" });
    }
    expect(await unlink(new Device(FIREFOX_MAC), "second", "alice")).toEqual({ unlinked: false, reason: "signed-out" });
    expect(await db.selectFrom("accounts").selectAll().orderBy("provider").execute()).toEqual(before);
    expect(await accountsOf(new Device(FIREFOX_MAC))).toBeNull();
    void alice;
    await signedOutEverywhere(await userIdOf("alice@example.com"));
    await signedOutEverywhere(await userIdOf("bob@example.com"));
  });

  it("RULE: concurrent unlinks never remove the last way to sign in: 40 at once over two accounts leave exactly one", async (t) => {
    if (!up) return t.skip();
    const bob = await signedIn(CHROME_WINDOWS, "bob");
    await signInThrough(bob, app, "second", { query: { login_hint: "bob" }, connect: true });
    const bobId = await userIdOf("bob@example.com");
    const accountsLeft = async () =>
      (await db.selectFrom("accounts").select("provider").where("userId", "=", bobId).execute()).map((r) => r.provider);
    expect((await accountsLeft()).sort()).toEqual(["op", "second"]);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => unlink(bob, i % 2 ? "op" : "second", "bob")),
    );
    const left = await accountsLeft();
    expect(left).toHaveLength(1);
    const done = results.flatMap((result, i) => (result.unlinked ? [i % 2 ? "op" : "second"] : []));
    expect(done).toHaveLength(1);
    expect(left).not.toContain(done[0]);
    for (const result of results.filter((r) => !r.unlinked))
      expect(["last-sign-in-method", "not-found"]).toContain(result.reason);
    await signedOutEverywhere(bobId);
  });

  it("RULE: unlinks racing on two instances over one database leave at least one way to sign in, and each answer is true", async (t) => {
    if (!up) return t.skip();
    for (let round = 0; round < 5; round++) {
      const bobId = await userIdOf("bob@example.com");
      const accountsLeft = async () =>
        (await db.selectFrom("accounts").select("provider").where("userId", "=", bobId).execute()).map(
          (r) => r.provider,
        );
      // Sign in with the account the last round left, then link the other one again.
      const [kept] = await accountsLeft();
      const bob = await signedIn(CHROME_WINDOWS, "bob", String(kept));
      await signInThrough(bob, app, kept === "op" ? "second" : "op", { query: { login_hint: "bob" }, connect: true });
      expect((await accountsLeft()).sort()).toEqual(["op", "second"]);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => unlink(bob, i % 2 ? "op" : "second", "bob", i % 4 < 2 ? "" : "/twin")),
      );
      const left = await accountsLeft();
      expect(left.length).toBeGreaterThanOrEqual(1);
      for (const [i, result] of results.entries())
        if (result.unlinked) expect(left).not.toContain(i % 2 ? "op" : "second");
      await signedOutEverywhere(bobId);
    }
  });
});
