/**
 * A banned user, as the attacker who owns the account: every way of signing in is tried, under
 * database and JWT sessions, end to end through `Auth(new Request(...))`: OpenID Connect against
 * the real `oidc-provider`, a magic link and an e-mailed code over the real SMTP server, a
 * credentials `authorize()`, a password account (`authorizePassword`), a passkey from the soft
 * authenticator. Each is refused with `AccessDenied` (the page a `signIn` callback's refusal
 * shows, nothing about the ban) and leaves no session; an existing session ends at the ban; a ban
 * stored while a sign-in is under way still refuses it; the ban ends by itself at its expiry.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { authorizePassword, MemoryPasswordStore, type PasswordAccountsOptions } from "../../src/accounts.js";
import type { AdapterUser } from "../../src/adapters.js";
import { Admin, MemoryAdminStore } from "../../src/admin.js";
import { Auth, type AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter, type MemoryStore } from "../../src/memory-adapter.js";
import { hashPassword } from "../../src/password.js";
import Credentials from "../../src/providers/credentials.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import Passkey from "../../src/providers/passkey.js";
import { linkIn, type SmtpFixture, smtpServer, startSmtp, until } from "../email/helpers.js";
import { Browser } from "../oauth/support/browser.js";
import { locationOf, SECRET, signInThrough } from "../oauth/support/flow.js";
import { startOP, type TestOP } from "../oauth/support/op.js";
import { SoftAuthenticator } from "../webauthn/soft-authenticator.js";

const APP = "http://localhost:3000";
const OWNER = "u-owner";
const PASSWORD = "correct horse battery staple";

let op: TestOP;
let smtp: SmtpFixture;

beforeAll(async () => {
  op = await startOP(
    [{ client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: [`${APP}/auth/callback/op`] }],
    {
      accounts: { "eve-op": { name: "Eve", email: "eve@example.com" } },
    },
  );
  smtp = await startSmtp();
});
afterAll(async () => {
  await op?.close();
  await smtp?.close();
});
afterEach(() => {
  vi.useRealTimers();
  smtp.mails.length = 0;
});

type Strategy = "database" | "jwt";

/** One application with every sign-in path; Eve (eve@example.com, verified) has a password and may get a passkey. */
async function app(strategy: Strategy) {
  const store: MemoryStore = createMemoryStore();
  const adapter = MemoryAdapter(store);
  const adminStore = MemoryAdminStore();
  const passwords = new MemoryPasswordStore();
  const accounts: PasswordAccountsOptions = {
    passwords,
    urls: { verify: "/account/verify", reset: "/account/reset", signIn: "/auth/signin", signUp: "/account/signup" },
    breached: false,
    hash: { parameters: { ln: 10 } },
  };
  const errors: Error[] = [];
  const hooks: { beforeSession?: () => Promise<void> } = {};
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: strategy === "jwt" ? { strategy, revocation: true } : { strategy },
    admin: { store: adminStore },
    experimental: { enableWebAuthn: true },
    rateLimit: false,
    logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
    callbacks: {
      session: ({ session, user, token }) => ({
        ...session,
        user: { ...session.user, id: (user as AdapterUser | undefined)?.id ?? token?.sub },
      }),
      // Runs after the sign-in's first ban check, before the JWT exists (JWT sessions only).
      jwt: async ({ token }) => {
        await hooks.beforeSession?.();
        return token;
      },
    },
    providers: [
      Passkey(),
      Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey Test <no-reply@app.test>" }),
      Nodemailer({ id: "code", server: smtpServer(smtp.port), from: "Latchkey Test <no-reply@app.test>", code: true }),
      OIDC({
        id: "op",
        name: "Test OP",
        issuer: op.issuer,
        clientId: "latchkey",
        clientSecret: "latchkey-secret",
        allowDangerousEmailAccountLinking: true,
      }),
      Credentials({
        id: "credentials",
        databaseSessions: strategy === "database",
        credentials: { email: {}, password: { type: "password" } },
        // The application's own check, without password accounts.
        authorize: async (c) =>
          c.password === PASSWORD ? ((await adapter.getUserByEmail?.(String(c.email))) ?? null) : null,
      }),
      Credentials({
        id: "password",
        databaseSessions: strategy === "database",
        credentials: { email: {}, password: { type: "password" } },
        authorize: (c) => authorizePassword(config, accounts, c),
      }),
    ],
  };
  const eve = await adapter.createUser?.({
    id: "u-eve",
    email: "eve@example.com",
    emailVerified: new Date(),
    name: "Eve",
  });
  if (!eve) throw new Error("no user");
  await passwords.setPasswordHash(eve.id, await hashPassword(PASSWORD, { parameters: { ln: 10 } }));
  const admin = Admin(config, { admins: { userIds: [OWNER] } });
  // createSession runs after the first ban check (database sessions): the hook may ban meanwhile.
  const createSession = adapter.createSession?.bind(adapter);
  adapter.createSession = async (session) => {
    await hooks.beforeSession?.();
    return createSession!(session);
  };
  const browser = () => new Browser({ [APP]: (r) => Auth(r, config) });
  return { config, store, adminStore, admin, eve, errors, hooks, browser };
}
type App = Awaited<ReturnType<typeof app>>;

