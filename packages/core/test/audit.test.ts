/**
 * The audit trail in process: configuration, the bounds that keep anonymous requests from growing
 * the store, a failing or hanging store or handler, the retention sweep, secret rotation, JWT
 * revocation, and the zero cost of a configuration without an audit trail.
 */
import { describe, expect, it } from "vitest";
import type { Adapter, AuditEvent } from "../src/adapters.js";
import { listAuditEvents, recordPasswordChange, UnknownUserSignin } from "../src/audit.js";
import { CredentialsSignin } from "../src/errors.js";
import { resolveConfig } from "../src/lib/config/resolve.js";
import { base32Decode, hotp, timeStep } from "../src/lib/flows/second-factor/totp.js";
import { createMemoryStore, MemoryAdapter } from "../src/memory-adapter.js";
import Credentials from "../src/providers/credentials.js";
import GitHub from "../src/providers/github.js";
import Nodemailer from "../src/providers/nodemailer.js";
import TOTP from "../src/providers/totp.js";
import { revokeJwtSession, revokeUserSessions } from "../src/revocation.js";
import { confirmTotpEnrolment, startTotpEnrolment } from "../src/second-factor.js";
import type { AuthConfig } from "../src/types.js";
import { CookieJar, call, csrfToken, demoCredentials, makeConfig, SECRET } from "./helpers.js";

const OTHER_SECRET = "another-secret-for-rotation-0123456789abcdef";

/** A configuration whose audit events land in `events`, and whose log lines land in `logged`. */
function audited(overrides: Partial<AuthConfig> = {}) {
  const events: AuditEvent[] = [];
  const logged: string[] = [];
  const config = makeConfig({
    events: { audit: (event) => void events.push(event) },
    logger: {
      error: (e) => void logged.push(`${e.name}: ${e.message}`),
      warn: (code) => void logged.push(code),
      debug() {},
    },
    ...overrides,
  });
  return { config, events, logged };
}

async function signIn(config: AuthConfig, form: Record<string, string>, headers: Record<string, string> = {}) {
  const jar = new CookieJar();
  const { csrfToken } = (await (await call(config, "/auth/csrf", { jar })).json()) as { csrfToken: string };
  const started = performance.now();
  const response = await call(config, "/auth/callback/credentials", { jar, headers, form: { csrfToken, ...form } });
  return { response, jar, elapsed: performance.now() - started };
}

const sessionCookieOf = (response: Response) =>
  response.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));

describe("audit configuration", () => {
  it("is off without events.audit and audit.store: nothing is resolved, the events are the application's own", () => {
    const config = makeConfig({ events: { signIn() {} } });
    const resolved = resolveConfig(config);
    expect(resolved.audit).toBeNull();
    expect(Object.keys(resolved.events)).toEqual(["signIn"]);
  });

  it("refuses a store it cannot use, naming the fix", () => {
    expect(() => resolveConfig(makeConfig({ audit: { store: true } }))).toThrow(
      /`audit.store: true` stores events in the `adapter`/,
    );
    const { createAuditEvent: _, ...withoutCreate } = MemoryAdapter();
    expect(() =>
      resolveConfig(
        makeConfig({ adapter: withoutCreate as Adapter, session: { strategy: "jwt" }, audit: { store: true } }),
      ),
    ).toThrow(/needs the methods createAuditEvent/);
    expect(() => resolveConfig(makeConfig({ audit: { store: "yes" as never } }))).toThrow(/`audit.store` must be/);
    expect(() => resolveConfig(makeConfig({ audit: { retention: -1 } }))).toThrow(/`audit.retention`/);
    expect(() => resolveConfig(makeConfig({ audit: { failuresPerClient: { max: 0, windowSeconds: 1 } } }))).toThrow(
      /`audit.failuresPerClient`/,
    );
  });

  it("listAuditEvents needs a store that lists, and a filter of the right types", async () => {
    await expect(listAuditEvents(audited().config)).rejects.toThrow(/needs `audit: \{ store \}`/);
    const { config } = audited({ adapter: MemoryAdapter(), session: { strategy: "jwt" }, audit: { store: true } });
    await expect(listAuditEvents(config, { userId: ["u1"] as never })).rejects.toThrow(
      /`filter.userId` must be a string/,
    );
    await expect(listAuditEvents(config, { since: new Date("nope") })).rejects.toThrow(/`filter.since`/);
    await expect(listAuditEvents(config, { limit: 5000 })).resolves.toEqual([]);
  });
});

