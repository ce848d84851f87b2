import { describe, expect, it, vi } from "vitest";
import type { Adapter, AdapterUser } from "../src/adapters.js";
import { resolveConfig } from "../src/lib/config/resolve.js";
import { createMemoryStore, MemoryAdapter } from "../src/memory-adapter.js";
import { CookieJar, call, csrfToken, makeConfig, recordingLogger } from "./helpers.js";

const SESSION = "authjs.session-token";
const DAY = 86400;

/** A database-strategy configuration (no credentials provider: it is JWT-only). */
function dbConfig(adapter: Adapter, overrides: Parameters<typeof makeConfig>[0] = {}) {
  return makeConfig({ adapter, providers: [], ...overrides });
}

async function seedSession(adapter: Adapter, expiresInSeconds = 30 * DAY) {
  const user = (await adapter.createUser!({
    id: crypto.randomUUID(),
    name: "Grace",
    email: `grace+${crypto.randomUUID()}@example.com`,
    emailVerified: null,
    image: null,
  })) as AdapterUser;
  const sessionToken = crypto.randomUUID();
  await adapter.createSession!({
    sessionToken,
    userId: user.id,
    expires: new Date(Date.now() + expiresInSeconds * 1000),
  });
  const jar = new CookieJar();
  jar.cookies.set(SESSION, sessionToken);
  return { user, sessionToken, jar };
}

/** Counts the calls of one adapter method, letting them through to the real adapter. */
function countCalls<T extends keyof Adapter>(adapter: Adapter, method: T) {
  const spy = vi.fn(adapter[method] as (...args: unknown[]) => unknown);
  (adapter as Record<string, unknown>)[method] = spy;
  return spy;
}

