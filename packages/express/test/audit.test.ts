/**
 * The audit trail from outside, over Express on PostgreSQL (`audit: { store: true }` with the SQL
 * adapter): what a client can observe (status, headers, body, cookies, timing) against the rows
 * the audit table holds. Failed, limited, locked-out and successful sign-ins; sessions listed and
 * revoked through the session API; a password change; hostile identifiers; a flood of concurrent
 * failures; session reads that record nothing.
 */

import { randomBytes } from "node:crypto";
import { dummyVerify, hashPassword, verifyPassword } from "@latchkey/core/password";
import {
  type AuditEvent,
  type AuthConfig,
  ExpressAuth,
  listAuditEvents,
  listSessions,
  recordPasswordChange,
  revokeSession,
  revokeUserSessions,
  UnknownUserSignin,
} from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import { SqlAdapter } from "@latchkey/sql-adapter";
import express from "express";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { Jar, listen } from "./helpers.js";
import { scratchPostgres } from "./stores.js";

const FAST = { parameters: { ln: 10 } };
const SECRET = "audit-trail-test-secret-0123456789abcdef";
let up = false;
let drop = async () => {};
let db: Kysely<Record<string, Record<string, unknown>>>;
let app = "";
let close = async () => {};
let config: AuthConfig;
// What `events.audit` received, and what the logger was told.
const delivered: AuditEvent[] = [];
const logged: string[] = [];
// The application's own password table, by login.
const passwords = new Map<string, { id: string; hash: string }>();
// Every failure reason and limit name: none may reach a client.
const internalWords = [
  "wrong-credentials",
  "unknown-user",
  "authorize-error",
  "credentialsPerIdentifierAndIp",
  "credentialsPerIdentifier",
  "signin.failed",
  "locked-out",
];

beforeAll(async () => {
  up = await serviceAvailable("PostgreSQL", 5432);
  if (!up) return;
  ({ db, close: drop } = await scratchPostgres("audit", 10));
  const logins = ["ada", "grace", "owner", ...Array.from({ length: 10 }, (_, i) => `known${i}`)];
  for (const login of logins) {
    passwords.set(login, {
      id: `user-${login}-${randomBytes(3).toString("hex")}`,
      hash: await hashPassword("right horse battery", FAST),
    });
  }

  config = {
    secret: SECRET,
    trustHost: true,
    adapter: SqlAdapter(db as never),
    audit: { store: true },
    rateLimit: {
      credentialsPerIdentifierAndIp: { max: 5, windowSeconds: 900 },
      credentialsPerIdentifier: { max: 8, windowSeconds: 900 },
    },
    logger: {
      error: (e) => void logged.push(`${e.name}: ${e.message}`),
      warn: (code) => void logged.push(code),
      debug() {},
    },
    providers: [
      Credentials({
        databaseSessions: true,
        credentials: { login: {}, password: {} },
        async authorize({ login, password }) {
          const row = passwords.get(String(login));
          if (!row) {
            // The same work as a wrong password, then the application says who was unknown.
            await dummyVerify(String(password), FAST);
            throw new UnknownUserSignin();
          }
          if (!(await verifyPassword(String(password), row.hash))) return null;
          return { id: row.id, name: String(login) };
        },
      }),
    ],
    events: { audit: (event) => void delivered.push(event) },
  };
  const application = express();
  // The tests play many clients through X-Forwarded-For, which Express trusts from loopback only.
  application.set("trust proxy", "loopback");
  application.use("/auth", ExpressAuth(config));
  application.get("/account/sessions", async (req, res) => void res.json(await listSessions(req, config)));
  application.post("/account/sessions/revoke", express.urlencoded({ extended: false }), async (req, res) => {
    res.json({ revoked: await revokeSession(req, config, req.body.id) });
  });
  application.post("/account/password", express.urlencoded({ extended: false }), async (req, res) => {
    const userId = String(req.body.userId);
    await recordPasswordChange(req, config, { userId });
    res.json({ revoked: await revokeUserSessions(config, userId, { reason: "password-changed" }) });
  });
  ({ url: app, close } = await listen(application));
});

afterAll(async () => {
  await close();
  await drop();
});

/** A fresh client at `address`: its own cookies and CSRF token. */
function client(address: string) {
  const jar = new Jar();
  const headers = { "x-forwarded-for": address };
  return {
    jar,
    async signIn(form: Record<string, string>, extra: Record<string, string> = {}) {
      const { csrfToken } = (await (await jar.fetch(`${app}/auth/csrf`, { headers })).json()) as { csrfToken: string };
      return jar.fetch(`${app}/auth/callback/credentials`, {
        headers: { ...headers, ...extra },
        form: { csrfToken, ...form },
      });
    },
    get: (path: string) => jar.fetch(`${app}${path}`, { headers }),
    // A form of the application's own pages: it carries the CSRF token the page was given.
    post: async (path: string, form: Record<string, string>) => {
      const { csrfToken } = (await (await jar.fetch(`${app}/auth/csrf`, { headers })).json()) as { csrfToken: string };
      return jar.fetch(`${app}${path}`, { headers, form: { csrfToken, ...form } });
    },
  };
}