describe("what is recorded", () => {
  it("a success names the session (the JWT's sid, never the token) and the identifier tried", async () => {
    const { config, events } = audited({
      providers: [
        demoCredentials({
          authorize: async (c) =>
            String(c.username).trim().toLowerCase() === "ada" ? { id: "u1", name: "Ada" } : null,
        }),
      ],
    });
    const { response } = await signIn(config, { username: "  ADA ", password: "lovelace" });
    const token = sessionCookieOf(response)?.split(";")[0]?.split("=")[1] as string;
    expect(events).toEqual([
      {
        type: "signin.succeeded",
        at: expect.any(Date),
        userId: "u1",
        provider: "credentials",
        identifier: "ada",
        sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain("lovelace");
  });

  it("authorize() that says the user is unknown, returns null, or throws: three reasons, one answer", async () => {
    const { config, events } = audited({
      providers: [
        demoCredentials({
          async authorize(c) {
            if (c.username === "ghost") throw new UnknownUserSignin();
            if (c.username === "broken") throw new Error("database down");
            if (c.username === "locked") throw new CredentialsSignin();
            return null;
          },
        }),
      ],
    });
    const answers: string[] = [];
    for (const username of ["ghost", "ada", "locked", "broken"]) {
      const { response } = await signIn(config, { username, password: "x" });
      answers.push(`${response.status} ${response.headers.get("location")}`);
    }
    expect(answers.slice(0, 3)).toEqual(
      Array(3).fill(`302 http://localhost:3000/auth/signin?error=CredentialsSignin&code=credentials`),
    );
    expect(events.map((e) => [e.identifier, "reason" in e ? e.reason : undefined])).toEqual([
      ["ghost", "unknown-user"],
      ["ada", "wrong-credentials"],
      ["locked", "wrong-credentials"],
      ["broken", "authorize-error"],
    ]);
  });

  it("a password is never recorded, even when the provider declares its password field first", async () => {
    const store = createMemoryStore();
    const { config, events } = audited({
      adapter: MemoryAdapter(store),
      session: { strategy: "jwt" },
      audit: { store: true },
      providers: [
        Credentials({
          // A form that asks for the password first: nothing in the documentation forbids it.
          credentials: { password: { label: "Password", type: "password" }, email: { label: "E-mail" } },
          authorize: async (c) => (c.password === "Correct-Horse-7" ? { id: "u-ada", email: String(c.email) } : null),
        }),
      ],
    });
    const wrong = await signIn(config, { password: "Hunter2-Guess", email: "ada@example.com" });
    expect(wrong.response.status).toBe(302);
    const right = await signIn(config, { password: "Correct-Horse-7", email: "ada@example.com" });
    expect(sessionCookieOf(right.response)).toBeDefined();
    expect(events.map((e) => e.type)).toEqual(["signin.failed", "signin.succeeded"]);
    const recorded = JSON.stringify([events, store.auditEvents]).toLowerCase();
    for (const password of ["hunter2-guess", "correct-horse-7"]) expect(recorded).not.toContain(password);
    expect(events.map((e) => e.identifier)).toEqual(["ada@example.com", "ada@example.com"]);
  });

  it("a provider of a PIN alone: its distinct guesses are counted against the provider and limited, and no PIN reaches the trail", async () => {
    const { config, events } = audited({
      session: { strategy: "jwt" },
      providers: [
        Credentials({
          id: "pin",
          credentials: { pin: { label: "PIN", type: "password" } },
          authorize: async () => null,
        }),
      ],
    });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const jar = new CookieJar();
      const { csrfToken } = (await (await call(config, "/auth/csrf", { jar })).json()) as { csrfToken: string };
      const response = await call(config, "/auth/callback/pin", {
        jar,
        headers: { "x-forwarded-for": "9.9.9.11" },
        form: { csrfToken, pin: `831-00${i}` },
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(5)).toEqual([429, 429]);
    expect(events.map((e) => e.type)).toContain("signin.rate-limited");
    expect(JSON.stringify(events)).not.toContain("831-00");
  });

  it("a refusal by the signIn callback is recorded as sign-in-refused, with the identifier", async () => {
    const { config, events } = audited({ callbacks: { signIn: () => false } });
    await signIn(config, { username: "ada", password: "lovelace" });
    expect(events).toMatchObject([{ type: "signin.failed", reason: "sign-in-refused", identifier: "ada" }]);
  });

  it("JWT revocations are recorded: one session by its sid, all of a user's by user id", async () => {
    const { config, events } = audited({ session: { revocation: true } });
    await revokeJwtSession(config, "0b6a4f5e-1111-4222-8333-944455556666");
    await revokeUserSessions(config, "u1");
    expect(events).toEqual([
      {
        type: "session.revoked",
        at: expect.any(Date),
        sessionId: "0b6a4f5e-1111-4222-8333-944455556666",
        reason: "revoked",
      },
      { type: "session.revoked", at: expect.any(Date), userId: "u1", reason: "revoked-all" },
    ]);
  });

  it("a password change is recorded when the application reports it, and needs a user id", async () => {
    const { config, events } = audited();
    await recordPasswordChange(config, { userId: "u1", clientAddress: "2001:db8::7" });
    expect(events).toEqual([
      { type: "password.changed", at: expect.any(Date), userId: "u1", clientAddress: "2001:db8::7" },
    ]);
    await expect(recordPasswordChange(config, { userId: "" })).rejects.toThrow(TypeError);
  });

  it("a secret rotation is recorded once, by fingerprints that are not the secrets", async () => {
    const { config, events } = audited({ secret: [SECRET] });
    await call(config, "/auth/session");
    expect(events).toEqual([]);
    (config.secret as string[]).unshift(OTHER_SECRET);
    // Several entries of the cache (with and without the environment) resolve it again.
    await call(config, "/auth/session");
    resolveConfig(config);
    resolveConfig(config, { AUTH_URL: "http://localhost:3000/auth" });
    await call(config, "/auth/session");
    expect(events).toHaveLength(1);
    const [rotated] = events as [Extract<AuditEvent, { type: "secret.rotated" }>];
    expect(rotated.type).toBe("secret.rotated");
    expect(rotated.fingerprints).toHaveLength(2);
    expect(rotated.fingerprints[1]).toBe(rotated.previousFingerprints[0]);
    const text = JSON.stringify(rotated);
    for (const secret of [SECRET, OTHER_SECRET]) expect(text).not.toContain(secret.slice(0, 12));
  });

  it("resolving a rotated configuration does no I/O: the rotation is recorded by the first request after it", async () => {
    const { config, events } = audited({ secret: [SECRET] });
    await call(config, "/auth/session");
    (config.secret as string[]).unshift(OTHER_SECRET);
    // A server-side helper resolves it again, with and without the environment: nothing written.
    resolveConfig(config);
    resolveConfig(config, { AUTH_URL: "http://localhost:3000/auth" });
    expect(events).toEqual([]);
    await call(config, "/auth/session");
    expect(events.map((e) => e.type)).toEqual(["secret.rotated"]);
    await call(config, "/auth/session");
    expect(events).toHaveLength(1);
  });

  it("a rotation while requests flow is recorded once", async () => {
    const { config, events } = audited({ secret: [SECRET] });
    const jar = (await signIn(config, { username: "ada", password: "lovelace" })).jar;
    events.length = 0;
    const reads = (n: number) => Array.from({ length: n }, () => call(config, "/auth/session", { jar }));
    const before = reads(30);
    config.secret = [OTHER_SECRET, SECRET];
    const after = reads(30);
    const answers = await Promise.all([...before, ...after]);
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(events.map((e) => e.type)).toEqual(["secret.rotated"]);
  });

  it("session reads record nothing", async () => {
    const { config, events } = audited();
    const { jar } = await signIn(config, { username: "ada", password: "lovelace" });
    events.length = 0;
    for (let i = 0; i < 10; i++)
      expect((await (await call(config, "/auth/session", { jar })).json())?.user?.name).toBe("Ada Lovelace");
    expect(events).toEqual([]);
  });
});

describe("bounds against anonymous requests", () => {
  it("failures nobody rate-limits (a post without CSRF) are recorded at most failuresPerClient times per client", async () => {
    const store = createMemoryStore();
    const { config, logged } = audited({
      adapter: MemoryAdapter(store),
      session: { strategy: "jwt" },
      audit: { store: true, failuresPerClient: { max: 20, windowSeconds: 60 } },
    });
    const posts = Array.from({ length: 120 }, () =>
      call(config, "/auth/callback/credentials", {
        form: { username: "ada", password: "x" },
        headers: { "x-forwarded-for": "9.9.9.9" },
      }),
    );
    for (const response of await Promise.all(posts)) expect(response.status).toBe(302);
    expect(store.auditEvents?.map((e) => ("reason" in e ? e.reason : e.type))).toEqual(Array(20).fill("missing-csrf"));
    expect(logged.filter((line) => line === "audit-bounded")).toHaveLength(1);
  });

  // Known limit closed: IPv6 clients are budgeted per /64, and one /48 holds 65,536 of them.
  it("an IPv6 /48 holds sixteen client budgets, not 65,536: failures from 40 of its /64s are recorded at most 16 × failuresPerClient", async () => {
    const store = createMemoryStore();
    const { config } = audited({
      adapter: MemoryAdapter(store),
      session: { strategy: "jwt" },
      clientAddress: (request) => request.headers.get("x-test-client"),
      audit: { store: true, failuresPerClient: { max: 2, windowSeconds: 60 } },
    });
    const post = (client: string) =>
      call(config, "/auth/callback/credentials", {
        form: { username: "ada", password: "x" },
        headers: { "x-test-client": client },
      });
    for (let i = 0; i < 40; i++) {
      for (const response of await Promise.all([
        post(`2001:db8:5:${i.toString(16)}::1`),
        post(`2001:db8:5:${i.toString(16)}::2`),
      ]))
        expect(response.status).toBe(302);
    }
    expect(store.auditEvents?.filter((e) => e.clientAddress?.startsWith("2001:db8:5:"))).toHaveLength(32);
    // Another /48 has its own budget.
    expect((await post("2001:db8:6::1")).status).toBe(302);
    expect(store.auditEvents?.filter((e) => e.clientAddress === "2001:db8:6::1")).toHaveLength(1);
  });

  it("a user's own records are bounded per user and kind (recordsPerUser): a loop of sign-ins never hides the password change that follows", async () => {
    const store = createMemoryStore();
    const { config, logged } = audited({
      adapter: MemoryAdapter(store),
      session: { strategy: "jwt" },
      audit: { store: true, recordsPerUser: { max: 3, windowSeconds: 60 } },
    });
    for (let i = 0; i < 8; i++) {
      expect((await signIn(config, { username: "ada", password: "lovelace" })).response.status).toBe(302);
    }
    await recordPasswordChange(config, { userId: "u1" });
    expect(store.auditEvents?.map((e) => e.type)).toEqual([
      "signin.succeeded",
      "signin.succeeded",
      "signin.succeeded",
      "password.changed",
    ]);
    expect(logged.filter((line) => line === "audit-bounded")).toHaveLength(1);
    expect(() => resolveConfig(makeConfig({ audit: { recordsPerUser: { max: 0, windowSeconds: 1 } } }))).toThrow(
      /`audit.recordsPerUser` must be/,
    );
  });

  it("a forged OAuth callback (no state cookie) is an oauth-error, at most failuresPerClient per client", async () => {
    const { config, events } = audited({
      providers: [GitHub({ clientId: "id", clientSecret: "secret" })],
      audit: { failuresPerClient: { max: 3, windowSeconds: 60 } },
    });
    for (let i = 0; i < 10; i++) {
      const response = await call(config, `/auth/callback/github?code=c${i}&state=forged`);
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toMatch(/error=/);
    }
    expect(events.map((e) => [e.type, "reason" in e ? e.reason : undefined, e.provider])).toEqual(
      Array(3).fill(["signin.failed", "oauth-error", "github"]),
    );
  });

  it("an unknown user and a wrong password share one budget: past it, neither writes (a write only one of them made would show in the time)", async () => {
    const store = createMemoryStore();
    const { config } = audited({
      adapter: MemoryAdapter(store),
      session: { strategy: "jwt" },
      rateLimit: false,
      audit: { store: true, failuresPerClient: { max: 3, windowSeconds: 60 } },
      providers: [
        demoCredentials({
          async authorize(c) {
            if (c.username === "ghost") throw new UnknownUserSignin();
            return null;
          },
        }),
      ],
    });
    const from = { "x-forwarded-for": "9.9.9.10" };
    for (let i = 0; i < 3; i++) await signIn(config, { username: "ada", password: `wrong-${i}` }, from);
    // The budget of this client is spent on wrong passwords; an unknown user must not be recorded
    // now either, or the store write it alone makes would tell the two apart.
    await signIn(config, { username: "ghost", password: "x" }, from);
    expect(store.auditEvents?.map((e) => ("reason" in e ? e.reason : e.type))).toEqual(
      Array(3).fill("wrong-credentials"),
    );
  });

  it("a failing store is logged and never fails the sign-in", async () => {
    const adapter = MemoryAdapter();
    const { config, logged } = audited({
      adapter: { ...adapter, createAuditEvent: async () => Promise.reject(new Error("disk full")) },
      session: { strategy: "jwt" },
      audit: { store: true },
    });
    const { response } = await signIn(config, { username: "ada", password: "lovelace" });
    expect(response.status).toBe(302);
    expect(sessionCookieOf(response)).toBeDefined();
    expect(logged.some((line) => line.includes("failed to record a signin.succeeded event"))).toBe(true);
  });

  it("a store that never answers holds the sign-in at most the write bound (1 s), then is logged", async () => {
    const adapter = MemoryAdapter();
    const { config, logged } = audited({
      adapter: { ...adapter, createAuditEvent: () => new Promise<void>(() => {}) },
      session: { strategy: "jwt" },
      audit: { store: true },
      adapterTimeout: 60_000,
    });
    const { response, elapsed } = await signIn(config, { username: "ada", password: "lovelace" });
    expect(response.status).toBe(302);
    expect(sessionCookieOf(response)).toBeDefined();
    // The event that proves the bound: the write was given up and logged (the store never
    // answers, so without the bound the sign-in would never end). The time is reported, not held
    // to a budget a loaded machine could break.
    expect(logged.some((line) => line.includes("within 1000 ms"))).toBe(true);
    console.info(`[audit] the sign-in ended ${elapsed.toFixed(0)} ms after it began, the store never answering`);
  });

  it("an events.audit handler that throws is logged, and the sign-in goes on", async () => {
    const { config, logged } = audited({
      events: {
        audit: () => {
          throw new Error("handler bug");
        },
      },
    });
    const { response } = await signIn(config, { username: "ada", password: "lovelace" });
    expect(sessionCookieOf(response)).toBeDefined();
    expect(logged.some((line) => line.includes("`audit` event handler threw"))).toBe(true);
  });

  it("the retention sweep deletes expired events once per interval, not per request", async () => {
    const store = createMemoryStore();
    const memory = MemoryAdapter(store);
    const cutoffs: Date[] = [];
    const { config } = audited({
      adapter: {
        ...memory,
        deleteAuditEvents: (before: Date) => {
          cutoffs.push(before);
          return memory.deleteAuditEvents?.(before);
        },
      },
      session: { strategy: "jwt" },
      audit: { store: true, retention: 100 },
    });
    await memory.createAuditEvent?.({ type: "password.changed", at: new Date(Date.now() - 200_000), userId: "old" });
    for (let i = 0; i < 10; i++) await signIn(config, { username: "ada", password: "lovelace" });
    expect(cutoffs).toHaveLength(1);
    expect(Date.now() - (cutoffs[0] as Date).getTime()).toBeGreaterThanOrEqual(100_000);
    await expect.poll(() => store.auditEvents?.some((e) => e.userId === "old")).toBe(false);
    expect(store.auditEvents?.filter((e) => e.type === "signin.succeeded")).toHaveLength(10);
  });
});

describe("the flows that refuse without throwing record their own failure", () => {
  it("e-mail: a wrong code and a forged link are failures of the address; the right code succeeds", async () => {
    const sent: { code?: string; url: string }[] = [];
    const { config, events } = audited({
      adapter: MemoryAdapter(),
      providers: [
        Nodemailer({
          server: "smtp://127.0.0.1:1",
          from: "no-reply@app.test",
          code: true,
          sendVerificationRequest: ({ code, url }) => void sent.push({ code, url }),
        }),
      ],
    });
    const jar = new CookieJar();
    await call(config, "/auth/signin/nodemailer", {
      jar,
      form: { csrfToken: await csrfToken(config, jar), email: "Ada@Example.com" },
    });
    const code = sent[0]?.code as string;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const post = async (value: string) =>
      call(config, "/auth/callback/nodemailer", {
        jar,
        form: { csrfToken: await csrfToken(config, jar), code: value },
      });
    await post(wrong);
    // A forged link, confirmed in another browser (a GET there only shows the confirmation page).
    const other = new CookieJar();
    await call(config, "/auth/callback/nodemailer", {
      jar: other,
      form: { csrfToken: await csrfToken(config, other), token: "forged", email: "ada@example.com" },
    });
    await post(code);
    expect(events.map((e) => [e.type, "reason" in e ? e.reason : undefined, e.identifier, e.provider])).toEqual([
      ["signin.failed", "email-code-invalid", "ada@example.com", "nodemailer"],
      ["signin.failed", "email-token-invalid", "ada@example.com", "nodemailer"],
      ["signin.succeeded", undefined, "ada@example.com", "nodemailer"],
    ]);
  });

  it("second factor: the first factor alone records nothing, a wrong code is a failure of the user, the right one the success", async () => {
    const { config, events } = audited({
      adapter: MemoryAdapter(),
      session: { strategy: "jwt" },
      providers: [demoCredentials(), TOTP({ issuer: "Latchkey Test" })],
    });
    const enrolment = await startTotpEnrolment(config, { id: "u1", label: "ada@example.com" });
    const codeAt = (step: number) => hotp(base32Decode(enrolment.secret) as Buffer, step);
    expect((await confirmTotpEnrolment(config, "u1", codeAt(timeStep()))).ok).toBe(true);
    const jar = new CookieJar();
    await call(config, "/auth/callback/credentials", {
      jar,
      form: { csrfToken: await csrfToken(config, jar), username: "ada", password: "lovelace" },
    });
    expect(events).toEqual([]);
    const valid = new Set([-1, 0, 1].map((d) => codeAt(timeStep() + d)));
    const wrong = ["000000", "111111", "222222"].find((c) => !valid.has(c)) as string;
    const submit = async (code: string) =>
      call(config, "/auth/callback/totp", { jar, form: { csrfToken: await csrfToken(config, jar), code } });
    await submit(wrong);
    await submit(codeAt(timeStep() + 1));
    expect(events.map((e) => [e.type, "reason" in e ? e.reason : undefined, e.userId, e.provider])).toEqual([
      ["signin.failed", "second-factor-invalid", "u1", "totp"],
      ["signin.succeeded", undefined, "u1", "credentials"],
    ]);
  });
});
