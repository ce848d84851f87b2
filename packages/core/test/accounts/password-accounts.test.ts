// Password accounts end to end (issue 28): sign-up, address verification, forgotten password and
// change, over real stores (the memory adapter, the SQL adapter on SQLite and PostgreSQL, with the
// password hashes in a table of the application's), a real SMTP server, and Latchkey's own
// credentials sign-in, sessions, revocation and second factor. Each flow is followed by its
// attacks: concurrent redemption, another user's token, an expired token, enumeration by answer
// and by work done, a flood of e-mails, a reset without the second factor.
import { createHook } from "node:async_hooks";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDatabase } from "@latchkey/sql-adapter";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type AccountsRequest,
  authorizePassword,
  changePassword,
  MemoryPasswordStore,
  type PasswordAccountsOptions,
  type PasswordStore,
  requestPasswordReset,
  resetPassword,
  signUp,
  verifyEmail,
} from "../../src/accounts.js";
import type { Adapter, AdapterUser } from "../../src/adapters.js";
import { listAuditEvents } from "../../src/audit.js";
import { decode } from "../../src/jwt.js";
import { base32Decode, hotp, TOTP_PERIOD, timeStep } from "../../src/lib/flows/second-factor/totp.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import { hashPassword, verifyPassword } from "../../src/password.js";
import Credentials from "../../src/providers/credentials.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import TOTP from "../../src/providers/totp.js";
import { confirmTotpEnrolment, startTotpEnrolment } from "../../src/second-factor.js";
import { revokeUserSessions } from "../../src/sessions.js";
import type { AuthConfig } from "../../src/types.js";
import { pgAdapterFixture } from "../authjs-adapters/databases.js";
import { CookieJar, ORIGIN, SECRET, type SmtpFixture, send, smtpServer, startSmtp, until } from "../email/helpers.js";

let smtp: SmtpFixture;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.close());
afterEach(() => {
  vi.useRealTimers();
  smtp.mails.length = 0;
});

const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a brand new passphrase 42";

// ------------------------------------------------------------------ the stores

interface Store {
  adapter: Adapter;
  passwords: PasswordStore;
  close(): Promise<void>;
}

/** Password hashes in a table of the application's, next to the adapter's tables. */
// biome-ignore lint/suspicious/noExplicitAny: Kysely of the SQL adapter, untyped tables
async function sqlPasswords(db: any): Promise<PasswordStore> {
  await db.schema
    .createTable("app_passwords")
    .addColumn("user_id", "varchar(255)", (c: { primaryKey(): unknown }) => c.primaryKey())
    .addColumn("hash", "text", (c: { notNull(): unknown }) => c.notNull())
    .execute();
  return {
    async getPasswordHash(userId) {
      const row = await db.selectFrom("app_passwords").select("hash").where("user_id", "=", userId).executeTakeFirst();
      return row?.hash ?? null;
    },
    async setPasswordHash(userId, hash) {
      await db
        .insertInto("app_passwords")
        .values({ user_id: userId, hash })
        .onConflict((oc: { column(c: string): { doUpdateSet(v: unknown): unknown } }) =>
          oc.column("user_id").doUpdateSet({ hash }),
        )
        .execute();
    },
  };
}

const stores: Record<string, () => Promise<Store>> = {
  async memory() {
    return { adapter: MemoryAdapter(createMemoryStore()), passwords: new MemoryPasswordStore(), close: async () => {} };
  },
  async sqlite() {
    const { SqlAdapter } = await import("@latchkey/sql-adapter");
    const dir = mkdtempSync(join(tmpdir(), "latchkey-passwords-"));
    const db = await openDatabase(join(dir, "db.sqlite"));
    await migrate(db);
    return {
      adapter: SqlAdapter(db) as unknown as Adapter,
      passwords: await sqlPasswords(db),
      close: async () => {
        await db.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  async postgres() {
    const { SqlAdapter } = await import("@latchkey/sql-adapter");
    const pg = (await import("pg")).default;
    const name = `latchkey_passwords_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const db = await openDatabase(`postgres://postgres@127.0.0.1:5432/${name}`);
    await migrate(db);
    return {
      adapter: SqlAdapter(db) as unknown as Adapter,
      passwords: await sqlPasswords(db),
      close: async () => {
        await db.destroy();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
    };
  },
};

// ------------------------------------------------------------------ the application

type Strategy = "jwt" | "database";

/** The session cookie's name on the tests' http origin. */
const SESSION_COOKIE = "authjs.session-token";

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Test hooks of the application: `afterAuthorize` runs once the password is verified, before the session starts. */
interface Hooks {
  afterAuthorize?: () => Promise<void>;
  /**
   * How authorize() hands things on: by default it passes its credentials object and returns a
   * copy of the user (an application that picks fields); "fields" passes a new object of the
   * fields and returns authorizePassword's user as it is.
   */
  pass?: "credentials" | "fields";
}

/** The store with an adapter that hands back one user object per address at every lookup (`keep` makes it: frozen, say). */
function handingBackOneObject(store: Store, keep: (user: AdapterUser) => AdapterUser = (user) => user): Store {
  const same = new Map<string, AdapterUser>();
  return {
    ...store,
    adapter: {
      ...store.adapter,
      async getUserByEmail(email) {
        const known = same.get(email);
        if (known) return known;
        const user = (await store.adapter.getUserByEmail?.(email)) ?? null;
        if (!user) return null;
        const kept = keep(user);
        same.set(email, kept);
        return kept;
      },
    },
  };
}

function app(
  store: Store,
  strategy: Strategy = "jwt",
  extra: Partial<PasswordAccountsOptions> = {},
  hooks: Hooks = {},
) {
  const accounts: PasswordAccountsOptions = {
    passwords: store.passwords,
    urls: { verify: "/account/verify", reset: "/account/reset", signIn: "/auth/signin", signUp: "/account/signup" },
    breached: false, // no network here; the breached check has its own tests
    hash: { parameters: { ln: 10 } }, // fast hashes for tests; the default is ln=17
    ...extra,
  };
  const errors: Error[] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    trustedOrigins: [ORIGIN, "https://app.example.com"],
    adapter: store.adapter,
    session: strategy === "jwt" ? { strategy: "jwt", revocation: true } : { strategy: "database" },
    audit: { store: true },
    logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
    providers: [
      Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey Test <no-reply@app.test>" }),
      Credentials({
        databaseSessions: strategy === "database",
        credentials: { email: { type: "email" }, password: { type: "password" } },
        authorize: async (c) => {
          if (hooks.pass === "fields") {
            const user = await authorizePassword(config, accounts, { email: c.email, password: c.password });
            await hooks.afterAuthorize?.();
            return user;
          }
          const user = await authorizePassword(config, accounts, c);
          await hooks.afterAuthorize?.();
          return user && { ...user };
        },
      }),
      TOTP({ issuer: "Latchkey Test" }),
    ],
  };
  return { config, accounts, errors };
}

/** What a framework package passes: where the request arrived and the browser's cookies. */
function from(jar: CookieJar): AccountsRequest {
  return { protocol: "http", host: new URL(ORIGIN).host, cookieHeader: jar.header() };
}

function keep(jar: CookieJar, setCookie: string[]): void {
  const headers = new Headers();
  for (const value of setCookie) headers.append("set-cookie", value);
  jar.take(new Response(null, { headers }));
}

async function csrf(config: AuthConfig, jar: CookieJar): Promise<string> {
  return ((await (await send(config, jar, "/auth/csrf")).json()) as { csrfToken: string }).csrfToken;
}

/** Signs in through Latchkey's credentials callback; the answer's Location. */
async function passwordSignIn(config: AuthConfig, jar: CookieJar, email: string, password: string) {
  const response = await send(config, jar, "/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken: await csrf(config, jar), email, password }),
  });
  return response.headers.get("location") ?? "";
}

async function sessionEmail(config: AuthConfig, jar: CookieJar): Promise<string | null> {
  const session = (await (await send(config, jar, "/auth/session")).json()) as { user?: { email?: string } } | null;
  return session?.user?.email ?? null;
}

/** The last e-mail to `to`, with its link's query and its code. */
function lastMail(to: string) {
  const mail = [...smtp.mails].reverse().find((m) => m.to.includes(to));
  if (!mail) throw new Error(`no e-mail to ${to}`);
  const text = mail.mail.text ?? "";
  const link = /https?:\/\/\S+\/account\/(?:verify|reset)\?\S+/.exec(text)?.[0];
  const query = link ? Object.fromEntries(new URL(link).searchParams) : {};
  return { subject: mail.mail.subject ?? "", text, link, query, code: /Code: ([0-9]{6})/.exec(text)?.[1] };
}

/** Signs up `email` in `jar` and verifies it with the mailed code. */
async function signedUp(config: AuthConfig, accounts: PasswordAccountsOptions, email: string, jar = new CookieJar()) {
  const before = smtp.mails.length;
  const result = await signUp(from(jar), config, accounts, { email, password: PASSWORD });
  if (!result.ok) throw new Error(`sign-up refused: ${result.error}`);
  keep(jar, result.setCookie);
  await until(() => smtp.mails.length > before);
  const verified = await verifyEmail(from(jar), config, accounts, { code: lastMail(email).code });
  if (!verified.ok) throw new Error(`verification refused: ${verified.error}`);
  return { jar, userId: verified.userId };
}

/** Scrypt computations started while `work` runs (libuv requests of type SCRYPTREQUEST). */
async function scryptRuns<T>(work: () => Promise<T>): Promise<{ result: T; runs: number }> {
  let runs = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "SCRYPTREQUEST") runs++;
    },
  });
  hook.enable();
  try {
    return { result: await work(), runs };
  } finally {
    hook.disable();
  }
}

