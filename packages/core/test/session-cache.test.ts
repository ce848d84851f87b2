/**
 * The cache of database session reads (`session.cache`, issue 26), in one process: two
 * configurations over one adapter store and one channel stand for two instances. The same rules
 * across OS processes, on PostgreSQL and Redis, are in packages/express/test/session-cache-instances.test.ts.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Adapter, AdapterUser } from "../src/adapters.js";
import { resolveConfig } from "../src/lib/config/resolve.js";
import { deliver, encodeSessionChange, sessionKeyOf } from "../src/lib/stores/revocation-channel.js";
import { createMemoryStore, MemoryAdapter } from "../src/memory-adapter.js";
import Credentials from "../src/providers/credentials.js";
import { MemoryRevocationStore } from "../src/revocation.js";
import { announceSessionChange, revokeUserSessions } from "../src/sessions.js";
import type { SessionCacheOptions } from "../src/shapes/revocation.js";
import type { RevocationListener, RevocationStore, SessionChange } from "../src/stores.js";
import type { AuthConfig } from "../src/types.js";
import { CookieJar, call, csrfToken, makeConfig, recordingLogger } from "./helpers.js";

const SESSION = "authjs.session-token";

/** A memory adapter over `store` whose `getSessionAndUser` and `updateSession` calls are counted. */
function countedAdapter(store = createMemoryStore()) {
  const inner = MemoryAdapter(store);
  const counts = { reads: 0, updates: 0 };
  /** While set, a read answers only once it resolves (what the database said before it). */
  const gate: { hold: Promise<void> | null } = { hold: null };
  const adapter: Adapter = {
    ...inner,
    getSessionAndUser: async (token) => {
      counts.reads++;
      const found = await inner.getSessionAndUser!(token);
      if (gate.hold) await gate.hold;
      return found;
    },
    updateSession: async (session) => {
      counts.updates++;
      return inner.updateSession!(session);
    },
  };
  return { adapter, counts, store, gate };
}

/** A channel whose outages the test decides: `down()` and `up()` reach the cache as a store's would. */
class ControlledChannel implements RevocationStore {
  listener: RevocationListener | undefined;
  pushed: SessionChange[] = [];
  async add(): Promise<void> {}
  async load() {
    return [];
  }
  async subscribe(listener: RevocationListener): Promise<void> {
    this.listener = listener;
  }
  async push(change: SessionChange): Promise<void> {
    this.pushed.push(change);
    this.listener?.change?.(change);
  }
}

function cached(adapter: Adapter, cache: SessionCacheOptions | boolean, extra: Partial<AuthConfig> = {}) {
  const { logger } = recordingLogger();
  return makeConfig({ adapter, providers: [], logger, ...extra, session: { cache, ...extra.session } });
}

async function seed(adapter: Adapter, expiresAt = Date.now() + 30 * 86_400_000) {
  const user = (await adapter.createUser!({
    id: crypto.randomUUID(),
    name: "Grace",
    email: `grace+${crypto.randomUUID()}@example.com`,
    emailVerified: null,
    image: null,
  })) as AdapterUser;
  const sessionToken = crypto.randomUUID();
  await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(expiresAt) });
  const jar = new CookieJar();
  jar.cookies.set(SESSION, sessionToken);
  return { user, sessionToken, jar };
}

async function read(config: AuthConfig, jar: CookieJar) {
  return (await call(config, "/auth/session", { jar: copy(jar) })).json();
}

function copy(jar: CookieJar): CookieJar {
  const out = new CookieJar();
  for (const [k, v] of jar.cookies) out.cookies.set(k, v);
  return out;
}

/** Reads once, then waits for the channel's subscription to be confirmed (the event, not a time). */
async function warm(config: AuthConfig, jar: CookieJar) {
  await read(config, jar);
  const cache = resolveConfig(config).sessionCache;
  if (cache) await vi.waitFor(() => expect(cache.channel.trusted).toBe(true));
  await read(config, jar);
}

afterEach(() => vi.restoreAllMocks());

