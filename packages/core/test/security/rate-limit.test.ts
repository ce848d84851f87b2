import { randomBytes } from "node:crypto";
import { RedisRateLimitStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { Auth } from "../../src/index.js";
import { resolveConfig } from "../../src/lib/config/resolve.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import Email from "../../src/providers/email.js";
import Passkey from "../../src/providers/passkey.js";
import { MemoryRateLimitStore, type RateLimitStore } from "../../src/rate-limit.js";
import { CookieJar, call, csrfToken, makeConfig, ORIGIN, recordingLogger, SECRET, testSecret } from "../helpers.js";

const CLIENT_HEADER = "x-test-client-address";

/**
 * `Auth()` with the documented `clientAddress` option reading the address this test names (in
 * a header only this test's option reads). Undefined sends none, like `Auth()` without the option.
 */
function withClientAddress(config: AuthConfig, clientIp: string | undefined, headers: Headers): AuthConfig {
  config.clientAddress ??= (request) => request.headers.get(CLIENT_HEADER);
  if (clientIp !== undefined) headers.set(CLIENT_HEADER, clientIp);
  return config;
}

/**
 * One request through the core as a framework shell sends it: `clientIp` is what the shell (or
 * the `clientAddress` option) says the client's address is. Undefined sends none.
 */
async function callFrom(
  config: AuthConfig,
  clientIp: string | undefined,
  path: string,
  options: { form?: Record<string, string>; json?: unknown; jar?: CookieJar; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.jar?.cookies.size) headers.set("cookie", options.jar.header());
  let body: string | undefined;
  if (options.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(options.json);
  }
  withClientAddress(config, clientIp, headers);
  const request = new Request(`${ORIGIN}${path}`, { method: body ? "POST" : "GET", headers, body });
  const response = await Auth(request, config);
  options.jar?.apply(response);
  return response;
}

/** A credentials provider over one account that records every authorize() call. */
function recordingCredentials(options: Partial<Parameters<typeof Credentials>[0]> = {}) {
  const seen: Array<Record<string, unknown>> = [];
  const provider = Credentials({
    credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
    authorize: async (c) => {
      seen.push({ ...c });
      return c.username === "ada" && c.password === "lovelace" ? { id: "u1", name: "Ada" } : null;
    },
    ...options,
  });
  return { provider, seen };
}

/** A credentials POST with a fresh CSRF pair; `body` is sent as a raw form (repeats kept) or JSON. */
async function post(
  config: AuthConfig,
  clientIp: string | undefined,
  body: Array<[string, string]> | Record<string, unknown>,
  provider = "credentials",
): Promise<Response> {
  const jar = new CookieJar();
  const token = await csrfToken(config, jar);
  const path = `/auth/callback/${provider}`;
  if (Array.isArray(body)) {
    return rawPost(config, clientIp, path, jar, new URLSearchParams([["csrfToken", token], ...body]).toString());
  }
  return callFrom(config, clientIp, path, { jar, json: { csrfToken: token, ...body } });
}

/** Posts an already encoded form (so repeated fields reach the parser as the client sent them). */
async function rawPost(config: AuthConfig, clientIp: string | undefined, path: string, jar: CookieJar, form: string) {
  const headers = new Headers({ "content-type": "application/x-www-form-urlencoded", cookie: jar.header() });
  withClientAddress(config, clientIp, headers);
  return Auth(new Request(`${ORIGIN}${path}`, { method: "POST", headers, body: form }), config);
}

const isFailure = (r: Response) => r.status === 302 && /error=CredentialsSignin/.test(r.headers.get("location") ?? "");
const isSignedIn = (r: Response) => r.status === 302 && r.headers.get("location") === ORIGIN;

async function guess(config: AuthConfig, password: string, headers: Record<string, string> = {}) {
  const jar = new CookieJar();
  const token = await csrfToken(config, jar);
  return call(config, "/auth/callback/credentials", {
    jar,
    headers,
    form: { csrfToken: token, username: "ada", password },
  });
}

const redis = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
let redisUp = false;
const prefix = `latchkey-test:rl:${process.pid}:${Date.now()}:`;
beforeAll(async () => {
  try {
    await redis.connect();
    redisUp = true;
  } catch {
    if (process.env.CI) throw new Error("Redis on 127.0.0.1:6379 is required in CI");
    console.warn("[skip] Redis is not reachable on 127.0.0.1:6379: the Redis rate-limit tests are skipped");
  }
});
afterAll(async () => {
  if (redisUp) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  }
  redis.disconnect();
});

