/**
 * Provider misconfiguration fails closed (OWASP ASVS 1.14 / 7.4.1, the Auth.js advisory class
 * "fail-open on provider configuration errors"): a wrong issuer, a missing client secret, a
 * mailer that throws, a credentials `authorize` that throws, a callback that throws — each ends
 * with no session, an error the user can see, and the cause in the server log.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Auth, type AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import { CookieJar, call, csrfToken, demoCredentials, SECRET, signIn } from "../helpers.js";
import { Browser } from "../oauth/support/browser.js";
import { deliver, locationOf, loginAtProvider, sessionOf, startSignIn } from "../oauth/support/flow.js";
import { startOP, type TestOP } from "../oauth/support/op.js";

const APP = "http://localhost:3000";
let op: TestOP;

beforeAll(async () => {
  const redirect_uris = ["op-bad-issuer", "op-no-secret", "op-wrong-secret"].map((id) => `${APP}/auth/callback/${id}`);
  op = await startOP([{ client_id: "confidential", client_secret: "the-real-secret", redirect_uris }]);
});
afterAll(() => op?.close());

function logged() {
  const errors: Array<Error & { type?: string }> = [];
  return { errors, logger: { error: (e: Error) => void errors.push(e), warn() {}, debug() {} } };
}

function oidcApp(options: Record<string, unknown>) {
  const log = logged();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [OIDC({ name: "OP", clientId: "confidential", ...options } as Parameters<typeof OIDC>[0])],
  };
  return { config, log, browser: new Browser({ [APP]: (r) => Auth(r, config) }) };
}

describe("provider misconfiguration fails closed: no session, a clear error", () => {
  it("an OIDC provider whose issuer does not match the discovery document never starts a sign-in", async () => {
    const { config, log, browser } = oidcApp({
      id: "op-bad-issuer",
      issuer: `${op.issuer}/wrong`,
      clientSecret: "the-real-secret",
    });
    const response = await startSignIn(browser, APP, "op-bad-issuer");
    expect(locationOf(response)).toBe(`${APP}/auth/signin?error=OAuthSignin`);
    expect(browser.jar(APP).has("authjs.pkce.code_verifier")).toBe(false);
    expect(log.errors.at(-1)?.type).toBe("OAuthSignInError");
    expect(await sessionOf(browser, APP)).toBeNull();
    expect(config.providers).toHaveLength(1);
  });

  it("an issuer that is not a URL is a Configuration error at every action (500 / error page), never a session", async () => {
    const { config, log } = oidcApp({ id: "op-bad-issuer", issuer: "not a url", clientSecret: "x" });
    const session = await call(config, "/auth/session");
    expect(session.status).toBe(500);
    const page = await call(config, "/auth/signin");
    expect(page.status).toBe(500);
    expect(await page.text()).not.toMatch(/not a url/);
    expect(log.errors[0]?.message).toMatch(/issuer/);
  });

  it("a confidential client without its clientSecret is refused when the configuration is resolved, before the user consents at the provider", async () => {
    const { log, browser } = oidcApp({ id: "op-no-secret", issuer: op.issuer });
    const csrf = await browser.get(`${APP}/auth/csrf`);
    expect(csrf.status).toBe(500);
    const start = await browser.post(`${APP}/auth/signin/op-no-secret`, { csrfToken: "x" });
    expect(start.status).toBe(500);
    expect(start.headers.get("location")).toBeNull();
    const page = await browser.get(`${APP}/auth/signin`);
    expect(page.status).toBe(500);
    expect(await page.text()).not.toContain(op.issuer);
    expect(browser.jar(APP).has("authjs.session-token")).toBe(false);
    const last = log.errors.at(-1);
    expect(last?.type).toBe("InvalidProvider");
    expect(last?.message).toMatch(/clientSecret.*AUTH_OP_NO_SECRET_SECRET/);
  });

  it("a wrong clientSecret gets no session and logs the provider's invalid_client", async () => {
    const { log, browser } = oidcApp({ id: "op-wrong-secret", issuer: op.issuer, clientSecret: "not-the-secret" });
    const start = await startSignIn(browser, APP, "op-wrong-secret");
    const callback = await deliver(browser, await loginAtProvider(browser, locationOf(start), APP));
    expect(locationOf(callback)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(await sessionOf(browser, APP)).toBeNull();
    expect(log.errors.at(-1)?.message).toMatch(/invalid_client/);
  });

  it("an e-mail provider whose send throws: EmailSignin, no usable token left, no session", async () => {
    const store = createMemoryStore();
    const log = logged();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      rateLimit: false,
      adapter: MemoryAdapter(store),
      logger: log.logger,
      providers: [
        {
          id: "mail",
          name: "Mail",
          type: "email",
          sendVerificationRequest: () => {
            throw new Error("SMTP credentials rejected");
          },
        },
      ],
    };
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const response = await call(config, "/auth/signin/mail", {
      jar,
      form: { csrfToken: token, email: "ada@example.com" },
    });
    expect(response.headers.get("location")).toBe(`${APP}/auth/signin?error=EmailSignin`);
    expect(store.verificationTokens.size).toBe(0);
    expect(jar.get("authjs.session-token")).toBeUndefined();
    expect(log.errors.at(-1)?.type).toBe("EmailSignInError");
    expect(String((log.errors.at(-1)?.cause as { err?: Error })?.err?.message)).toMatch(/SMTP credentials rejected/);
  });

  it("an e-mail provider without an adapter is a Configuration error, not a link that cannot be checked", async () => {
    const log = logged();
    const config = {
      secret: SECRET,
      trustHost: true,
      logger: log.logger,
      providers: [{ id: "mail", name: "Mail", type: "email" as const, sendVerificationRequest: () => {} }],
    } as AuthConfig;
    const jar = new CookieJar();
    const csrf = await call(config, "/auth/csrf", { jar });
    expect(csrf.status).toBe(500);
    expect(jar.cookies.size).toBe(0);
    expect(log.errors[0]?.type).toBe("MissingAdapter");
  });

  it("a credentials authorize() that throws an unexpected error is Configuration, with no session", async () => {
    const log = logged();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      rateLimit: false,
      logger: log.logger,
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: () => {
            throw new Error("database password expired");
          },
        }),
      ],
    };
    const { jar, response } = await signIn(config);
    expect(response.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`);
    expect(jar.get("authjs.session-token")).toBeUndefined();
    expect(log.errors.at(-1)?.type).toBe("CallbackRouteError");
  });

  it("a signIn or jwt callback that throws denies the sign-in: no session cookie", async () => {
    for (const callbacks of [
      {
        signIn: () => {
          throw new Error("policy service down");
        },
      },
      {
        jwt: () => {
          throw new Error("claims service down");
        },
      },
    ] as AuthConfig["callbacks"][]) {
      const log = logged();
      const config: AuthConfig = {
        secret: SECRET,
        trustHost: true,
        rateLimit: false,
        logger: log.logger,
        providers: [demoCredentials()],
        callbacks,
      };
      const { jar, response } = await signIn(config);
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toMatch(/\/auth\/(error|signin)\?error=/);
      expect(jar.get("authjs.session-token")).toBeUndefined();
      expect(log.errors.length).toBeGreaterThan(0);
    }
  });

  it("a secret that is too short refuses to run at all: no cookie is ever set", async () => {
    const log = logged();
    const config: AuthConfig = { secret: "short", trustHost: true, logger: log.logger, providers: [demoCredentials()] };
    const { jar, response } = await signIn(config);
    expect(response.status).toBe(500);
    expect(jar.cookies.size).toBe(0);
    expect(log.errors[0]?.message).toMatch(/at least 32 characters/);
  });
});