/** Every address a test uses is its own, so the per-client limits of one test never touch another's. */
function address(): string {
  return `10.${[...randomBytes(3)].join(".")}`;
}

async function rows(filter: { identifier?: string; userId?: string }) {
  return (await listAuditEvents(config, { ...filter, limit: 1000 })).reverse();
}

/** What a client sees of a response: status, headers but the date, cookies, body. */
async function observed(response: Response) {
  const headers = [...response.headers].filter(([name]) => name !== "date" && name !== "set-cookie");
  return {
    status: response.status,
    headers,
    cookies: response.headers.getSetCookie(),
    body: await response.text(),
  };
}

function leaks(seen: { headers: [string, string][]; cookies: string[]; body: string }, secrets: string[]): string[] {
  const text = JSON.stringify(seen);
  return [...secrets, ...internalWords].filter((word) => text.includes(word));
}

describe("audit trail over Express on PostgreSQL", () => {
  it("a failed, a limited and a successful sign-in each write their row; no response carries the password or a reason", async (t) => {
    if (!up) return t.skip();
    const guesser = client(address());
    const identifier = "ada";
    const seen: Awaited<ReturnType<typeof observed>>[] = [];
    for (let i = 0; i < 8; i++) {
      seen.push(await observed(await guesser.signIn({ login: identifier, password: `guess-${i}` })));
    }
    expect(seen.map((s) => s.status)).toEqual([302, 302, 302, 302, 302, 429, 429, 429]);
    const owner = client(address());
    const success = await owner.signIn({ login: identifier, password: "right horse battery" });
    expect(success.status).toBe(302);
    const sessionCookie = success.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));
    const sessionToken = sessionCookie?.split(";")[0]?.split("=")[1] as string;
    expect(sessionToken).toBeTruthy();

    const stored = await rows({ identifier });
    expect(stored.map((e) => `${e.type} ${"reason" in e ? e.reason : ""}`)).toEqual([
      ...Array(5).fill("signin.failed wrong-credentials"),
      // One row for the limit's window, not one per refused request.
      "signin.rate-limited credentialsPerIdentifierAndIp",
      "signin.succeeded ",
    ]);
    const [listed] = (await (await owner.get("/account/sessions")).json()) as { id: string }[];
    const succeeded = stored.at(-1) as AuditEvent;
    expect(succeeded).toMatchObject({
      userId: passwords.get("ada")?.id,
      provider: "credentials",
      sessionId: listed?.id,
    });
    // Neither a password nor the session token is anywhere in the audit table.
    const table = JSON.stringify(await db.selectFrom("audit_events").selectAll().execute());
    for (const secret of ["guess-", "right horse battery", sessionToken]) expect(table).not.toContain(secret);
    for (const response of seen) expect(leaks(response, ["guess-"])).toEqual([]);
    expect(leaks(await observed(success), ["right horse battery"])).toEqual([]);
    // events.audit received the same events the table holds.
    const mine = delivered.filter((e) => e.identifier === identifier).map((e) => e.type);
    expect(mine).toEqual(stored.map((e) => e.type));
  });

  it("an unknown user and a wrong password answer alike (status, headers, cookies, body, timing); only the rows differ", async (t) => {
    if (!up) return t.skip();
    const unknown: Awaited<ReturnType<typeof observed>>[] = [];
    const wrong: Awaited<ReturnType<typeof observed>>[] = [];
    const timings = { unknown: [] as number[], wrong: [] as number[] };
    // Interleaved, so that load on the machine weighs on both alike.
    for (let i = 0; i < 10; i++) {
      for (const kind of ["unknown", "wrong"] as const) {
        const login = kind === "unknown" ? `nobody${i}-${randomBytes(3).toString("hex")}` : `known${i}`;
        const c = client(address());
        const started = performance.now();
        const response = await c.signIn({ login, password: "not the password" });
        timings[kind].push(performance.now() - started);
        (kind === "unknown" ? unknown : wrong).push(await observed(response));
      }
    }
    for (let i = 0; i < 10; i++) expect(unknown[i]).toEqual(wrong[i]);
    expect(unknown[0]?.status).toBe(302);
    expect(unknown[0]?.headers).toContainEqual([
      "location",
      `${app}/auth/signin?error=CredentialsSignin&code=credentials`,
    ]);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
    const ratio = median(timings.unknown) / median(timings.wrong);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
    const reasons = async (login: string) =>
      (await rows({ identifier: login })).map((e) => ("reason" in e ? e.reason : e.type));
    expect(await reasons("known0")).toEqual(["wrong-credentials"]);
    const nobody = delivered.find((e) => e.identifier?.startsWith("nobody0-"));
    expect(nobody).toMatchObject({ type: "signin.failed", reason: "unknown-user", provider: "credentials" });
  });

  it("50 concurrent failed sign-ins of one identifier from one client write exactly 5 failure rows and 1 limit row", async (t) => {
    if (!up) return t.skip();
    const from = address();
    const identifier = "grace";
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client(from).signIn({ login: identifier, password: `wrong-${i}` })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 302)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(45);
    const stored = await rows({ identifier });
    expect(stored.filter((e) => e.type === "signin.failed")).toHaveLength(5);
    expect(stored.filter((e) => e.type === "signin.rate-limited")).toHaveLength(1);
    expect(stored).toHaveLength(6);
    expect(new Set(stored.map((e) => e.clientAddress))).toEqual(new Set([from]));
  });

  it("locked out: the per-identifier limit reached from many clients is recorded once, and refuses the owner too", async (t) => {
    if (!up) return t.skip();
    const identifier = "owner";
    for (let i = 0; i < 8; i++)
      expect((await client(address()).signIn({ login: identifier, password: `x${i}` })).status).toBe(302);
    expect((await client(address()).signIn({ login: identifier, password: "x9" })).status).toBe(429);
    const ownerTry = await client(address()).signIn({ login: identifier, password: "right horse battery" });
    expect(ownerTry.status).toBe(429);
    const stored = await rows({ identifier });
    expect(stored.map((e) => e.type)).toEqual([...Array(8).fill("signin.failed"), "signin.locked-out"]);
    expect(stored.at(-1)).toMatchObject({ reason: "credentialsPerIdentifier" });
  });

  it("hostile identifiers are recorded capped, normalised and with their control characters escaped; never a 5xx", async (t) => {
    if (!up) return t.skip();
    const cases = [
      { login: "evil\r\n[ERROR] forged line\u202Egnp.exe", expected: "evil\\r\\n[error] forged line\\u202egnp.exe" },
      { login: "ＡＤＡ\u0000 ", expected: "ada\\u0000" },
      { login: "x".repeat(20_000), expected: "x".repeat(255) },
      { login: `${"é".repeat(300)}`, expected: "é".repeat(255) },
    ];
    for (const { login, expected } of cases) {
      const response = await client(address()).signIn({ login, password: "p" });
      expect(response.status).toBe(302);
      const [row] = await rows({ identifier: expected });
      expect(row).toMatchObject({ type: "signin.failed", identifier: expected });
    }
    // A repeated field: the first value is the identifier, as for the limiter and authorize().
    const repeated = client(address());
    const { csrfToken } = (await (await repeated.get("/auth/csrf")).json()) as { csrfToken: string };
    const body = `csrfToken=${encodeURIComponent(csrfToken)}&login=first-${csrfToken.slice(0, 6)}&login=second&password=p&password=q`;
    const response = await repeated.jar.fetch(`${app}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address() },
      body,
    });
    expect(response.status).toBe(302);
    expect(await rows({ identifier: `first-${csrfToken.slice(0, 6)}`.toLowerCase() })).toHaveLength(1);
    const identifiers = (await listAuditEvents(config, { limit: 1000 })).map((e) => e.identifier ?? "");
    const unsafe = (text: string) => [...text].some((c) => (c.codePointAt(0) as number) < 0x20 || c === "\u202e");
    expect(identifiers.filter(unsafe)).toEqual([]);
  });

  it("session reads write nothing; a revocation through the session API and a password change are recorded", async (t) => {
    if (!up) return t.skip();
    const grace = passwords.get("known5")!;
    const laptop = client(address());
    const phone = client(address());
    for (const device of [laptop, phone]) {
      expect((await device.signIn({ login: "known5", password: "right horse battery" })).status).toBe(302);
    }
    const count = async () =>
      Number((await db.selectFrom("audit_events").select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
    const before = [await count(), delivered.length];
    for (let i = 0; i < 20; i++) expect((await laptop.get("/auth/session")).status).toBe(200);
    expect([await count(), delivered.length]).toEqual(before);

    const sessions = (await (await laptop.get("/account/sessions")).json()) as { id: string; current: boolean }[];
    const other = sessions.find((s) => !s.current)!;
    expect(await (await laptop.post("/account/sessions/revoke", { id: other.id })).json()).toEqual({ revoked: true });
    const signedIn = async (device: ReturnType<typeof client>) =>
      ((await (await device.get("/auth/session")).json()) as { user?: unknown } | null)?.user !== undefined;
    expect([await signedIn(laptop), await signedIn(phone)]).toEqual([true, false]);
    expect(await (await laptop.post("/account/password", { userId: grace.id })).json()).toEqual({ revoked: 1 });
    expect(await signedIn(laptop)).toBe(false);

    const mine = await rows({ userId: grace.id });
    expect(mine.map((e) => `${e.type}${"reason" in e ? ` ${e.reason}` : ""}`)).toEqual([
      "account.linked",
      "signin.succeeded",
      "signin.succeeded",
      "session.revoked revoked",
      "password.changed",
      "session.revoked password-changed",
    ]);
    expect(mine[3]).toMatchObject({ sessionId: other.id });
    const current = sessions.find((s) => s.current)!;
    expect(mine[5]).toMatchObject({ sessionId: current.id });
    expect(mine[4]?.clientAddress).toMatch(/^10\./);
  });
});
