/**
 * Account takeovers through cookies a sibling sub-domain plants and links another site opens
 * (issue: "a sign-in finishes only in the browser that began it", "a planted session cookie never
 * decides whose account a credential joins", "a magic link signs in only the browser that asked
 * for it"), attacked over Express on a real socket, against a real OpenID Provider
 * (oidc-provider), under database and JWT sessions. Each attack is next to the honest flow it
 * must leave working.
 *
 * Over http the cookies have no prefix, so the planting is done by hand here, as a sibling would
 * do it with `Domain=<parent>`; on https the check cookies and the binding cookie are `__Host-`
 * and cannot be planted at all (packages/core/test/security/flow-binding.test.ts).
 */

import { MemoryAdapter } from "@latchkey/core/memory-adapter";
import { type AuthConfig, ExpressAuth, getSession } from "@latchkey/express";
import OIDC from "@latchkey/express/providers/generic-oidc";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmationForm } from "../../core/test/email/helpers.js";
import { Browser } from "../../core/test/oauth/support/browser.js";
import {
  locationOf,
  loginAtProvider,
  SECRET,
  sessionOf,
  signInThrough,
  startSignIn,
} from "../../core/test/oauth/support/flow.js";
import { startOP, type TestOP } from "../../core/test/oauth/support/op.js";
import { listen } from "./helpers.js";

const SESSION = "authjs.session-token";
const CHECKS = ["authjs.state", "authjs.pkce.code_verifier", "authjs.nonce"];
/** Provider ids by the checks they use (the test provider demands PKCE of every client). */
const PROVIDERS: Record<string, Array<"pkce" | "state" | "nonce">> = {
  op: ["pkce", "state", "nonce"],
  "op-pkce": ["pkce"],
  "op-state": ["pkce", "state"],
  "op-nonce": ["pkce", "nonce"],
};

let op: TestOP;
const apps: Array<() => Promise<void>> = [];
const started: Partial<Record<"database" | "jwt", App>> = {};

beforeAll(async () => {
  // The provider needs the apps' redirect URIs, so the apps listen first (their providers read the
  // issuer when first used).
  started.database = await startApp("database");
  started.jwt = await startApp("jwt");
  const redirect_uris = Object.values(started).flatMap((app) =>
    Object.keys(PROVIDERS).map((id) => `${app.url}/auth/callback/${id}`),
  );
  op = await startOP([{ client_id: "binding", client_secret: "binding-secret", redirect_uris }], {
    accounts: {
      // The victim's second provider account, and the attacker's own.
      carol: { name: "Carol (Alice's work account)", email: "alice@work.example", email_verified: true },
      mallory: { name: "Mallory", email: "mallory@example.com", email_verified: true },
      eve: { name: "Eve", email: "eve@example.com", email_verified: true },
    },
  });
});
afterAll(async () => {
  for (const close of apps) await close();
  await op?.close();
});

/** Forgets the browser's session at the provider, so its next login there can be another account. */
function leaveProvider(browser: Browser): void {
  browser.jars.delete(new URL(op.issuer).host);
}

interface App {
  url: string;
  adapter: ReturnType<typeof MemoryAdapter>;
  errors: Array<{ type?: string; message: string }>;
  mailed: Array<{ identifier: string; url: string }>;
}

async function startApp(strategy: "database" | "jwt"): Promise<App> {
  const adapter = MemoryAdapter();
  const errors: App["errors"] = [];
  const mailed: App["mailed"] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
    logger: { error: (e) => void errors.push(e as { type?: string; message: string }), warn() {}, debug() {} },
    providers: [
      ...Object.entries(PROVIDERS).map(
        ([id, checks]) =>
          () =>
            OIDC({ id, name: id, issuer: op.issuer, clientId: "binding", clientSecret: "binding-secret", checks }),
      ),
      Nodemailer({
        server: "smtp://127.0.0.1:1",
        from: "Latchkey <no-reply@app.test>",
        sendVerificationRequest: async ({ identifier, url }) => void mailed.push({ identifier, url }),
      }),
    ],
  };
  const application = express();
  application.use("/auth", ExpressAuth(config));
  application.get("/", (_req, res) => void res.send("home"));
  // What an account page (second-factor enrolment, sessions, linked accounts) builds on.
  application.get("/me", async (req, res) => void res.json((await getSession(req, config))?.user ?? null));
  const { url, close } = await listen(application);
  apps.push(close);
  return { url, adapter, errors, mailed };
}

