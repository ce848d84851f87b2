/**
 * One application through every entry point a framework gives it (security round 4, issue 34
 * item 1): a limit reached through one entry point holds at every other, and a sign-out, a
 * revocation or a password reset made through any of them ends the session at all of them. The
 * state that must not split is in memory (the default rate limiter, `session.revocation: true`):
 * each framework's test serves {@link application} as an application writes it (the handler, its
 * session readers and guard, a second entry point made of another configuration object with the
 * same secret: a copy, one made per request) and runs {@link oneApplicationSuite} over it.
 */
import { randomBytes } from "node:crypto";
import type { AuthConfig } from "@latchkey/core";
import {
  type AccountMail,
  authorizePassword,
  MemoryPasswordStore,
  type PasswordAccountsOptions,
  requestPasswordReset,
  resetPassword,
} from "@latchkey/core/accounts";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { hashPassword } from "@latchkey/core/password";
import Credentials from "@latchkey/core/providers/credentials";
import { revokeUserSessions } from "@latchkey/core/sessions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Jar } from "../../packages/express/test/helpers.js";

export const EMAIL = "ada@example.com";
export const USER_ID = "u1";
const PASSWORD = "lovelace analytical engine";
const HASH = { parameters: { ln: 10 } };

/** The application: JWT sessions with in-memory revocation, password accounts, the default limiter. */
export interface OneApplication {
  /** A new configuration object of the application at each call: same secret, adapter and providers. */
  config(): AuthConfig;
  /** The application's own object: what it hands to `revokeUserSessions` and the accounts functions. */
  own: AuthConfig;
  accounts: PasswordAccountsOptions;
  mails: AccountMail[];
}

export async function application(): Promise<OneApplication> {
  const secret = `one-application-${randomBytes(16).toString("hex")}`;
  const adapter = MemoryAdapter(createMemoryStore());
  const mails: AccountMail[] = [];
  const accounts: PasswordAccountsOptions = {
    passwords: new MemoryPasswordStore(),
    urls: { verify: "/verify", reset: "/reset", signIn: "/login", signUp: "/signup" },
    breached: false,
    hash: HASH,
    send: async (mail) => void mails.push(mail),
  };
  const config = (): AuthConfig => ({
    secret,
    trustHost: true,
    adapter,
    session: { strategy: "jwt", revocation: true },
    logger: { error() {}, warn() {}, debug() {} },
    providers: [
      Credentials({
        credentials: { email: {}, password: { type: "password" } },
        authorize: (credentials) => authorizePassword(own, accounts, credentials),
      }),
    ],
    callbacks: { session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub } }) },
  });
  const own = config();
  await adapter.createUser?.({ id: USER_ID, email: EMAIL, emailVerified: new Date(), name: "Ada" });
  await accounts.passwords.setPasswordHash(USER_ID, await hashPassword(PASSWORD, HASH));
  return { config, own, accounts, mails };
}

/** What a framework serves of the application. */
export interface EntryPoints {
  /** The origin of the server (`http://localhost:<port>`). */
  origin: string;
  /**
   * Where the actions are served (`${origin}/auth`, ...), each through another configuration
   * object of the application (at least two).
   */
  mounts: string[];
  /**
   * GET routes reading the session through the framework's own readers (`getSession`, `auth()`,
   * `event.locals.auth()`, `requireAuth`), each answering `200 {"id": ...}` for a signed-in user
   * and anything else (null, 401, a redirect) for none.
   */
  readers: string[];
  /** Sign-outs beyond the mounts' `POST /signout` (a form action, a server action), by name. */
  signOuts?: Record<string, (jar: Jar) => Promise<unknown>>;
  close(): Promise<void>;
}

/** A sign-in with the password form through the actions under `mount`. */
async function signIn(jar: Jar, mount: string, password = PASSWORD): Promise<Response> {
  const { csrfToken } = (await (await jar.fetch(`${mount}/csrf`)).json()) as { csrfToken: string };
  return jar.fetch(`${mount}/callback/credentials`, { form: { csrfToken, email: EMAIL, password } });
}

async function signOut(jar: Jar, mount: string): Promise<Response> {
  const { csrfToken } = (await (await jar.fetch(`${mount}/csrf`)).json()) as { csrfToken: string };
  return jar.fetch(`${mount}/signout`, { form: { csrfToken } });
}

/** A copy of the owner's cookies: what a thief holds after stealing them. */
function stolen(jar: Jar): Jar {
  const copy = new Jar();
  for (const [name, value] of jar.cookies) copy.cookies.set(name, value);
  return copy;
}