describe("credentials are rate limited (rule: 5 failures per identifier and client per 15 minutes)", () => {
  it("refuses even the right password after 5 failures, as a 429 with Retry-After for scripts", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    for (let i = 0; i < 5; i++) {
      expect((await guess(config, "wrong")).headers.get("location")).toMatch(/error=CredentialsSignin/);
    }
    const limited = await guess(config, "lovelace");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(limited.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false);
  });
  it("sends a browser's form post to the sign-in page with error=RateLimited", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    for (let i = 0; i < 5; i++) await guess(config, "wrong");
    const limited = await guess(config, "lovelace", { accept: "text/html,application/xhtml+xml" });
    expect(limited.status).toBe(302);
    expect(limited.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=RateLimited`);
  });
  it("does not count successful sign-ins: an owner who signs in often is never limited", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    for (let i = 0; i < 4; i++) await guess(config, "wrong");
    for (let i = 0; i < 8; i++) expect((await guess(config, "lovelace")).headers.get("location")).toBe(ORIGIN);
    expect(isFailure(await guess(config, "wrong"))).toBe(true);
    expect((await guess(config, "lovelace")).status).toBe(429);
  });
  it("opens again when the window ends", async () => {
    vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
    try {
      const config = makeConfig({ logger: recordingLogger().logger });
      for (let i = 0; i < 5; i++) await guess(config, "wrong");
      expect((await guess(config, "lovelace")).status).toBe(429);
      vi.setSystemTime(Date.now() + 15 * 60_000 + 1000);
      expect((await guess(config, "lovelace")).headers.get("location")).toBe(ORIGIN);
    } finally {
      vi.useRealTimers();
    }
  });
  it("can be configured and turned off", async () => {
    const strict = makeConfig({
      rateLimit: { credentialsPerIdentifierAndIp: { max: 1, windowSeconds: 60 } },
      logger: recordingLogger().logger,
    });
    await guess(strict, "wrong");
    expect((await guess(strict, "lovelace")).status).toBe(429);
    const off = makeConfig({ rateLimit: false, logger: recordingLogger().logger });
    for (let i = 0; i < 7; i++) await guess(off, "wrong");
    expect((await guess(off, "lovelace")).headers.get("location")).toBe(ORIGIN);
  });
  it("lets attempts through, and logs, when the store fails", async () => {
    const down = () => Promise.reject(new Error("store down"));
    const broken: RateLimitStore = { increment: down, decrement: down, get: down };
    const { logger, errors } = recordingLogger();
    const config = makeConfig({ rateLimit: { store: broken }, logger });
    expect((await guess(config, "lovelace")).headers.get("location")).toBe(ORIGIN);
    expect(errors.some((e) => /rate-limit store failed/.test(e.message))).toBe(true);
  });
  it("refuses, when the configuration is first used, a store without decrement and limits that are not limits", async () => {
    const { increment, get } = new MemoryRateLimitStore();
    const cases: Array<[AuthConfig["rateLimit"], RegExp]> = [
      [{ store: { increment, get } as unknown as RateLimitStore }, /rateLimit\.store.*decrement/],
      [{ credentialsPerIdentifier: { max: 0, windowSeconds: 60 } }, /rateLimit\.credentialsPerIdentifier/],
      [{ emailPerIp: { max: 3, windowSeconds: Number.NaN } }, /rateLimit\.emailPerIp/],
      [{ webauthnOptionsPerIp: "lots" as never }, /rateLimit\.webauthnOptionsPerIp/],
    ];
    for (const [rateLimit, message] of cases) {
      expect(() => resolveConfig(makeConfig({ rateLimit }))).toThrow(message);
    }
  });
});

describe("rule: a credentials attempt is counted on the identifier the provider declares, never on a field the client adds", () => {
  it("guesses that each add a fresh email=, Email=, user= or login= field still share ada's counter", async () => {
    const { provider, seen } = recordingCredentials();
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    const max = 5;
    const answers: Response[] = [];
    for (let i = 0; i < 20; i++) {
      const noise = randomBytes(6).toString("hex");
      answers.push(
        await post(config, "203.0.113.7", [
          ["email", `${noise}@evil.example`],
          ["Email", noise],
          ["user", noise],
          ["login", noise],
          ["username", "ada"],
          ["password", `guess-${noise}`],
        ]),
      );
    }
    expect(seen).toHaveLength(max);
    expect(answers.filter(isFailure)).toHaveLength(max);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(20 - max);
    expect((await post(config, "203.0.113.7", { username: "ada", password: "lovelace" })).status).toBe(429);
  });

  // Adversarial review (feat-attack): the default identifier was the first credentials field
  // whatever its type. A provider that lists its password field first counted each guess on the
  // guessed password: every guess had a fresh counter, and only the loose per-client limit held.
  it("without `identifier`, a password field listed first is never the counter: guesses share the account's", async () => {
    const { provider, seen } = recordingCredentials({
      credentials: { password: { label: "Password", type: "password" }, username: { label: "Username" } },
    });
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    const answers: Response[] = [];
    for (let i = 0; i < 20; i++) {
      answers.push(await post(config, "203.0.113.7", { password: `guess-${i}`, username: "ada" }));
    }
    expect(seen).toHaveLength(5);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(15);
  });

  it("spellings of one identifier (case, surrounding spaces, full-width, NFKC) share one counter", async () => {
    const fold = (v: unknown) => String(v).normalize("NFKC").trim().toLowerCase();
    const { provider, seen } = recordingCredentials({
      authorize: async (c) => {
        seen.push({ ...c });
        return fold(c.username) === "ada" && c.password === "lovelace" ? { id: "u1" } : null;
      },
    });
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    const spellings = ["ADA", " ada", "Ada\t", "ａｄａ", "ＡＤＡ", "aDa", "ada "];
    for (const username of spellings) await post(config, "203.0.113.7", { username, password: "wrong" });
    expect(seen).toHaveLength(5);
  });

  it("a repeated identifier field is counted on the value authorize() receives (the first)", async () => {
    const { provider, seen } = recordingCredentials();
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    for (let i = 0; i < 9; i++) {
      await post(config, "203.0.113.7", [
        ["username", "ada"],
        ["username", `decoy-${i}`],
        ["password", "wrong"],
      ]);
    }
    expect(seen.map((c) => c.username)).toEqual(Array(5).fill("ada"));
  });

  it("an attempt without one non-empty string identifier is refused before authorize(), like a wrong password, and logged", async () => {
    const { provider, seen } = recordingCredentials();
    const { logger, errors } = recordingLogger();
    const config = makeConfig({ providers: [provider], logger });
    const reference = await post(config, "203.0.113.7", { username: "nobody", password: "wrong" });
    seen.length = 0;
    const bodies: Array<Record<string, unknown>> = [
      { password: "wrong" },
      { username: "", password: "wrong" },
      { username: " \t\n", password: "wrong" },
      { username: ["ada"], password: "wrong" },
      { username: ["ada", "bob"], password: "wrong" },
      { username: { 0: "ada" }, password: "wrong" },
      { username: 12345, password: "wrong" },
      { username: null, password: "wrong" },
      { username: true, password: "wrong" },
      JSON.parse('{"__proto__": {"username": "ada"}, "password": "wrong"}'),
      { Username: "ada", USERNAME: "ada", password: "wrong" },
    ];
    for (const body of bodies) {
      const answer = await post(config, "203.0.113.7", body);
      expect(answer.status).toBe(reference.status);
      expect(answer.headers.get("location")).toBe(reference.headers.get("location"));
    }
    expect(seen).toHaveLength(0);
    expect(errors.filter((e) => /field "username" is not a non-empty string/.test(e.message))).toHaveLength(
      bodies.length,
    );
  });

  it("`identifier` names the field: a provider keyed on email ignores a client-added username", async () => {
    const seen: unknown[] = [];
    const provider = Credentials({
      credentials: { password: { type: "password" }, email: { label: "E-mail" } },
      identifier: "email",
      authorize: async (c) => {
        seen.push(c.email);
        return null;
      },
    });
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    for (let i = 0; i < 12; i++) {
      await post(config, "203.0.113.7", {
        password: `p${i}`,
        email: "ada@example.com",
        username: randomBytes(4).toString("hex"),
      });
    }
    expect(seen).toEqual(Array(5).fill("ada@example.com"));
  });

  it("`identifier` as a function of the credentials (tenant and user together)", async () => {
    const seen: unknown[] = [];
    const provider = Credentials({
      credentials: { tenant: {}, user: {}, password: { type: "password" } },
      identifier: (c) => (typeof c.tenant === "string" && typeof c.user === "string" ? `${c.tenant}/${c.user}` : null),
      authorize: async (c) => {
        seen.push(`${c.tenant}/${c.user}`);
        return null;
      },
    });
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    for (let i = 0; i < 8; i++) await post(config, "203.0.113.7", { tenant: "acme", user: "ada", password: "x" });
    for (let i = 0; i < 3; i++) await post(config, "203.0.113.7", { tenant: "globex", user: "ada", password: "x" });
    await post(config, "203.0.113.7", { tenant: ["acme"], user: "ada", password: "x" });
    expect(seen).toEqual([...Array(5).fill("acme/ada"), ...Array(3).fill("globex/ada")]);
  });

  it("refuses an `identifier` that is neither a field name nor a function when the configuration is first used", () => {
    for (const identifier of [42, "", { field: "username" }]) {
      const provider = Credentials({ identifier: identifier as never, authorize: () => null });
      expect(() => resolveConfig(makeConfig({ providers: [provider] }))).toThrow(/`identifier` must be/);
    }
  });
});

/** A provider of a 4-digit PIN alone (the right one is 4711) that counts its authorize() calls. */
function pinProvider(options: Partial<Parameters<typeof Credentials>[0]> = {}) {
  const seen = { n: 0 };
  const provider = Credentials({
    id: "pin",
    credentials: { pin: { label: "PIN", type: "password" } },
    authorize: async (c) => {
      seen.n++;
      return c.pin === "4711" ? { id: "kiosk" } : null;
    },
    ...options,
  });
  return { provider, seen };
}

/** Guesses every 4-digit PIN in order from `clientIp` (or from `clients(i)`) until a 429; returns how many were answered otherwise. */
async function enumeratePins(
  config: AuthConfig,
  clients: (i: number) => string | undefined,
  form: (pin: string) => Record<string, string> = (pin) => ({ pin }),
): Promise<{ before429: number; limited: boolean }> {
  for (let i = 0; i < 10_000; i++) {
    const pin = String(i).padStart(4, "0");
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const answer = await callFrom(config, clients(i), "/auth/callback/pin", {
      jar,
      form: { csrfToken: token, ...form(pin) },
    });
    if (answer.status === 429) return { before429: i, limited: true };
    expect(isFailure(answer)).toBe(true);
  }
  return { before429: 10_000, limited: false };
}

describe("rule: every credentials provider is rate limited, whatever its fields (a PIN alone is counted against the provider)", () => {
  // Attacker review (round 3): a provider of password fields alone was counted per submitted
  // value, so each distinct guess had a fresh counter and a 4-digit PIN was enumerated through
  // Auth() without a single 429.
  it("distinct PIN guesses through Auth() (no client address) meet 429 after the tight limit; the right PIN then waits too", async () => {
    const { provider, seen } = pinProvider();
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    const { before429, limited } = await enumeratePins(config, () => undefined);
    expect(limited).toBe(true);
    expect(before429).toBe(5);
    expect(seen.n).toBe(5);
    expect((await post(config, undefined, { pin: "4711" }, "pin")).status).toBe(429);
    expect(seen.n).toBe(5);
  });

  it("distinct PIN guesses from one address meet 429 after 5; from 100 addresses, after credentialsPerIdentifier in all", async () => {
    const one = pinProvider();
    const single = makeConfig({ providers: [one.provider], logger: recordingLogger().logger });
    expect(await enumeratePins(single, () => "203.0.113.9")).toEqual({ before429: 5, limited: true });

    const many = pinProvider();
    // Another application (its own secret): the counters of the one above are not its own.
    const spread = makeConfig({
      secret: testSecret("spread"),
      providers: [many.provider],
      logger: recordingLogger().logger,
    });
    // Each address guesses at most 4 times (under its tight limit): only the provider's loose counter stops them.
    const result = await enumeratePins(spread, (i) => `198.51.100.${Math.floor(i / 4)}`);
    expect(result).toEqual({ before429: 50, limited: true });
    expect(many.seen.n).toBe(50);
  });

  it("a control the client varies (a checkbox listed first) brings no fresh counter", async () => {
    const { provider, seen } = pinProvider({
      credentials: { remember: { label: "Remember me", type: "checkbox" }, pin: { label: "PIN", type: "password" } },
    });
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    const result = await enumeratePins(
      config,
      () => undefined,
      (pin) => ({ remember: `on-${pin}`, pin }),
    );
    expect(result).toEqual({ before429: 5, limited: true });
    expect(seen.n).toBe(5);
  });

  it("an identifier() that returns the guessed PIN is counted against the provider, and logged once with the fix", async () => {
    const { provider, seen } = pinProvider({ identifier: (c) => c.pin as string });
    const { logger, warnings } = recordingLogger();
    const config = makeConfig({ providers: [provider], logger });
    expect(await enumeratePins(config, () => undefined)).toEqual({ before429: 5, limited: true });
    expect(seen.n).toBe(5);
    expect(warnings.filter((w) => w === "credentials-identifier-secret")).toHaveLength(1);
  });

  it("an `identifier` naming a password (or checkbox) field is refused when the configuration is first used, naming the fix", () => {
    for (const [credentials, field] of [
      [{ username: {}, pin: { type: "password" } }, "pin"],
      [{ username: {}, remember: { type: "checkbox" } }, "remember"],
    ] as const) {
      const provider = Credentials({ credentials, identifier: field as never, authorize: () => null });
      expect(() => resolveConfig(makeConfig({ providers: [provider] }))).toThrow(
        new RegExp(`\`identifier\` names the field "${field}".*leave \`identifier\` out`),
      );
    }
  });

  it("honest flow: the right PIN signs in and gives its reservation back, so the kiosk is never limited by its own use", async () => {
    const { provider } = pinProvider();
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    for (let i = 0; i < 12; i++) expect(isSignedIn(await post(config, undefined, { pin: "4711" }, "pin"))).toBe(true);
  });
});

