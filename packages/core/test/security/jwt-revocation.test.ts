/**
 * Instant revocation of JWT sessions (issue 15.3; OWASP ASVS 3.3.1 / 3.3.3 "logout and
 * 'sign out everywhere' invalidate the session", RFC 8725 §3.10 stateless tokens need a deny
 * list to be revoked). Every rule is attacked through `Auth()` in process: a revoked token is
 * replayed, raced against re-issues, carried over by a `jwt` callback that drops claims, and
 * presented to a second "instance" (its own configuration object and its own store connections
 * on the same Redis or PostgreSQL).
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { serviceAvailable } from "../../../adapter-test/src/services.js";
import type { AuthConfig } from "../../src/index.js";
import { decode, type JWT } from "../../src/jwt.js";
import {
  MemoryRevocationStore,
  PostgresRevocationStore,
  RedisRevocationStore,
  type RevocationEntry,
  type RevocationListener,
  type RevocationStore,
  revokeJwtSession,
  revokeUserSessions,
} from "../../src/revocation.js";
import { CookieJar, call, csrfToken, makeConfig, SECRET, signIn } from "../helpers.js";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";

const NAME = "authjs.session-token";
const quiet = { error() {}, warn() {}, debug() {} };

function configWith(store: RevocationStore | undefined, extra: Partial<AuthConfig> = {}): AuthConfig {
  return makeConfig({
    rateLimit: false,
    logger: quiet,
    session: { revocation: store ? { store, onUnavailable: "refuse", timeout: 1500 } : true },
    ...extra,
  });
}

async function claimsOf(token: string | undefined): Promise<JWT> {
  const claims = await decode({ token, secret: SECRET, salt: NAME });
  expect(claims, "the cookie must open").not.toBeNull();
  return claims as JWT;
}

function jarWith(token: string): CookieJar {
  const jar = new CookieJar();
  jar.cookies.set(NAME, token);
  return jar;
}

async function sessionEmail(config: AuthConfig, token: string): Promise<string | null> {
  const response = await call(config, "/auth/session", { jar: jarWith(token) });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { user?: { email?: string } } | null;
  return body?.user?.email ?? null;
}

/** Posts a session update with `token`; returns the re-issued token (or undefined when none). */
async function update(config: AuthConfig, token: string): Promise<string | undefined> {
  const jar = jarWith(token);
  const csrf = await csrfToken(config, jar);
  await call(config, "/auth/session", { jar, json: { csrfToken: csrf, data: { theme: "dark" } } });
  const after = jar.get(NAME);
  return after !== token ? after : undefined;
}

/**
 * Resolves once `config` reads `token` as signed out (a 200 with no session); the delay in ms.
 * Bounded, never a fixed sleep. A 500 (refused while the store recovers) counts as "not yet".
 */
