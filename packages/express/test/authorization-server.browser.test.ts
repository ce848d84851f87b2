/**
 * "Sign in with" Latchkey in Debian's Chromium (playwright-core, never a downloaded browser): a
 * relying party on another site, built on `openid-client`, sends the browser to the authorization
 * server; the user signs in on Latchkey's own page, consents, and lands back signed in at the
 * relying party; the second time no consent is asked; the consent page cannot be framed; a CLI's
 * device code is typed into the server's page; RP-initiated logout ends the session.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import { AuthorizationServer, MemoryAuthorizationStore, registerClient } from "@latchkey/core/authorization-server";
import { MemoryAdapter } from "@latchkey/core/memory-adapter";
import { type AuthConfig, ExpressAuth, ExpressAuthorizationServer } from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import express from "express";
import * as client from "openid-client";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "./helpers.js";
import { browserSuiteRuns, launchChromium } from "./support/chromium.js";

const runs = browserSuiteRuns("authorization-server.browser.test");

let chromium: Browser;
let provider: { url: string; close: () => Promise<void> };
let relyingParty: { url: string; close: () => Promise<void> };
let framer: { url: string; close: () => Promise<void> };
let server: AuthorizationServer;
let configuration: client.Configuration;
let clientId = "";

const config: AuthConfig = {
  secret: "authorization-server-browser-secret-0123456789",
  trustHost: true,
  logger: { error() {}, warn() {}, debug() {} },
  session: { strategy: "jwt", revocation: true },
  providers: [
    Credentials({
      credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
      authorize: async ({ username, password }) =>
        username === "ada" && password === "lovelace"
          ? { id: "u1", name: "Ada Lovelace", email: "ada@example.com" }
          : null,
    }),
  ],
};

/** What the relying party remembers between its login and its callback, by state. */
const pending = new Map<string, { verifier: string; nonce: string }>();

beforeAll(async () => {
  if (!runs) return;
  const adapter = MemoryAdapter();
  await adapter.createUser?.({ id: "u1", name: "Ada Lovelace", email: "ada@example.com", emailVerified: new Date(0) });
  config.adapter = adapter;
  const providerApp = express();
  let mounted: express.RequestHandler = (_req, _res, next) => next();
  providerApp.use((req, res, next) => mounted(req, res, next));
  providerApp.use("/auth", ExpressAuth(config));
  provider = await listen(providerApp, "localhost");
  server = AuthorizationServer({ issuer: provider.url, auth: config, store: new MemoryAuthorizationStore() });
  mounted = ExpressAuthorizationServer(server);

  // The relying party: another site (127.0.0.1 is not localhost's site), with openid-client.
  const rp = express();
  rp.get("/login", async (req, res) => {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    pending.set(state, { verifier, nonce });
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: `${relyingParty.url}/callback`,
      scope: "openid email",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
      ...(req.query.prompt === "consent" && { prompt: "consent" }),
    });
    res.redirect(url.href);
  });
  rp.get("/callback", async (req, res) => {
    const current = new URL(req.originalUrl, relyingParty.url);
    const state = current.searchParams.get("state") ?? "";
    const waiting = pending.get(state);
    if (!waiting) return void res.status(400).send("unknown state");
    pending.delete(state);
    if (current.searchParams.has("error"))
      return void res.send(`<p id="refused">${current.searchParams.get("error")}</p>`);
    const tokens = await client.authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: waiting.verifier,
      expectedState: state,
      expectedNonce: waiting.nonce,
    });
    const info = await client.fetchUserInfo(configuration, tokens.access_token, tokens.claims()?.sub ?? "");
    const logout = client.buildEndSessionUrl(configuration, {
      id_token_hint: tokens.id_token ?? "",
      post_logout_redirect_uri: `${relyingParty.url}/bye`,
    });
    res.send(`<p id="hello">Hello ${info.email}</p><a id="logout" href="${logout.href}">Sign out</a>`);
  });
  rp.get("/bye", (_req, res) => void res.send('<p id="bye">Signed out</p>'));
  relyingParty = await listen(rp, "127.0.0.1");

  const { client: registered } = await registerClient(server, {
    name: "Reports",
    redirectUris: [`${relyingParty.url}/callback`],
    postLogoutRedirectUris: [`${relyingParty.url}/bye`],
    tokenEndpointAuthMethod: "none",
    grantTypes: ["authorization_code", "urn:ietf:params:oauth:grant-type:device_code"],
    scopes: ["openid", "email"],
  });
  clientId = registered.clientId;
  configuration = await client.discovery(new URL(provider.url), clientId, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  });

  // A page of another site that frames the provider's authorization endpoint.
  const framing = express();
  framing.get(
    "/",
    (req, res) =>
      void res.send(`<iframe id="framed" src="${String(req.query.src)}" width="600" height="600"></iframe>`),
  );
  framer = await listen(framing, "127.0.0.1");
  chromium = await launchChromium();
});

