/**
 * Latchkey's sign-in flows over an Auth.js database adapter, unchanged: OAuth through a real
 * OpenID Provider, an e-mail magic link through a real SMTP server, database sessions read,
 * updated and ended, and the functions of `@latchkey/core/sessions`. Each test file runs this
 * over one adapter and its own scratch database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthjsAdapterProfile, runAdapterConformance } from "../../../adapter-test/src/index.js";
import { serviceAvailable } from "../../../adapter-test/src/services.js";
import { MissingAdapterMethods } from "../../src/errors.js";
import { Auth, type AuthConfig } from "../../src/index.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import {
  listAccounts,
  listSessions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  unlinkAccount,
} from "../../src/sessions.js";
import { confirmationForm, type SmtpFixture, smtpServer, startSmtp } from "../email/helpers.js";
import { Browser } from "../oauth/support/browser.js";
import { locationOf, signInThrough } from "../oauth/support/flow.js";
import { startOP, type TestOP } from "../oauth/support/op.js";
import type { AuthjsAdapterFixture } from "./databases.js";

const APP = "http://localhost:3000";
const SECRET = "authjs-adapter-flows-secret-0123456789abcdef";
const SESSION = "authjs.session-token";

/** Latchkey's optional adapter methods, which no Auth.js adapter has. */
const LATCHKEY_EXTENSIONS = [
  "getAccountsByUserId",
  "updateAccount",
  "deleteAuthenticator",
  "listSessions",
  "deleteSessions",
  "listAccounts",
  "listUsers",
  "getSecondFactor",
  "setSecondFactor",
  "deleteSecondFactor",
  "useSecondFactorStep",
  "endSecondFactorSignIns",
  "useBackupCode",
  "createAuditEvent",
  "deleteAuditEvents",
  "listAuditEvents",
] as const;

/**
 * The conformance tests no Auth.js adapter passes, with why: Auth.js leaves these rules to its
 * core (Latchkey's core keeps them too, as the flows show) or its adapters never made them.
 */
const AUTHJS_CORE_RULES: Record<string, string> = {
  "createUser stores a user that getUser, getUserByEmail return unchanged":
    "the database assigns the user's id; Latchkey uses the id createUser answers",
  "keeps null fields null": "the database assigns the user's id; Latchkey uses the id createUser answers",
  "treats an expired session as missing and removes it":
    "Auth.js leaves a session's expiry to its core; Latchkey's core checks it and deletes the row (see the flows above)",
  "stops returning a session once its expiry passes":
    "Auth.js leaves a session's expiry to its core; Latchkey's core checks it and deletes the row (see the flows above)",
  "treats an expired token as missing and removes it":
    "Auth.js leaves a token's expiry to its core; Latchkey's core checks it (see the flows above)",
  "creating a verification token sweeps the expired ones and keeps the live ones":
    "Auth.js's adapters never delete expired verification tokens: unused links stay in the table",
};

/** Where each adapter keeps its rows (the tables its schema names). */
export interface Tables {
  users: string;
  accounts: string;
  sessions: string;
  verificationTokens: string;
}