/**
 * 50 guesses at once. authorize() holds every call until each of the 50 requests has either
 * reached it or been answered, so a limiter that reads before and counts after would let all 50
 * in (each read sees no failure yet), and a correct one lets exactly the limit in.
 */
async function concurrentGuesses(config: AuthConfig, clients: (i: number) => string | undefined, seen: { n: number }) {
  const total = 50;
  let answered = 0;
  let release!: () => void;
  const allArrived = new Promise<void>((resolve) => {
    release = resolve;
  });
  const check = () => {
    if (seen.n + answered === total) release();
  };
  const gate = async () => {
    seen.n++;
    check();
    await allArrived;
  };
  (config.providers as Array<{ options?: { authorize?: unknown } }>)[0] = Credentials({
    credentials: { username: {}, password: { type: "password" } },
    authorize: async () => {
      await gate();
      return null;
    },
  });
  const jars = await Promise.all(
    Array.from({ length: total }, async () => {
      const jar = new CookieJar();
      return { jar, token: await csrfToken(config, jar) };
    }),
  );
  return Promise.all(
    jars.map(async ({ jar, token }, i) => {
      const answer = await callFrom(config, clients(i), "/auth/callback/credentials", {
        jar,
        form: { csrfToken: token, username: "ada", password: `guess-${i}` },
      });
      if (answer.status === 429) {
        answered++;
        check();
      }
      return answer;
    }),
  );
}