afterAll(async () => {
  await chromium?.close();
  await Promise.all([provider?.close(), relyingParty?.close(), framer?.close()]);
});

/** Fills Latchkey's built-in sign-in page and submits it. */
async function signIn(page: Page): Promise<void> {
  await page.fill('input[name="username"]', "ada");
  await page.fill('input[name="password"]', "lovelace");
  await page.click('form[action$="/callback/credentials"] button[type="submit"]');
}

/** Signs in at the relying party through the provider, allowing the consent when it is asked. */
async function signedInAtRelyingParty(page: Page): Promise<void> {
  await page.goto(`${relyingParty.url}/login`);
  await page.waitForURL((url) => url.pathname === "/auth/signin");
  await signIn(page);
  await page.waitForSelector("#hello, #allowButton");
  if (await page.locator("#allowButton").count()) await page.click("#allowButton");
  await page.waitForSelector("#hello");
}

describe.skipIf(!runs)("sign in with Latchkey, in Chromium", () => {
  it("signs in at the relying party after Latchkey's sign-in page and the consent page, and asks no consent the second time", async () => {
    const context = await chromium.newContext();
    const page = await context.newPage();
    await page.goto(`${relyingParty.url}/login`);
    await page.waitForURL((url) => url.pathname === "/auth/signin");
    await signIn(page);
    await page.waitForSelector("#allowButton");
    expect(await page.textContent("main")).toContain("Reports");
    expect(await page.textContent("main")).toContain("127.0.0.1");
    await page.click("#allowButton");
    await page.waitForSelector("#hello");
    expect(await page.textContent("#hello")).toBe("Hello ada@example.com");
    await page.goto(`${relyingParty.url}/login`);
    await page.waitForSelector("#hello");
    expect(await page.textContent("#hello")).toBe("Hello ada@example.com");
    await context.close();
  });

  it("brings the user back with access_denied when consent is refused", async () => {
    const context = await chromium.newContext();
    const page = await context.newPage();
    await page.goto(`${relyingParty.url}/login?prompt=consent`);
    await page.waitForURL((url) => url.pathname === "/auth/signin");
    await signIn(page);
    await page.click("#denyButton");
    await page.waitForSelector("#refused");
    expect(await page.textContent("#refused")).toBe("access_denied");
    await context.close();
  });

  it("cannot be framed by another site: the authorization page that shows at the top level renders nothing in a frame", async () => {
    const context = await chromium.newContext();
    const page = await context.newPage();
    await signedInAtRelyingParty(page);
    const consentUrl = async () =>
      client.buildAuthorizationUrl(configuration, {
        redirect_uri: `${relyingParty.url}/callback`,
        scope: "openid email",
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: "S256",
        state: "framed",
        prompt: "consent",
      }).href;
    await page.goto(await consentUrl());
    await page.waitForSelector("#allowButton");
    await page.goto(`${framer.url}/?src=${encodeURIComponent(await consentUrl())}`);
    const frame = await (await page.waitForSelector("#framed")).contentFrame();
    await frame?.waitForLoadState("load");
    expect(frame).not.toBeNull();
    // Nothing of the server renders there: no consent, and no sign-in form either (the session
    // cookie is SameSite=Lax, so a framed request would reach the sign-in page, itself unframeable).
    expect(await frame?.locator("#allowButton").count()).toBe(0);
    expect(await frame?.locator("form").count()).toBe(0);
    await context.close();
  });

  it("connects a CLI: the user types its code on the server's page and allows it", async () => {
    const started = await client.initiateDeviceAuthorization(configuration, { scope: "openid email" });
    const context = await chromium.newContext();
    const page = await context.newPage();
    await page.goto(started.verification_uri_complete ?? "");
    await page.waitForURL((url) => url.pathname === "/auth/signin");
    await signIn(page);
    await page.waitForSelector("#input-user-code");
    expect(await page.inputValue("#input-user-code")).toBe(started.user_code);
    await page.click("#submitButton");
    await page.waitForSelector("#allowButton");
    await page.click("#allowButton");
    await page.waitForSelector("text=Device connected");
    const tokens = await client.pollDeviceAuthorizationGrant(configuration, started);
    expect(tokens.claims()?.sub).toBe("u1");
    await context.close();
  }, 30_000);

  it("signs out through the relying party: the provider asks, ends the session and sends the browser back", async () => {
    const context = await chromium.newContext();
    const page = await context.newPage();
    await signedInAtRelyingParty(page);
    await page.click("#logout");
    await page.waitForSelector("#submitButton");
    await page.click("#submitButton");
    await page.waitForSelector("#bye");
    await page.goto(`${provider.url}/auth/session`);
    expect(await page.textContent("body")).toBe("null");
    await page.goto(`${relyingParty.url}/login`);
    await page.waitForURL((url) => url.pathname === "/auth/signin");
    await context.close();
  });
});
