// @latchkey/next/accounts: the password-account functions of the core as Server Actions, run the
// way Next.js runs an action (its own request store, cookies written to its own cookie store).
// Each converts only: the results and errors are the core's, the cookies reach Next.js's store,
// and every one holds the origin rule of the other server actions.
import "./next-internals.js";

import { randomBytes } from "node:crypto";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { MissingCSRF, NextAuth, type NextAuthConfig } from "@latchkey/next";
import {
  type AccountMail,
  authorizePassword,
  MemoryPasswordStore,
  PasswordAccounts,
  type PasswordAccountsOptions,
} from "@latchkey/next/accounts";
import Credentials from "@latchkey/next/providers/credentials";
import { NextRequest } from "next/server.js";
import { describe, expect, it } from "vitest";
import { inNextRequest } from "./next-internals.js";
import { Jar } from "./support.js";

const ORIGIN = "http://localhost:3000";
const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a brand new passphrase 42";

/** An application: JWT sessions with revocation, the password store, a mailbox. */
function app(frozen = false) {
  const mails: AccountMail[] = [];
  const options: PasswordAccountsOptions = {
    passwords: new MemoryPasswordStore(),
    urls: { verify: "/verify", reset: "/reset", signIn: "/login", signUp: "/signup" },
    breached: false,
    hash: { parameters: { ln: 10 } },
    send: async (mail) => void mails.push(mail),
  };
  const config: NextAuthConfig = {
    // An application of its own: Latchkey keeps limits and revocations per application (secret).
    secret: `next-accounts-${randomBytes(16).toString("hex")}`,
    adapter: MemoryAdapter(createMemoryStore()),
    session: { strategy: "jwt", revocation: true },
    providers: [
      Credentials({
        credentials: { email: {}, password: {} },
        authorize: (c) => authorizePassword(config, options, c),
      }),
    ],
  };
  // A frozen object: NextAuth prepares a copy of it (its base path, its environment).
  if (frozen) Object.freeze(config);
  const auth = NextAuth(config);
  return { config, options, mails, auth, accounts: PasswordAccounts(config, options) };
}

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
}

/** A Server Action posted from this origin by the browser whose cookies are in `jar`. */
async function action<T>(jar: Jar, fn: () => Promise<T>, headers: Record<string, string> = {}) {
  const out = await inNextRequest(
    `${ORIGIN}/account`,
    { origin: ORIGIN, "sec-fetch-site": "same-origin", cookie: jar.header(), ...headers },
    fn,
  );
  jar.apply(out.setCookies);
  return out;
}

/** The e-mail of the session the browser in `jar` has, or null. */
async function signedInAs(a: ReturnType<typeof app>, jar: Jar): Promise<string | null> {
  const res = await a.auth.handlers.GET(
    new NextRequest(`${ORIGIN}/api/auth/session`, { headers: { cookie: jar.header() } }),
  );
  jar.apply(res.headers.getSetCookie());
  const body = (await res.json()) as { user?: { email?: string } } | null;
  return body?.user?.email ?? null;
}

/** Signs up `email` in `jar`, verifies it with the mailed code, and signs in there. */
async function signedUpAndIn(a: ReturnType<typeof app>, email: string, jar = new Jar()) {
  const up = await action(jar, () => a.accounts.signUp(form({ email, password: PASSWORD })));
  expect(up.result).toEqual({ ok: true, setCookie: [], cookies: [] });
  const code = /Code: ([0-9]{6})/.exec(a.mails.at(-1)?.text ?? "")?.[1] ?? "";
  const verified = await action(jar, () => a.accounts.verifyEmail(form({ code })));
  expect(verified.result).toMatchObject({ ok: true });
  const signIn = await action(jar, () =>
    a.auth.signIn("credentials", form({ email, password: PASSWORD, redirectTo: "/" })),
  );
  expect(signIn.redirectedTo).toBe(`${ORIGIN}/`);
  expect(await signedInAs(a, jar)).toBe(email);
  return jar;
}