describe("rule: an attempt is reserved before authorize() runs, so 50 concurrent guesses never exceed the limit", () => {
  const stores: Array<[string, () => RateLimitStore | null]> = [
    ["the memory store", () => new MemoryRateLimitStore()],
    [
      "the Redis store (real Redis)",
      () => (redisUp ? RedisRateLimitStore(redis, { prefix: `${prefix}${randomBytes(4).toString("hex")}:` }) : null),
    ],
  ];
  it.for(stores)(
    "one client, one identifier, 50 at once: authorize() runs the per-pair limit's times (%s)",
    async ([, make], t) => {
      const store = make();
      if (!store) return t.skip();
      const max = 5;
      const config = makeConfig({
        providers: [],
        rateLimit: { store, credentialsPerIdentifierAndIp: { max, windowSeconds: 60 } },
        logger: recordingLogger().logger,
      });
      const seen = { n: 0 };
      const answers = await concurrentGuesses(config, () => "203.0.113.7", seen);
      expect(seen.n).toBe(max);
      expect(answers.filter(isFailure)).toHaveLength(max);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(50 - max);
    },
  );
  it.for(stores)(
    "50 clients, one identifier, 50 at once: authorize() runs the per-identifier limit's times (%s)",
    async ([, make], t) => {
      const store = make();
      if (!store) return t.skip();
      const max = 7;
      const config = makeConfig({
        providers: [],
        rateLimit: { store, credentialsPerIdentifier: { max, windowSeconds: 60 } },
        logger: recordingLogger().logger,
      });
      const seen = { n: 0 };
      const answers = await concurrentGuesses(config, (i) => `198.51.100.${i + 1}`, seen);
      expect(seen.n).toBe(max);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(50 - max);
    },
  );
  it.for(stores)(
    "no client address, 50 at once: the tight limit holds for the identifier alone (%s)",
    async ([, make], t) => {
      const store = make();
      if (!store) return t.skip();
      const max = 5;
      const config = makeConfig({
        providers: [],
        rateLimit: { store, credentialsPerIdentifierAndIp: { max, windowSeconds: 60 } },
        logger: recordingLogger().logger,
      });
      const seen = { n: 0 };
      await concurrentGuesses(config, () => undefined, seen);
      expect(seen.n).toBe(max);
    },
  );
});

