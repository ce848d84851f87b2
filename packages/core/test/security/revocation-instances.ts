/**
 * Revocation of JWT sessions across instances: two configuration objects in one process, each with
 * its own store object and its own connections to one shared store, attacked through `Auth()` (a
 * revoked token replayed and raced against re-issues, a late instance, store outages through a TCP
 * proxy). Each shared store runs it from its own package's tests (`@latchkey/redis-adapter`,
 * `@latchkey/sql-adapter`); the in-process tests of `jwt-revocation.test.ts` share its helpers.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { decode, type JWT } from "../../src/jwt.js";
import {
  type RevocationEntry,
  type RevocationStore,
  revokeJwtSession,
  revokeUserSessions,
} from "../../src/revocation.js";
import { CookieJar, call, csrfToken, makeConfig, SECRET, signIn } from "../helpers.js";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";

export const NAME = "authjs.session-token";
export const quiet = { error() {}, warn() {}, debug() {} };

export function configWith(store: RevocationStore | undefined, extra: Partial<AuthConfig> = {}): AuthConfig {
  return makeConfig({
    rateLimit: false,
    logger: quiet,
    session: { revocation: store ? { store, onUnavailable: "refuse", timeout: 1500 } : true },
    ...extra,
  });
}

export async function claimsOf(token: string | undefined): Promise<JWT> {
  const claims = await decode({ token, secret: SECRET, salt: NAME });
  expect(claims, "the cookie must open").not.toBeNull();
  return claims as JWT;
}

export function jarWith(token: string): CookieJar {
  const jar = new CookieJar();
  jar.cookies.set(NAME, token);
  return jar;
}

export async function sessionEmail(config: AuthConfig, token: string): Promise<string | null> {
  const response = await call(config, "/auth/session", { jar: jarWith(token) });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { user?: { email?: string } } | null;
  return body?.user?.email ?? null;
}

/** Posts a session update with `token`; returns the re-issued token (or undefined when none). */
export async function update(config: AuthConfig, token: string): Promise<string | undefined> {
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

function entriesOfUser(entries: RevocationEntry[], userId: string): RevocationEntry[] {
  return entries.filter((e) => (e.kind === "user" ? e.id === userId : e.userId === userId));
}

/** One sign-in on `signInOn`, then its sign-out on `signOutOn`; the ended session's token. */
export async function signInAndOut(signInOn: AuthConfig, signOutOn: AuthConfig): Promise<string> {
  const { jar } = await signIn(signInOn);
  const token = jar.get(NAME) as string;
  const out = await call(signOutOn, "/auth/signout", { jar, form: { csrfToken: await csrfToken(signOutOn, jar) } });
  expect(out.status).toBe(302);
  return token;
}

export interface Backend {
  name: string;
  up: () => Promise<boolean>;
  /** A store on its own connections; `port` overrides the server's port (for a TCP proxy). */
  store: (options?: { port?: number; heartbeatMs?: number }) => RevocationStore;
  /** True when instances hear of entries by polling the store (within its period), not by a push. */
  polls?: boolean;
  /** The server's port, which a TCP proxy can cut (none: the outage tests are skipped). */
  serverPort?: number;
  cleanup: () => Promise<void>;
}

/** Random per run: the names a suite gives its keys and sessions. */
export const run = randomBytes(4).toString("hex");

/** What the backends opened (connections, pools), closed after their suite, each bounded. */
export const closers: Array<() => Promise<unknown> | unknown> = [];

/** The suite of {@link Backend}s, one `describe` each. */
export function describeAcrossInstances(backends: Backend[]): void {
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
      expect(
        entriesOfUser(entries, "u1").length,
        "tagged with their user, which a new instance counts",
      ).toBeGreaterThan(0);
      const late = configWith(lateStore);
      for (const token of ended) expect(await sessionEmail(late, token)).toBeNull();
      // A store that pushes has told `a` by now; one that polls tells it within its period.
      if (backend.polls) for (const token of ended) await untilSignedOut(a, token);
      for (const token of ended) expect(await sessionEmail(a, token)).toBeNull();
    });

    it("rule: 40 concurrent writes of one user's entry from two instances keep the latest `before` and the latest expiry, in one entry", async (t) => {
      if (!up) return t.skip();
      const [one, two] = [storeOf(), storeOf()];
      const now = Date.now();
      const id = `race-${run}`;
      // Every offset from 0 to 39 s once each, in an order unrelated to the other field's.
      const writes = Array.from({ length: 40 }, (_, i) => ({
        kind: "user" as const,
        id,
        before: now - 1000 * ((i * 7) % 40),
        expiresAt: now + 3_600_000 + 1000 * ((i * 13) % 40),
      }));
      await Promise.all(writes.map((entry, i) => (i % 2 ? one : two).add(entry)));
      const stored = (await storeOf().load()).filter((e) => e.kind === "user" && e.id === id);
      expect(stored).toEqual([{ kind: "user", id, before: now, expiresAt: now + 3_600_000 + 39_000 }]);
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

    describe.skipIf(backend.serverPort === undefined)("store outage", () => {
      let proxy: TcpProxy;
      beforeAll(async () => {
        if (up && backend.serverPort !== undefined) proxy = await startTcpProxy(backend.serverPort);
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
}