async function untilSignedOut(
  config: AuthConfig,
  token: string,
  deadlineMs = 5000 * inject("timeScale"),
): Promise<number> {
  const started = performance.now();
  for (;;) {
    const response = await call(config, "/auth/session", { jar: jarWith(token) });
    if (response.status === 200 && (await response.json()) === null) return performance.now() - started;
    expect([200, 500]).toContain(response.status);
    if (performance.now() - started > deadlineMs) throw new Error(`still not signed out after ${deadlineMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A promise and the function that resolves it: an event a test waits on. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("JWT session identity: the session id and sign-in time survive every re-issue", () => {
  it("sign-in sets sid, sub and auth_time; a re-issue changes jti and keeps sid and auth_time", async () => {
    const config = configWith(undefined);
    const { jar } = await signIn(config);
    const first = await claimsOf(jar.get(NAME));
    expect(first.sub).toBe("u1");
    expect(first.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof first.auth_time).toBe("number");
    const reissued = await update(config, jar.get(NAME) as string);
    const second = await claimsOf(reissued);
    expect(second.jti).not.toBe(first.jti);
    expect(second.sid).toBe(first.sid);
    expect(second.auth_time).toBe(first.auth_time);
  });

  it("a jwt callback that returns a new object without sid/auth_time cannot shed them on re-issue", async () => {
    const config = configWith(undefined, {
      callbacks: { jwt: ({ token }) => ({ sub: token.sub, email: token.email, name: token.name }) },
    });
    const { jar } = await signIn(config);
    const token = jar.get(NAME) as string;
    const first = await claimsOf(token);
    expect(first.sid).toBeTruthy();
    const reissued = (await update(config, token)) as string;
    expect((await claimsOf(reissued)).sid).toBe(first.sid);
    await revokeJwtSession(config, token);
    expect(await sessionEmail(config, reissued)).toBeNull();
  });

  it("two sign-ins of one user get two different session ids", async () => {
    const config = configWith(undefined);
    const ids = new Set<string>();
    for (const { jar } of await Promise.all(Array.from({ length: 30 }, () => signIn(config))))
      ids.add((await claimsOf(jar.get(NAME))).sid as string);
    expect(ids.size).toBe(30);
  });
});

describe("revocation in one process (memory store)", () => {
  it("a revoked token replayed 50 times at once gets no session, and its cookie is cleared", async () => {
    const config = configWith(undefined);
    const { jar } = await signIn(config);
    const token = jar.get(NAME) as string;
    expect(await sessionEmail(config, token)).toBe("ada@example.com");
    await revokeJwtSession(config, token);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => call(config, "/auth/session", { jar: jarWith(token) })),
    );
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(await response.json()).toBeNull();
      expect(response.headers.getSetCookie().some((c) => c.startsWith(`${NAME}=;`))).toBe(true);
    }
  });

  it("attack: a sign-out whose session cookie a sibling duplicated (its own session, a longer Path) still revokes the browser's own session", async () => {
    const config = configWith(undefined);
    const [victim, planter] = await Promise.all([signIn(config), signIn(config)]);
    const own = victim.jar.get(NAME) as string;
    const csrf = await csrfToken(config, victim.jar);
    const cookie = `${NAME}=${planter.jar.get(NAME)}; ${victim.jar.header()}`;
    const answer = await call(config, "/auth/signout", { form: { csrfToken: csrf }, headers: { cookie } });
    expect(answer.status).toBe(302);
    expect(answer.headers.getSetCookie().some((c) => c.startsWith(`${NAME}=;`))).toBe(true);
    // a copy of her cookie opens no session once the planted one is gone
    expect(await sessionEmail(config, own)).toBeNull();
  });

  it("revoking one session leaves the user's other sessions alone", async () => {
    const config = configWith(undefined);
    const [a, b] = await Promise.all([signIn(config), signIn(config)]);
    const sid = (await claimsOf(a.jar.get(NAME))).sid as string;
    await revokeJwtSession(config, sid);
    expect(await sessionEmail(config, a.jar.get(NAME) as string)).toBeNull();
    expect(await sessionEmail(config, b.jar.get(NAME) as string)).toBe("ada@example.com");
  });

  it("revoking a user's sessions ends every session begun before, and none begun after", async () => {
    const config = configWith(undefined);
    const before = await Promise.all(Array.from({ length: 5 }, () => signIn(config)));
    await revokeUserSessions(config, "u1");
    for (const { jar } of before) expect(await sessionEmail(config, jar.get(NAME) as string)).toBeNull();
    const { jar } = await signIn(config);
    expect(await sessionEmail(config, jar.get(NAME) as string)).toBe("ada@example.com");
  });

  it("a revocation racing 30 concurrent session updates: no re-issued cookie revives the session", async () => {
    const config = configWith(undefined, { session: { revocation: true, updateAge: 0 } });
    const { jar } = await signIn(config);
    const token = jar.get(NAME) as string;
    // Updates in flight before the revocation (one of them finished, so a re-issued cookie exists),
    // and more started together with it.
    const racing = Array.from({ length: 15 }, () => update(config, token));
    await racing[0];
    const revoked = revokeJwtSession(config, token);
    racing.push(...Array.from({ length: 15 }, () => update(config, token)));
    const reissued = (await Promise.all(racing)).filter((t): t is string => !!t);
    await revoked;
    expect(reissued.length).toBeGreaterThan(0);
    for (const t of new Set(reissued)) expect(await sessionEmail(config, t)).toBeNull();
  });

  it("POST /auth/signout revokes the session: a copy of the cookie stops working", async () => {
    const config = configWith(undefined);
    const { jar } = await signIn(config);
    const copied = jar.get(NAME) as string;
    const csrf = await csrfToken(config, jar);
    const out = await call(config, "/auth/signout", { jar, form: { csrfToken: csrf } });
    expect(out.status).toBe(302);
    expect(jar.get(NAME)).toBeUndefined();
    expect(await sessionEmail(config, copied)).toBeNull();
  });

  // Adversarial review (feat-attack): sign-out opened the cookie without asking the revocation
  // list, so a revoked copy still counted as a session there: every replay emitted `signOut` for
  // the victim's session (an audit line the attacker writes at will) and wrote the entry to the
  // store again, which pushes it to every instance.
  it("rule: a revoked session is refused at sign-out too: 30 replays of a revoked copy emit no signOut and write nothing", async () => {
    let adds = 0;
    const store = new (class extends MemoryRevocationStore {
      override add(entry: Parameters<MemoryRevocationStore["add"]>[0]) {
        adds++;
        return super.add(entry);
      }
    })();
    const signOuts: unknown[] = [];
    const config = configWith(store, { events: { signOut: (message) => void signOuts.push(message) } });
    const { jar } = await signIn(config);
    const copied = jar.get(NAME) as string;
    const out = await call(config, "/auth/signout", { jar, form: { csrfToken: await csrfToken(config, jar) } });
    expect(out.status).toBe(302);
    expect([signOuts.length, adds], "the genuine sign-out: one event, one entry").toEqual([1, 1]);

    const replays = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const attacker = jarWith(copied);
        const csrf = await csrfToken(config, attacker);
        const response = await call(config, "/auth/signout", { jar: attacker, form: { csrfToken: csrf } });
        return { status: response.status, cleared: attacker.get(NAME) === undefined };
      }),
    );
    expect(replays.every((r) => r.status === 302 && r.cleared)).toBe(true);
    expect([signOuts.length, adds], "replays of a revoked copy are no sign-outs").toEqual([1, 1]);
    expect(await sessionEmail(config, copied)).toBeNull();
  });

  // Issue 22.3: a revoke the store did not take used to be kept in this instance's memory only:
  // the session ended here, lived on elsewhere, and a retried sign-out here wrote nothing.
  it("rule: a revocation the store does not confirm rejects with SignOutError, revokes nothing (this instance's memory included) and records session.revoke-failed; a retry revokes", async () => {
    let down = false;
    const store = new (class extends MemoryRevocationStore {
      override add(entry: RevocationEntry) {
        return down ? Promise.reject(new Error("the store is unreachable")) : super.add(entry);
      }
    })();
    const audits: Array<{ type: string; reason?: string; userId?: string; sessionId?: string }> = [];
    const config = configWith(store, { events: { audit: (event) => void audits.push(event) } });
    const token = (await signIn(config)).jar.get(NAME) as string;
    const sid = (await claimsOf(token)).sid;

    down = true;
    await expect(revokeJwtSession(config, token)).rejects.toMatchObject({ type: "SignOutError" });
    await expect(revokeUserSessions(config, "u1")).rejects.toMatchObject({ type: "SignOutError" });
    expect(await sessionEmail(config, token)).toBe("ada@example.com");
    expect(await store.load()).toEqual([]);
    expect(audits.filter((e) => e.type === "session.revoke-failed")).toEqual([
      expect.objectContaining({ reason: "revoked", sessionId: sid, userId: "u1" }),
      expect.objectContaining({ reason: "revoked-all", userId: "u1" }),
    ]);

    down = false;
    await revokeJwtSession(config, token);
    expect(await sessionEmail(config, token)).toBeNull();
  });

  it("a token minted before sessions had an id is revoked by its jti, re-issues included", async () => {
    const config = configWith(undefined, { session: { revocation: true, updateAge: 0 } });
    const { encode } = await import("../../src/jwt.js");
    const legacy = await encode({ token: { sub: "u1", email: "ada@example.com" }, secret: SECRET, salt: NAME });
    const reissued = (await update(config, legacy)) as string;
    expect((await claimsOf(reissued)).sid).toBe((await claimsOf(legacy)).jti);
    await revokeJwtSession(config, legacy);
    expect(await sessionEmail(config, reissued)).toBeNull();
  });
});

/**
 * A store over `shared` that never hears a push: an instance whose channel died without a word
 * (its list still reads as current until the heartbeat notices). It loads and saves for real.
 */
function deafStore(shared: MemoryRevocationStore): RevocationStore {
  return { add: (entry) => shared.add(entry), load: () => shared.load(), subscribe: async () => {} };
}

describe("rule: a revocation entry outlives every cookie it could refuse", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // Issue 22.4: an entry lived as long as the longest token from the revocation; a cookie an
  // instance re-issued after it, not having heard of it yet, outlived the entry, and once the
  // entry was gone every instance accepted that cookie for good.
  it("a cookie re-issued by an instance that has not heard of the revocation (its channel silently dead for two 60 s heartbeats) is refused until it expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const shared = new MemoryRevocationStore();
    const session = { maxAge: 3600, updateAge: 0 };
    const instance = (store: RevocationStore) =>
      configWith(undefined, { session: { ...session, revocation: { store, onUnavailable: "refuse", timeout: 1500 } } });
    const [a, b] = [instance(deafStore(shared)), instance(deafStore(shared))];
    const token = (await signIn(a)).jar.get(NAME) as string;
    expect(await sessionEmail(b, token)).toBe("ada@example.com");
    await revokeJwtSession(a, token);
    expect(await sessionEmail(a, token)).toBeNull();

    // B, unaware, re-issues the session at the end of the longest silence a built-in store allows.
    vi.setSystemTime(Date.now() + 2 * 60_000);
    const jar = jarWith(token);
    expect(await call(b, "/auth/session", { jar }).then((r) => r.json())).toMatchObject({
      user: { email: "ada@example.com" },
    });
    const late = jar.get(NAME) as string;
    expect(late).not.toBe(token);
    const lateExp = (await claimsOf(late)).exp as number;

    // The last second that cookie still opens (15 s clock tolerance): it opens (the probe can
    // see), and an instance loading the list now, or one that knew the entry, refuses it.
    vi.setSystemTime(lateExp * 1000 + 14_000);
    expect(await sessionEmail(instance(new MemoryRevocationStore()), late)).toBe("ada@example.com");
    expect(await sessionEmail(instance(deafStore(shared)), late)).toBeNull();
    expect(await sessionEmail(a, late)).toBeNull();
  });
});

describe("item 13: a user revocation and sign-in times from clocks that differ", () => {
  it("a sign-in on the instance that revoked, right after revokeUserSessions, is not ended by it, though `before` runs 15 s ahead", async () => {
    const config = configWith(undefined);
    const old = (await signIn(config)).jar.get(NAME) as string;
    await revokeUserSessions(config, "u1");
    const fresh = (await signIn(config)).jar.get(NAME) as string;
    expect(await sessionEmail(config, old)).toBeNull();
    expect(await sessionEmail(config, fresh)).toBe("ada@example.com");
  });
});

/** A user's entries in `entries`: session entries tagged with the user, and the user's own entry. */
function entriesOfUser(entries: RevocationEntry[], userId: string): RevocationEntry[] {
  return entries.filter((e) => (e.kind === "user" ? e.id === userId : e.userId === userId));
}

/** One sign-in on `signInOn`, then its sign-out on `signOutOn`; the ended session's token. */
async function signInAndOut(signInOn: AuthConfig, signOutOn: AuthConfig): Promise<string> {
  const { jar } = await signIn(signInOn);
  const token = jar.get(NAME) as string;
  const out = await call(signOutOn, "/auth/signout", { jar, form: { csrfToken: await csrfToken(signOutOn, jar) } });
  expect(out.status).toBe(302);
  return token;
}

// Attacker review (feat-growth): every sign-out added an entry living 30 days, in the store and in
// the memory of every instance, and a user with a password can sign in and out in a loop: memory
// on every instance grew without bound.
describe("rule: sign-in/sign-out loops of one user cannot grow the revocation list", () => {
  it("40 loops at once with sessionsPerUser 5: at most 6 entries of the user in the store and in memory, every ended session stays refused", async () => {
    const store = new MemoryRevocationStore();
    const config = configWith(store, { session: { revocation: { store, sessionsPerUser: 5 } } });
    const ended = await Promise.all(Array.from({ length: 40 }, () => signInAndOut(config, config)));

    expect((await store.load()).length).toBeLessThanOrEqual(6);
    const list = (store as unknown as Record<symbol, { sessions: Map<string, number>; users: Map<string, unknown> }>)[
      Symbol.for("latchkey.revocationList")
    ];
    expect(list?.sessions.size).toBeLessThanOrEqual(5);
    expect(list?.users.size).toBeLessThanOrEqual(1);
    for (const token of ended) expect(await sessionEmail(config, token)).toBeNull();
    const { jar } = await signIn(config);
    expect(await sessionEmail(config, jar.get(NAME) as string), "a session begun afterwards lives").toBe(
      "ada@example.com",
    );
  });

  it("below the bound a sign-out ends only its own session; past it, also the user's sessions begun before (the documented price)", async () => {
    const config = configWith(undefined, { session: { revocation: { sessionsPerUser: 3 } } });
    const older = (await signIn(config)).jar.get(NAME) as string;
    for (let i = 0; i < 3; i++) await signInAndOut(config, config);
    expect(await sessionEmail(config, older), "3 sign-outs: each its own entry").toBe("ada@example.com");
    const newer = (await signIn(config)).jar.get(NAME) as string;
    const fourth = (await signIn(config)).jar;
    const ended = fourth.get(NAME) as string;
    // Stores keep whole milliseconds (the entry's time is rounded up): begin the next session in a
    // later millisecond than the 4th, waiting on the clock, not for a fixed time.
    const fourthAt = ((await claimsOf(ended)).auth_time as number) * 1000;
    while (Date.now() <= fourthAt + 1) await new Promise((resolve) => setImmediate(resolve));
    const later = (await signIn(config)).jar.get(NAME) as string;
    await call(config, "/auth/signout", { jar: fourth, form: { csrfToken: await csrfToken(config, fourth) } });
    expect(await sessionEmail(config, ended)).toBeNull();
    expect(await sessionEmail(config, older), "begun before the 4th: ended with it").toBeNull();
    expect(await sessionEmail(config, newer), "begun before the 4th: ended with it").toBeNull();
    expect(await sessionEmail(config, later), "begun after the 4th: lives").toBe("ada@example.com");
  });
});

describe("session.revocation is validated when the configuration is resolved", () => {
  it.each([
    [{ onUnavailable: "maybe" }, /onUnavailable/],
    [{ timeout: -1 }, /timeout/],
    [{ sessionsPerUser: 0 }, /sessionsPerUser/],
    [{ sessionsPerUser: 2.5 }, /sessionsPerUser/],
    [{ store: { add() {} } }, /store.*load/],
    ["yes", /session\.revocation/],
  ])("rejects %j with a message naming the option", async (revocation, message) => {
    const config = makeConfig({ logger: quiet, session: { revocation: revocation as never } });
    const response = await call(config, "/auth/session");
    expect(response.status).toBe(500);
    await expect(revokeUserSessions(config, "u1")).rejects.toThrow(message);
  });

  it("refuses revocation with database sessions (they are revoked by deleting the record)", async () => {
    const { MemoryAdapter } = await import("../../src/memory-adapter.js");
    const config = makeConfig({
      logger: quiet,
      providers: [],
      adapter: MemoryAdapter(),
      session: { strategy: "database", revocation: true },
    });
    await expect(revokeUserSessions(config, "u1")).rejects.toThrow(/JWT sessions/);
  });

  it("revoking without revocation configured is a TypeError, not a silent no-op", async () => {
    await expect(revokeJwtSession(makeConfig({ logger: quiet }), "some-sid")).rejects.toThrow(TypeError);
  });
});

// ---------------------------------------------------------------------------------------------
// Two instances in one process: two configuration objects, each with its own store object and
// its own connections to one Redis / one PostgreSQL.

interface Backend {
  name: string;
  up: () => Promise<boolean>;
  /** A store on its own connections; `port` overrides the server's port (for a TCP proxy). */
  store: (options?: { port?: number; heartbeatMs?: number }) => RevocationStore;
  serverPort: number;
  cleanup: () => Promise<void>;
}

const run = randomBytes(4).toString("hex");
const closers: Array<() => Promise<unknown> | unknown> = [];
const database = `latchkey_revoke_${process.pid}_${run}`;

const backends: Backend[] = [
  {
    name: "Redis",
    serverPort: 6379,
    up: () => serviceAvailable("Redis", 6379),
    store: ({ port = 6379, heartbeatMs = 200 } = {}) => {
      const options = { host: "127.0.0.1", port, maxRetriesPerRequest: 1, retryStrategy: () => 50 };
      const client = new Redis(options);
      const subscriber = new Redis(options);
      closers.push(
        () => client.disconnect(),
        () => subscriber.disconnect(),
      );
      return RedisRevocationStore(client, subscriber, {
        prefix: `latchkey-test:${run}:revoked:`,
        channel: `latchkey-test:${run}:revocations`,
        heartbeatMs,
      });
    },
    cleanup: async () => {
      const redis = new Redis({ host: "127.0.0.1", port: 6379 });
      const keys = await redis.keys(`latchkey-test:${run}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  },
  {
    name: "PostgreSQL",
    serverPort: 5432,
    up: async () => {
      if (!(await serviceAvailable("PostgreSQL", 5432))) return false;
      const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
      return true;
    },
    store: ({ port = 5432, heartbeatMs = 200 } = {}) => {
      const pool = new pg.Pool({
        host: "127.0.0.1",
        port,
        user: "postgres",
        database,
        max: 4,
        connectionTimeoutMillis: 1000,
        query_timeout: 1500,
      });
      pool.on("error", () => {});
      closers.push(() => pool.end());
      return PostgresRevocationStore(pool, { heartbeatMs });
    },
    cleanup: async () => {
      const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    },
  },
];

describe.each(backends)("two instances on one $name", (backend) => {
  let up = false;
  const stores: RevocationStore[] = [];
  const storeOf = (options?: Parameters<Backend["store"]>[0]) => {
    const store = backend.store(options);
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    up = await backend.up();
  });
  afterAll(async () => {
    if (!up) return;
    for (const store of stores) await store.close?.();
    // Bounded: a pg pool whose connection went through the black-holed proxy may never finish
    // `end()` (pg waits for the dead socket's end); the database is dropped WITH (FORCE) anyway.
    for (const close of closers.splice(0))
      await Promise.race([close(), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
    await backend.cleanup();
  });

  it("revoked on one, the next request on the other is signed out (delay measured)", async (t) => {
    if (!up) return t.skip();
    const a = configWith(storeOf());
    const b = configWith(storeOf());
    const { jar } = await signIn(a);
    const token = jar.get(NAME) as string;
    expect(await sessionEmail(b, token)).toBe("ada@example.com");
    await revokeJwtSession(a, token);
    const delay = await untilSignedOut(b, token);
    console.log(
      `[revocation] ${backend.name}: in-process instance signed out ${delay.toFixed(1)} ms after the revoke resolved`,
    );
    expect(delay).toBeLessThan(1000);
  });

  it("a revoked token replayed 50 times concurrently on both instances gets no session", async (t) => {
    if (!up) return t.skip();
    const a = configWith(storeOf());
    const b = configWith(storeOf());
    const { jar } = await signIn(a);
    const token = jar.get(NAME) as string;
    expect(await sessionEmail(b, token)).toBe("ada@example.com");
    await revokeUserSessions(b, "u1");
    await untilSignedOut(a, token);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => sessionEmail(i % 2 ? a : b, token)));
    expect(answers.every((email) => email === null)).toBe(true);
  });

  it("a new instance started after the revocation refuses the token before serving anything", async (t) => {
    if (!up) return t.skip();
    const a = configWith(storeOf());
    const { jar } = await signIn(a);
    const token = jar.get(NAME) as string;
    await revokeJwtSession(a, token);
    const late = configWith(storeOf());
    expect(await sessionEmail(late, token)).toBeNull();
  });

  it("updates racing a revocation on the other instance: no re-issued cookie revives the session", async (t) => {
    if (!up) return t.skip();
    const a = configWith(storeOf());
    const store = storeOf();
    const b = configWith(store, { session: { revocation: { store }, updateAge: 0 } });
    const { jar } = await signIn(a);
    const token = jar.get(NAME) as string;
    expect(await sessionEmail(b, token)).toBe("ada@example.com");
    const racing = Array.from({ length: 30 }, () => update(b, token));
    await revokeJwtSession(a, token);
    const reissued = (await Promise.all(racing)).filter((x): x is string => !!x);
    await untilSignedOut(b, token);
    for (const x of new Set(reissued)) {
      expect(await sessionEmail(a, x)).toBeNull();
      expect(await sessionEmail(b, x)).toBeNull();
    }
  });

  it("rule: 40 sign-in/sign-out loops (signed in on one, out on the other) leave at most 6 entries of the user; a new instance refuses every ended session", async (t) => {
    if (!up) return t.skip();
    const a = configWith(storeOf());
    const storeB = storeOf();
    const b = configWith(storeB, { session: { revocation: { store: storeB, sessionsPerUser: 5, timeout: 1500 } } });
    // The store is shared with the other tests of this backend: count what the loops added.
    const before = (await storeB.load()).length;
    const ended: string[] = [];
    for (let i = 0; i < 40; i++) ended.push(await signInAndOut(a, b));
    const lateStore = storeOf();
    const entries = await lateStore.load();
    expect(entries.length - before).toBeLessThanOrEqual(6);
    expect(entriesOfUser(entries, "u1").length, "tagged with their user, which a new instance counts").toBeGreaterThan(
      0,
    );
    const late = configWith(lateStore);
    for (const token of ended) expect(await sessionEmail(late, token)).toBeNull();
    for (const token of ended) expect(await sessionEmail(a, token)).toBeNull();
  });

  it("rule: a user's revocation never moves backwards: a later sign-out past the bound, ending an older session, un-revokes nothing", async (t) => {
    if (!up) return t.skip();
    const a = configWith(storeOf());
    const storeB = storeOf();
    const b = configWith(storeB, { session: { revocation: { store: storeB, sessionsPerUser: 1, timeout: 1500 } } });
    const { jar } = await signIn(a);
    const token = jar.get(NAME) as string;
    await revokeUserSessions(a, "u1");
    // On b (which has not necessarily heard of that revocation yet, or is handed old claims),
    // the user is past the bound: ending a session begun an hour ago writes the user's entry
    // with that older sign-in time and a later expiry.
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    await revokeJwtSession(b, { sid: `old-a-${run}`, sub: "u1", auth_time: hourAgo });
    await revokeJwtSession(b, { sid: `old-b-${run}`, sub: "u1", auth_time: hourAgo });
    const lateStore = storeOf();
    const user = (await lateStore.load()).find((e) => e.kind === "user" && e.id === "u1");
    expect(user?.before).toBeGreaterThan(hourAgo * 1000);
    expect(await sessionEmail(configWith(lateStore), token)).toBeNull();
  });

  describe("store outage", () => {
    let proxy: TcpProxy;
    beforeAll(async () => {
      if (up) proxy = await startTcpProxy(backend.serverPort);
    });
    afterAll(async () => {
      await proxy?.close();
    });

    it.for(["refuse", "serve"] as const)(
      'onUnavailable "%s": follows the choice while the store is black-holed, then reloads and catches up',
      async (choice, t) => {
        if (!up) return t.skip();
        await proxy.setMode("pass");
        const direct = configWith(storeOf());
        const behind = storeOf({ port: proxy.port });
        const cut = makeConfig({
          rateLimit: false,
          logger: quiet,
          session: { revocation: { store: behind, onUnavailable: choice, timeout: 1000 } },
        });
        const { jar } = await signIn(direct);
        const kept = jar.get(NAME) as string;
        const doomed = (await signIn(direct)).jar.get(NAME) as string;
        expect(await sessionEmail(cut, kept)).toBe("ada@example.com");

        await proxy.setMode("blackhole");
        // Wait on the event: the instance noticing the outage (its heartbeat), seen as its answer changing.
        if (choice === "refuse") {
          const started = performance.now();
          let status = 200;
          while (status === 200) {
            if (performance.now() - started > 5000 * inject("timeScale"))
              throw new Error("the outage was never noticed");
            const response = await call(cut, "/auth/session", { jar: jarWith(kept) });
            status = response.status;
            if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
            else {
              expect(status).toBe(500);
              // refused, not signed out: the cookie is not cleared
              expect(response.headers.getSetCookie().some((c) => c.startsWith(`${NAME}=`))).toBe(false);
            }
          }
        } else {
          expect(await sessionEmail(cut, kept)).toBe("ada@example.com");
        }
        // A revocation made elsewhere while this instance cannot hear it...
        await revokeJwtSession(direct, doomed);
        await proxy.setMode("pass");
        proxy.resetAll();
        // ...is caught by the reload once the store answers again.
        await untilSignedOut(cut, doomed, 10_000 * inject("timeScale"));
        expect(await sessionEmail(cut, kept)).toBe("ada@example.com");
        expect(await sessionEmail(direct, doomed)).toBeNull();
      },
    );

    // Issue 22.3: a sign-out on an instance cut off from the store answered as done and cleared
    // the cookie, while the entry lived only in that instance's memory: a copy kept working on
    // every other instance, and on that one after a restart.
    it(
      "rule: a sign-out the store does not confirm is answered as not done (503 to scripts), keeps the cookie and revokes nothing anywhere; the retry once the store is back ends it on every instance",
      async (t) => {
        if (!up) return t.skip();
        await proxy.setMode("pass");
        const direct = configWith(storeOf());
        const audits: Array<{ type: string; reason?: string; sessionId?: string; userId?: string }> = [];
        const cut = makeConfig({
          rateLimit: false,
          logger: quiet,
          events: { audit: (event) => void audits.push(event) },
          session: { revocation: { store: storeOf({ port: proxy.port }), onUnavailable: "serve", timeout: 1000 } },
        });
        const { jar } = await signIn(cut);
        const copy = jar.get(NAME) as string;
        const sid = (await claimsOf(copy)).sid;
        expect(await sessionEmail(direct, copy)).toBe("ada@example.com");

        proxy.resetAll();
        await proxy.setMode("refuse");
        const csrf = await csrfToken(cut, jar);
        const out = await call(cut, "/auth/signout", {
          jar,
          form: { csrfToken: csrf },
          headers: { "x-auth-return-redirect": "1" },
        });
        expect(out.status).toBe(503);
        expect(await out.json()).toEqual({
          error: "SignOutError",
          url: "http://localhost:3000/auth/error?error=SignOutError",
        });
        expect(jar.get(NAME), "the cookie is kept: the session goes on").toBe(copy);
        expect(audits.filter((e) => e.type !== "signin.succeeded")).toEqual([
          expect.objectContaining({
            type: "session.revoke-failed",
            reason: "signed-out",
            sessionId: sid,
            userId: "u1",
          }),
        ]);
        // As the answer said: revoked nowhere, not even in the cut instance's memory.
        expect(await sessionEmail(direct, copy)).toBe("ada@example.com");
        expect(await sessionEmail(cut, copy)).toBe("ada@example.com");

        await proxy.setMode("pass");
        // Each retry is the wait: the store answers again within the instance's reconnection.
        const started = performance.now();
        for (;;) {
          const retry = await call(cut, "/auth/signout", {
            jar,
            form: { csrfToken: csrf },
            headers: { "x-auth-return-redirect": "1" },
          });
          if (retry.status === 200) {
            expect(await retry.json()).toEqual({ url: "http://localhost:3000/" });
            break;
          }
          expect(retry.status).toBe(503);
          if (performance.now() - started > 15_000 * inject("timeScale"))
            throw new Error("the store never took the sign-out");
        }
        expect(jar.get(NAME)).toBeUndefined();
        // Done means stored: an instance that loads the list now refuses the copy from its first read,
        // the cut one at once, the other one as soon as the push arrives.
        expect(await sessionEmail(configWith(storeOf()), copy)).toBeNull();
        expect(await sessionEmail(cut, copy)).toBeNull();
        await untilSignedOut(direct, copy);
      },
      30_000 * inject("timeScale"),
    );

    // Issue 22.4: with "serve", an instance cut off from the store kept re-issuing a revoked
    // session's cookie past the entry's lifetime; after the outage every instance accepted it.
    it(
      'rule: onUnavailable "serve" serves a session it cannot check but never re-issues, updates or extends it; re-issues resume once the list is current',
      async (t) => {
        if (!up) return t.skip();
        await proxy.setMode("pass");
        const direct = configWith(storeOf());
        const seen = { down: signal(), back: signal() };
        const cut = makeConfig({
          rateLimit: false,
          logger: {
            error() {},
            debug() {},
            warn: (code: string) => {
              if (code === "revocation-unavailable") seen.down.resolve();
              if (code === "revocation-restored") seen.back.resolve();
            },
          },
          session: {
            updateAge: 0,
            revocation: { store: storeOf({ port: proxy.port }), onUnavailable: "serve", timeout: 1000 },
          },
        });
        const token = (await signIn(direct)).jar.get(NAME) as string;
        const reissued = (response: Response) =>
          response.headers.getSetCookie().some((c) => c.startsWith(`${NAME}=`) && !c.startsWith(`${NAME}=;`));
        // The probe can see a re-issue: with updateAge 0 every read re-issues while the list is current.
        expect(reissued(await call(cut, "/auth/session", { jar: jarWith(token) }))).toBe(true);

        await proxy.setMode("blackhole");
        await seen.down.promise;
        const served = await call(cut, "/auth/session", { jar: jarWith(token) });
        expect(served.status).toBe(200);
        expect(((await served.json()) as { expires: string }).expires).toBe(
          new Date(((await claimsOf(token)).exp as number) * 1000).toISOString(),
        );
        expect(served.headers.getSetCookie().filter((c) => c.startsWith(`${NAME}=`))).toEqual([]);
        const jar = jarWith(token);
        const updated = await call(cut, "/auth/session", {
          jar,
          json: { csrfToken: await csrfToken(cut, jar), data: { theme: "dark" } },
        });
        expect(updated.status).toBe(500);
        expect(jar.get(NAME), "no cookie from a refused update").toBe(token);

        await proxy.setMode("pass");
        proxy.resetAll();
        await seen.back.promise;
        expect(reissued(await call(cut, "/auth/session", { jar: jarWith(token) }))).toBe(true);
      },
      30_000 * inject("timeScale"),
    );
  });
});