describe("database sessions", () => {
  it("are the default with an adapter; jwt can still be chosen", () => {
    const adapter = MemoryAdapter();
    expect(resolveConfig(dbConfig(adapter)).session.strategy).toBe("database");
    expect(resolveConfig(dbConfig(adapter, { session: { strategy: "jwt" } })).session.strategy).toBe("jwt");
  });
  it("default session tokens carry 256 random bits", () => {
    const token = resolveConfig(dbConfig(MemoryAdapter())).session.generateSessionToken();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
  });
  it("GET /session reads the session and user from the adapter", async () => {
    const adapter = MemoryAdapter();
    const { jar } = await seedSession(adapter);
    const session = await (await call(dbConfig(adapter), "/auth/session", { jar })).json();
    expect(session).toMatchObject({
      user: { name: "Grace", email: expect.stringMatching(/^grace\+.*@example\.com$/) },
      expires: expect.any(String),
    });
  });
  it("passes the user (not a token) to the session callback", async () => {
    const adapter = MemoryAdapter();
    const { jar, user } = await seedSession(adapter);
    const session = vi.fn(({ session, user }) => ({ ...session, userId: user.id }));
    const body = await (await call(dbConfig(adapter, { callbacks: { session } }), "/auth/session", { jar })).json();
    expect(body).toMatchObject({ userId: user.id });
    expect(session.mock.calls[0]?.[0]).toMatchObject({ user: { id: user.id }, token: undefined });
  });
  it("an expired session is deleted and null returned, its cookie cleared", async () => {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    const { jar, sessionToken } = await seedSession(adapter, -10);
    const response = await call(dbConfig(adapter), "/auth/session", { jar });
    expect(await response.json()).toBeNull();
    expect(store.sessions.has(sessionToken)).toBe(false);
    expect(jar.get(SESSION)).toBeUndefined();
  });
  it("an unknown token gives null and clears the cookie", async () => {
    const jar = new CookieJar();
    jar.cookies.set(SESSION, "not-a-session");
    expect(await (await call(dbConfig(MemoryAdapter()), "/auth/session", { jar })).json()).toBeNull();
    expect(jar.get(SESSION)).toBeUndefined();
  });
  it("updateAge throttles writes: none while fresh, one when due, and on every access with 0", async () => {
    const adapter = MemoryAdapter();
    const updates = countCalls(adapter, "updateSession");
    const fresh = await seedSession(adapter);
    const config = dbConfig(adapter);
    await call(config, "/auth/session", { jar: fresh.jar });
    await call(config, "/auth/session", { jar: fresh.jar });
    expect(updates).not.toHaveBeenCalled();
    const due = await seedSession(adapter, 30 * DAY - DAY - 60);
    const response = await call(config, "/auth/session", { jar: due.jar });
    expect(updates).toHaveBeenCalledTimes(1);
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION}=${due.sessionToken}`))).toBe(true);
    const every = dbConfig(adapter, { session: { updateAge: 0 } });
    await call(every, "/auth/session", { jar: fresh.jar });
    await call(every, "/auth/session", { jar: fresh.jar });
    expect(updates).toHaveBeenCalledTimes(3);
  });
  it("POST /session updates through the session callback with newSession and trigger", async () => {
    const adapter = MemoryAdapter();
    const { jar } = await seedSession(adapter);
    const session = vi.fn(({ session, newSession }) => ({ ...session, note: (newSession as { note?: string })?.note }));
    const config = dbConfig(adapter, { callbacks: { session } });
    const token = await csrfToken(config, jar);
    const body = await (
      await call(config, "/auth/session", { jar, json: { csrfToken: token, data: { note: "hi" } } })
    ).json();
    expect(body).toMatchObject({ note: "hi" });
    expect(session).toHaveBeenLastCalledWith(
      expect.objectContaining({ trigger: "update", newSession: { note: "hi" } }),
    );
  });
  it("sign-out deletes the record, emits signOut with it and clears the cookie", async () => {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    const { jar, sessionToken } = await seedSession(adapter);
    const signOut = vi.fn();
    const config = dbConfig(adapter, { events: { signOut } });
    const token = await csrfToken(config, jar);
    await call(config, "/auth/signout", { jar, form: { csrfToken: token } });
    expect(store.sessions.has(sessionToken)).toBe(false);
    expect(signOut).toHaveBeenCalledWith({ session: expect.objectContaining({ sessionToken }) });
    expect(jar.get(SESSION)).toBeUndefined();
  });
  it("rule: signOut is emitted only for a session that ended: a replayed sign-out or a made-up token emits nothing", async () => {
    const adapter = MemoryAdapter(createMemoryStore());
    const { jar, sessionToken } = await seedSession(adapter);
    const signOut = vi.fn();
    const config = dbConfig(adapter, { events: { signOut } });
    await call(config, "/auth/signout", { jar, form: { csrfToken: await csrfToken(config, jar) } });
    expect(signOut).toHaveBeenCalledTimes(1);
    for (const value of [sessionToken, "made-up"]) {
      const replay = new CookieJar();
      replay.cookies.set(SESSION, value);
      await call(config, "/auth/signout", { jar: replay, form: { csrfToken: await csrfToken(config, replay) } });
      expect(replay.get(SESSION), value).toBeUndefined();
    }
    expect(signOut).toHaveBeenCalledTimes(1);
  });
  it("a failing adapter gives a bounded 500 on GET /session, logged as AdapterError, cookie kept", async () => {
    const adapter = MemoryAdapter();
    const { jar, sessionToken } = await seedSession(adapter);
    adapter.getSessionAndUser = () => Promise.reject(new Error("connection refused"));
    const { logger, errors } = recordingLogger();
    const response = await call(dbConfig(adapter, { logger }), "/auth/session", { jar });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: expect.stringMatching(/could not be read/) });
    expect(jar.get(SESSION)).toBe(sessionToken);
    expect((errors[0]?.cause as { err?: unknown } | undefined)?.err).toMatchObject({ type: "AdapterError" });
  });
  // Issue 22.3: a failed deleteSession was logged while the answer was the normal 302 and the
  // cookie was cleared, so the user believed herself signed out while the record (and every copy
  // of the cookie) lived on.
  it("rule: a sign-out the adapter does not confirm is answered as not done (error page, or 503 to scripts), keeps the cookie, records session.revoke-failed; a retry ends it", async () => {
    const adapter = MemoryAdapter();
    const { jar, sessionToken } = await seedSession(adapter);
    const deleteSession = adapter.deleteSession?.bind(adapter) as NonNullable<Adapter["deleteSession"]>;
    let down = true;
    adapter.deleteSession = async (token) => {
      if (down) throw new Error("down");
      return (await deleteSession(token)) ?? null;
    };
    const { logger, errors } = recordingLogger();
    const audits: Array<{ type: string; reason?: string; sessionId?: string }> = [];
    const signOuts: unknown[] = [];
    const config = dbConfig(adapter, {
      logger,
      events: { audit: (e) => void audits.push(e), signOut: (m) => void signOuts.push(m) },
    });
    const token = await csrfToken(config, jar);
    const form = await call(config, "/auth/signout", {
      jar,
      form: { csrfToken: token },
      headers: { accept: "text/html" },
    });
    expect(form.status).toBe(302);
    expect(form.headers.get("location")).toBe("http://localhost:3000/auth/error?error=SignOutError");
    expect(jar.get(SESSION)).toBe(sessionToken);
    const script = await call(config, "/auth/signout", {
      jar,
      form: { csrfToken: token },
      headers: { "x-auth-return-redirect": "1" },
    });
    expect(script.status).toBe(503);
    expect(await script.json()).toEqual({
      error: "SignOutError",
      url: "http://localhost:3000/auth/error?error=SignOutError",
    });
    expect(jar.get(SESSION)).toBe(sessionToken);
    expect(errors[0]).toMatchObject({ type: "SignOutError" });
    expect(signOuts).toEqual([]);
    expect(audits.map((e) => [e.type, e.reason])).toEqual([
      ["session.revoke-failed", "signed-out"],
      ["session.revoke-failed", "signed-out"],
    ]);
    expect(audits[0]?.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const page = await call(config, "/auth/error?error=SignOutError");
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("Sign-out did not complete");
    // the session is still a session, as the answer said
    const read = await call(config, "/auth/session", { jar });
    expect(((await read.json()) as { user?: { name?: string } }).user?.name).toBe("Grace");

    down = false;
    const retried = await call(config, "/auth/signout", { jar, form: { csrfToken: token } });
    expect(retried.status).toBe(302);
    expect(retried.headers.get("location")).toBe("http://localhost:3000");
    expect(jar.get(SESSION)).toBeUndefined();
    expect(signOuts).toHaveLength(1);
    expect(await adapter.getSessionAndUser?.(sessionToken)).toBeNull();
  });
  // A sibling sub-domain plants a second session cookie (its own, Domain=<parent>, a longer Path):
  // the sign-out request then carries the name twice, which reads as no session. The sign-out must
  // still end the browser's own session, never answer "done" while it lives on.
  it("attack: a planted duplicate session cookie does not make a sign-out answer as done while the session lives on", async () => {
    const adapter = MemoryAdapter(createMemoryStore());
    const { jar, sessionToken } = await seedSession(adapter);
    const planted = await seedSession(adapter);
    const signOuts: unknown[] = [];
    const config = dbConfig(adapter, { events: { signOut: (m) => void signOuts.push(m) } });
    const token = await csrfToken(config, jar);
    // the browser sends the planted (longer Path) cookie first
    const cookie = `${SESSION}=${planted.sessionToken}; ${jar.header()}`;
    const answer = await call(config, "/auth/signout", { form: { csrfToken: token }, headers: { cookie } });
    // answered as done, and done: every session the browser held ended (the planted one is the
    // planter's own), and the browser's own cookie cleared
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe("http://localhost:3000");
    expect(await adapter.getSessionAndUser?.(sessionToken)).toBeNull();
    expect(await adapter.getSessionAndUser?.(planted.sessionToken)).toBeNull();
    expect(signOuts).toHaveLength(2);
    expect(answer.headers.getSetCookie().some((l) => l.startsWith(`${SESSION}=;`) && /Max-Age=0/i.test(l))).toBe(true);
    // once the sibling drops its copy, the browser's own cookie opens no session
    const read = await call(config, "/auth/session", { headers: { cookie: `${SESSION}=${sessionToken}` } });
    expect(await read.json()).toBeNull();
  });
  it("an adapter call that never answers fails after adapterTimeout with a bounded 500", async () => {
    const adapter = MemoryAdapter();
    const { jar } = await seedSession(adapter);
    adapter.getSessionAndUser = () => new Promise(() => {});
    const { logger, errors } = recordingLogger();
    const response = await call(dbConfig(adapter, { logger, adapterTimeout: 50 }), "/auth/session", { jar });
    expect(response.status).toBe(500);
    expect((errors[0]?.cause as { err?: Error } | undefined)?.err?.cause).toMatchObject({
      err: expect.objectContaining({ message: "no answer within 50 ms" }),
    });
  });
  it("an adapter lacking methods the configuration needs is reported at resolution", () => {
    expect(() => resolveConfig(dbConfig({ getSessionAndUser: () => null }))).toThrow(
      /createSession, updateSession, deleteSession/,
    );
  });
});
