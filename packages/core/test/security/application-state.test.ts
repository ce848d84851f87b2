// Security round 4, item 1: in-memory safety state is one per application, whatever configuration
// objects it makes. next-auth's lazy `NextAuth((req) => config)` and SvelteKit's
// `SvelteKitAuth((event) => config)` make one per request, framework shells resolve copies, and
// Next.js loads the auth module once per server layer: each attack below worked while the rate
// limiter, the `revocation: true` list and the `cache: true` session cache were kept per object.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AdapterUser } from "../../src/adapters.js";
import { type Application, MANY_APPLICATIONS } from "../../src/lib/base/application.js";
import { resolveConfig } from "../../src/lib/config/resolve.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import { MemoryRateLimitStore } from "../../src/rate-limit.js";
import { MemoryRevocationStore } from "../../src/revocation.js";
import { revokeUserSessions } from "../../src/sessions.js";
import type { AuthConfig } from "../../src/types.js";
import {
  CookieJar,
  call,
  csrfToken,
  makeConfig,
  ORIGIN,
  recordingLogger,
  SECRET,
  signIn,
  testSecret,
} from "../helpers.js";

const quiet = () => recordingLogger().logger;

/** The lazy form: every request gets a configuration object of its own, built the same way. */
function perRequest(overrides: Partial<AuthConfig> = {}): () => AuthConfig {
  return () => makeConfig({ logger: quiet(), ...overrides });
}

/** One password attempt for "ada", each of its two requests through a configuration of its own. */
async function guess(fresh: () => AuthConfig, password: string): Promise<Response> {
  const jar = new CookieJar();
  const token = await csrfToken(fresh(), jar);
  return call(fresh(), "/auth/callback/credentials", { jar, form: { csrfToken: token, username: "ada", password } });
}

async function sessionUser(config: AuthConfig, jar: CookieJar): Promise<string | undefined> {
  const body = (await (await call(config, "/auth/session", { jar })).json()) as { user?: { email?: string } } | null;
  return body?.user?.email;
}

async function signOut(config: AuthConfig, jar: CookieJar): Promise<Response> {
  const token = await csrfToken(config, jar);
  return call(config, "/auth/signout", { jar, form: { csrfToken: token } });
}

/** A copy of a jar's cookies: what a thief holds after stealing them. */
function stolen(jar: CookieJar): CookieJar {
  const copy = new CookieJar();
  for (const [name, value] of jar.cookies) copy.cookies.set(name, value);
  return copy;
}

describe("rule: safety state belongs to the application (its secret), not to a configuration object", () => {
  it("attack: 30 wrong passwords through a configuration made per request: from the 6th on 429, and the right password is refused while limited", async () => {
    const fresh = perRequest();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await guess(fresh, "wrong")).status);
    expect(statuses.slice(0, 5)).toEqual([302, 302, 302, 302, 302]);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    expect((await guess(fresh, "lovelace")).status).toBe(429);
  });

  it("honest: a configuration made per request signs the owner in and reads her session through other objects", async () => {
    const fresh = perRequest();
    const { jar } = await signIn(fresh());
    expect(await sessionUser(fresh(), jar)).toBe("ada@example.com");
  });

  it("attack: a sign-out under `revocation: true` through one object ends the session read through every other (a thief's copy of the cookie included)", async () => {
    const fresh = perRequest({ session: { revocation: true } });
    const { jar } = await signIn(fresh());
    const thief = stolen(jar);
    expect(await sessionUser(fresh(), thief)).toBe("ada@example.com");
    expect((await signOut(fresh(), jar)).status).toBe(302);
    expect(await sessionUser(fresh(), thief)).toBeUndefined();
    expect(await sessionUser(fresh(), jar)).toBeUndefined();
  });

  it("attack: revokeUserSessions(the application's own object) ends the JWT sessions a copy of it serves (a shell's `{ ...config, basePath }`)", async () => {
    const app = makeConfig({ session: { revocation: true }, logger: quiet() });
    const copy: AuthConfig = { ...app, basePath: "/auth" };
    const { jar } = await signIn(copy);
    expect(await sessionUser(copy, jar)).toBe("ada@example.com");
    await revokeUserSessions(app, "u1", { reason: "admin" });
    expect(await sessionUser(copy, jar)).toBeUndefined();
  });

  it("a secret rotation keeps the revocations and the counters: a copy of a signed-out cookie stays refused under [NEW, OLD], limits stay spent", async () => {
    const OLD = SECRET;
    const fresh = perRequest({ session: { revocation: true } });
    const { jar } = await signIn(fresh());
    const thief = stolen(jar);
    await signOut(fresh(), jar);
    for (let i = 0; i < 5; i++) await guess(fresh, "wrong");
    const NEW = testSecret("rotated");
    const rotated = perRequest({ secret: [NEW, OLD], session: { revocation: true } });
    expect(await sessionUser(rotated(), thief)).toBeUndefined();
    expect((await guess(rotated, "lovelace")).status).toBe(429);
    // The old secret retired: the application is found by the new one, recorded at the rotation.
    const retired = perRequest({ secret: NEW, session: { revocation: true } });
    expect((await guess(retired, "lovelace")).status).toBe(429);
    expect(resolveConfig(retired()).application).toBe(resolveConfig(fresh()).application);
  });

  it("another secret is another application: its counters and revocations are its own", async () => {
    const fresh = perRequest();
    for (let i = 0; i < 5; i++) await guess(fresh, "wrong");
    const other = perRequest({ secret: testSecret("other") });
    expect((await guess(other, "lovelace")).headers.get("location")).toBe(ORIGIN);
    expect(resolveConfig(other()).application).not.toBe(resolveConfig(fresh()).application);
  });

  it("one application whether `secret` or `jwt.secret` seals its sessions, and whatever the base path", () => {
    const plain = resolveConfig(makeConfig({ logger: quiet() }));
    const mounted = resolveConfig(makeConfig({ basePath: "/api/auth", logger: quiet() }));
    const listed = resolveConfig(makeConfig({ secret: [SECRET], logger: quiet() }));
    const sealing = resolveConfig(makeConfig({ secret: testSecret("csrf"), jwt: { secret: SECRET }, logger: quiet() }));
    expect(mounted.application).toBe(plain.application);
    expect(listed.application).toBe(plain.application);
    expect(sealing.application).toBe(plain.application);
    expect(mounted.rateLimit?.store).toBe(plain.rateLimit?.store);
  });
});