describe("@latchkey/next/accounts", () => {
  it("sign-up sets the verification cookie in Next.js's store, and returns no cookie to the page; the mailed code verifies it", async () => {
    const a = app();
    const jar = new Jar();
    const up = await action(jar, () => a.accounts.signUp(form({ email: "ada@example.com", password: PASSWORD })));
    expect(up.setCookies.some((c) => c.startsWith("latchkey.email-verification=") && /HttpOnly/i.test(c))).toBe(true);
    expect(JSON.stringify(up.result)).not.toContain("latchkey.email-verification");
    // The core's refusals as they are.
    const weak = await action(new Jar(), () => a.accounts.signUp(form({ email: "b@example.com", password: "short" })));
    expect(weak.result).toMatchObject({ ok: false, error: "weak-password" });
    await signedUpAndIn(a, "grace@example.com");
  });

  it("change under JWT sessions: this browser gets its new session cookie and stays signed in, every other session ends", async () => {
    const a = app();
    const here = await signedUpAndIn(a, "ada@example.com");
    const elsewhere = new Jar();
    await action(elsewhere, () =>
      a.auth.signIn("credentials", form({ email: "ada@example.com", password: PASSWORD, redirect: "false" })),
    );
    expect(await signedInAs(a, elsewhere)).toBe("ada@example.com");
    const before = here.cookies.get("authjs.session-token");

    const wrong = await action(here, () =>
      a.accounts.changePassword(form({ currentPassword: "not it at all", password: NEW_PASSWORD })),
    );
    expect(wrong.result).toEqual({ ok: false, error: "wrong-password" });
    const changed = await action(here, () =>
      a.accounts.changePassword(form({ currentPassword: PASSWORD, password: NEW_PASSWORD })),
    );
    expect(changed.result).toMatchObject({ ok: true, signedOut: false, setCookie: [], cookies: [] });
    expect(here.cookies.get("authjs.session-token")).not.toBe(before);
    expect(await signedInAs(a, here)).toBe("ada@example.com");
    expect(await signedInAs(a, elsewhere)).toBeNull();
  });

  it("forgotten password: one of two concurrent redemptions of the link wins, every session ends, the old password fails", async () => {
    const a = app();
    const jar = await signedUpAndIn(a, "ada@example.com");
    const asked = await action(new Jar(), () => a.accounts.requestPasswordReset(form({ email: "ada@example.com" })));
    expect(asked.result).toEqual({ ok: true });
    const link = new URL(a.mails.at(-1)?.url ?? "");
    const query = Object.fromEntries(link.searchParams);
    const results = await Promise.all(
      ["one", "two"].map((n) =>
        action(new Jar(), () => a.accounts.resetPassword(form({ ...query, password: `${NEW_PASSWORD} ${n}` }))),
      ),
    );
    expect(results.filter((r) => (r.result as { ok: boolean }).ok)).toHaveLength(1);
    expect(results.map((r) => r.result)).toContainEqual({ ok: false, error: "invalid-token" });
    expect(await signedInAs(a, jar)).toBeNull();
    const old = await action(new Jar(), () =>
      a.auth.signIn("credentials", form({ email: "ada@example.com", password: PASSWORD })),
    );
    expect(old.error).toMatchObject({ type: "CredentialsSignin" });
  });

  it("a frozen configuration: a reset ends the sessions auth() reads and a change keeps this browser, as with any other object", async () => {
    const a = app(true);
    const jar = await signedUpAndIn(a, "ada@example.com");
    const changed = await action(jar, () =>
      a.accounts.changePassword(form({ currentPassword: PASSWORD, password: NEW_PASSWORD })),
    );
    expect(changed.result).toMatchObject({ ok: true, signedOut: false });
    expect(await signedInAs(a, jar)).toBe("ada@example.com");
    await action(new Jar(), () => a.accounts.requestPasswordReset(form({ email: "ada@example.com" })));
    const query = Object.fromEntries(new URL(a.mails.at(-1)?.url ?? "").searchParams);
    const reset = await action(new Jar(), () =>
      a.accounts.resetPassword(form({ ...query, password: `${NEW_PASSWORD} again` })),
    );
    expect(reset.result).toMatchObject({ ok: true });
    expect(await signedInAs(a, jar)).toBeNull();
  });

  it("attack: another site, a sibling sub-domain or another origin posting any of the actions is refused before anything runs (CSRF)", async () => {
    const a = app();
    const jar = await signedUpAndIn(a, "ada@example.com");
    const mailsBefore = a.mails.length;
    const hostile = [
      { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      { origin: "http://sub.localhost:3000", "sec-fetch-site": "same-site" },
      { origin: "https://localhost:3000", "sec-fetch-site": "" },
    ];
    for (const headers of hostile) {
      const calls: Array<() => Promise<unknown>> = [
        () => a.accounts.signUp(form({ email: "new@example.com", password: PASSWORD })),
        () => a.accounts.verifyEmail(form({ code: "123456" })),
        () => a.accounts.requestPasswordReset(form({ email: "ada@example.com" })),
        () =>
          a.accounts.resetPassword(
            form({ token: "0".repeat(64), email: "ada@example.com", user: "x", password: NEW_PASSWORD }),
          ),
        () => a.accounts.changePassword(form({ currentPassword: PASSWORD, password: NEW_PASSWORD })),
      ];
      for (const call of calls) {
        const out = await action(jar, call, headers);
        expect(out.error).toBeInstanceOf(MissingCSRF);
        expect(out.setCookies).toEqual([]);
      }
    }
    expect(a.mails.length).toBe(mailsBefore);
    expect(await a.config.adapter?.getUserByEmail?.("new@example.com")).toBeNull();
    expect(await signedInAs(a, jar)).toBe("ada@example.com");
  });

  it("a request with neither Origin nor Sec-Fetch-Site proves nothing: refused unless it posts the CSRF token with its cookie", async () => {
    const a = app();
    const bare = (jar: Jar, fn: () => Promise<unknown>) =>
      inNextRequest(`${ORIGIN}/forgot`, { cookie: jar.header() }, fn);
    const none = await bare(new Jar(), () => a.accounts.requestPasswordReset(form({ email: "ada@example.com" })));
    expect(none.error).toBeInstanceOf(MissingCSRF);
    const jar = new Jar();
    const csrf = await a.auth.handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
    jar.apply(csrf.headers.getSetCookie());
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const tokenOnly = await bare(new Jar(), () =>
      a.accounts.requestPasswordReset(form({ email: "ada@example.com", csrfToken })),
    );
    expect(tokenOnly.error).toBeInstanceOf(MissingCSRF);
    expect(a.mails).toEqual([]);
    const pair = await bare(jar, () => a.accounts.requestPasswordReset(form({ email: "ada@example.com", csrfToken })));
    expect(pair.result).toEqual({ ok: true });
    expect(a.mails.map((m) => m.kind)).toEqual(["reset-unknown"]);
  });
});
