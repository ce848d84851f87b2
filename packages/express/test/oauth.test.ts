/**
 * OpenID Connect sign-in over Express on a real socket (port 0), against a real OpenID Provider
 * (`oidc-provider` on 127.0.0.1), with the browser's requests made by `fetch`.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AuthConfig, customFetch, ExpressAuth } from "@latchkey/express";
import OIDC from "@latchkey/express/providers/generic-oidc";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser } from "../../core/test/oauth/support/browser.js";
import {
  closedPort,
  deletedCookies,
  locationOf,
  loginAtProvider,
  SECRET,
  sessionOf,
  signInThrough,
  startSignIn,
} from "../../core/test/oauth/support/flow.js";
import { startOP, type TestOP } from "../../core/test/oauth/support/op.js";

let server: Server;
let app: string;
let op: TestOP;
const errors: Array<{ type?: string; message: string }> = [];
const redirects: Array<{ url: string; baseUrl: string }> = [];
const fetched: string[] = [];
let downPort: number;

beforeAll(async () => {
  downPort = await closedPort();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: {
      error: (e) => void errors.push(e as { type?: string; message: string }),
      warn: () => {},
      debug: () => {},
    },
    providers: [
      // The issuer is only known once the provider runs; the getter reads it then.
      () =>
        OIDC({
          id: "op",
          name: "Test OP",
          issuer: op.issuer,
          clientId: "latchkey",
          clientSecret: "latchkey-secret",
          checks: ["pkce", "state", "nonce"],
          [customFetch]: (input: string | URL | Request, init?: RequestInit) => {
            fetched.push(new URL(input instanceof Request ? input.url : input).pathname);
            return fetch(input, init);
          },
        } as Parameters<typeof OIDC>[0]),
      OIDC({ id: "down", name: "Down", issuer: `http://127.0.0.1:${downPort}`, clientId: "x", clientSecret: "y" }),
    ],
    callbacks: {
      redirect: ({ url, baseUrl }) => {
        redirects.push({ url, baseUrl });
        return url.startsWith("/") ? `${baseUrl}${url}` : url.startsWith(baseUrl) ? url : baseUrl;
      },
    },
  };
  const application = express();
  application.use("/auth", ExpressAuth(config));
  application.get("/", (_req, res) => void res.send("home"));
  server = application.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  app = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  op = await startOP([
    { client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: [`${app}/auth/callback/op`] },
  ]);
});

afterAll(async () => {
  await op?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe("OIDC over Express", () => {
  it("signs in: session with the user's name and e-mail, check cookies cleared, redirect callback honoured", async () => {
    const browser = new Browser();
    const start = await startSignIn(browser, app, "op", { callbackUrl: "/dashboard" });
    expect(start.status).toBe(302);
    const authorize = new URL(locationOf(start));
    expect(authorize.origin).toBe(op.issuer);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${app}/auth/callback/op`);
    expect([...browser.jar(app).keys()]).toEqual(
      expect.arrayContaining(["authjs.state", "authjs.pkce.code_verifier", "authjs.nonce"]),
    );

    const answer = await loginAtProvider(browser, authorize.href, app);
    const callback = await browser.get(answer.url);
    expect(callback.status).toBe(302);
    expect(locationOf(callback)).toBe(`${app}/dashboard`);
    expect(redirects).toContainEqual({ url: "/dashboard", baseUrl: app });
    expect(deletedCookies(callback).sort()).toEqual(["authjs.nonce", "authjs.pkce.code_verifier", "authjs.state"]);
    expect(
      [...browser.jar(app).keys()].filter(
        (k) => k !== "authjs.csrf-token" && k !== "authjs.callback-url" && k !== "authjs.binding",
      ),
    ).toEqual(["authjs.session-token"]);

    const session = await sessionOf(browser, app);
    expect(session?.user).toMatchObject({ name: "Alice Liddell", email: "alice@example.com" });
    expect(fetched).toEqual(expect.arrayContaining(["/.well-known/openid-configuration", "/token"]));
  });

  it("refuses a callback whose state belongs to another browser, without a session", async () => {
    const attacker = new Browser();
    const attackersAnswer = await loginAtProvider(attacker, locationOf(await startSignIn(attacker, app, "op")), app);
    const victim = new Browser();
    await startSignIn(victim, app, "op");
    const callback = await victim.get(attackersAnswer.url);
    expect(callback.status).toBe(302);
    expect(locationOf(callback)).toBe(`${app}/auth/signin?error=OAuthCallbackError`);
    expect(deletedCookies(callback).sort()).toEqual(["authjs.nonce", "authjs.pkce.code_verifier", "authjs.state"]);
    expect(await sessionOf(victim, app)).toBeNull();
    expect(errors.at(-1)?.type).toBe("InvalidCheck");
  });

  it("turns the provider's error answer into ?error=OAuthCallbackError", async () => {
    const browser = new Browser();
    const callback = await signInThrough(browser, app, "op", { query: { login_hint: "deny" } });
    expect(locationOf(callback)).toBe(`${app}/auth/signin?error=OAuthCallbackError`);
    expect(errors.at(-1)?.message).toMatch(/access_denied/);
    expect(await sessionOf(browser, app)).toBeNull();
  });

  it("answers a sign-in with an unreachable provider with ?error=OAuthSignin, not a 5xx", async () => {
    const browser = new Browser();
    const response = await startSignIn(browser, app, "down");
    expect(response.status).toBe(302);
    expect(locationOf(response)).toBe(`${app}/auth/signin?error=OAuthSignin`);
    expect(errors.at(-1)?.type).toBe("OAuthSignInError");
  });
});