describe("rule: one client failing on purpose cannot lock the owner out (tight per identifier and client, loose per identifier)", () => {
  it("an attacker's 40 failures for ada do not stop ada signing in from her own address", async () => {
    const { provider, seen } = recordingCredentials();
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    for (let i = 0; i < 40; i++) await post(config, "203.0.113.7", { username: "ada", password: `x${i}` });
    expect(seen).toHaveLength(5);
    expect(isSignedIn(await post(config, "198.51.100.20", { username: "ada", password: "lovelace" }))).toBe(true);
  });
  it("refused attempts use up nothing: the owner's own client keeps its whole budget", async () => {
    const { provider, seen } = recordingCredentials();
    const config = makeConfig({
      providers: [provider],
      rateLimit: { credentialsPerIdentifier: { max: 6, windowSeconds: 60 } },
      logger: recordingLogger().logger,
    });
    // Six attackers use up the identifier's loose limit; the seventh and the owner are refused.
    for (let i = 0; i < 6; i++) await post(config, `203.0.113.${i + 1}`, { username: "ada", password: "x" });
    for (let i = 0; i < 10; i++) {
      expect((await post(config, "198.51.100.20", { username: "ada", password: "lovelace" })).status).toBe(429);
    }
    expect(seen).toHaveLength(6);
  });
  it("an IPv6 client is one client per /64, and an IPv4-mapped address is its IPv4 address", async () => {
    const { provider, seen } = recordingCredentials();
    const config = makeConfig({ providers: [provider], logger: recordingLogger().logger });
    for (let i = 0; i < 12; i++) {
      const suffix = randomBytes(8).toString("hex").match(/.{4}/g)?.join(":");
      const spelled = i % 2 ? `2001:DB8:0:42:${suffix}` : `2001:db8::42:${suffix}`;
      await post(config, spelled, { username: "ada", password: "x" });
    }
    expect(seen).toHaveLength(5);
    seen.length = 0;
    for (const address of [
      "192.0.2.9",
      "::ffff:192.0.2.9",
      "::FFFF:192.0.2.9",
      "192.0.2.9",
      "::ffff:192.0.2.9",
      " 192.0.2.9",
      "::ffff:192.0.2.9",
    ]) {
      await post(config, address, { username: "bob", password: "x" });
    }
    expect(seen).toHaveLength(5);
  });
  it("a client is limited across identifiers (credentialsPerIp), whatever identifiers it tries", async () => {
    const { provider, seen } = recordingCredentials();
    const max = 9;
    const config = makeConfig({
      providers: [provider],
      rateLimit: { credentialsPerIp: { max, windowSeconds: 60 } },
      logger: recordingLogger().logger,
    });
    for (let i = 0; i < 20; i++) await post(config, "203.0.113.7", { username: `user${i}`, password: "x" });
    expect(seen).toHaveLength(max);
    expect(isSignedIn(await post(config, "198.51.100.20", { username: "ada", password: "lovelace" }))).toBe(true);
  });
});

