/**
 * Passkeys end to end in Debian's Chromium (playwright-core, never a downloaded browser) with a
 * Chrome DevTools Protocol virtual authenticator: register through the built-in sign-in page,
 * sign out, sign in with the passkey (its counter goes up), check that a replayed assertion
 * and an assertion for another session's challenge are refused, and that a device without the
 * known address's passkey says what to do.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import type { AuthConfig } from "@latchkey/core";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import Passkey from "@latchkey/core/providers/passkey";
import express from "express";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ExpressAuth, getSession } from "../src/index.js";
import { Jar, listen } from "./helpers.js";
import { addVirtualPasskey, browserSuiteRuns, launchChromium } from "./support/chromium.js";

const runs = browserSuiteRuns("webauthn.browser.test");

const store = createMemoryStore();
const config: AuthConfig = {
  secret: "webauthn-browser-test-secret-0123456789abcdef",
  trustHost: true,
  adapter: MemoryAdapter(store),
  experimental: { enableWebAuthn: true },
  providers: [Passkey()],
  logger: { error() {}, warn() {}, debug() {} },
};

/** The only stored authenticator. */
function authenticator() {
  const all = [...store.authenticators.values()];
  expect(all).toHaveLength(1);
  return all[0] as (typeof all)[number];
}

/** Runs in the page: asks for authentication options and gets an assertion, without posting it. */
async function assertionInPage(page: Page): Promise<Record<string, unknown>> {
  return page.evaluate(async () => {
    const b64 = (buffer: ArrayBuffer) =>
      btoa(String.fromCharCode(...new Uint8Array(buffer)))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    const res = await fetch("/auth/webauthn-options/passkey?action=authenticate");
    const { options } = await res.json();
    const challenge = Uint8Array.from(atob(options.challenge.replace(/-/g, "+").replace(/_/g, "/")), (c) =>
      c.charCodeAt(0),
    );
    const credential = (await navigator.credentials.get({
      publicKey: {
        challenge,
        rpId: options.rpId,
        userVerification: options.userVerification,
        timeout: options.timeout,
      },
    })) as PublicKeyCredential;
    const r = credential.response as AuthenticatorAssertionResponse;
    return {
      id: credential.id,
      rawId: b64(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: b64(r.clientDataJSON),
        authenticatorData: b64(r.authenticatorData),
        signature: b64(r.signature),
        userHandle: r.userHandle ? b64(r.userHandle) : undefined,
      },
      clientExtensionResults: {},
    };
  });
}