describe("session.cache", () => {
  it("answers repeated reads from memory once its channel is confirmed: no query per read", async () => {
    const { adapter, counts } = countedAdapter();
    const config = cached(adapter, true);
    const { jar, user } = await seed(adapter);
    await warm(config, jar);
    const before = counts.reads;
    for (let i = 0; i < 100; i++) expect(await read(config, jar)).toMatchObject({ user: { email: user.email } });
    expect(counts.reads - before).toBe(0);
  });

  it("attack: on the Edge runtime (a global of its own beside the Node.js server) an in-memory cache is off: a session the server deleted is never served from memory there", async () => {
    vi.stubGlobal("EdgeRuntime", "edge-runtime");
    try {
      const { adapter, counts } = countedAdapter();
      const config = cached(adapter, true, { secret: "an-edge-global-secret-of-at-least-32-chars!" });
      expect(resolveConfig(config).sessionCache).toBeNull();
      const { jar, user, sessionToken } = await seed(adapter);
      expect(await read(config, jar)).toMatchObject({ user: { email: user.email } });
      const before = counts.reads;
      expect(await read(config, jar)).toMatchObject({ user: { email: user.email } });
      expect(counts.reads - before).toBe(1);
      // The server's sign-out: the record deleted where this global cannot hear it.
      await adapter.deleteSession!(sessionToken);
      expect(await read(config, jar)).toBeNull();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("reads the database while the subscription is not yet confirmed", async () => {
    const { adapter, counts } = countedAdapter();
    const channel = new ControlledChannel();
    let confirm: () => void = () => {};
    channel.subscribe = (listener) =>
      new Promise<void>((resolve) => {
        channel.listener = listener;
        confirm = resolve;
      });
    const config = cached(adapter, { channel });
    const { jar } = await seed(adapter);
    for (let i = 0; i < 5; i++) await read(config, jar);
    expect(counts.reads).toBe(5);
    confirm();
    await vi.waitFor(() => expect(resolveConfig(config).sessionCache?.channel.trusted).toBe(true));
    await read(config, jar);
    await read(config, jar);
    expect(counts.reads).toBe(6);
  });

  it("50 reads of one session at once make one query", async () => {
    const { adapter, counts } = countedAdapter();
    const config = cached(adapter, true);
    const { jar } = await seed(adapter);
    const other = await seed(adapter);
    await warm(config, other.jar);
    const before = counts.reads;
    const answers = await Promise.all(Array.from({ length: 50 }, () => read(config, jar)));
    expect(counts.reads - before).toBe(1);
    for (const answer of answers) expect(answer).toMatchObject({ user: { name: "Grace" } });
  });

  describe("a change on one instance ends the session on the other", () => {
    const twoInstances = () => {
      const { adapter, counts, store } = countedAdapter();
      const channel = new MemoryRevocationStore();
      // Two application objects: two configurations, two caches, one channel and one database.
      const a = cached(adapter, { channel });
      const b = cached(adapter, { channel });
      return { adapter, counts, store, a, b, channel };
    };

    it("sign-out", async () => {
      const { adapter, a, b } = twoInstances();
      const { jar } = await seed(adapter);
      await warm(b, jar);
      expect(await read(b, jar)).not.toBeNull();
      const signingOut = copy(jar);
      const csrf = await csrfToken(a, signingOut);
      await call(a, "/auth/signout", { jar: signingOut, form: { csrfToken: csrf } });
      expect(await read(b, jar)).toBeNull();
    });

    it("revokeUserSessions (the sessions API) and user deletion", async () => {
      const { adapter, a, b } = twoInstances();
      const first = await seed(adapter);
      await warm(b, first.jar);
      await revokeUserSessions(a, first.user.id);
      expect(await read(b, first.jar)).toBeNull();

      const second = await seed(adapter);
      await warm(b, second.jar);
      await resolveConfig(a).adapter!.deleteUser!(second.user.id);
      expect(await read(b, second.jar)).toBeNull();
    });

    it("a user update reaches the other instance's next read", async () => {
      const { adapter, a, b } = twoInstances();
      const { jar, user } = await seed(adapter);
      await warm(b, jar);
      await resolveConfig(a).adapter!.updateUser!({ id: user.id, name: "Grace Hopper" });
      expect(await read(b, jar)).toMatchObject({ user: { name: "Grace Hopper" } });
    });

    it("a sign-in past maxPerUser ends the oldest session on the other instance too", async () => {
      const { adapter, store } = countedAdapter();
      const channel = new MemoryRevocationStore();
      const provider = Credentials({
        databaseSessions: true,
        credentials: { username: {}, password: {} },
        authorize: async (c) =>
          c.password === "pw" ? { id: "limited", name: "Limited", email: "l@example.com" } : null,
      });
      const extra = { providers: [provider], rateLimit: false as const, session: { maxPerUser: 1 } };
      const a = cached(adapter, { channel }, extra);
      const b = cached(adapter, { channel }, extra);
      const signIn = async () => {
        const jar = new CookieJar();
        const csrf = await csrfToken(a, jar);
        await call(a, "/auth/callback/credentials", { jar, form: { csrfToken: csrf, username: "l", password: "pw" } });
        return jar;
      };
      const first = await signIn();
      await warm(b, first);
      expect(await read(b, first)).toMatchObject({ user: { name: "Limited" } });
      await signIn();
      expect(store.sessions.has(first.get(SESSION)!)).toBe(false);
      expect(await read(b, first)).toBeNull();
    });

    it("a write that fails after it took effect (an answer lost, a timeout after the commit) still ends the session on the other instance", async () => {
      const { adapter: inner, store } = countedAdapter();
      const adapter: Adapter = {
        ...inner,
        deleteSession: async (token) => {
          await inner.deleteSession!(token);
          throw new Error("connection reset before the answer");
        },
        deleteSessions: async (userId) => {
          await inner.deleteSessions!(userId);
          throw new Error("connection reset before the answer");
        },
      };
      const channel = new MemoryRevocationStore();
      const a = cached(adapter, { channel });
      const b = cached(adapter, { channel });
      const { jar, sessionToken } = await seed(adapter);
      await warm(b, jar);
      const signingOut = copy(jar);
      const response = await call(a, "/auth/signout", {
        jar: signingOut,
        form: { csrfToken: await csrfToken(a, signingOut) },
      });
      // The sign-out reads the session back, finds it gone and reports it done.
      expect(response.status).toBe(302);
      expect(store.sessions.has(sessionToken)).toBe(false);
      expect(await read(b, jar)).toBeNull();

      const second = await seed(adapter);
      await warm(b, second.jar);
      await expect(resolveConfig(a).adapter!.deleteSessions!(second.user.id)).rejects.toThrow(/deleteSessions/);
      expect(await read(b, second.jar)).toBeNull();
    });

    it("attack: a variant of a stolen token that the database also matches (a case-insensitive collation) is never held, so it ends with the sign-out", async () => {
      const { adapter: inner, store } = countedAdapter();
      // MySQL's default collations (and Prisma's schema on them) compare text without case.
      const adapter: Adapter = {
        ...inner,
        getSessionAndUser: (token) => inner.getSessionAndUser!(token.toLowerCase()),
      };
      const channel = new MemoryRevocationStore();
      const a = cached(adapter, { channel });
      const b = cached(adapter, { channel });
      const { jar, sessionToken } = await seed(adapter);
      const variant = new CookieJar();
      variant.cookies.set(SESSION, sessionToken.toUpperCase());
      await warm(b, variant);
      expect(await read(b, variant), "the database matches it").not.toBeNull();
      const signingOut = copy(jar);
      await call(a, "/auth/signout", { jar: signingOut, form: { csrfToken: await csrfToken(a, signingOut) } });
      expect(store.sessions.has(sessionToken)).toBe(false);
      // The push names the stored token's hash; the variant was never held under it.
      expect(await read(b, variant)).toBeNull();
    });

    it("a push carries the token's SHA-256, never the token", async () => {
      const { adapter } = countedAdapter();
      const channel = new ControlledChannel();
      const a = cached(adapter, { channel });
      const { jar, sessionToken } = await seed(adapter);
      await warm(a, jar);
      await resolveConfig(a).adapter!.deleteSession!(sessionToken);
      expect(channel.pushed).toEqual([{ kind: "session", id: sessionKeyOf(sessionToken) }]);
      expect(JSON.stringify(channel.pushed)).not.toContain(sessionToken);
    });
  });

  it("announceSessionChange drops what the application changed itself, on every instance; bad input is a TypeError", async () => {
    const { adapter, store } = countedAdapter();
    const channel = new MemoryRevocationStore();
    const a = cached(adapter, { channel });
    const b = cached(adapter, { channel });
    const byUser = await seed(adapter);
    const byToken = await seed(adapter);
    await warm(b, byUser.jar);
    await warm(b, byToken.jar);
    // The application's own writes, which Latchkey's adapter never saw.
    store.sessions.delete(byUser.sessionToken);
    store.sessions.delete(byToken.sessionToken);
    expect(await read(b, byUser.jar), "held until announced").not.toBeNull();
    await announceSessionChange(a, { userId: byUser.user.id });
    await announceSessionChange(a, { sessionToken: byToken.sessionToken });
    expect(await read(b, byUser.jar)).toBeNull();
    expect(await read(b, byToken.jar)).toBeNull();
    await expect(announceSessionChange(a, { userId: "" })).rejects.toThrow(TypeError);
    // Without session.cache it does nothing.
    await announceSessionChange(makeConfig({ adapter, providers: [] }), { userId: byUser.user.id });
  });

  it("an adapter over integer user ids (Auth.js's pg schema): a change of the user still reaches the other instance", async () => {
    const { adapter: inner, counts } = countedAdapter();
    // What @auth/pg-adapter answers: the user's id as a number.
    const adapter: Adapter = {
      ...inner,
      getSessionAndUser: async (token) => {
        const found = await inner.getSessionAndUser!(token);
        return found && { ...found, user: { ...found.user, id: Number(found.user.id) as unknown as string } };
      },
      // Its update by that number (the memory store underneath keys users by text).
      updateUser: async (user) => ({ ...(await inner.getUser!(String(user.id)))!, ...user }),
    };
    // A channel that carries the wire form, as Redis and PostgreSQL do.
    const listeners: RevocationListener[] = [];
    const channel: RevocationStore = {
      add: async () => {},
      load: async () => [],
      subscribe: async (listener) => void listeners.push(listener),
      push: async (change) => {
        for (const listener of listeners) deliver(listener, encodeSessionChange(change));
      },
    };
    const a = cached(adapter, { channel });
    const b = cached(adapter, { channel });
    await inner.createUser!({ id: "42", name: "Int", email: "int@example.com", emailVerified: null });
    const sessionToken = crypto.randomUUID();
    await inner.createSession!({ sessionToken, userId: "42", expires: new Date(Date.now() + 86_400_000) });
    const jar = new CookieJar();
    jar.cookies.set(SESSION, sessionToken);
    await warm(b, jar);
    const before = counts.reads;
    await read(b, jar);
    expect(counts.reads - before, "held").toBe(0);
    // An update of user 42 on the other instance (the id as the adapter gave it: a number).
    await resolveConfig(a).adapter!.updateUser!({ id: 42 as unknown as string, name: "Renamed" });
    await read(b, jar);
    expect(counts.reads - before, "dropped: read again from the database").toBe(1);
  });

  it("a change that arrives while a read is loading is not kept by that read", async () => {
    const { adapter, counts, gate } = countedAdapter();
    const channel = new ControlledChannel();
    const config = cached(adapter, { channel });
    const { jar, sessionToken } = await seed(adapter);
    const other = await seed(adapter);
    await warm(config, other.jar);
    let release: () => void = () => {};
    gate.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const before = counts.reads;
    const reading = read(config, jar);
    await vi.waitFor(() => expect(counts.reads).toBe(before + 1));
    // Changed behind this instance's back and announced while the read is in flight.
    channel.listener?.change?.({ kind: "session", id: sessionKeyOf(sessionToken) });
    gate.hold = null;
    release();
    await reading;
    await read(config, jar);
    expect(counts.reads - before).toBe(2);
    await read(config, jar);
    expect(counts.reads - before).toBe(2);
  });

  it("race: a read that begins after a sign-out never shares a load that began before it", async () => {
    const { adapter, counts, gate } = countedAdapter();
    const config = cached(adapter, true);
    const { jar } = await seed(adapter);
    const other = await seed(adapter);
    await warm(config, other.jar);
    let release: () => void = () => {};
    gate.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const before = counts.reads;
    // The database answered "signed in", and the answer is still on its way (a slow reply, an
    // adapter that reads the session and then its user).
    const early = read(config, jar);
    await vi.waitFor(() => expect(counts.reads).toBe(before + 1));
    gate.hold = null;
    const signingOut = copy(jar);
    const signedOut = await call(config, "/auth/signout", {
      jar: signingOut,
      form: { csrfToken: await csrfToken(config, signingOut) },
    });
    expect(signedOut.status).toBe(302);
    // The sign-out is done: a replay of the cookie must not ride on the answer from before it.
    const replay = read(config, jar);
    release();
    expect(await replay).toBeNull();
    await early;
    expect(await read(config, jar)).toBeNull();
  });

  it("while the channel is down every read goes to the database, and it is trusted again only once `up` arrives", async () => {
    const { adapter, counts } = countedAdapter();
    const channel = new ControlledChannel();
    const { logger, warnings } = recordingLogger();
    const config = cached(adapter, { channel }, { logger });
    const { jar } = await seed(adapter);
    await warm(config, jar);
    channel.listener?.down(new Error("connection reset"));
    expect(warnings).toContain("session-cache-unavailable");
    const before = counts.reads;
    for (let i = 0; i < 10; i++) await read(config, jar);
    expect(counts.reads - before).toBe(10);
    channel.listener?.up();
    await read(config, jar);
    await read(config, jar);
    expect(counts.reads - before).toBe(11);
    expect(warnings).toContain("session-cache-restored");
  });

  it("a channel that does not take a push never holds a sign-out: it completes after `timeout` and the failure is logged", async () => {
    const { adapter, store } = countedAdapter();
    const channel = new ControlledChannel();
    channel.push = () => new Promise<void>(() => {});
    const { logger, warnings } = recordingLogger();
    const config = cached(adapter, { channel, timeout: 50 }, { logger });
    const { jar, sessionToken } = await seed(adapter);
    await warm(config, jar);
    const signingOut = copy(jar);
    const csrf = await csrfToken(config, signingOut);
    const response = await call(config, "/auth/signout", { jar: signingOut, form: { csrfToken: csrf } });
    expect(response.status).toBe(302);
    expect(store.sessions.has(sessionToken)).toBe(false);
    expect(warnings).toContain("session-cache-push-failed");
    // This instance dropped it before pushing.
    expect(await read(config, jar)).toBeNull();
  });

  it("a cached read ends the session at the same millisecond as the database read does", async () => {
    const expiresAt = Date.now() + 60_000;
    const outcomes: Record<string, unknown[]> = {};
    for (const cache of [false, true]) {
      const { adapter, counts } = countedAdapter();
      // Not due for the updateAge write before the test moves the clock.
      const config = cached(adapter, cache, { session: { maxAge: 120, updateAge: 100 } });
      const sessions = [await seed(adapter, expiresAt), await seed(adapter, expiresAt), await seed(adapter, expiresAt)];
      await warm(config, sessions[0]!.jar);
      for (const { jar } of sessions) await read(config, jar);
      const now = vi.spyOn(Date, "now");
      const seen: unknown[] = [];
      for (const [i, at] of [expiresAt - 1, expiresAt, expiresAt + 1].entries()) {
        now.mockReturnValue(at);
        const before = counts.reads;
        seen.push((await read(config, sessions[i]!.jar)) === null ? "ended" : "served");
        // Before the expiry the cache answers from memory; from the last millisecond on, the database.
        if (cache) expect(counts.reads - before, `at ${at - expiresAt} ms`).toBe(at < expiresAt ? 0 : 1);
      }
      now.mockRestore();
      outcomes[String(cache)] = seen;
    }
    expect(outcomes.true).toEqual(outcomes.false);
    expect(outcomes.true?.[0]).toBe("served");
    expect(outcomes.true?.[2]).toBe("ended");
  });

  it("reads due for their updateAge write make one write per process, and the new expiry is served", async () => {
    const { adapter, counts } = countedAdapter();
    const config = cached(adapter, true, { session: { updateAge: 60 } });
    // Past updateAge: the session was last extended two minutes ago.
    const { jar } = await seed(adapter, Date.now() + 30 * 86_400_000 - 120_000);
    const other = await seed(adapter);
    await warm(config, other.jar);
    const answers = await Promise.all(Array.from({ length: 50 }, () => read(config, jar)));
    expect(counts.updates).toBe(1);
    const expiries = new Set(answers.map((a: { expires: string }) => a.expires));
    expect(expiries.size).toBe(1);
    const after = await read(config, jar);
    expect(after.expires).toBe([...expiries][0]);
    expect(counts.updates).toBe(1);
  });

  it("a callback that changes what it receives changes no later read", async () => {
    const { adapter } = countedAdapter();
    const seen: unknown[] = [];
    const config = cached(adapter, true, {
      callbacks: {
        session: ({ session, user }) => {
          seen.push(user.name);
          user.name = "changed by the callback";
          return session;
        },
      },
    });
    const { jar } = await seed(adapter);
    await warm(config, jar);
    await read(config, jar);
    await read(config, jar);
    expect(seen).toEqual(["Grace", "Grace", "Grace", "Grace"]);
  });

  it("attack: a flood of made-up tokens fills nothing (only live sessions are held) and each still reads the database", async () => {
    const { adapter, counts } = countedAdapter();
    const config = cached(adapter, true);
    const { jar } = await seed(adapter);
    await warm(config, jar);
    const cache = resolveConfig(config).sessionCache!;
    const before = counts.reads;
    const held = cache.size;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const forged = new CookieJar();
        forged.cookies.set(SESSION, `${crypto.randomUUID()}${i}`);
        return read(config, forged).then((answer) => expect(answer).toBeNull());
      }),
    );
    expect(counts.reads - before).toBe(50);
    expect(cache.size).toBe(held);
  });

  it("attack: a configuration made per request (NextAuth(() => config)) on a shared channel leaves no cache behind", async () => {
    // The lazy form of the configuration returns a new object per request: each resolves its own
    // cache. Anyone's request (a made-up cookie, or none) makes one; the channel must not keep them.
    setFlagsFromString("--expose-gc");
    const gc: () => void = runInNewContext("gc");
    const { adapter } = countedAdapter();
    const channel = new MemoryRevocationStore();
    const { jar } = await seed(adapter);
    const first = cached(adapter, { channel });
    await warm(first, jar);
    const shared = resolveConfig(first).sessionCache!.channel;
    for (let i = 0; i < 200; i++) {
      const forged = new CookieJar();
      forged.cookies.set(SESSION, `made-up-${i}`);
      expect(await read(cached(adapter, { channel }), i % 2 ? forged : jar)).toEqual(i % 2 ? null : expect.anything());
    }
    // Collected once nothing holds them: a full collection after the current job has ended.
    await vi.waitFor(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      expect(shared.cacheCount).toBeLessThan(10);
    });
    // The configuration still in use still hears of changes.
    const signingOut = copy(jar);
    await call(first, "/auth/signout", { jar: signingOut, form: { csrfToken: await csrfToken(first, signingOut) } });
    expect(await read(first, jar)).toBeNull();
  });

  it("attack: a signed-out session replayed 50 times at once on the other instance gets no session", async () => {
    const { adapter } = countedAdapter();
    const channel = new MemoryRevocationStore();
    const a = cached(adapter, { channel });
    const b = cached(adapter, { channel });
    const { jar } = await seed(adapter);
    await warm(b, jar);
    const signingOut = copy(jar);
    const csrf = await csrfToken(a, signingOut);
    await call(a, "/auth/signout", { jar: signingOut, form: { csrfToken: csrf } });
    const answers = await Promise.all(Array.from({ length: 50 }, () => read(b, jar)));
    expect(answers).toEqual(Array.from({ length: 50 }, () => null));
  });

  describe("configuration mistakes are named with their fix", () => {
    it("under JWT sessions", () => {
      expect(() => resolveConfig(makeConfig({ session: { strategy: "jwt", cache: true } }))).toThrow(
        /session\.cache.*database session reads/,
      );
    });
    it("a channel without push", () => {
      const { adapter } = countedAdapter();
      const store: RevocationStore = { add: async () => {}, load: async () => [], subscribe: async () => {} };
      expect(() => resolveConfig(cached(adapter, { channel: store }))).toThrow(/needs a `push` method/);
    });
    it("one store for a revocation list and a cache", () => {
      const { adapter } = countedAdapter();
      const store = new MemoryRevocationStore();
      resolveConfig(makeConfig({ session: { strategy: "jwt", revocation: { store } } }));
      expect(() => resolveConfig(cached(adapter, { channel: store }))).toThrow(/carries one of them/);
      const other = new MemoryRevocationStore();
      resolveConfig(cached(adapter, { channel: other }));
      expect(() => resolveConfig(makeConfig({ session: { strategy: "jwt", revocation: { store: other } } }))).toThrow(
        /carries one of them/,
      );
    });
    it("bad numbers", () => {
      const { adapter } = countedAdapter();
      expect(() => resolveConfig(cached(adapter, { maxEntries: 0 }))).toThrow(/maxEntries/);
      expect(() => resolveConfig(cached(adapter, { maxAge: -1 }))).toThrow(/maxAge/);
    });
  });
});