describe("rule: sign-in e-mails a stranger can make us send are limited per (address, client), per address and per client", () => {
  function emailSetup(rateLimit: AuthConfig["rateLimit"] = {}) {
    const sent: string[] = [];
    const config = makeConfig({
      adapter: MemoryAdapter(),
      providers: [Email({ sendVerificationRequest: async ({ identifier }) => void sent.push(identifier) })],
      rateLimit,
      logger: recordingLogger().logger,
    });
    return { config, sent };
  }
  async function requestLink(config: AuthConfig, clientIp: string | undefined, email: string) {
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    return callFrom(config, clientIp, "/auth/signin/email", { jar, form: { csrfToken: token, email } });
  }

  it("50 requests at once for one address from one client send the per-pair limit's e-mails", async () => {
    const max = 5;
    const { config, sent } = emailSetup({ emailPerIdentifierAndIp: { max, windowSeconds: 60 } });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => requestLink(config, "203.0.113.7", "victim@example.com")),
    );
    expect(sent).toHaveLength(max);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(50 - max);
  });
  it("spellings of one mailbox share its counter (the normalised address is counted)", async () => {
    const { config, sent } = emailSetup();
    const spellings = ["Victim@Example.com", " victim@example.com", "VICTIM@EXAMPLE.COM", "victim@Example.COM "];
    for (let i = 0; i < 3; i++) for (const email of spellings) await requestLink(config, "203.0.113.7", email);
    expect(new Set(sent)).toEqual(new Set(["victim@example.com"]));
    expect(sent).toHaveLength(5);
  });
  it("a stranger who used up the address's budget from one client does not stop the owner getting a link", async () => {
    const { config, sent } = emailSetup();
    for (let i = 0; i < 20; i++) await requestLink(config, "203.0.113.7", "victim@example.com");
    const own = await requestLink(config, "198.51.100.20", "victim@example.com");
    expect(own.headers.get("location")).toMatch(/verify-request/);
    expect(sent).toHaveLength(6);
  });
  it("many clients together send at most emailPerIdentifier e-mails to one address, and one more per link life", async () => {
    const max = 8;
    const { config, sent } = emailSetup({ emailPerIdentifier: { max, windowSeconds: 60 } });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => requestLink(config, `198.51.100.${i + 1}`, "victim@example.com")),
    );
    // The one more keeps a link that works in the owner's mailbox (email/owner-budget.test.ts).
    expect(sent).toHaveLength(max + 1);
  });
  it("one client sends at most emailPerIp e-mails, whatever addresses it names", async () => {
    const max = 6;
    const { config, sent } = emailSetup({ emailPerIp: { max, windowSeconds: 60 } });
    for (let i = 0; i < 15; i++) await requestLink(config, "203.0.113.7", `v${i}@example.com`);
    expect(sent).toHaveLength(max);
  });
  it("without a client address the per-pair limit applies to the address alone", async () => {
    const { config, sent } = emailSetup();
    for (let i = 0; i < 10; i++) await requestLink(config, undefined, "victim@example.com");
    // Five, and one more per link life (the pair is then the address's own limit).
    expect(sent).toHaveLength(6);
  });
});