/**
 * A store whose push channel the test drives: entries live in a MemoryRevocationStore but are never
 * pushed (a push lost in an outage), `down()` / `up()` report the channel as a real store does,
 * and `holdLoads()` makes each `load()` read the store at once but answer only when released (a
 * slow reload that began before what happens next).
 */
class ChannelStore implements RevocationStore {
  readonly entries = new MemoryRevocationStore();
  #listener: RevocationListener | undefined;
  #held: Array<() => void> | null = null;
  #entered: Array<() => void> = [];

  add = (entry: Parameters<RevocationStore["add"]>[0]) => this.entries.add(entry);
  async load() {
    const snapshot = await this.entries.load();
    if (this.#held) {
      const held = this.#held;
      await new Promise<void>((release) => {
        held.push(release);
        for (const notify of this.#entered.splice(0)) notify();
      });
    }
    return snapshot;
  }
  async subscribe(listener: RevocationListener) {
    this.#listener = listener;
  }
  down() {
    this.#listener?.down(new Error("the push channel is lost"));
  }
  up() {
    this.#listener?.up();
  }
  holdLoads() {
    this.#held = [];
  }
  /** Resolves once a load is waiting to be released. */
  loadWaiting(): Promise<void> {
    if (this.#held?.length) return Promise.resolve();
    return new Promise((resolve) => this.#entered.push(resolve));
  }
  release() {
    const held = this.#held ?? [];
    this.#held = null;
    for (const release of held) release();
  }
}

/** Reads `token` until the list answers (not 500): the session's e-mail or null. Bounded, no sleep. */
async function firstAnswer(
  config: AuthConfig,
  token: string,
  deadlineMs = 5000 * inject("timeScale"),
): Promise<string | null> {
  const started = performance.now();
  for (;;) {
    const response = await call(config, "/auth/session", { jar: jarWith(token) });
    if (response.status === 200) {
      const body = (await response.json()) as { user?: { email?: string } } | null;
      return body?.user?.email ?? null;
    }
    expect(response.status).toBe(500);
    if (performance.now() - started > deadlineMs) throw new Error(`still refused after ${deadlineMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("the list is current only while its push channel is up", () => {
  it('a channel lost during the first load: reads are refused ("refuse"), not served, until it is back', async () => {
    const store = new ChannelStore();
    const config = configWith(store);
    const token = (await signIn(makeConfig({ rateLimit: false, logger: quiet }))).jar.get(NAME) as string;
    store.holdLoads();
    const first = call(config, "/auth/session", { jar: jarWith(token) });
    await store.loadWaiting();
    store.down();
    store.release();
    expect((await first).status).toBe(500);
    expect((await call(config, "/auth/session", { jar: jarWith(token) })).status).toBe(500);
    store.up();
    expect(await firstAnswer(config, token)).toBe("ada@example.com");
  });

  it("a revocation pushed while the channel flapped during a reload is caught by another load", async () => {
    const store = new ChannelStore();
    const config = configWith(store);
    const token = (await signIn(makeConfig({ rateLimit: false, logger: quiet }))).jar.get(NAME) as string;
    expect(await sessionEmail(config, token)).toBe("ada@example.com");
    // The channel drops and comes back; the reload this starts reads the store, then stalls.
    store.down();
    store.holdLoads();
    store.up();
    await store.loadWaiting();
    // Meanwhile another instance revokes the session: the push is lost in a second flap.
    const { sid } = await claimsOf(token);
    await store.add({ kind: "session", id: sid as string, before: Date.now(), expiresAt: Date.now() + 3_600_000 });
    store.down();
    store.up();
    store.release();
    // The stalled load did not see the revocation; the list must not be ready on it alone.
    expect(await firstAnswer(config, token)).toBeNull();
  });
});

describe("RedisRevocationStore", () => {
  it("subscribing while ioredis still checks the new connection does not lose the channel", async (t) => {
    if (!(await serviceAvailable("Redis", 6379))) return t.skip();
    const prefix = `latchkey-test:${run}:ready:`;
    const client = new Redis({ host: "127.0.0.1", port: 6379 });
    const subscriber = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: true });
    const errors: string[] = [];
    subscriber.on("error", (e) => errors.push(e.message));
    const store = RedisRevocationStore(client, subscriber, {
      prefix: `${prefix}revoked:`,
      channel: `${prefix}revocations`,
      heartbeatMs: 60_000,
    });
    const events: string[] = [];
    let arrived: () => void = () => {};
    const entryArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const listener: RevocationListener = {
      entry: (e) => {
        events.push(`entry ${e.id}`);
        arrived();
      },
      down: () => events.push("down"),
      up: () => events.push("up"),
    };
    try {
      // Subscribe exactly when the socket is connected and ioredis's ready check is still to come.
      const subscribed = new Promise<void>((resolve, reject) => {
        subscriber.once("connect", () => {
          expect(subscriber.status).toBe("connect");
          store.subscribe(listener).then(resolve, reject);
        });
      });
      await subscriber.connect();
      await subscribed;
      await store.add({ kind: "session", id: "s1", before: Date.now(), expiresAt: Date.now() + 60_000 });
      await entryArrived;
      expect(events).toEqual(["entry s1"]);
      expect(errors).toEqual([]);
    } finally {
      await store.close?.();
      const keys = await client.keys(`${prefix}*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
      subscriber.disconnect();
    }
  });
});