describe("rule: the database session cache is one per application: a change through any object drops it for all", () => {
  const user: AdapterUser = { id: "u-cache", email: "ada@example.com", emailVerified: null, name: "Ada" };

  /** A database session made directly in the store, with the cookie that carries it. */
  async function seeded() {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    await adapter.createUser?.(user);
    const sessionToken = `token-${testSecret("session")}`;
    await adapter.createSession?.({ sessionToken, userId: user.id, expires: new Date(Date.now() + 30 * 86_400_000) });
    const jar = new CookieJar();
    jar.cookies.set("authjs.session-token", sessionToken);
    return { store, jar, sessionToken };
  }

  /** Reads through `config` until the cache serves: once its channel is up, a read keeps the session. */
  async function warm(config: AuthConfig, jar: CookieJar): Promise<void> {
    const cache = resolveConfig(config).sessionCache;
    await vi.waitFor(async () => {
      await sessionUser(config, jar);
      expect(cache?.channel.trusted).toBe(true);
      expect(cache?.size).toBeGreaterThan(0);
    });
  }

  function cached(store: ReturnType<typeof createMemoryStore>): AuthConfig {
    return makeConfig({
      adapter: MemoryAdapter(store),
      session: { strategy: "database", cache: true },
      providers: [Credentials({ databaseSessions: true, credentials: {}, authorize: () => null })],
      logger: quiet(),
    });
  }

  it("attack: revokeUserSessions(the application's object) ends a session a copy holds in its cache", async () => {
    const { store, jar, sessionToken } = await seeded();
    const app = cached(store);
    const copy: AuthConfig = { ...app, basePath: "/auth" };
    await warm(copy, jar);
    // Served from memory: the row is gone behind the cache's back, and the copy still answers.
    store.sessions.delete(sessionToken);
    expect(await sessionUser(copy, jar)).toBe("ada@example.com");
    await adapterSession(store, sessionToken);
    await revokeUserSessions(app, user.id, { reason: "admin" });
    expect(await sessionUser(copy, jar)).toBeUndefined();
  });

  it("attack: a sign-out through one per-request object drops the session another object's reads were served from memory", async () => {
    const { store, jar } = await seeded();
    const fresh = () => cached(store);
    const reader = fresh();
    await warm(reader, jar);
    const thief = stolen(jar);
    await signOut(fresh(), jar);
    expect(await sessionUser(reader, thief)).toBeUndefined();
    expect(await sessionUser(fresh(), thief)).toBeUndefined();
  });

  /** Puts the session row back (the cache test removed it to show the cache serving). */
  async function adapterSession(store: ReturnType<typeof createMemoryStore>, sessionToken: string) {
    await MemoryAdapter(store).createSession?.({
      sessionToken,
      userId: user.id,
      expires: new Date(Date.now() + 30 * 86_400_000),
    });
  }
});