describe("rule: limiter state belongs to the application (its secret), not to a configuration object", () => {
  it("a secret rotation (reassigned or changed in place, then the old secret retired) keeps the counters", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    const store = resolveConfig(config).rateLimit?.store;
    for (let i = 0; i < 3; i++) await guess(config, "wrong");
    const renewed = testSecret("rotated");
    config.secret = [renewed, SECRET];
    expect(resolveConfig(config).rateLimit?.store).toBe(store);
    await guess(config, "wrong");
    (config.secret as string[]).unshift(testSecret("rotated-again"));
    expect(resolveConfig(config).rateLimit?.store).toBe(store);
    config.secret = renewed;
    expect(resolveConfig(config).rateLimit?.store).toBe(store);
    await guess(config, "wrong");
    expect((await guess(config, "lovelace")).status).toBe(429);
  });
  it("two configuration objects with one secret count together; another secret's application counts apart", async () => {
    const one = makeConfig({ logger: recordingLogger().logger });
    const two = makeConfig({ logger: recordingLogger().logger });
    const other = makeConfig({ secret: testSecret("other-application"), logger: recordingLogger().logger });
    for (let i = 0; i < 5; i++) await guess(one, "wrong");
    expect((await guess(one, "lovelace")).status).toBe(429);
    expect((await guess(two, "lovelace")).status).toBe(429);
    expect((await guess(other, "lovelace")).headers.get("location")).toBe(ORIGIN);
  });
});

