/**
 * Open redirects (OWASP ASVS 5.1.5, RFC 9700 §4.11): every callback URL an attacker can supply (the
 * query, the form body, the callback-url cookie) ends up on the application's own origin, on every
 * action that redirects or renders it, whatever its encoding.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import { linkIn, SMTP_PASS, SMTP_USER, type SmtpFixture, startSmtp, until } from "../email/helpers.js";
import { CookieJar, call, csrfToken, demoCredentials, SECRET, signIn } from "../helpers.js";
import { APP_ORIGIN, EVIL_CALLBACK_URLS, expectOnOrigin, isOnOrigin, setCookieValue } from "./support.js";

const CALLBACK_COOKIE = "authjs.callback-url";

let smtp: SmtpFixture;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp?.close());

function appConfig(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    rateLimit: false,
    adapter: MemoryAdapter(createMemoryStore()),
    session: { strategy: "jwt" },
    logger: { error() {}, warn() {}, debug() {} },
    providers: [
      demoCredentials(),
      Nodemailer({
        server: {
          host: "127.0.0.1",
          port: smtp.port,
          secure: false,
          ignoreTLS: true,
          auth: { user: SMTP_USER, pass: SMTP_PASS },
        },
        from: "no-reply@app.test",
      }),
    ],
    ...overrides,
  };
}

/** A jar that already holds a callback-url cookie with `value`, as an attacker could plant it. */
function jarWithCallbackCookie(value: string): CookieJar {
  const jar = new CookieJar();
  jar.cookies.set(CALLBACK_COOKIE, encodeURIComponent(value));
  return jar;
}

/** Everything in a response that a browser could follow: Location and the callback-url cookie. */
function expectNothingLeaves(response: Response): void {
  const location = response.headers.get("location");
  if (location) expectOnOrigin(location);
  const cookie = setCookieValue(response, CALLBACK_COOKIE);
  if (cookie !== undefined && cookie !== "") expectOnOrigin(cookie);
}

