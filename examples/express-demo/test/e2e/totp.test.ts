/**
 * The TOTP second factor of the demo in Debian's Chromium (playwright-core): the demo user signs
 * in with the password, enrols an authenticator app on the account page (the code is computed
 * here from the secret the page shows, RFC 6238 on node:crypto), signs out, signs in with the
 * password then a code; a wrong code and a replayed one are refused; a backup code works once;
 * the factor is turned off with a fresh code. Its own demo process and data folder, so the
 * other browser tests keep a user without a second factor.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserSuiteRuns, launchChromium } from "../../../../packages/express/test/support/chromium.js";
import { type DemoProcess, startDemoProcess } from "../support.js";
import { stepNow, totpAt } from "../totp-code.js";

const runs = browserSuiteRuns("express-demo TOTP e2e");

let demo: DemoProcess;
let browser: Browser;
let context: BrowserContext;

async function whoIsSignedIn(page: Page): Promise<string> {
  await page.goto(`${demo.url}/`);
  return (await page.textContent("#who"))?.replace(/\s+/g, " ").trim() ?? "";
}

async function signOut(page: Page): Promise<void> {
  await page.goto(`${demo.url}/auth/signout?callbackUrl=%2F`);
  await Promise.all([page.waitForURL(`${demo.url}/`), page.click('form[action$="/auth/signout"] button')]);
  expect(await whoIsSignedIn(page)).toBe("You are not signed in.");
}

/** The demo password on the built-in page; resolves on the URL it lands on. */
async function signInWithPassword(page: Page, landing: string | RegExp): Promise<void> {
  await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
  const form = page.locator('form[action$="/auth/callback/credentials"]');
  await form.locator('input[name="email"]').fill("demo@example.com");
  await form.locator('input[name="password"]').fill("demo-password");
  await Promise.all([page.waitForURL(landing), form.locator("button").click()]);
}

/** Types a code into the built-in second-factor page; resolves on the URL it lands on. */
async function enterCode(page: Page, code: string, landing: string | RegExp): Promise<void> {
  const form = page.locator('form[action$="/auth/callback/totp"]');
  await form.locator('input[name="code"]').fill(code);
  await Promise.all([page.waitForURL(landing), form.locator("button").click()]);
}

const codePage = /\/auth\/callback\/totp(\?|$)/;
const refused = /\/auth\/callback\/totp\?error=CredentialsSignin/;