describe("rule: GET /webauthn-options is limited per client address", () => {
  function passkeySetup(max: number) {
    return makeConfig({
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
      providers: [Passkey()],
      rateLimit: { webauthnOptionsPerIp: { max, windowSeconds: 60 } },
      logger: recordingLogger().logger,
    });
  }
  it("answers 429 JSON with Retry-After past the limit, even to a client that accepts HTML; other clients go on", async () => {
    const max = 12;
    const config = passkeySetup(max);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        callFrom(config, "203.0.113.7", "/auth/webauthn-options/passkey?action=authenticate", {
          headers: { accept: "text/html,application/xhtml+xml" },
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(max);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(40 - max);
    for (const r of limited) {
      expect(r.headers.get("content-type")).toMatch(/application\/json/);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await r.json()) as { error: string }).error).toBe("RateLimited");
      expect(r.headers.getSetCookie()).toEqual([]);
    }
    const other = await callFrom(config, "198.51.100.20", "/auth/webauthn-options/passkey?action=authenticate");
    expect(other.status).toBe(200);
  });
  it("has a generous default", async () => {
    const config = makeConfig({
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
      providers: [Passkey()],
      logger: recordingLogger().logger,
    });
    expect(resolveConfig(config).rateLimit?.webauthnOptionsPerIp.max).toBeGreaterThanOrEqual(100);
  });
});

describe("MemoryRateLimitStore", () => {
  it("counts in fixed windows and keeps at most maxKeys entries", async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 2 });
    expect((await store.increment("a", 1000)).count).toBe(1);
    expect((await store.increment("a", 1000)).count).toBe(2);
    await store.increment("b", 1000);
    await store.increment("c", 1000);
    // "a" counted twice: the new "c" pushed out "b", the oldest counter that counted once.
    expect((await store.get("a"))?.count).toBe(2);
    expect(await store.get("b")).toBeNull();
    expect((await store.get("c"))?.count).toBe(1);
  });

  // Suspicion left open (round 3, item 13): the store dropped its oldest counter when full, so an
  // anonymous client making fresh keys could push out a victim's counters, and the audit
  // admission counters that shared the store.
  it("rule: a flood of fresh keys never evicts a counter that has counted twice (10,000 keys through a 100-key store)", async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 100 });
    for (let i = 0; i < 5; i++) await store.increment("credentials:id:credentials:ada", 60_000);
    for (let i = 0; i < 10_000; i++) await store.increment(`credentials:id:credentials:ghost-${i}`, 60_000);
    expect((await store.get("credentials:id:credentials:ada"))?.count).toBe(5);
  });

  it("rule: through Auth(), a guesser who floods made-up identifiers gets no fresh guesses at the account he attacks", async () => {
    const { provider, seen } = recordingCredentials();
    const config = makeConfig({
      providers: [provider],
      logger: recordingLogger().logger,
      rateLimit: { store: new MemoryRateLimitStore({ maxKeys: 200 }) },
    });
    for (let i = 0; i < 5; i++)
      expect(isFailure(await post(config, undefined, { username: "ada", password: `g${i}` }))).toBe(true);
    expect((await post(config, undefined, { username: "ada", password: "g5" })).status).toBe(429);
    // 1,000 made-up identifiers, one attempt each: five times the store's size.
    for (let i = 0; i < 1000; i++) await post(config, undefined, { username: `ghost-${i}`, password: "x" });
    expect((await post(config, undefined, { username: "ada", password: "g6" })).status).toBe(429);
    expect(seen.filter((c) => c.username === "ada")).toHaveLength(5);
  });

  it("the audit trail's admission counters are kept apart from the limiter's in-memory counters, so a flood of one never presses on the other", () => {
    const inMemory = resolveConfig(
      makeConfig({ audit: { failuresPerClient: { max: 5, windowSeconds: 60 } }, events: { audit() {} } }),
    );
    expect(inMemory.audit?.gate).toBeInstanceOf(MemoryRateLimitStore);
    expect(inMemory.audit?.gate).not.toBe(inMemory.rateLimit?.store);
    const shared: RateLimitStore = {
      increment: async () => ({ count: 1, resetAt: 0 }),
      decrement: async () => {},
      get: async () => null,
    };
    const withShared = resolveConfig(makeConfig({ rateLimit: { store: shared }, events: { audit() {} } }));
    expect(withShared.audit?.gate).toBe(shared);
  });
});