/** The fields of a mailed link's query that `resetPassword` and `verifyEmail` take. */
function linkOf(query: Record<string, string>): { token: string; email: string; user: string } {
  return { token: query.token ?? "", email: query.email ?? "", user: query.user ?? "" };
}

async function requestReset(config: AuthConfig, accounts: PasswordAccountsOptions, email: string) {
  const before = smtp.mails.length;
  const result = await requestPasswordReset(from(new CookieJar()), config, accounts, { email });
  expect(result).toEqual({ ok: true });
  await until(() => smtp.mails.length > before);
  return linkOf(lastMail(email).query);
}

/** A verified account on a fresh memory store, and the query of a reset link mailed to it. */
async function accountWithResetLink(email: string, extra: Partial<PasswordAccountsOptions> = {}) {
  const store = await (stores.memory as () => Promise<Store>)();
  const { config, accounts } = app(store, "jwt", extra);
  await signedUp(config, accounts, email);
  return { store, config, accounts, link: await requestReset(config, accounts, email) };
}

// ------------------------------------------------------------------ the flows, on every store

describe.each(Object.keys(stores))("password accounts on the %s store", (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await (stores[kind] as () => Promise<Store>)();
  });
  afterAll(() => store.close());

  it("sign-up: an unproven address cannot sign in; the mailed code, typed in the signing-up browser, proves it once", async () => {
    const { config, accounts } = app(store);
    const email = `ada-${kind}@example.com`;
    const jar = new CookieJar();
    const result = await signUp(from(jar), config, accounts, {
      email: ` Ada-${kind}@Example.com `,
      password: PASSWORD,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    keep(jar, result.setCookie);
    await until(() => smtp.mails.some((m) => m.to.includes(email)));
    const mail = lastMail(email);
    expect(mail.subject).toContain("Confirm your e-mail address");
    expect(mail.code).toMatch(/^[0-9]{6}$/);
    const user = await store.adapter.getUserByEmail?.(email);
    expect(user?.emailVerified).toBeNull();
    // Nothing stored in clear: the hash is a scrypt string, the code and link are keyed hashes.
    expect(await store.passwords.getPasswordHash(user?.id as string)).toMatch(/^\$scrypt\$/);

    expect(await passwordSignIn(config, new CookieJar(), email, PASSWORD)).toContain("error=CredentialsSignin");
    // Another browser (no cookie) cannot use the code.
    expect(await verifyEmail(from(new CookieJar()), config, accounts, { code: mail.code })).toMatchObject({
      ok: false,
      error: "invalid",
    });
    const verified = await verifyEmail(from(jar), config, accounts, { code: mail.code });
    expect(verified).toMatchObject({ ok: true, userId: user?.id });
    expect((await store.adapter.getUser?.(user?.id as string))?.emailVerified).toBeInstanceOf(Date);
    // Spent: the same code, and the e-mail's link, verify nothing again.
    expect((await verifyEmail(from(jar), config, accounts, { code: mail.code })).ok).toBe(false);
    expect((await verifyEmail(from(jar), config, accounts, { ...mail.query, password: PASSWORD })).ok).toBe(false);

    const signedIn = new CookieJar();
    expect(await passwordSignIn(config, signedIn, email, PASSWORD)).toBe(ORIGIN);
    expect(await sessionEmail(config, signedIn)).toBe(email);
  });

  it("forgotten password: the mailed token sets a new password once, ends every session, and the old password stops working", async () => {
    for (const strategy of ["jwt", "database"] as const) {
      const { config, accounts } = app(store, strategy);
      const email = `reset-${strategy}-${kind}@example.com`;
      await signedUp(config, accounts, email);
      const laptop = new CookieJar();
      const phone = new CookieJar();
      await passwordSignIn(config, laptop, email, PASSWORD);
      await passwordSignIn(config, phone, email, PASSWORD);
      expect(await sessionEmail(config, phone)).toBe(email);

      const link = await requestReset(config, accounts, email);
      const done = await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD });
      expect(done).toMatchObject({ ok: true, sessionsEnded: true });
      expect(await sessionEmail(config, laptop)).toBeNull();
      expect(await sessionEmail(config, phone)).toBeNull();
      expect((await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: PASSWORD })).ok).toBe(
        false,
      );
      expect(await passwordSignIn(config, new CookieJar(), email, PASSWORD)).toContain("error=CredentialsSignin");
      expect(await passwordSignIn(config, new CookieJar(), email, NEW_PASSWORD)).toBe(ORIGIN);
      await until(() => lastMail(email).subject.includes("Your password was changed"));
    }
  });

  it("change while signed in: needs the CSRF token and the current password, ends the other sessions, records password.changed", async () => {
    const { config, accounts } = app(store, "database");
    const email = `change-${kind}@example.com`;
    const { userId } = await signedUp(config, accounts, email);
    const here = new CookieJar();
    const elsewhere = new CookieJar();
    await passwordSignIn(config, here, email, PASSWORD);
    await passwordSignIn(config, elsewhere, email, PASSWORD);
    const token = await csrf(config, here);

    await expect(
      changePassword(from(here), config, accounts, {
        csrfToken: "forged",
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      }),
    ).rejects.toThrow(/CSRF/);
    expect(
      await changePassword(from(here), config, accounts, {
        csrfToken: token,
        currentPassword: "not it at all",
        newPassword: NEW_PASSWORD,
      }),
    ).toEqual({ ok: false, error: "wrong-password" });
    expect(
      await changePassword(from(here), config, accounts, {
        csrfToken: token,
        currentPassword: PASSWORD,
        newPassword: "short",
      }),
    ).toMatchObject({ ok: false, error: "weak-password", reasons: ["too-short"] });
    expect(await sessionEmail(config, elsewhere)).toBe(email);

    const changed = await changePassword(from(here), config, accounts, {
      csrfToken: token,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(changed).toEqual({ ok: true, userId, signedOut: false, setCookie: [], cookies: [] });
    expect(await sessionEmail(config, here)).toBe(email);
    expect(await sessionEmail(config, elsewhere)).toBeNull();
    expect(await passwordSignIn(config, new CookieJar(), email, NEW_PASSWORD)).toBe(ORIGIN);
    const events = await listAuditEvents(config, { userId, type: "password.changed" });
    expect(events).toHaveLength(1);
  });

  it("attack: 30 concurrent sign-ups of one new address, each with its own password: one user, every answer alike, and only the winner's password is stored", async () => {
    const { config, accounts } = app(store, "jwt", {
      limits: { signUpMailPerAddress: { max: 100, windowSeconds: 60 } },
    });
    const email = `crowd-${kind}@example.com`;
    const before = smtp.mails.length;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signUp(from(new CookieJar()), config, accounts, { email, password: `${PASSWORD} number ${i}` }),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    await until(() => smtp.mails.length - before === 30);
    const mails = smtp.mails.slice(before).filter((m) => m.to.includes(email));
    const verify = mails.filter((m) => (m.mail.subject ?? "").includes("Confirm your e-mail address"));
    expect(verify).toHaveLength(1);
    const user = await store.adapter.getUserByEmail?.(email);
    expect(user?.emailVerified).toBeNull();
    // The one stored password is the one whose sign-up was mailed the code.
    const stored = await store.passwords.getPasswordHash(user?.id as string);
    const winners = [];
    for (let i = 0; i < 30; i++) {
      if (stored && (await verifyPassword(`${PASSWORD} number ${i}`, stored))) winners.push(i);
    }
    expect(winners).toHaveLength(1);
  });

  it("race: a password sign-in already past its hash check when a reset ends the user's sessions starts no session (both strategies)", async () => {
    for (const [strategy, pass] of [
      ["jwt", "credentials"],
      ["database", "credentials"],
      ["jwt", "fields"],
    ] as const) {
      const hooks: Hooks = { pass };
      const { config, accounts } = app(store, strategy, {}, hooks);
      const email = `race-signin-${strategy}-${pass}-${kind}@example.com`;
      await signedUp(config, accounts, email);
      const link = await requestReset(config, accounts, email);
      // The thief's sign-in with the old password stops right after its hash check...
      const verified = deferred();
      const resume = deferred();
      hooks.afterAuthorize = async () => {
        hooks.afterAuthorize = undefined;
        verified.resolve();
        await resume.promise;
      };
      const thief = new CookieJar();
      const signingIn = passwordSignIn(config, thief, email, PASSWORD);
      await verified.promise;
      // ...while the owner resets the password, which ends every session of the user.
      const done = await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD });
      expect(done).toMatchObject({ ok: true, sessionsEnded: true });
      resume.resolve();
      // The sign-in fails as any wrong password does, and leaves no session behind.
      expect(await signingIn).toContain("error=CredentialsSignin");
      expect(await sessionEmail(config, thief)).toBeNull();
      if (strategy === "database") {
        const user = await store.adapter.getUserByEmail?.(email);
        expect(await store.adapter.listSessions?.(String(user?.id))).toEqual([]);
      }
      // The owner's new password signs in as before.
      const owner = new CookieJar();
      expect(await passwordSignIn(config, owner, email, NEW_PASSWORD)).toBe(ORIGIN);
      expect(await sessionEmail(config, owner)).toBe(email);
    }
  });

  it("an adapter that hands back the same user object at every sign-in: a sign-in after a reset is asked only about its own password, not about the earlier sign-ins' (the guard's notes are taken once)", async () => {
    const caching = handingBackOneObject(store);
    const { config, accounts } = app(caching, "jwt", {}, { pass: "fields" });
    const email = `same-object-${kind}@example.com`;
    await signedUp(config, accounts, email);
    expect(await passwordSignIn(config, new CookieJar(), email, PASSWORD)).toBe(ORIGIN);
    const link = await requestReset(config, accounts, email);
    const done = await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD });
    expect(done).toMatchObject({ ok: true });
    const owner = new CookieJar();
    expect(await passwordSignIn(config, owner, email, NEW_PASSWORD)).toBe(ORIGIN);
    expect(await sessionEmail(config, owner)).toBe(email);
  });

  it("attack: two sign-ins at once that the adapter hands the same user object cannot mix their guards: the thief's check of the old password, made before a reset, refuses the thief and not the owner signing in with the new one", async () => {
    const caching = handingBackOneObject(store, Object.freeze);
    const hooks: Hooks = { pass: "fields" };
    const { config, accounts } = app(caching, "jwt", {}, hooks);
    const email = `same-object-at-once-${kind}@example.com`;
    await signedUp(config, accounts, email);
    const link = await requestReset(config, accounts, email);
    // The thief's sign-in with the old password stops right after its hash check...
    const verified = deferred();
    const resume = deferred();
    hooks.afterAuthorize = async () => {
      hooks.afterAuthorize = undefined;
      verified.resolve();
      await resume.promise;
    };
    const thief = new CookieJar();
    const thiefSigningIn = passwordSignIn(config, thief, email, PASSWORD);
    await verified.promise;
    // ...the owner resets the password and signs in with the new one while the thief's sign-in
    // is still under way: both authorize() calls returned the one (frozen) user object.
    const done = await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD });
    expect(done).toMatchObject({ ok: true, sessionsEnded: true });
    const owner = new CookieJar();
    expect(await passwordSignIn(config, owner, email, NEW_PASSWORD)).toBe(ORIGIN);
    expect(await sessionEmail(config, owner)).toBe(email);
    resume.resolve();
    expect(await thiefSigningIn).toContain("error=CredentialsSignin");
    expect(await sessionEmail(config, thief)).toBeNull();
  });

  it("race: a password sign-in already past its hash check when a change ends the user's other sessions starts no session", async () => {
    const hooks: Hooks = {};
    const { config, accounts } = app(store, "jwt", {}, hooks);
    const email = `race-change-${kind}@example.com`;
    await signedUp(config, accounts, email);
    const owner = new CookieJar();
    await passwordSignIn(config, owner, email, PASSWORD);
    const verified = deferred();
    const resume = deferred();
    hooks.afterAuthorize = async () => {
      hooks.afterAuthorize = undefined;
      verified.resolve();
      await resume.promise;
    };
    const thief = new CookieJar();
    const signingIn = passwordSignIn(config, thief, email, PASSWORD);
    await verified.promise;
    const changed = await changePassword(from(owner), config, accounts, {
      csrfToken: await csrf(config, owner),
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(changed).toMatchObject({ ok: true, signedOut: false });
    if (changed.ok) keep(owner, changed.setCookie);
    resume.resolve();
    expect(await signingIn).toContain("error=CredentialsSignin");
    expect(await sessionEmail(config, thief)).toBeNull();
    expect(await sessionEmail(config, owner)).toBe(email);
  });

  it("attack: 40 concurrent redemptions of one reset token: exactly one sets its password", async () => {
    // Limits high enough that every loser meets the spent token, not the limiter.
    const { config, accounts } = app(store, "jwt", { limits: { submitPerAddress: { max: 100, windowSeconds: 60 } } });
    const email = `race-${kind}@example.com`;
    await signedUp(config, accounts, email);
    const link = await requestReset(config, accounts, email);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        resetPassword(from(new CookieJar()), config, accounts, { ...link, password: `${NEW_PASSWORD} number ${i}` }),
      ),
    );
    const winners = results.flatMap((r, i) => (r.ok ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.error === "invalid-token")).toBe(true);
    expect(await passwordSignIn(config, new CookieJar(), email, `${NEW_PASSWORD} number ${winners[0]}`)).toBe(ORIGIN);
  });

  it("attack: 40 concurrent submissions of the right verification code: exactly one verifies", async () => {
    const { config, accounts } = app(store);
    const email = `code-race-${kind}@example.com`;
    const jar = new CookieJar();
    const result = await signUp(from(jar), config, accounts, { email, password: PASSWORD });
    if (!result.ok) throw new Error("refused");
    keep(jar, result.setCookie);
    await until(() => smtp.mails.some((m) => m.to.includes(email)));
    const { code } = lastMail(email);
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        verifyEmail(
          from(jar),
          config,
          { ...accounts, limits: { submitPerAddress: { max: 100, windowSeconds: 60 } } },
          { code },
        ),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });
});