/** The user id each reader and each mount's `GET /session` sees for `jar` (null: signed out). */
async function seenBy(served: EntryPoints, jar: Jar): Promise<Record<string, string | null>> {
  const seen: Record<string, string | null> = {};
  const probe = stolen(jar); // reads never change the jar under test
  for (const reader of served.readers) {
    const response = await probe.fetch(reader, { headers: { accept: "application/json" } });
    const body = response.status === 200 ? ((await response.json()) as { id?: unknown } | null) : null;
    seen[reader] = typeof body?.id === "string" ? body.id : null;
  }
  for (const mount of served.mounts) {
    const body = (await (await probe.fetch(`${mount}/session`)).json()) as { user?: { id?: unknown } } | null;
    seen[`${mount}/session`] = typeof body?.user?.id === "string" ? body.user.id : null;
  }
  return seen;
}

const everywhere = (served: EntryPoints, id: string | null) =>
  Object.fromEntries([...served.readers, ...served.mounts.map((m) => `${m}/session`)].map((k) => [k, id]));

/** Whether the credentials callback answered that the attempt is rate limited. */
const limited = (response: Response) =>
  response.status === 429 || /error=RateLimited/.test(response.headers.get("location") ?? "");

/**
 * The rules, for one framework: `serve` starts it over `app` (the same application for all the
 * tests of the suite, each test with fresh sessions).
 */
export function oneApplicationSuite(label: string, serve: (app: OneApplication) => Promise<EntryPoints>): void {
  describe(`${label}: rule: one application, whatever entry point or configuration object serves it`, () => {
    let app: OneApplication;
    let served: EntryPoints;
    beforeAll(async () => {
      app = await application();
      served = await serve(app);
      expect(served.mounts.length).toBeGreaterThanOrEqual(2);
    });
    afterAll(() => served?.close());

    it("honest: signed in through any mount, the session reads the same at every entry point", async () => {
      for (const mount of served.mounts) {
        const jar = new Jar();
        expect((await signIn(jar, mount)).status).toBe(302);
        expect(await seenBy(served, jar)).toEqual(everywhere(served, USER_ID));
      }
    });

    it("attack: a sign-out through any entry point ends the session at all of them (a thief's copy of the cookie included)", async () => {
      const signOuts: Array<[string, (jar: Jar) => Promise<unknown>]> = [
        ...served.mounts.map((mount): [string, (jar: Jar) => Promise<unknown>] => [
          mount,
          (jar) => signOut(jar, mount),
        ]),
        ...Object.entries(served.signOuts ?? {}),
      ];
      for (const [index, [name, end]] of signOuts.entries()) {
        const owner = new Jar();
        await signIn(owner, served.mounts[(index + 1) % served.mounts.length] as string);
        const thief = stolen(owner);
        expect(await seenBy(served, thief), name).toEqual(everywhere(served, USER_ID));
        await end(owner);
        expect(await seenBy(served, thief), `after a sign-out through ${name}`).toEqual(everywhere(served, null));
      }
    });

    it("attack: revokeUserSessions(the application's own object) ends the session at every entry point", async () => {
      const owner = new Jar();
      await signIn(owner, served.mounts[1] as string);
      await revokeUserSessions(app.own, USER_ID, { reason: "admin" });
      expect(await seenBy(served, owner)).toEqual(everywhere(served, null));
    });

    it("attack: a password reset through the accounts functions (the application's own object) ends the session at every entry point", async () => {
      const owner = new Jar();
      await signIn(owner, served.mounts[0] as string);
      const thief = stolen(owner);
      const request = { protocol: "http", host: new URL(served.origin).host, cookieHeader: null };
      expect(await requestPasswordReset(request, app.own, app.accounts, { email: EMAIL })).toEqual({ ok: true });
      const link = new URL(app.mails.at(-1)?.url ?? "");
      const reset = await resetPassword(request, app.own, app.accounts, {
        token: link.searchParams.get("token"),
        email: link.searchParams.get("email"),
        user: link.searchParams.get("user"),
        password: `${PASSWORD} renewed`,
      });
      expect(reset).toMatchObject({ ok: true, sessionsEnded: true });
      expect(await seenBy(served, thief)).toEqual(everywhere(served, null));
      // The new password signs in again, through any mount.
      expect((await signIn(new Jar(), served.mounts[1] as string, `${PASSWORD} renewed`)).status).toBe(302);
      await app.accounts.passwords.setPasswordHash(USER_ID, await hashPassword(PASSWORD, HASH));
    });

    // Last: it spends the identifier's budget for the rest of the window.
    it("attack: a limit reached through one entry point holds at every other (5 wrong passwords spread over them, then the right one is refused everywhere)", async () => {
      for (let i = 0; i < 5; i++) {
        const answer = await signIn(new Jar(), served.mounts[i % served.mounts.length] as string, "wrong");
        expect(answer.headers.get("location") ?? "").toMatch(/error=CredentialsSignin/);
      }
      for (const mount of served.mounts) expect(limited(await signIn(new Jar(), mount)), mount).toBe(true);
    });
  });
}