async function csrf(browser: Browser): Promise<string> {
  return ((await (await browser.get(`${APP}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

async function whoIs(browser: Browser): Promise<string | null> {
  const session = (await (await browser.get(`${APP}/auth/session`)).json()) as { user?: { id?: string } } | null;
  return session?.user?.id ?? null;
}

function errorOf(response: Response): string | null {
  return new URL(locationOf(response), APP).searchParams.get("error");
}

/** A passkey of Eve's, registered while she is signed in. */
async function registerPasskey(a: App, browser: Browser, device: SoftAuthenticator): Promise<void> {
  const options = await browser.get(`${APP}/auth/webauthn-options/passkey?action=register`);
  const body = (await options.json()) as { options: Parameters<SoftAuthenticator["create"]>[0] };
  const credential = await device.create(body.options);
  const registered = await browser.post(`${APP}/auth/callback/passkey`, {
    csrfToken: await csrf(browser),
    action: "register",
    data: JSON.stringify(credential),
  });
  expect(registered.status).toBe(302);
  expect(a.store.authenticators.size).toBe(1);
}

/** Each way in, as a function of a fresh browser; the answer of its last step. */
function paths(device: SoftAuthenticator) {
  const password = (provider: string) => async (browser: Browser) =>
    browser.post(`${APP}/auth/callback/${provider}`, {
      csrfToken: await csrf(browser),
      email: "eve@example.com",
      password: PASSWORD,
    });
  const mailed = async (browser: Browser, provider: string) => {
    const before = smtp.mails.length;
    const asked = await browser.post(`${APP}/auth/signin/${provider}`, {
      csrfToken: await csrf(browser),
      email: "eve@example.com",
      callbackUrl: `${APP}/dashboard`,
    });
    expect(asked.status).toBe(302);
    await until(() => smtp.mails.length > before);
    return smtp.mails.at(-1)?.mail.text ?? "";
  };
  return {
    "OpenID Connect": (browser: Browser) => signInThrough(browser, APP, "op", { query: { login_hint: "eve-op" } }),
    "magic link": async (browser: Browser) => browser.get(linkIn(await mailed(browser, "nodemailer"))),
    "e-mailed code": async (browser: Browser) => {
      const text = await mailed(browser, "code");
      const code = /code: (\d{6})\b/.exec(text)?.[1] ?? "";
      return browser.post(`${APP}/auth/callback/code`, { csrfToken: await csrf(browser), code });
    },
    credentials: password("credentials"),
    "password account": password("password"),
    passkey: async (browser: Browser) => {
      const options = await browser.get(`${APP}/auth/webauthn-options/passkey?action=authenticate`);
      const body = (await options.json()) as { options: Parameters<SoftAuthenticator["get"]>[0] };
      const assertion = await device.get(body.options);
      return browser.post(`${APP}/auth/callback/passkey`, {
        csrfToken: await csrf(browser),
        action: "authenticate",
        data: JSON.stringify(assertion),
      });
    },
  };
}

describe.each(["database", "jwt"] as const)("a banned user signing in (%s sessions)", (strategy) => {
  it("rule: every sign-in path signs Eve in before the ban, and after it refuses her with AccessDenied and no session", async () => {
    const a = await app(strategy);
    const device = new SoftAuthenticator(APP);
    const first = a.browser();
    await paths(device).credentials(first);
    expect(await whoIs(first)).toBe(a.eve.id);
    await registerPasskey(a, first, device);
    const ways = paths(device);

    const before: Record<string, string | null> = {};
    const held: Browser[] = [];
    for (const [name, signIn] of Object.entries(ways)) {
      const browser = a.browser();
      const response = await signIn(browser);
      expect(response.status, name).toBe(302);
      before[name] = await whoIs(browser);
      held.push(browser);
    }
    expect(Object.values(before)).toEqual(Object.keys(ways).map(() => a.eve.id));

    expect((await a.admin.ban(OWNER, a.eve.id, { reason: "fraud" })).ok).toBe(true);
    // Every session she held ends at once.
    for (const browser of [first, ...held]) expect(await whoIs(browser)).toBeNull();

    for (const [name, signIn] of Object.entries(ways)) {
      const browser = a.browser();
      const response = await signIn(browser);
      expect(errorOf(response), name).toBe("AccessDenied");
      // What the user sees says nothing of the ban: the same answer as a signIn callback's refusal.
      expect(locationOf(response), name).not.toMatch(/ban|fraud/i);
      expect(await whoIs(browser), name).toBeNull();
    }
    if (strategy === "database")
      expect([...a.store.sessions.values()].filter((s) => s.userId === a.eve.id)).toEqual([]);
  });

  it("rule: a ban stored while a sign-in is under way (after its first check) still refuses it, and leaves no session", async () => {
    const a = await app(strategy);
    const device = new SoftAuthenticator(APP);
    a.hooks.beforeSession = async () => {
      a.hooks.beforeSession = undefined;
      await a.adminStore.setBan({
        userId: a.eve.id,
        reason: "raced",
        bannedBy: OWNER,
        bannedAt: new Date(),
        expiresAt: null,
      });
    };
    const browser = a.browser();
    const response = await paths(device).credentials(browser);
    expect(errorOf(response)).toBe("AccessDenied");
    expect(await whoIs(browser)).toBeNull();
    expect(a.hooks.beforeSession, "the ban landed mid-sign-in").toBeUndefined();
    if (strategy === "database") expect(a.store.sessions.size).toBe(0);
  });

  it("rule: a ban ends by itself at its expiry: refused before, signed in after", async () => {
    const a = await app(strategy);
    const device = new SoftAuthenticator(APP);
    const expiresAt = new Date(Date.now() + 60 * 60 * 1000);
    expect((await a.admin.ban(OWNER, a.eve.id, { expiresAt })).ok).toBe(true);
    const refused = a.browser();
    expect(errorOf(await paths(device).credentials(refused))).toBe("AccessDenied");
    // Only the clock moves: timers stay real, so nothing here waits on a fixed delay.
    vi.useFakeTimers({ toFake: ["Date"], now: expiresAt.getTime() });
    const browser = a.browser();
    const response = await paths(device).credentials(browser);
    expect(errorOf(response)).toBeNull();
    expect(await whoIs(browser)).toBe(a.eve.id);
  });
});