// ------------------------------------------------------------------ attacks (memory store)

describe("attacks on password accounts", () => {
  const memory = () => stores.memory?.() as Promise<Store>;

  it("enumeration by answer and by work: a sign-up with a taken address answers the same, after the same hash and one e-mail, and changes nothing", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    const { userId } = await signedUp(config, accounts, "owner@example.com");
    const hashBefore = await store.passwords.getPasswordHash(userId);
    smtp.mails.length = 0;

    const fresh = await scryptRuns(() =>
      signUp(from(new CookieJar()), config, accounts, { email: "newcomer@example.com", password: PASSWORD }),
    );
    const taken = await scryptRuns(() =>
      signUp(from(new CookieJar()), config, accounts, {
        email: "owner@example.com",
        password: "an attacker's passphrase",
      }),
    );
    // The same answer: ok, one cookie of the same name and length class.
    expect(fresh.result.ok && taken.result.ok).toBe(true);
    const cookieOf = (r: typeof fresh.result) => (r.ok ? r.setCookie : []);
    expect(cookieOf(taken.result).map((c) => c.split("=")[0])).toEqual(
      cookieOf(fresh.result).map((c) => c.split("=")[0]),
    );
    expect(Object.keys(taken.result).sort()).toEqual(Object.keys(fresh.result).sort());
    // The same work: one scrypt hash each, one e-mail each.
    expect(fresh.runs).toBe(1);
    expect(taken.runs).toBe(1);
    await until(() => smtp.mails.length === 2);
    expect(smtp.mails.map((m) => m.to[0])).toEqual(["newcomer@example.com", "owner@example.com"]);
    expect(lastMail("owner@example.com").subject).toContain("You already have an account");
    // The owner's password is the owner's.
    expect(await store.passwords.getPasswordHash(userId)).toBe(hashBefore);
    expect(await passwordSignIn(config, new CookieJar(), "owner@example.com", PASSWORD)).toBe(ORIGIN);
  });

  it("attack: enumeration by cookie length: with an Auth.js adapter that makes its own short ids (@auth/pg-adapter's SERIAL), a taken address's verification cookie is as long as a free one's, and the account works", async () => {
    const fixture = await pgAdapterFixture();
    try {
      const store: Store = { adapter: fixture.adapter, passwords: new MemoryPasswordStore(), close: async () => {} };
      const full = app(store);
      const accounts = full.accounts;
      // No second factor and no audit trail: this adapter has no table for them.
      const config: AuthConfig = {
        ...full.config,
        audit: undefined,
        providers: full.config.providers.filter((p) => typeof p === "function" || p.type !== "totp"),
      };
      const signUpOnce = async (jar: CookieJar) => {
        const result = await signUp(from(jar), config, accounts, { email: "serial@example.com", password: PASSWORD });
        if (!result.ok) throw new Error(`sign-up refused: ${result.error}`);
        keep(jar, result.setCookie);
        return result.setCookie;
      };
      // The first sign-up creates user 1 (a number, from the SERIAL column); the second meets the
      // taken address. Before: the number reached the records' HMAC and the sign-up threw (a 5xx
      // after the user was created, with no password).
      const browser = new CookieJar();
      const [fresh = ""] = await signUpOnce(browser);
      await until(() => smtp.mails.length === 1);
      const { code } = lastMail("serial@example.com");
      const [taken = ""] = await signUpOnce(new CookieJar());
      await until(() => smtp.mails.length === 2);
      expect(lastMail("serial@example.com").subject).toContain("You already have an account");
      expect(taken.split("=")[0]).toBe(fresh.split("=")[0]);
      expect(taken.length).toBe(fresh.length);
      // The account works on this adapter: verified by the code, signed in, reset.
      expect(await verifyEmail(from(browser), config, accounts, { code })).toMatchObject({ ok: true, userId: "1" });
      expect(
        (await authorizePassword(config, accounts, { email: "serial@example.com", password: PASSWORD }))?.email,
      ).toBe("serial@example.com");
      const link = await requestReset(config, accounts, "serial@example.com");
      expect(await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD })).toEqual(
        {
          ok: true,
          userId: "1",
          sessionsEnded: true,
        },
      );
      expect(
        (await authorizePassword(config, accounts, { email: "serial@example.com", password: NEW_PASSWORD }))?.email,
      ).toBe("serial@example.com");
    } finally {
      await fixture.teardown();
    }
  });

  it("enumeration by answer and by work: a reset request answers the same for an unknown address, hashes nothing either way, and mails each once", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    await signedUp(config, accounts, "known@example.com");
    smtp.mails.length = 0;
    const known = await scryptRuns(() =>
      requestPasswordReset(from(new CookieJar()), config, accounts, { email: "known@example.com" }),
    );
    const unknown = await scryptRuns(() =>
      requestPasswordReset(from(new CookieJar()), config, accounts, { email: "nobody@example.com" }),
    );
    expect(known.result).toEqual({ ok: true });
    expect(unknown.result).toEqual({ ok: true });
    expect(known.runs).toBe(unknown.runs);
    await until(() => smtp.mails.length === 2);
    expect(lastMail("known@example.com").subject).toContain("Reset your password");
    expect(lastMail("nobody@example.com").subject).toContain("No account with this address");
    // The password sign-in: an unknown address costs one hash, like a wrong password.
    const wrong = await scryptRuns(() =>
      authorizePassword(config, accounts, { email: "known@example.com", password: "wrong one" }),
    );
    const none = await scryptRuns(() =>
      authorizePassword(config, accounts, { email: "nobody@example.com", password: "wrong one" }),
    );
    expect([wrong.result, none.result]).toEqual([null, null]);
    expect(wrong.runs).toBe(1);
    expect(none.runs).toBe(1);
  });

  it("flood: 30 reset requests for one address, from 30 clients, send its 5 e-mails and one more for the link's life; every answer is the usual one, for known and unknown addresses alike; one client's flood is limited", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    await signedUp(config, accounts, "victim@example.com");
    smtp.mails.length = 0;
    for (const email of ["victim@example.com", "ghost@example.com"]) {
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          requestPasswordReset(from(new CookieJar()), config, accounts, { email, clientAddress: `198.51.100.${i}` }),
        ),
      );
      expect(results.every((r) => r.ok)).toBe(true);
    }
    await until(() => smtp.mails.length === 12);
    expect(smtp.mails.filter((m) => m.to.includes("victim@example.com"))).toHaveLength(6);
    expect(smtp.mails.filter((m) => m.to.includes("ghost@example.com"))).toHaveLength(6);
    // One client asking for many addresses meets its own limit (20 account e-mails an hour).
    const fromOne = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        requestPasswordReset(from(new CookieJar()), config, accounts, {
          email: `spray-${i}@example.com`,
          clientAddress: "203.0.113.9",
        }),
      ),
    );
    expect(fromOne.filter((r) => r.ok)).toHaveLength(20);
    expect(fromOne.filter((r) => !r.ok && r.error === "rate-limited")).toHaveLength(10);
  });

  it("attack: a stranger's sign-ups with the owner's address do not spend her reset: once they have spent its sign-up e-mails (each mailing her a note), her own forgot-password still mails a link that works", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    await signedUp(config, accounts, "owner@example.com");
    // Her own sign-up's e-mail was the first of the address's five sign-up e-mails; strangers spend the rest.
    const strangers = [];
    for (let i = 0; i < 5; i++) {
      strangers.push(
        await signUp(from(new CookieJar()), config, accounts, {
          email: "owner@example.com",
          password: `${PASSWORD} of a stranger ${i}`,
          clientAddress: `203.0.113.${i}`,
        }),
      );
    }
    expect(strangers.map((r) => (r.ok ? "ok" : r.error))).toEqual(["ok", "ok", "ok", "ok", "rate-limited"]);
    const before = smtp.mails.length;
    const asked = await requestPasswordReset(from(new CookieJar()), config, accounts, {
      email: "owner@example.com",
      clientAddress: "198.51.100.7",
    });
    expect(asked).toEqual({ ok: true });
    await until(() => smtp.mails.length > before);
    const { query, subject } = lastMail("owner@example.com");
    expect(subject).toContain("Reset your password");
    expect(
      (await resetPassword(from(new CookieJar()), config, accounts, { ...linkOf(query), password: NEW_PASSWORD })).ok,
    ).toBe(true);
  });

  it("attack: a stranger who spends the owner's reset e-mails (from 30 clients, again every half hour) never leaves her without a link that works: her request answers ok, and mails her a new link only once the last one has expired", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    await signedUp(config, accounts, "owner@example.com");
    smtp.mails.length = 0;
    const start = Date.now();
    const flood = () =>
      Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          requestPasswordReset(from(new CookieJar()), config, accounts, {
            email: "owner@example.com",
            clientAddress: `203.0.113.${i}`,
          }),
        ),
      );
    const mine = () =>
      requestPasswordReset(from(new CookieJar()), config, accounts, {
        email: "owner@example.com",
        clientAddress: "198.51.100.7",
      });
    expect((await flood()).every((r) => r.ok)).toBe(true);
    await until(() => smtp.mails.length === 6);
    // Just before the link of the sixth e-mail expires, her request sends nothing: that link works.
    vi.useFakeTimers({ toFake: ["Date"], now: start + 1800 * 1000 - 2000 });
    expect(await mine()).toEqual({ ok: true });
    expect(smtp.mails).toHaveLength(6);
    const working = linkOf(lastMail("owner@example.com").query);
    // Half an hour on, the stranger floods again within the hour's window: one more e-mail, whose
    // link she then uses.
    vi.setSystemTime(start + 1800 * 1000 + 1000);
    expect((await flood()).every((r) => r.ok)).toBe(true);
    await until(() => smtp.mails.length === 7);
    expect(await mine()).toEqual({ ok: true });
    expect(smtp.mails).toHaveLength(7);
    const latest = linkOf(lastMail("owner@example.com").query);
    expect(latest.token).not.toBe(working.token);
    expect(
      (await resetPassword(from(new CookieJar()), config, accounts, { ...latest, password: NEW_PASSWORD })).ok,
    ).toBe(true);
    expect(await passwordSignIn(config, new CookieJar(), "owner@example.com", NEW_PASSWORD)).toBe(ORIGIN);
  });

  it("a limit option that no longer exists is named with what replaced it: mailPerAddress (now a sign-up and a reset limit)", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    const limits = { mailPerAddress: { max: 5, windowSeconds: 3600 } } as PasswordAccountsOptions["limits"];
    await expect(
      requestPasswordReset(from(new CookieJar()), config, { ...accounts, limits }, { email: "limits@example.com" }),
    ).rejects.toThrow(/signUpMailPerAddress.*resetMailPerAddress/);
  });

  it("bogus reset submissions for an address, from 60 clients, do not block its owner's reset; one client's flood is limited", async () => {
    const { config, accounts, link } = await accountWithResetLink("blocked@example.com");
    const bogus = Array.from({ length: 60 }, (_, i) =>
      resetPassword(from(new CookieJar()), config, accounts, {
        ...link,
        token: "0".repeat(63) + (i % 10),
        password: NEW_PASSWORD,
        clientAddress: `203.0.113.${i}`,
      }),
    );
    expect((await Promise.all(bogus)).every((r) => !r.ok && r.error === "invalid-token")).toBe(true);
    const owner = await resetPassword(from(new CookieJar()), config, accounts, {
      ...link,
      password: NEW_PASSWORD,
      clientAddress: "198.51.100.7",
    });
    expect(owner.ok).toBe(true);
    const flood = await Promise.all(
      Array.from({ length: 60 }, () =>
        resetPassword(from(new CookieJar()), config, accounts, {
          ...link,
          password: NEW_PASSWORD,
          clientAddress: "192.0.2.1",
        }),
      ),
    );
    expect(flood.filter((r) => !r.ok && r.error === "rate-limited")).toHaveLength(10);
  });

  it("attack: bogus verification links naming an address, from one client, do not block its owner's verification; that client's flood is limited", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    const owner = new CookieJar();
    const result = await signUp(from(owner), config, accounts, { email: "blocked@example.com", password: PASSWORD });
    if (!result.ok) throw new Error(`sign-up refused: ${result.error}`);
    keep(owner, result.setCookie);
    await until(() => smtp.mails.some((m) => m.to.includes("blocked@example.com")));
    const { code, query } = lastMail("blocked@example.com");
    // Anyone may post a made-up link with the owner's address: 12 of them, from one client.
    const bogus = {
      token: "0".repeat(64),
      email: "blocked@example.com",
      user: query.user,
      clientAddress: "203.0.113.9",
    };
    for (let i = 0; i < 12; i++) {
      expect(await verifyEmail(from(new CookieJar()), config, accounts, bogus)).toMatchObject({
        ok: false,
        error: "invalid",
      });
    }
    // The owner's code still works.
    expect(await verifyEmail(from(owner), config, accounts, { code, clientAddress: "198.51.100.7" })).toMatchObject({
      ok: true,
    });
    // The flooding client is stopped by its own limit (50 per 15 minutes).
    const answers = [];
    for (let i = 0; i < 45; i++) answers.push(await verifyEmail(from(new CookieJar()), config, accounts, bogus));
    expect(answers.filter((a) => !a.ok && a.error === "rate-limited").length).toBe(7);
  });

  it("store outage: a reset request whose token cannot be stored answers as any other, sends nothing, and logs why", async () => {
    const store = await (stores.memory as () => Promise<Store>)();
    const failing: Adapter = {
      ...store.adapter,
      createVerificationToken: () => Promise.reject(new Error("connection refused")),
    };
    const { config, accounts, errors } = app({ ...store, adapter: failing });
    await store.adapter.createUser?.({ id: "u-outage", email: "outage@example.com", emailVerified: new Date() });
    const result = await requestPasswordReset(from(new CookieJar()), config, accounts, { email: "outage@example.com" });
    expect(result).toEqual({ ok: true });
    expect(smtp.mails.filter((m) => m.to.includes("outage@example.com"))).toHaveLength(0);
    expect(errors.map((e) => e.message).join("\n")).toContain("A reset token could not be stored");
  });

  it("the link in another browser: a forged token checks no password (no oracle); a mistyped password does not spend the link; the right one verifies", async () => {
    const store = await (stores.memory as () => Promise<Store>)();
    const { config, accounts } = app(store);
    const result = await signUp(from(new CookieJar()), config, accounts, {
      email: "phone@example.com",
      password: PASSWORD,
    });
    expect(result.ok).toBe(true);
    await until(() => smtp.mails.some((m) => m.to.includes("phone@example.com")));
    const { query } = lastMail("phone@example.com");
    const elsewhere = new CookieJar();
    const forged = await scryptRuns(() =>
      verifyEmail(from(elsewhere), config, accounts, { ...query, token: "f".repeat(64), password: PASSWORD }),
    );
    expect(forged.result).toMatchObject({ ok: false, error: "invalid" });
    expect(forged.runs).toBe(0);
    expect(await verifyEmail(from(elsewhere), config, accounts, { ...query, password: "mistyped" })).toMatchObject({
      ok: false,
      error: "invalid",
    });
    expect(await verifyEmail(from(elsewhere), config, accounts, { ...query, password: PASSWORD })).toMatchObject({
      ok: true,
    });
    expect((await store.adapter.getUserByEmail?.("phone@example.com"))?.emailVerified).toBeInstanceOf(Date);
  });

  it("host header poisoning: with AUTH_URL set, the mailed links use its origin whatever Host says; an untrusted host is refused", async () => {
    const store = await (stores.memory as () => Promise<Store>)();
    const { config, accounts } = app(store, "jwt", { env: { AUTH_URL: "https://app.example/auth" } });
    await store.adapter.createUser?.({ id: "u-host", email: "host@example.com", emailVerified: new Date() });
    const forged: AccountsRequest = { protocol: "https", host: "evil.example", cookieHeader: "" };
    expect(await requestPasswordReset(forged, config, accounts, { email: "host@example.com" })).toEqual({ ok: true });
    await until(() => smtp.mails.some((m) => m.to.includes("host@example.com")));
    const { text } = lastMail("host@example.com");
    expect(text).toContain("https://app.example/account/reset?");
    expect(text).not.toContain("evil.example");
    const untrusted = { ...app(store).config, trustHost: false };
    await expect(
      requestPasswordReset(forged, untrusted, { ...accounts, env: {} }, { email: "host@example.com" }),
    ).rejects.toThrow(/not trusted/);
  });

  it("a token for another user: swapping the user or the address of a link resets nothing", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    await signedUp(config, accounts, "mallory@example.com");
    const victim = await signedUp(config, accounts, "alice@example.com");
    const mine = await requestReset(config, accounts, "mallory@example.com");
    for (const forged of [
      { ...mine, user: victim.userId },
      { ...mine, email: "alice@example.com" },
      { ...mine, email: "alice@example.com", user: victim.userId },
    ]) {
      expect(
        await resetPassword(from(new CookieJar()), config, accounts, { ...forged, password: NEW_PASSWORD }),
      ).toEqual({
        ok: false,
        error: "invalid-token",
      });
    }
    expect(await passwordSignIn(config, new CookieJar(), "alice@example.com", PASSWORD)).toBe(ORIGIN);
  });

  it("an expired reset token is refused, and spent", async () => {
    const { config, accounts, link } = await accountWithResetLink("late@example.com", { resetMaxAge: 60 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD })).toEqual({
      ok: false,
      error: "invalid-token",
    });
    vi.useRealTimers();
    expect(await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD })).toEqual({
      ok: false,
      error: "invalid-token",
    });
  });

  it("an expired verification e-mail proves nothing, by code or by link", async () => {
    const store = await (stores.memory as () => Promise<Store>)();
    const { config, accounts } = app(store, "jwt", { verifyMaxAge: 600 });
    const jar = new CookieJar();
    const result = await signUp(from(jar), config, accounts, { email: "slow@example.com", password: PASSWORD });
    if (!result.ok) throw new Error("refused");
    keep(jar, result.setCookie);
    await until(() => smtp.mails.some((m) => m.to.includes("slow@example.com")));
    const { code, query } = lastMail("slow@example.com");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 601_000);
    expect((await verifyEmail(from(jar), config, accounts, { ...query, password: PASSWORD })).ok).toBe(false);
    expect((await verifyEmail(from(jar), config, accounts, { code })).ok).toBe(false);
    expect((await store.adapter.getUserByEmail?.("slow@example.com"))?.emailVerified).toBeNull();
  });

  it("attack: a password posted as an array (a repeated field) is a wrong password, never the text the array turns into", async () => {
    const store = await memory();
    const { config, accounts } = app(store, "database");
    const email = "repeated@example.com";
    await signedUp(config, accounts, email);
    const here = new CookieJar();
    await passwordSignIn(config, here, email, PASSWORD);
    const csrfToken = await csrf(config, here);
    // String([PASSWORD]) === PASSWORD: a check on the string form would accept it.
    for (const currentPassword of [[PASSWORD], { toString: () => PASSWORD }, [PASSWORD, PASSWORD]]) {
      expect(
        await changePassword(from(here), config, accounts, { csrfToken, currentPassword, newPassword: NEW_PASSWORD }),
      ).toEqual({ ok: false, error: "wrong-password" });
    }
    expect(await passwordSignIn(config, new CookieJar(), email, PASSWORD)).toBe(ORIGIN);

    // A verification link opened in another browser asks for the password: the same rule.
    const stranger = "link-elsewhere@example.com";
    expect((await signUp(from(new CookieJar()), config, accounts, { email: stranger, password: PASSWORD })).ok).toBe(
      true,
    );
    await until(() => lastMail(stranger).link !== undefined);
    const link = lastMail(stranger).query as { token: string; email: string; user: string };
    const elsewhere = from(new CookieJar());
    expect(await verifyEmail(elsewhere, config, accounts, { ...link, password: [PASSWORD] })).toMatchObject({
      ok: false,
      error: "invalid",
    });
    expect(await verifyEmail(elsewhere, config, accounts, { ...link, password: PASSWORD })).toMatchObject({ ok: true });
  });

  it("attack: a reset link sent before the last reset or password change no longer works", async () => {
    const { config, accounts, link: older } = await accountWithResetLink("twice@example.com");
    const newer = await requestReset(config, accounts, "twice@example.com");
    expect(
      (await resetPassword(from(new CookieJar()), config, accounts, { ...newer, password: NEW_PASSWORD })).ok,
    ).toBe(true);
    // Whoever kept (or stole) the older e-mail cannot undo the owner's reset with it.
    expect(
      await resetPassword(from(new CookieJar()), config, accounts, { ...older, password: `${NEW_PASSWORD} again` }),
    ).toEqual({ ok: false, error: "invalid-token" });
    expect(await passwordSignIn(config, new CookieJar(), "twice@example.com", NEW_PASSWORD)).toBe(ORIGIN);

    // The same after a change made any other way: the hash it was bound to is gone.
    const pending = await requestReset(config, accounts, "twice@example.com");
    const user = await config.adapter?.getUserByEmail?.("twice@example.com");
    await accounts.passwords.setPasswordHash(
      user?.id as string,
      await hashPassword(`${NEW_PASSWORD} changed`, accounts.hash),
    );
    expect(
      await resetPassword(from(new CookieJar()), config, accounts, { ...pending, password: `${NEW_PASSWORD} third` }),
    ).toEqual({ ok: false, error: "invalid-token" });
  });

  it("a refused new password does not spend the reset token", async () => {
    const { config, accounts, link } = await accountWithResetLink("careful@example.com");
    expect(
      await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: "careful@example.com!" }),
    ).toMatchObject({
      ok: false,
      error: "weak-password",
    });
    expect((await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD })).ok).toBe(
      true,
    );
  });

  it("wrong verification codes: after 5 the e-mail is void, its code and its link", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    const jar = new CookieJar();
    const result = await signUp(from(jar), config, accounts, { email: "guess@example.com", password: PASSWORD });
    if (!result.ok) throw new Error("refused");
    keep(jar, result.setCookie);
    await until(() => smtp.mails.length === 1);
    const { code, query } = lastMail("guess@example.com");
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    for (let i = 0; i < 5; i++)
      expect((await verifyEmail(from(jar), config, accounts, { code: wrong })).ok).toBe(false);
    expect((await verifyEmail(from(jar), config, accounts, { code })).ok).toBe(false);
    expect((await verifyEmail(from(jar), config, accounts, query)).ok).toBe(false);
  });

  it("pre-hijacking: a stranger's sign-up never becomes the owner's account; the link in another browser needs the password, and the owner's reset gives the owner a fresh user", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    // The attacker signs up with the victim's address and a password of his own.
    const attacker = new CookieJar();
    const planted = await signUp(from(attacker), config, accounts, {
      email: "victim@example.com",
      password: "attacker's own passphrase",
    });
    expect(planted.ok).toBe(true);
    await until(() => smtp.mails.length === 1);
    const mail = lastMail("victim@example.com");
    const strangerId = mail.query.user as string;
    // The victim opens the link: without the attacker's password it proves nothing.
    const victimBrowser = new CookieJar();
    expect(await verifyEmail(from(victimBrowser), config, accounts, mail.query)).toMatchObject({
      ok: false,
      error: "password-required",
    });
    expect(
      await verifyEmail(from(victimBrowser), config, accounts, { ...mail.query, password: PASSWORD }),
    ).toMatchObject({
      ok: false,
      error: "invalid",
    });
    expect((await store.adapter.getUser?.(strangerId))?.emailVerified).toBeNull();
    // Unverified: the attacker's password signs in nowhere.
    expect(await passwordSignIn(config, new CookieJar(), "victim@example.com", "attacker's own passphrase")).toContain(
      "error=CredentialsSignin",
    );
    // The victim's own sign-up meets a taken address, gets told, and resets.
    await signUp(from(victimBrowser), config, accounts, { email: "victim@example.com", password: PASSWORD });
    await until(() => lastMail("victim@example.com").subject.includes("You already have an account"));
    const link = await requestReset(config, accounts, "victim@example.com");
    const reset = await resetPassword(from(victimBrowser), config, accounts, { ...link, password: NEW_PASSWORD });
    expect(reset.ok).toBe(true);
    if (!reset.ok) return;
    expect(reset.userId).not.toBe(strangerId);
    const owner = await store.adapter.getUserByEmail?.("victim@example.com");
    expect(owner?.id).toBe(reset.userId);
    expect(owner?.emailVerified).toBeInstanceOf(Date);
    expect((await store.adapter.getUser?.(strangerId))?.email).toBeNull();
    expect(await passwordSignIn(config, new CookieJar(), "victim@example.com", "attacker's own passphrase")).toContain(
      "error=CredentialsSignin",
    );
    const victim = new CookieJar();
    expect(await passwordSignIn(config, victim, "victim@example.com", NEW_PASSWORD)).toBe(ORIGIN);
    expect(await sessionEmail(config, victim)).toBe("victim@example.com");
  });

  it("attack: a sibling sub-domain plants the stranger's verification cookie in the owner's browser (https): the owner's click on the mailed link, or the code typed there, proves nothing", async () => {
    const store = await memory();
    const { config, accounts } = app(store);
    const https = (jar: CookieJar): AccountsRequest => ({
      protocol: "https",
      host: "app.example.com",
      cookieHeader: jar.header(),
    });
    // The stranger signs up with the owner's address, on the real site, and keeps his cookie.
    const stranger = new CookieJar();
    const planted = await signUp(https(stranger), config, accounts, {
      email: "owner@example.com",
      password: "the stranger's own passphrase",
    });
    expect(planted.ok).toBe(true);
    if (!planted.ok) return;
    // Only a __Host- cookie is beyond a sibling: it carries no Domain and a sibling's Set-Cookie
    // of that name is refused by the browser (RFC 6265bis §4.1.3.2). A __Secure- one is not.
    const [set = ""] = planted.setCookie;
    expect(set).toMatch(/^__Host-latchkey\.email-verification=/);
    expect(set).toMatch(/; Path=\//);
    expect(set).not.toMatch(/; Domain=/i);
    keep(stranger, planted.setCookie);
    await until(() => smtp.mails.some((m) => m.to.includes("owner@example.com")));
    const mail = lastMail("owner@example.com");
    const strangerId = mail.query.user as string;
    // shop.example.com (a sibling the stranger controls) sets the same value under every name a
    // sibling may set: no prefix, and __Secure- with Domain=example.com.
    const [value] = [...stranger.values.values()];
    const owner = new CookieJar();
    owner.values.set("__Secure-latchkey.email-verification", value as string);
    owner.values.set("latchkey.email-verification", value as string);
    expect(await verifyEmail(https(owner), config, accounts, mail.query)).toMatchObject({
      ok: false,
      error: "password-required",
    });
    expect(await verifyEmail(https(owner), config, accounts, { code: mail.code })).toMatchObject({
      ok: false,
      error: "invalid",
    });
    expect((await store.adapter.getUser?.(strangerId))?.emailVerified).toBeNull();
    expect(
      await passwordSignIn(config, new CookieJar(), "owner@example.com", "the stranger's own passphrase"),
    ).toContain("error=CredentialsSignin");
    // Control: the same code in the browser that signed up (its own cookie) is accepted, so the
    // refusals above came from the planted cookie alone.
    expect(await verifyEmail(https(stranger), config, accounts, { code: mail.code })).toMatchObject({ ok: true });
  });

  it("a reset without the second factor: it signs no one in, ends the pending second-factor sign-in, and the new password still asks for the code", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Math.floor(Date.now() / 1000 / TOTP_PERIOD) * TOTP_PERIOD * 1000 + 15_000);
    const store = await memory();
    const { config, accounts } = app(store);
    const { userId } = await signedUp(config, accounts, "twofactor@example.com");
    const enrolment = await startTotpEnrolment(config, { id: userId, label: "twofactor@example.com" });
    const codeAt = (step: number) => hotp(base32Decode(enrolment.secret) as Buffer, step);
    expect((await confirmTotpEnrolment(config, userId, codeAt(timeStep()))).ok).toBe(true);

    // The owner's first factor is in, the code not yet given.
    const owner = new CookieJar();
    expect(await passwordSignIn(config, owner, "twofactor@example.com", PASSWORD)).toBe(`${ORIGIN}/auth/callback/totp`);
    // Someone with the mailbox resets the password.
    const thief = new CookieJar();
    const link = await requestReset(config, accounts, "twofactor@example.com");
    const reset = await resetPassword(from(thief), config, accounts, { ...link, password: NEW_PASSWORD });
    expect(reset.ok).toBe(true);
    expect(await sessionEmail(config, thief)).toBeNull();
    // The pending sign-in begun before the reset cannot complete.
    const submit = async (jar: CookieJar, code: string) =>
      send(config, jar, "/auth/callback/totp", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken: await csrf(config, jar), code }),
      });
    await submit(owner, codeAt(timeStep() + 1));
    expect(await sessionEmail(config, owner)).toBeNull();
    // The new password is a first factor only.
    expect(await passwordSignIn(config, thief, "twofactor@example.com", NEW_PASSWORD)).toBe(
      `${ORIGIN}/auth/callback/totp`,
    );
    expect(await sessionEmail(config, thief)).toBeNull();
  });

  it("race: a password sign-in of a two-factor user, past its hash check when a reset ends the pending sign-ins, is not held for the code", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Math.floor(Date.now() / 1000 / TOTP_PERIOD) * TOTP_PERIOD * 1000 + 15_000);
    const store = await memory();
    const hooks: Hooks = {};
    const { config, accounts } = app(store, "jwt", {}, hooks);
    const email = "twofactor-race@example.com";
    const { userId } = await signedUp(config, accounts, email);
    const enrolment = await startTotpEnrolment(config, { id: userId, label: email });
    const codeAt = (step: number) => hotp(base32Decode(enrolment.secret) as Buffer, step);
    expect((await confirmTotpEnrolment(config, userId, codeAt(timeStep()))).ok).toBe(true);
    const link = await requestReset(config, accounts, email);

    const verified = deferred();
    const resume = deferred();
    hooks.afterAuthorize = async () => {
      hooks.afterAuthorize = undefined;
      verified.resolve();
      await resume.promise;
    };
    // Someone with the old password and the code (a phished pair) signs in as the owner resets.
    const thief = new CookieJar();
    const signingIn = passwordSignIn(config, thief, email, PASSWORD);
    await verified.promise;
    expect((await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD })).ok).toBe(
      true,
    );
    resume.resolve();
    expect(await signingIn).toContain("error=CredentialsSignin");
    await send(config, thief, "/auth/callback/totp", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: await csrf(config, thief), code: codeAt(timeStep() + 1) }),
    });
    expect(await sessionEmail(config, thief)).toBeNull();
  });

  it("change under JWT sessions without the current password: refused unless the sign-in is recent; then every other session ends and this browser gets a new session", async () => {
    const store = await memory();
    const { config, accounts } = app(store, "jwt", { recentSignIn: 60 });
    const email = "jwt-change@example.com";
    const { userId } = await signedUp(config, accounts, email);
    const jar = new CookieJar();
    const elsewhere = new CookieJar();
    await passwordSignIn(config, jar, email, PASSWORD);
    await passwordSignIn(config, elsewhere, email, PASSWORD);
    const before = jar.values.get(SESSION_COOKIE) as string;
    const token = await csrf(config, jar);
    const recent = await changePassword(from(jar), config, accounts, { csrfToken: token, newPassword: NEW_PASSWORD });
    expect(recent).toMatchObject({ ok: true, userId, signedOut: false });
    expect(recent.ok && recent.setCookie.some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(true);
    if (recent.ok) keep(jar, recent.setCookie);
    // This browser: a new session, with a new id and a sign-in time after the revocation.
    expect(await sessionEmail(config, jar)).toBe(email);
    const fresh = await decode({ token: jar.values.get(SESSION_COOKIE), secret: SECRET, salt: SESSION_COOKIE });
    const old = await decode({ token: before, secret: SECRET, salt: SESSION_COOKIE });
    expect(fresh?.sid).toEqual(expect.any(String));
    expect(fresh?.sid).not.toBe(old?.sid);
    expect(fresh?.sub).toBe(userId);
    // Every other session ended, and so did this browser's old cookie wherever a copy of it is.
    expect(await sessionEmail(config, elsewhere)).toBeNull();
    const stolenCopy = new CookieJar();
    stolenCopy.values.set(SESSION_COOKIE, before);
    expect(await sessionEmail(config, stolenCopy)).toBeNull();
    // The new session is an ordinary one: the next revocation of the user ends it too.
    await revokeUserSessions(config, userId, { before: new Date(Date.now() + 30_000) });
    expect(await sessionEmail(config, jar)).toBeNull();

    const later = new CookieJar();
    await passwordSignIn(config, later, "jwt-change@example.com", NEW_PASSWORD);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 120_000);
    expect(
      await changePassword(from(later), config, accounts, {
        csrfToken: await csrf(config, later),
        newPassword: PASSWORD,
      }),
    ).toEqual({
      ok: false,
      error: "reauthenticate",
    });
    const signedOut = new CookieJar();
    const signedOutToken = await csrf(config, signedOut);
    expect(
      await changePassword(from(signedOut), config, accounts, { csrfToken: signedOutToken, newPassword: PASSWORD }),
    ).toEqual({
      ok: false,
      error: "signed-out",
    });
  });

  it("a reset under JWT sessions without revocation is refused before the token is spent, naming the fix", async () => {
    const { config, accounts, link } = await accountWithResetLink("norevoke@example.com");
    const bare = { ...config, session: { strategy: "jwt" as const } };
    await expect(
      resetPassword(from(new CookieJar()), bare, accounts, { ...link, password: NEW_PASSWORD }),
    ).rejects.toThrow(/session\.revocation/);
    expect((await resetPassword(from(new CookieJar()), config, accounts, { ...link, password: NEW_PASSWORD })).ok).toBe(
      true,
    );
  });
});