describe("where one process cannot be guaranteed, Latchkey says so at startup", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  });

  it("on the Edge runtime, in-memory rate limits and revocations are named with the shared stores to use, once per application", () => {
    vi.stubGlobal("EdgeRuntime", "edge-runtime");
    const { logger, warnings } = recordingLogger();
    const detail: string[] = [];
    const recording = {
      ...logger,
      warn: (code: string, text?: string) => {
        warnings.push(code);
        detail.push(text ?? "");
      },
    };
    resolveConfig(makeConfig({ session: { revocation: true }, logger: recording }));
    resolveConfig(makeConfig({ session: { revocation: true }, logger: recording }));
    expect(warnings.filter((w) => w === "memory-state-isolated")).toHaveLength(1);
    const text = detail[warnings.indexOf("memory-state-isolated")];
    expect(text).toMatch(/^The Edge runtime/);
    expect(text).toContain("rate limits, session revocations");
    expect(text).toContain("RedisRateLimitStore");
    expect(text).toContain("RedisRevocationStore");
  });

  it("on a serverless platform (VERCEL, AWS_LAMBDA_FUNCTION_NAME) too; with shared stores, or elsewhere, nothing is said", () => {
    const stores = { rateLimit: { store: new MemoryRateLimitStore() } };
    const plain = recordingLogger();
    resolveConfig(makeConfig({ logger: plain.logger }));
    expect(plain.warnings).not.toContain("memory-state-isolated");
    vi.stubEnv("AWS_LAMBDA_FUNCTION_NAME", "auth");
    const lambda = recordingLogger();
    resolveConfig(makeConfig({ secret: testSecret("lambda"), logger: lambda.logger }));
    expect(lambda.warnings).toContain("memory-state-isolated");
    const shared = recordingLogger();
    resolveConfig(makeConfig({ secret: testSecret("shared"), ...stores, logger: shared.logger }));
    expect(shared.warnings).not.toContain("memory-state-isolated");
  });
});

describe("rule: a revocation list in one global's memory never re-issues where the platform runs several", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  const sessionCookie = (response: Response) =>
    response.headers.getSetCookie().filter((c) => c.startsWith("authjs.session-token="));

  it("attack: on the Edge runtime, `revocation: true` serves a session without re-issuing its cookie or taking an update (a sign-out in the Node.js server is not heard there, and a cookie re-issued here would outlive its entry)", async () => {
    vi.stubGlobal("EdgeRuntime", "edge-runtime");
    const config = makeConfig({
      secret: testSecret("edge-isolated"),
      session: { revocation: true, updateAge: 0 },
      logger: quiet(),
    });
    const { jar } = await signIn(config);
    const read = await call(config, "/auth/session", { jar });
    expect(((await read.json()) as { user?: { email?: string } }).user?.email).toBe("ada@example.com");
    expect(sessionCookie(read)).toEqual([]);
    const token = await csrfToken(config, jar);
    const update = await call(config, "/auth/session", { jar, json: { csrfToken: token, data: { name: "Eve" } } });
    expect(sessionCookie(update)).toEqual([]);
    expect(((await update.json().catch(() => null)) as { user?: { name?: string } } | null)?.user?.name).not.toBe(
      "Eve",
    );
  });

  it("honest: with a store given, or off such a platform, the same read re-issues the cookie (`updateAge: 0`)", async () => {
    const plain = makeConfig({
      secret: testSecret("node-list"),
      session: { revocation: true, updateAge: 0 },
      logger: quiet(),
    });
    const first = await signIn(plain);
    expect(sessionCookie(await call(plain, "/auth/session", { jar: first.jar }))).toHaveLength(1);
    vi.stubGlobal("EdgeRuntime", "edge-runtime");
    const shared = makeConfig({
      secret: testSecret("edge-store"),
      session: { revocation: { store: new MemoryRevocationStore() }, updateAge: 0 },
      logger: quiet(),
    });
    const second = await signIn(shared);
    expect(sessionCookie(await call(shared, "/auth/session", { jar: second.jar }))).toHaveLength(1);
  });
});

describe("the registry of applications", () => {
  it("warns once when a process holds more than MANY_APPLICATIONS (a secret made per request)", () => {
    const { logger, warnings } = recordingLogger();
    const seen = new Set<Application>();
    for (let i = 0; i <= MANY_APPLICATIONS; i++) {
      seen.add(resolveConfig({ secret: testSecret(`tenant-${i}`), providers: [], logger }).application);
    }
    expect(seen.size).toBe(MANY_APPLICATIONS + 1);
    expect(warnings.filter((w) => w === "applications-many")).toHaveLength(1);
  });

  it("lives on globalThis under Symbol.for('latchkey.applications'), with its version", () => {
    const registry: unknown = Reflect.get(globalThis, Symbol.for("latchkey.applications"));
    expect(registry).toMatchObject({ version: 1 });
  });
});