describe.skipIf(!runs)("the demo's authenticator app in Chromium", () => {
  beforeAll(async () => {
    [demo, browser] = await Promise.all([startDemoProcess(), launchChromium()]);
    context = await browser.newContext();
    context.setDefaultTimeout(10_000);
  }, 60_000 * inject("timeScale"));

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await demo?.stop();
  });

  it(
    "enrols on the account page, then asks for a code at sign-in, refusing wrong and replayed codes, a backup code once",
    async () => {
      const page = await context.newPage();
      await signInWithPassword(page, `${demo.url}/account`);
      expect(await page.textContent("#totp-status")).toContain("off");

      // Set-up: a QR code and the key in the page; the first code from the key turns it on.
      await Promise.all([page.waitForURL(`${demo.url}/account/totp/start`), page.click("#totp-start button")]);
      expect(await page.locator("#totp-qr svg path").count()).toBe(1);
      const secret = ((await page.textContent("#totp-secret")) ?? "").trim();
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      const enrolStep = stepNow();
      const enrolCode = totpAt(secret, enrolStep);
      await page.fill('#totp-confirm input[name="code"]', enrolCode);
      await Promise.all([page.waitForURL(`${demo.url}/account/totp/confirm`), page.click("#totp-confirm button")]);
      const backupCodes = (await page.locator("#backup-codes code").allTextContents()).map((c) => c.trim());
      expect(backupCodes).toHaveLength(10);
      expect(new Set(backupCodes).size).toBe(10);
      await page.goto(`${demo.url}/account`);
      expect(await page.textContent("#totp-status")).toContain("on");
      expect(await page.textContent("#backup-codes-left")).toBe("10");
      // The codes were shown once: the account page does not list them.
      for (const code of backupCodes) expect(await page.content()).not.toContain(code);

      await signOut(page);

      // Password alone: the code page, and no session yet.
      await signInWithPassword(page, codePage);
      expect(await page.getAttribute('input[name="code"]', "autocomplete")).toBe("one-time-code");
      const wrong = String((Number(totpAt(secret, stepNow())) + 500_000) % 1_000_000).padStart(6, "0");
      await enterCode(page, wrong, refused);
      expect(await page.textContent('[role="alert"]')).toContain("That code was not accepted");
      // The code of the enrolment, replayed: its time step is spent.
      await enterCode(page, enrolCode, refused);
      // A fresh code: the next step after the spent one (the server takes one step of drift).
      const signInStep = Math.max(stepNow(), enrolStep + 1);
      const signInCode = totpAt(secret, signInStep);
      await enterCode(page, signInCode, `${demo.url}/account`);
      const session = JSON.parse((await page.textContent("#session")) ?? "null");
      expect(session).toMatchObject({
        user: { email: "demo@example.com" },
        provider: "credentials",
        amr: ["pwd", "otp"],
      });
      expect(await whoIsSignedIn(page)).toBe(
        "Signed in as Demo User (demo@example.com) with password and an authenticator app code.",
      );
      await signOut(page);

      // The sign-in code replayed on a new sign-in: refused.
      await signInWithPassword(page, codePage);
      await enterCode(page, signInCode, refused);
      expect(await whoIsSignedIn(page)).toBe("You are not signed in.");

      // A backup code signs in once (typed in lower case with a space, as a person might).
      const backup = backupCodes[0] as string;
      await signInWithPassword(page, codePage);
      await enterCode(page, ` ${backup.toLowerCase()} `, `${demo.url}/account`);
      expect(await page.textContent("#backup-codes-left")).toBe("9");
      await signOut(page);
      await signInWithPassword(page, codePage);
      await enterCode(page, backup, refused);
      expect(await whoIsSignedIn(page)).toBe("You are not signed in.");

      // Turning it off takes a fresh code: a wrong one leaves it on, another backup code turns it off.
      await signInWithPassword(page, codePage);
      await enterCode(page, backupCodes[1] as string, `${demo.url}/account`);
      await page.fill('#totp-disable input[name="code"]', wrong);
      await Promise.all([page.waitForURL(/\/account\?totp=invalid/), page.click("#totp-disable button")]);
      expect(await page.textContent("#totp-status")).toContain("on");
      await page.fill('#totp-disable input[name="code"]', backupCodes[2] as string);
      await Promise.all([page.waitForURL(/\/account\?totp=disabled/), page.click("#totp-disable button")]);
      expect(await page.textContent("#totp-status")).toContain("off");
      await signOut(page);
      await signInWithPassword(page, `${demo.url}/account`);
      expect(JSON.parse((await page.textContent("#session")) ?? "null")).toMatchObject({ amr: ["pwd"] });
    },
    240_000 * inject("timeScale"),
  );

  it("refuses the account page's forms posted from another origin", async () => {
    const page = await context.newPage();
    await signInWithPassword(page, `${demo.url}/account`);
    // The control: the page's own POST (Chromium sends this origin, the form its CSRF token) passes.
    const csrfToken = await page.getAttribute('#totp-start input[name="csrfToken"]', "value");
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/);
    const post = (token: string | null) =>
      page.evaluate(
        async ([url, token]) => {
          const body = new URLSearchParams(token === null ? {} : { csrfToken: token });
          return (await fetch(`${url}/account/totp/start`, { method: "POST", body })).status;
        },
        [demo.url, token] as const,
      );
    expect(await post(csrfToken)).toBe(200);
    // From this origin but without the page's token (what a form on a sibling sub-domain can
    // manage at best): refused by requireCsrf.
    expect(await post(null)).toBe(403);
    // The same POST, with the session cookie, as another site's form would send it.
    const forged = await page.request.post(`${demo.url}/account/totp/start`, {
      headers: { origin: "https://attacker.example" },
      form: {},
    });
    expect(forged.status()).toBe(403);
  });
});
