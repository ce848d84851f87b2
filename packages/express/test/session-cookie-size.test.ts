/**
 * The cookie bomb: a JWT session that carries provider tokens (`accessTokens: { jwt: true }`) and
 * a provider answering tokens of tens of KB. A session cookie whose chunks add up past Node's
 * 16 KiB request-header limit makes every later request answer 431 (sign-out included) until the
 * cookie expires. Over Express on a socket: the user signs in against a rotating `oidc-provider`;
 * the refresh goes to a token endpoint on 127.0.0.1 answering 24 KB of tokens.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Auth, type AuthConfig } from "@latchkey/core";
import { ExpressAuth, getAccessToken, SessionCookieTooLarge } from "@latchkey/express";
import OIDC from "@latchkey/express/providers/generic-oidc";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser } from "../../core/test/oauth/support/browser.js";
import { signInThrough } from "../../core/test/oauth/support/flow.js";
import { REFRESH_APP as APP } from "../../core/test/oauth/support/refreshing-op.js";
import { Jar, listen } from "./helpers.js";
import { COOKIE, jwtSessions, login, SECRET, signIn, useRefreshingOP } from "./support/refresh.js";

const provider = useRefreshingOP();
let bigTokens: Server;
let tokenUrl: string;
let tokenCalls = 0;

beforeAll(async () => {
  // A token endpoint answering 12 KB of access token and 12 KB of refresh token, random (a
  // compressing encoder gains nothing), as some providers' large JWT access tokens are.
  bigTokens = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      tokenCalls++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          access_token: randomBytes(9 * 1024).toString("base64url"),
          refresh_token: randomBytes(9 * 1024).toString("base64url"),
          token_type: "Bearer",
          expires_in: 3600,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => bigTokens.listen(0, "127.0.0.1", resolve));
  tokenUrl = `http://127.0.0.1:${(bigTokens.address() as AddressInfo).port}/token`;
});
afterAll(async () => {
  await new Promise((resolve) => bigTokens?.close(resolve));
});

/** The application: Latchkey at /auth and `GET /token` (getAccessToken), errors logged into `logged`. */
async function application(logged: Error[], callbacks: AuthConfig["callbacks"] = {}) {
  const config: AuthConfig = {
    callbacks,
    secret: SECRET,
    trustHost: true,
    rateLimit: false,
    accessTokens: { jwt: true },
    logger: { error: (e: Error) => logged.push(e), warn() {}, debug() {} },
    providers: [
      OIDC({
        id: "op",
        name: "Test OP",
        issuer: provider().issuer,
        clientId: "latchkey",
        clientSecret: "latchkey-secret",
        token: { url: tokenUrl },
      }),
    ],
  };
  const app = express();
  app.use("/auth", ExpressAuth(config));
  app.get("/token", async (req, res) => {
    try {
      const token = await getAccessToken(req, res, config, { provider: "op" });
      res.json({ refreshed: token?.refreshed });
    } catch (e) {
      res.status(503).json({ error: (e as Error).name });
    }
  });
  return listen(app);
}

describe("a provider answering tokens too large for the session cookie", () => {
  it("rule: the refresh does not write a session cookie the server could not read back: SessionCookieTooLarge, logged with the fix, the previous cookie kept, and the user can still use the session and sign out", async () => {
    const logged: Error[] = [];
    const server = await application(logged);
    try {
      const name = login("bomb");
      const expired = await jwtSessions.expire(await signIn(jwtSessions.config(), name), name);
      const jar = new Jar();
      jar.cookies.set(COOKIE, expired);
      const calls = tokenCalls;
      const answer = await jar.fetch(`${server.url}/token`);
      expect(tokenCalls - calls).toBe(1);
      expect(await answer.json()).toEqual({ error: "SessionCookieTooLarge" });
      expect(answer.headers.getSetCookie().filter((c) => c.startsWith(COOKIE))).toEqual([]);
      const error = logged.find((e) => e instanceof SessionCookieTooLarge);
      expect(error?.message).toMatch(/database sessions/);
      // Whatever the response set, the next request carries it and the server reads it: the
      // session is there, and sign-out works.
      const session = await jar.fetch(`${server.url}/auth/session`);
      expect(session.status).toBe(200);
      expect(((await session.json()) as { user?: { email?: string } }).user?.email).toBe(`${name}@example.com`);
      const { csrfToken } = (await (await jar.fetch(`${server.url}/auth/csrf`)).json()) as { csrfToken: string };
      const out = await jar.fetch(`${server.url}/auth/signout`, { form: { csrfToken } });
      expect(out.status).toBe(302);
      expect(jar.cookies.has(COOKIE)).toBe(false);
    } finally {
      await server.close();
    }
  });

  it("rule: a sign-in whose session token would not fit writes no session cookie: the user gets the sign-in error page, not a browser that answers 431 to every request", async () => {
    const logged: Error[] = [];
    const accounts = jwtSessions.config();
    const config: AuthConfig = {
      ...accounts,
      logger: { error: (e: Error) => logged.push(e), warn() {}, debug() {} },
      // Stands in for a provider's large tokens kept at sign-in (the same write).
      callbacks: { jwt: ({ token }) => ({ ...token, bulk: randomBytes(18 * 1024).toString("base64url") }) },
    };
    const browser = new Browser({ [APP]: (r) => Auth(r, config) });
    const response = await signInThrough(browser, APP, "op", { query: { login_hint: "alice" } });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/\/auth\/error\?error=/);
    expect(response.headers.getSetCookie().filter((c) => c.startsWith(COOKIE))).toEqual([]);
    expect(browser.jar(APP).get(COOKIE)).toBeUndefined();
    expect(logged.find((e) => e instanceof SessionCookieTooLarge)?.message).toMatch(/database sessions/);
  });

  it("rule: a session read whose jwt callback grew the token past the bound re-issues nothing: the previous cookie keeps working, logged with the fix", async () => {
    const logged: Error[] = [];
    // Grows the token on every read after the sign-in (an application copying data into it).
    const server = await application(logged, {
      jwt: ({ token, trigger }) => (trigger ? token : { ...token, bulk: randomBytes(18 * 1024).toString("base64url") }),
    });
    try {
      const name = login("grown");
      const cookie = await signIn(jwtSessions.config(), name);
      const jar = new Jar();
      jar.cookies.set(COOKIE, cookie);
      const responses = await Promise.all(Array.from({ length: 5 }, () => jar.fetch(`${server.url}/auth/session`)));
      for (const response of responses) {
        expect(response.status).toBe(200);
        expect(response.headers.getSetCookie().filter((c) => c.startsWith(COOKIE))).toEqual([]);
        expect(((await response.json()) as { user?: { email?: string } }).user?.email).toBe(`${name}@example.com`);
      }
      expect(jar.cookies.get(COOKIE)).toBe(cookie);
      expect(logged.find((e) => e instanceof SessionCookieTooLarge)?.message).toMatch(/database sessions/);
    } finally {
      await server.close();
    }
  });
});