/** Registers the flow tests of one Auth.js adapter. */
function runLatchkeyFlows(name: string, setup: () => Promise<AuthjsAdapterFixture>, tables: Tables): void {
  describe(`${name}: Latchkey's flows over the Auth.js adapter`, () => {
    let fixture: AuthjsAdapterFixture;
    let op: TestOP;
    let smtp: SmtpFixture;
    let config: AuthConfig;
    const warnings: Array<{ code: string; detail?: string }> = [];
    const errors: Error[] = [];

    beforeAll(async () => {
      [fixture, op, smtp] = await Promise.all([
        setup(),
        startOP([{ client_id: "app", client_secret: "app-secret", redirect_uris: [`${APP}/auth/callback/op`] }]),
        startSmtp(),
      ]);
      config = {
        secret: SECRET,
        trustHost: true,
        adapter: fixture.adapter,
        session: { updateAge: 0 },
        providers: [
          OIDC({ id: "op", name: "Test OP", issuer: op.issuer, clientId: "app", clientSecret: "app-secret" }),
          Nodemailer({ server: smtpServer(smtp.port), from: "no-reply@app.test" }),
        ],
        logger: {
          warn: (code: string, detail?: string) => warnings.push({ code, detail }),
          error: (error: Error) => errors.push(error),
          debug: () => {},
        },
      } as AuthConfig;
    });
    afterAll(async () => {
      await Promise.all([fixture?.teardown(), op?.close(), smtp?.close()]);
    });

    const browser = () => new Browser({ [APP]: (request) => Auth(request, config) });
    const rows = async (table: string, where: string, values: unknown[]) =>
      (await fixture.pool.query(`SELECT * FROM ${table} WHERE ${where}`, values)).rows as Record<string, unknown>[];
    const session = async (b: Browser) => (await b.get(`${APP}/auth/session`)).json();
    const requestOf = (b: Browser) =>
      new Request(`${APP}/account`, {
        headers: { cookie: [...b.jar(APP)].map(([k, v]) => `${k}=${v}`).join("; ") },
      });

    /** Signs `login` in through the OpenID Provider; returns the browser and the user's row. */
    async function oauthSignIn(login: string) {
      const b = browser();
      const callback = await signInThrough(b, APP, "op", { query: { login_hint: login } });
      expect(locationOf(callback)).toBe(`${APP}/`);
      const token = b.jar(APP).get(SESSION);
      expect(token).toBeTruthy();
      const [stored] = await rows(tables.sessions, `"sessionToken" = $1`, [token]);
      expect(stored).toBeDefined();
      const [user] = await rows(tables.users, `id = $1`, [stored?.userId]);
      return { browser: b, token: token as string, user: user as Record<string, unknown> };
    }

    it("OAuth sign-in through a real OpenID Provider creates the user, links the account and starts a database session", async () => {
      const { browser: b, user } = await oauthSignIn("alice");
      expect(user).toMatchObject({ name: "Alice Liddell", email: "alice@example.com" });
      const accounts = await rows(tables.accounts, `"userId" = $1`, [user.id]);
      expect(accounts).toHaveLength(1);
      expect(accounts[0]).toMatchObject({ provider: "op", type: "oidc", providerAccountId: "alice" });
      expect(await session(b)).toMatchObject({ user: { name: "Alice Liddell", email: "alice@example.com" } });
      expect(errors).toEqual([]);
    });

    it("signing in again through the same account finds the same user: no second user, no second account", async () => {
      const first = await oauthSignIn("bob");
      const second = await oauthSignIn("bob");
      expect(String(second.user.id)).toBe(String(first.user.id));
      expect(await rows(tables.users, "email = $1", ["bob@example.com"])).toHaveLength(1);
      expect(await rows(tables.accounts, `"providerAccountId" = $1`, ["bob"])).toHaveLength(1);
      expect(second.token).not.toBe(first.token);
    });

    it("an e-mail magic link signs in once, creating a verified user; the link then is spent", async () => {
      const b = browser();
      const address = `grace-${crypto.randomUUID()}@example.com`;
      const csrf = (await (await b.get(`${APP}/auth/csrf`)).json()) as { csrfToken: string };
      const sent = await b.post(`${APP}/auth/signin/nodemailer`, { csrfToken: csrf.csrfToken, email: address });
      expect(locationOf(sent)).toContain("/auth/verify-request");
      const mail = smtp.mails.find((m) => m.to.includes(address));
      const link = /https?:\/\/\S+\/callback\/nodemailer\S+/.exec(mail?.mail.text ?? "")?.[0];
      expect(link).toBeTruthy();
      expect(await rows(tables.verificationTokens, "identifier = $1", [address])).not.toHaveLength(0);

      const landed = await b.get(link as string);
      expect(locationOf(landed)).toBe(`${APP}/`);
      expect(await session(b)).toMatchObject({ user: { email: address } });
      const [user] = await rows(tables.users, "email = $1", [address]);
      expect(user?.emailVerified).toBeInstanceOf(Date);

      // Another browser gets the confirmation page (a GET spends nothing); confirming a spent
      // link is refused.
      const again = browser();
      const asked = await again.get(link as string);
      expect(asked.status).toBe(200);
      const form = confirmationForm(await asked.text());
      expect(form).not.toBeNull();
      const spent = await again.post(new URL(form?.action as string, APP).href, form?.fields ?? {});
      expect(locationOf(spent)).toContain("error=Verification");
      expect(again.jar(APP).has(SESSION)).toBe(false);
    });

    it("a magic link whose token row has expired is refused (Latchkey checks the expiry the adapter does not)", async () => {
      const b = browser();
      const address = `late-${crypto.randomUUID()}@example.com`;
      const csrf = (await (await b.get(`${APP}/auth/csrf`)).json()) as { csrfToken: string };
      await b.post(`${APP}/auth/signin/nodemailer`, { csrfToken: csrf.csrfToken, email: address });
      const link = /https?:\/\/\S+\/callback\/nodemailer\S+/.exec(
        smtp.mails.find((m) => m.to.includes(address))?.mail.text ?? "",
      )?.[0];
      await fixture.pool.query(
        `UPDATE ${tables.verificationTokens} SET expires = now() - interval '1 minute' WHERE identifier = $1`,
        [address],
      );
      const refused = await b.get(link as string);
      expect(locationOf(refused)).toContain("error=Verification");
      expect(b.jar(APP).has(SESSION)).toBe(false);
      expect(await rows(tables.users, "email = $1", [address])).toHaveLength(0);
    });

    it("a database session is read, extended, updated through POST /auth/session, and ended by sign-out", async () => {
      const { browser: b, token } = await oauthSignIn("alice");
      await fixture.pool.query(
        `UPDATE ${tables.sessions} SET expires = now() + interval '1 day' WHERE "sessionToken" = $1`,
        [token],
      );
      // updateAge 0: every read extends the session through the adapter's updateSession.
      const read = (await session(b)) as { expires: string };
      const [extended] = await rows(tables.sessions, `"sessionToken" = $1`, [token]);
      const storedExpiry = extended?.expires instanceof Date ? extended.expires.getTime() : Number.NaN;
      expect(storedExpiry).toBeGreaterThan(Date.now() + 29 * 86_400_000);
      expect(new Date(read.expires).getTime()).toBe(storedExpiry);

      const csrf = (await (await b.get(`${APP}/auth/csrf`)).json()) as { csrfToken: string };
      const updated = await b.request(`${APP}/auth/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ csrfToken: csrf.csrfToken, data: { theme: "dark" } }),
      });
      expect(updated.status).toBe(200);
      expect(await updated.json()).toMatchObject({ user: { email: "alice@example.com" } });

      const out = await b.post(`${APP}/auth/signout`, { csrfToken: csrf.csrfToken });
      expect(out.status).toBe(302);
      expect(await rows(tables.sessions, `"sessionToken" = $1`, [token])).toHaveLength(0);
      expect(b.jar(APP).has(SESSION)).toBe(false);
      expect(await session(b)).toBeNull();
    });

    it("an expired session row signs nobody in and is deleted (Latchkey checks the expiry the adapter does not)", async () => {
      const { browser: b, token } = await oauthSignIn("alice");
      await fixture.pool.query(
        `UPDATE ${tables.sessions} SET expires = now() - interval '1 minute' WHERE "sessionToken" = $1`,
        [token],
      );
      expect(await session(b)).toBeNull();
      expect(await rows(tables.sessions, `"sessionToken" = $1`, [token])).toHaveLength(0);
      expect(b.jar(APP).has(SESSION)).toBe(false);
    });

    it("signing out a session another tab already ended clears the cookie, logs no error (some adapters throw for the missing row)", async () => {
      const { browser: b, token } = await oauthSignIn("alice");
      const csrf = (await (await b.get(`${APP}/auth/csrf`)).json()) as { csrfToken: string };
      await fixture.pool.query(`DELETE FROM ${tables.sessions} WHERE "sessionToken" = $1`, [token]);
      const before = errors.length;
      const out = await b.post(`${APP}/auth/signout`, { csrfToken: csrf.csrfToken });
      expect(out.status).toBe(302);
      expect(b.jar(APP).has(SESSION)).toBe(false);
      expect(errors.slice(before)).toEqual([]);
    });

    it("an expired session read by 30 requests at once: each sees no session, none fails, the row is gone", async () => {
      const { browser: b, token } = await oauthSignIn("alice");
      await fixture.pool.query(
        `UPDATE ${tables.sessions} SET expires = now() - interval '1 minute' WHERE "sessionToken" = $1`,
        [token],
      );
      const before = errors.length;
      const answers = await Promise.all(Array.from({ length: 30 }, () => b.get(`${APP}/auth/session`)));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect(await Promise.all(answers.map((a) => a.json()))).toEqual(answers.map(() => null));
      expect(errors.slice(before)).toEqual([]);
      expect(await rows(tables.sessions, `"sessionToken" = $1`, [token])).toHaveLength(0);
    });

    it("30 session reads (each extending the session) racing its sign-out: none fails, and the session stays ended", async () => {
      const { browser: b, token } = await oauthSignIn("alice");
      const csrf = (await (await b.get(`${APP}/auth/csrf`)).json()) as { csrfToken: string };
      const before = errors.length;
      const [out, ...reads] = await Promise.all([
        b.post(`${APP}/auth/signout`, { csrfToken: csrf.csrfToken }),
        ...Array.from({ length: 30 }, () => b.get(`${APP}/auth/session`)),
      ]);
      expect(out?.status).toBe(302);
      expect(reads.map((r) => r.status)).toEqual(reads.map(() => 200));
      expect(errors.slice(before)).toEqual([]);
      expect(await rows(tables.sessions, `"sessionToken" = $1`, [token])).toHaveLength(0);
    });

    it("the sessions API refuses, naming the missing adapter methods, and changes nothing", async () => {
      const { browser: b, token, user } = await oauthSignIn("alice");
      const request = requestOf(b);
      for (const [call, method] of [
        [() => listSessions(request, config), "listSessions"],
        [() => revokeSession(request, config, "k".repeat(32)), "listSessions"],
        [() => revokeOtherSessions(request, config), "deleteSessions"],
        [() => revokeUserSessions(config, String(user.id)), "deleteSessions"],
      ] as const) {
        const failure = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(failure).toBeInstanceOf(MissingAdapterMethods);
        expect((failure as Error).message).toContain(method);
      }
      expect(await rows(tables.sessions, `"sessionToken" = $1`, [token])).toHaveLength(1);
      expect(await session(b)).toMatchObject({ user: { email: "alice@example.com" } });
    });

    it("unlinking an account refuses, naming listAccounts, and keeps the account", async () => {
      const { browser: b, user } = await oauthSignIn("alice");
      const request = requestOf(b);
      await expect(listAccounts(request, config)).rejects.toThrow(MissingAdapterMethods);
      const failure = await unlinkAccount(request, config, { provider: "op", providerAccountId: "alice" }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(MissingAdapterMethods);
      expect((failure as Error).message).toContain("listAccounts");
      expect(await rows(tables.accounts, `"userId" = $1`, [user.id])).toHaveLength(1);
    });

    it("says once, as a warning, which Latchkey features the adapter cannot serve", async () => {
      await session(browser());
      const said = warnings.filter((w) => w.code === "adapter-extensions-missing");
      expect(said).toHaveLength(1);
      for (const name of ["listSessions", "deleteSessions", "listAccounts", "updateAccount", "getAccountsByUserId"])
        expect(said[0]?.detail).toContain(name);
    });
  });
}

/**
 * Registers everything one Auth.js adapter runs on PostgreSQL: Latchkey's flows over it, and the
 * conformance suite with Latchkey's extensions (and `absent`, methods of its own it lacks) marked
 * absent and the rules of {@link AUTHJS_CORE_RULES} and `notApplicable` skipped with their reasons.
 */
export async function runAuthjsAdapter(
  name: string,
  setup: () => Promise<AuthjsAdapterFixture>,
  tables: Tables,
  profile: { conformanceName: string; absent?: AuthjsAdapterProfile["absent"]; notApplicable?: Record<string, string> },
): Promise<void> {
  const postgresUp = await serviceAvailable("PostgreSQL", 5432);
  if (postgresUp) runLatchkeyFlows(name, setup, tables);
  runAdapterConformance(
    profile.conformanceName,
    async () => {
      const { adapter, probe, teardown } = await setup();
      return { adapter, db: probe, teardown };
    },
    {
      skip: !postgresUp,
      authjs: {
        absent: [...LATCHKEY_EXTENSIONS, ...(profile.absent ?? [])],
        notApplicable: { ...AUTHJS_CORE_RULES, ...profile.notApplicable },
      },
    },
  );
}