describe("open redirects: a callback URL never leaves the application's origin", () => {
  let config: AuthConfig;
  beforeAll(() => {
    config = appConfig();
  });

  it.each(EVIL_CALLBACK_URLS)(
    "sign-in page (GET /signin) neutralises %j from the query and the cookie",
    async (evil) => {
      for (const response of [
        await call(config, `/auth/signin?callbackUrl=${encodeURIComponent(evil)}`),
        await call(config, "/auth/signin", { jar: jarWithCallbackCookie(evil) }),
      ]) {
        expect(response.status).toBe(200);
        expectNothingLeaves(response);
        const html = await response.text();
        const field = /name="callbackUrl" value="([^"]*)"/.exec(html)?.[1];
        if (field !== undefined) expectOnOrigin(field.replace(/&amp;/g, "&").replace(/&#x2F;/g, "/"));
        expect(html).not.toMatch(/\/\/evil\.example|javascript:|vbscript:|data:text/i);
      }
    },
  );

  it.each(EVIL_CALLBACK_URLS)("custom sign-in page redirect carries no foreign URL for %j", async (evil) => {
    const custom = appConfig({ pages: { signIn: "/login" } });
    const response = await call(custom, `/auth/signin?callbackUrl=${encodeURIComponent(evil)}`);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") as string, APP_ORIGIN);
    expectOnOrigin(location.searchParams.get("callbackUrl"));
  });

  it.each(EVIL_CALLBACK_URLS)(
    "sign-in POST without a provider redirects on-origin for %j (body, query, cookie)",
    async (evil) => {
      for (const channel of ["body", "query", "cookie"] as const) {
        const jar = channel === "cookie" ? jarWithCallbackCookie(evil) : new CookieJar();
        const token = await csrfToken(config, jar);
        const form: Record<string, string> = { csrfToken: token };
        if (channel === "body") form.callbackUrl = evil;
        const query = channel === "query" ? `?callbackUrl=${encodeURIComponent(evil)}` : "";
        const response = await call(config, `/auth/signin${query}`, { jar, form });
        expect(response.status).toBe(302);
        expectNothingLeaves(response);
      }
    },
  );

  it.each(EVIL_CALLBACK_URLS)("sign-out page and sign-out POST redirect on-origin for %j", async (evil) => {
    const page = await call(config, `/auth/signout?callbackUrl=${encodeURIComponent(evil)}`);
    expectNothingLeaves(page);
    expect(await page.text()).not.toMatch(/\/\/evil\.example|javascript:|vbscript:|data:text/i);
    for (const channel of ["body", "query", "cookie"] as const) {
      const { jar } = await signIn(config);
      if (channel === "cookie") jar.cookies.set(CALLBACK_COOKIE, encodeURIComponent(evil));
      const token = await csrfToken(config, jar);
      const form: Record<string, string> = { csrfToken: token };
      if (channel === "body") form.callbackUrl = evil;
      const query = channel === "query" ? `?callbackUrl=${encodeURIComponent(evil)}` : "";
      const response = await call(config, `/auth/signout${query}`, { jar, form });
      expect(response.status).toBe(302);
      expectNothingLeaves(response);
    }
  });

  it.each(EVIL_CALLBACK_URLS)("credentials callback redirects on-origin after sign-in for %j", async (evil) => {
    for (const channel of ["body", "query", "cookie"] as const) {
      const jar = channel === "cookie" ? jarWithCallbackCookie(evil) : new CookieJar();
      const token = await csrfToken(config, jar);
      const form: Record<string, string> = { csrfToken: token, username: "ada", password: "lovelace" };
      if (channel === "body") form.callbackUrl = evil;
      const query = channel === "query" ? `?callbackUrl=${encodeURIComponent(evil)}` : "";
      const response = await call(config, `/auth/callback/credentials${query}`, { jar, form });
      expect(response.status).toBe(302);
      expect(jar.get("authjs.session-token")).toBeTruthy();
      expectNothingLeaves(response);
    }
  });

  it("a same-origin callback URL is kept (the check is not simply 'always go home')", async () => {
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const response = await call(config, "/auth/callback/credentials", {
      jar,
      form: { csrfToken: token, username: "ada", password: "lovelace", callbackUrl: "/dashboard?tab=1#top" },
    });
    expect(response.headers.get("location")).toBe(`${APP_ORIGIN}/dashboard?tab=1#top`);
  });

  it("a callback URL kept in its cookie comes back unchanged, percent-encoding included", async () => {
    const target = "/search?q=a%26b&next=%2Fhome";
    const jar = new CookieJar();
    await call(config, `/auth/signin?callbackUrl=${encodeURIComponent(target)}`, { jar });
    const token = await csrfToken(config, jar);
    const response = await call(config, "/auth/callback/credentials", {
      jar,
      form: { csrfToken: token, username: "ada", password: "lovelace" },
    });
    expect(response.headers.get("location")).toBe(`${APP_ORIGIN}${target}`);
  });

  it("e-mail sign-in: the mailed link's callbackUrl and the callback's redirect stay on-origin for every payload", async () => {
    const emailConfig = appConfig();
    for (const evil of EVIL_CALLBACK_URLS) {
      // At sign-in, the payload in the body.
      const jar = new CookieJar();
      const token = await csrfToken(emailConfig, jar);
      const before = smtp.mails.length;
      const start = await call(emailConfig, "/auth/signin/nodemailer", {
        jar,
        form: { csrfToken: token, email: "victim@example.com", callbackUrl: evil },
      });
      expect(start.status).toBe(302);
      await until(() => smtp.mails.length > before);
      const link = new URL(linkIn(smtp.mails.at(-1)?.mail.text));
      expectOnOrigin(link.origin);
      expectOnOrigin(link.searchParams.get("callbackUrl"));
      // At the callback, the payload swapped into the link's query and planted as the cookie, in the
      // browser that asked for the link (its binding cookie kept), so the link signs in at once.
      link.searchParams.set("callbackUrl", evil);
      const victim = jarWithCallbackCookie(evil);
      victim.cookies.set("authjs.binding", jar.get("authjs.binding") as string);
      const done = await call(emailConfig, `${link.pathname}${link.search}`, { jar: victim });
      expect(done.status).toBe(302);
      expect(victim.get("authjs.session-token"), `no session for ${JSON.stringify(evil)}`).toBeTruthy();
      expectNothingLeaves(done);
    }
  });

  it("the redirect callback of the application still decides (and is given the raw URL)", async () => {
    const seen: string[] = [];
    const custom = appConfig({
      callbacks: {
        redirect: ({ url, baseUrl }) => {
          seen.push(url);
          return isOnOrigin(url, baseUrl) ? url : `${baseUrl}/blocked`;
        },
      },
    });
    const response = await call(custom, "/auth/signin?callbackUrl=%2F%2Fevil.example");
    expect(seen).toContain("//evil.example");
    expect(setCookieValue(response, CALLBACK_COOKIE)).toBe(`${APP_ORIGIN}/blocked`);
  });
});