/** The Cookie header of `browser` at `app`, as the browser would send it to `path`, with `planted` first. */
function cookieHeader(browser: Browser, app: string, planted: Record<string, string> = {}): string {
  const own = [...browser.jar(app)].map(([k, v]) => `${k}=${v}`);
  return [...Object.entries(planted).map(([k, v]) => `${k}=${v}`), ...own].join("; ");
}

async function userIdOf(app: App, browser: Browser): Promise<string | undefined> {
  const session = await sessionOf(browser, app.url);
  const email = session?.user?.email;
  if (!email) return undefined;
  return (await app.adapter.getUserByEmail?.(email))?.id;
}

async function ownerOf(app: App, provider: string, account: string): Promise<string | undefined> {
  return (await app.adapter.getUserByAccount?.({ provider, providerAccountId: account }))?.id;
}

describe.each(["database", "jwt"] as const)("%s sessions", (strategy) => {
  let app: App;
  beforeAll(() => {
    app = started[strategy] as App;
  });

  /** Alice signed in with her main provider account. */
  async function alice(): Promise<{ browser: Browser; id: string }> {
    const browser = new Browser();
    const done = await signInThrough(browser, app.url, "op", { query: { login_hint: "alice" } });
    expect(locationOf(done)).toBe(`${app.url}/`);
    const id = (await userIdOf(app, browser)) as string;
    expect(id).toBeTruthy();
    return { browser, id };
  }

  describe("rule: a sign-in finishes only in the browser that began it (RFC 9700 §4.7)", () => {
    for (const [provider, checks] of Object.entries(PROVIDERS)) {
      it(`attack: the attacker's ${checks.join("+")} check cookie planted in a signed-in victim's browser is refused; nothing is linked`, async () => {
        const victim = await alice();
        // The attacker begins in his own browser (asking to connect, under his own session, or not
        // at all: both are refused), signs in at the provider as himself, stops before the callback.
        const attacker = new Browser();
        const start = await startSignIn(attacker, app.url, provider, { query: { login_hint: "mallory" } });
        const answer = await loginAtProvider(attacker, locationOf(start), app.url);
        const planted = Object.fromEntries(
          CHECKS.filter((name) => attacker.jar(app.url).has(name)).map((name) => [
            name,
            attacker.jar(app.url).get(name) as string,
          ]),
        );
        expect(Object.keys(planted)).toHaveLength(checks.length);
        // ... plants his check cookies in the victim's browser and sends her to his callback URL.
        const callback = await victim.browser.get(answer.url, {
          cookie: cookieHeader(victim.browser, app.url, planted),
        });
        expect(locationOf(callback)).toBe(`${app.url}/auth/signin?error=OAuthCallbackError`);
        expect(app.errors.at(-1), app.errors.at(-1)?.message).toMatchObject({ type: "InvalidCheck" });
        expect(app.errors.at(-1)?.message).toMatch(/another browser/);
        expect(await ownerOf(app, provider, "mallory")).toBeUndefined();
        expect(await userIdOf(app, victim.browser)).toBe(victim.id);
      });
    }

    for (const role of CHECKS) {
      it(`attack: the victim's own flow with only the ${role} cookie swapped for the attacker's is refused as another browser's`, async () => {
        const attacker = new Browser();
        await startSignIn(attacker, app.url, "op", { query: { login_hint: "mallory" } });
        const victim = new Browser();
        const start = await startSignIn(victim, app.url, "op", { query: { login_hint: "carol" } });
        const answer = await loginAtProvider(victim, locationOf(start), app.url);
        victim.jar(app.url).set(role, attacker.jar(app.url).get(role) as string);
        const callback = await victim.get(answer.url);
        expect(locationOf(callback)).toBe(`${app.url}/auth/signin?error=OAuthCallbackError`);
        expect(app.errors.at(-1)?.message).toMatch(/made in another browser/);
        expect(await sessionOf(victim, app.url)).toBeNull();
      });
    }

    it("attack: a check cookie carried without any binding cookie (evicted, or never set) is refused", async () => {
      const attacker = new Browser();
      const start = await startSignIn(attacker, app.url, "op", { query: { login_hint: "mallory" } });
      const answer = await loginAtProvider(attacker, locationOf(start), app.url);
      attacker.jar(app.url).delete("authjs.binding");
      const callback = await attacker.get(answer.url);
      expect(locationOf(callback)).toBe(`${app.url}/auth/signin?error=OAuthCallbackError`);
      expect(await ownerOf(app, "op", "mallory")).toBeUndefined();
    });

    it("honest: a sign-in begun and finished in one browser works", async () => {
      const { browser } = await alice();
      expect((await sessionOf(browser, app.url))?.user?.email).toBe("alice@example.com");
    });
  });

  describe("rule: a credential joins a signed-in user only through a connect flow finished under the session it began under", () => {
    it("honest: connect links the provider account to the signed-in user and keeps her signed in as herself", async () => {
      const victim = await alice();
      leaveProvider(victim.browser);
      const done = await signInThrough(victim.browser, app.url, "op-pkce", {
        query: { login_hint: "carol" },
        connect: true,
      });
      expect(locationOf(done)).toBe(`${app.url}/`);
      expect(await ownerOf(app, "op-pkce", "carol")).toBe(victim.id);
      expect(await userIdOf(app, victim.browser)).toBe(victim.id);
      await app.adapter.unlinkAccount?.({ provider: "op-pkce", providerAccountId: "carol" });
    });

    it("a plain sign-in button under a session never links: it signs in as the account's own (new) user, replacing the session", async () => {
      const victim = await alice();
      leaveProvider(victim.browser);
      const done = await signInThrough(victim.browser, app.url, "op-state", { query: { login_hint: "carol" } });
      expect(locationOf(done), JSON.stringify(app.errors.at(-1)?.message)).toBe(`${app.url}/`);
      const carolsUser = await ownerOf(app, "op-state", "carol");
      expect(carolsUser).toBeTruthy();
      expect(carolsUser).not.toBe(victim.id);
      expect(await userIdOf(app, victim.browser)).toBe(carolsUser);
    });

    it("connect refuses an account already linked to another user", async () => {
      const victim = await alice();
      const other = new Browser();
      await signInThrough(other, app.url, "op-nonce", { query: { login_hint: "mallory" } });
      leaveProvider(victim.browser);
      const done = await signInThrough(victim.browser, app.url, "op-nonce", {
        query: { login_hint: "mallory" },
        connect: true,
      });
      expect(locationOf(done)).toBe(`${app.url}/auth/signin?error=OAuthAccountNotLinked`);
      expect(await ownerOf(app, "op-nonce", "mallory")).not.toBe(victim.id);
    });

    it("connect without a session is refused before the provider is asked", async () => {
      const anonymous = new Browser();
      const start = await startSignIn(anonymous, app.url, "op", { connect: true });
      expect(locationOf(start)).toBe(`${app.url}/auth/error?error=AccessDenied`);
    });

    it("attack: a session cookie planted with a longer Path (sent first at the callback) makes the connect land on no one", async () => {
      const victim = await alice();
      const attacker = new Browser();
      await signInThrough(attacker, app.url, "op", { query: { login_hint: "eve" } });
      const attackersSession = attacker.jar(app.url).get(SESSION) as string;
      expect(attackersSession).toBeTruthy();
      // The victim connects her work account; the sibling's cookie (Path=/auth/callback) is sent
      // first with the callback, her own after it.
      leaveProvider(victim.browser);
      const start = await startSignIn(victim.browser, app.url, "op", { query: { login_hint: "carol" }, connect: true });
      const answer = await loginAtProvider(victim.browser, locationOf(start), app.url);
      const callback = await victim.browser.get(answer.url, {
        cookie: cookieHeader(victim.browser, app.url, { [SESSION]: attackersSession }),
      });
      expect(locationOf(callback)).toBe(`${app.url}/auth/signin?error=OAuthCallbackError`);
      expect(app.errors.at(-1)?.message).toMatch(/not finished under the session it began under/);
      // Neither hers nor the attacker's (whose getAccessToken would then read her tokens).
      expect(await ownerOf(app, "op", "carol")).toBeUndefined();
      // Her own session is untouched, and reads with the duplicate see no one (not the attacker).
      expect(await userIdOf(app, victim.browser)).toBe(victim.id);
      const ambiguous = await victim.browser.get(`${app.url}/auth/session`, {
        cookie: cookieHeader(victim.browser, app.url, { [SESSION]: attackersSession }),
      });
      expect(await ambiguous.json()).toBeNull();
      expect(ambiguous.headers.getSetCookie().filter((c) => c.startsWith(`${SESSION}=`))).toEqual([]);
      // The application's own pages (where a second factor is enrolled) see no one either.
      const me = await victim.browser.get(`${app.url}/me`, {
        cookie: cookieHeader(victim.browser, app.url, { [SESSION]: attackersSession }),
      });
      expect(await me.json()).toBeNull();
      expect(await (await victim.browser.get(`${app.url}/me`)).json()).toMatchObject({ email: "alice@example.com" });
    });

    it("attack: a session cookie planted on the whole auth path makes the connect start refuse", async () => {
      const victim = await alice();
      const attacker = new Browser();
      await signInThrough(attacker, app.url, "op", { query: { login_hint: "eve" } });
      const attackersSession = attacker.jar(app.url).get(SESSION) as string;
      expect(attackersSession).toBeTruthy();
      const csrf = (await (await victim.browser.get(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
      const start = await victim.browser.post(
        `${app.url}/auth/signin/op?login_hint=carol`,
        { csrfToken: csrf.csrfToken, connect: "true" },
        { cookie: cookieHeader(victim.browser, app.url, { [SESSION]: attackersSession }) },
      );
      expect(locationOf(start)).toBe(`${app.url}/auth/error?error=AccessDenied`);
      expect(await ownerOf(app, "op", "carol")).toBeUndefined();
    });
  });

  describe("rule: a magic link signs in only the browser that asked for it", () => {
    async function askLink(browser: Browser, email: string): Promise<string> {
      const before = app.mailed.length;
      const csrf = (await (await browser.get(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
      const sent = await browser.post(`${app.url}/auth/signin/nodemailer`, {
        csrfToken: csrf.csrfToken,
        email,
        callbackUrl: `${app.url}/auth/signin`,
      });
      expect(locationOf(sent)).toBe(`${app.url}/auth/verify-request?provider=nodemailer&type=email`);
      expect(app.mailed.length).toBe(before + 1);
      return app.mailed.at(-1)?.url as string;
    }

    it("attack: the attacker's own link opened by a cross-site GET in a signed-in victim's browser signs no one in and spends nothing", async () => {
      const victim = await alice();
      const attacker = new Browser();
      const link = await askLink(attacker, "mallory@example.com");
      // Any web page can send her browser there: a top-level GET carrying her cookies.
      const opened = await victim.browser.get(link);
      expect(opened.status).toBe(200);
      const page = await opened.text();
      expect(page).toContain("Sign in as mallory@example.com?");
      expect(opened.headers.get("x-frame-options")).toBe("DENY");
      expect(await userIdOf(app, victim.browser)).toBe(victim.id);
      // A mail scanner's GET is the same: the token is still unspent, for its owner's browser.
      const scanner = await new Browser().get(link);
      expect(scanner.status).toBe(200);
      const own = await attacker.get(link);
      expect(locationOf(own)).toBe(`${app.url}/auth/signin`);
      expect((await sessionOf(attacker, app.url))?.user?.email).toBe("mallory@example.com");
    });

    it("attack: the confirmation POST without the victim's CSRF token (a cross-site form) is refused", async () => {
      const victim = await alice();
      const attacker = new Browser();
      const link = await askLink(attacker, "mallory@example.com");
      // He knows his own link's fields; her CSRF token he cannot read.
      const url = new URL(link);
      const fields = {
        token: url.searchParams.get("token") as string,
        email: url.searchParams.get("email") as string,
        callbackUrl: url.searchParams.get("callbackUrl") as string,
      };
      const posted = await victim.browser.post(`${url.origin}${url.pathname}`, {
        ...fields,
        csrfToken: "0".repeat(64),
      });
      expect(locationOf(posted)).toContain("error=");
      expect(await userIdOf(app, victim.browser)).toBe(victim.id);
    });

    it("honest: opened in the browser that asked for it, the link signs in at once", async () => {
      const browser = new Browser();
      const link = await askLink(browser, "dora@example.com");
      const done = await browser.get(link);
      expect(locationOf(done)).toBe(`${app.url}/auth/signin`);
      expect((await sessionOf(browser, app.url))?.user?.email).toBe("dora@example.com");
    });

    it("honest: opened on another device, the link asks first and its button signs in there (once)", async () => {
      const laptop = new Browser();
      const link = await askLink(laptop, "erin@example.com");
      const phone = new Browser();
      const page = await phone.get(link);
      expect(page.status).toBe(200);
      const form = confirmationForm(await page.text());
      expect(form?.fields.email).toBe("erin@example.com");
      const done = await phone.post(form?.action as string, form?.fields as Record<string, string>);
      expect(locationOf(done)).toBe(`${app.url}/auth/signin`);
      expect((await sessionOf(phone, app.url))?.user?.email).toBe("erin@example.com");
      const again = await phone.post(form?.action as string, form?.fields as Record<string, string>);
      expect(locationOf(again)).toBe(`${app.url}/auth/error?error=Verification`);
    });
  });
});