describe.skipIf(!runs)("passkeys in Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let server: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    const app = express();
    app.use("/auth", ExpressAuth(config));
    app.get("/", async (req, res) => {
      const session = await getSession(req, config);
      res.type("html").send(`<!DOCTYPE html><title>home</title><p id="who">${session?.user?.email ?? "anonymous"}</p>`);
    });
    server = await listen(app);
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    authenticatorId = await addVirtualPasskey(cdp);
  }, 60_000 * inject("timeScale"));

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it(
    "registers a passkey through the built-in page, signs out, and signs in with it",
    async () => {
      // Register: an unknown e-mail makes the button create a passkey.
      await page.goto(`${server.url}/auth/signin`);
      await page.fill("#input-email-for-passkey-provider", "ada@example.com");
      await Promise.all([page.waitForURL(`${server.url}/`), page.click("#passkey-form button[type=submit]")]);
      expect(await page.textContent("#who")).toBe("ada@example.com");
      const registered = { ...authenticator() }; // a copy: the store changes its record in place
      expect(registered).toMatchObject({
        credentialDeviceType: "singleDevice",
        credentialBackedUp: false,
        transports: "internal",
      });
      const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
      expect(credentials).toHaveLength(1);
      expect(Buffer.from(credentials[0]?.credentialId as string, "base64").toString("base64")).toBe(
        registered.credentialID,
      );
      expect([...store.accounts.values()]).toMatchObject([
        { provider: "passkey", type: "webauthn", providerAccountId: registered.credentialID },
      ]);

      // Sign out through the built-in page.
      await page.goto(`${server.url}/auth/signout`);
      await Promise.all([page.waitForURL(`${server.url}/`), page.click("#submitButton")]);
      expect(await page.textContent("#who")).toBe("anonymous");

      // Sign in with the button: a known e-mail makes it ask for an assertion. The autofill request
      // is blocked here (the virtual authenticator would answer it at once), so the button is used.
      await page.route(/\/auth\/webauthn-options\/passkey\?action=authenticate$/, (route) => route.abort());
      await page.goto(`${server.url}/auth/signin`);
      await page.fill("#input-email-for-passkey-provider", "ada@example.com");
      const posted = page.waitForRequest(
        (r) => r.url() === `${server.url}/auth/callback/passkey` && r.method() === "POST",
      );
      await Promise.all([page.waitForURL(`${server.url}/`), page.click("#passkey-form button[type=submit]")]);
      await page.unrouteAll();
      expect(await page.textContent("#who")).toBe("ada@example.com");
      const request = await posted;
      expect(request.postDataJSON()).toMatchObject({ action: "authenticate", email: "ada@example.com" });
      const afterButton = authenticator().counter;
      expect(afterButton).toBeGreaterThan(registered.counter);

      // Replay that assertion with the cookies it was sent with (challenge cookie included), and
      // without the challenge cookie: both refused, no session, the counter unchanged.
      const cookie = (await request.allHeaders()).cookie as string;
      expect(cookie).toContain("authjs.challenge=");
      const errors: string[] = [];
      for (const cookies of [cookie, cookie.replace(/authjs\.challenge=[^;]*;?\s*/, "")]) {
        const replay = await fetch(request.url(), {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies },
          body: request.postData() as string,
        });
        expect(replay.status).toBe(302);
        errors.push(new URL(replay.headers.get("location") as string).searchParams.get("error") as string);
        expect(
          replay.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !/Max-Age=0/i.test(c)),
        ).toBe(false);
      }
      // With the spent challenge: the counter check fails; without it: the challenge check (InvalidCheck).
      expect(errors).toEqual(["WebAuthnVerificationError", "OAuthCallbackError"]);
      expect(authenticator().counter).toBe(afterButton);

      // Sign out, then sign in through the autofill (conditional UI) request alone.
      await page.goto(`${server.url}/auth/signout`);
      await Promise.all([page.waitForURL(`${server.url}/`), page.click("#submitButton")]);
      expect(await page.textContent("#who")).toBe("anonymous");
      await Promise.all([page.waitForURL(`${server.url}/`), page.goto(`${server.url}/auth/signin`)]);
      expect(await page.textContent("#who")).toBe("ada@example.com");
      expect(authenticator().counter).toBeGreaterThan(afterButton);
    },
    60_000 * inject("timeScale"),
  );

  it(
    "a known address on a device without its passkey is told what to do, not only 'cancelled or timed out'",
    async () => {
      // Another browser with an authenticator of its own, empty: ada's passkey is not on it.
      const elsewhere = await browser.newContext();
      try {
        const other = await elsewhere.newPage();
        await addVirtualPasskey(await elsewhere.newCDPSession(other));
        await other.route(/\/auth\/webauthn-options\/passkey\?action=authenticate$/, (route) => route.abort());
        await other.goto(`${server.url}/auth/signin`);
        await other.fill("#input-email-for-passkey-provider", "ada@example.com");
        await other.click("#passkey-form button[type=submit]");
        const box = other.locator("#passkey-form [data-webauthn-error]");
        await box.waitFor({ state: "visible" });
        const message = await box.textContent();
        expect(message).toContain("If this device has no passkey for this address");
        expect(message).toContain("use the phone or security key that holds it");
        expect(message).toContain("or sign in another way");
        expect(store.authenticators.size).toBe(1);
      } finally {
        await elsewhere.close();
      }
    },
    60_000 * inject("timeScale"),
  );

  it(
    "refuses an assertion made for the challenge of another session",
    async () => {
      // Any page of the origin will do; the sign-in page's autofill would sign in by itself.
      await page.goto(`${server.url}/`);
      const assertion = await assertionInPage(page);

      const other = new Jar();
      const { csrfToken } = (await (await other.fetch(`${server.url}/auth/csrf`)).json()) as { csrfToken: string };
      expect((await other.fetch(`${server.url}/auth/webauthn-options/passkey?action=authenticate`)).status).toBe(200);
      expect(other.cookies.has("authjs.challenge")).toBe(true);
      const response = await other.fetch(`${server.url}/auth/callback/passkey`, {
        method: "POST",
        redirect: "manual",
        form: { csrfToken, action: "authenticate", data: JSON.stringify(assertion) },
      });
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get("location") as string).searchParams.get("error")).toBe(
        "WebAuthnVerificationError",
      );
      expect(other.cookies.has("authjs.session-token")).toBe(false);
    },
    60_000 * inject("timeScale"),
  );
});
