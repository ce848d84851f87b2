/**
 * The demo end to end in Debian's Chromium (playwright-core, never a downloaded browser): what
 * only the Express demo has (the e-mail code, the account page's linked accounts and passkeys,
 * passkeys with a virtual authenticator), the sign-in page's layout in light and dark themes and
 * at 375 px wide (each e-mail field labelled by its method), and /dev/mail at 375 px, with
 * screenshots in test-artifacts/express-demo/. The flows every framework shares (password right
 * and wrong, the protected route, magic link, Demo IdP, sign-out) run for Express in the one table
 * of test/frameworks/browser.test.ts.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  addVirtualPasskey,
  browserSuiteRuns,
  launchChromium,
} from "../../../../packages/express/test/support/chromium.js";
import { type DemoProcess, formOf, signOut, startDemoProcess, whoIsSignedIn } from "../support.js";

const runs = browserSuiteRuns("express-demo e2e");
const artifacts = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "..",
  "test-artifacts",
  "express-demo",
);

let demo: DemoProcess;
let browser: Browser;
const contexts: BrowserContext[] = [];

/** A new page in a fresh context (no cookies shared with other tests). */
async function freshPage(options: Parameters<Browser["newContext"]>[0] = {}): Promise<Page> {
  const context = await browser.newContext(options);
  contexts.push(context);
  context.setDefaultTimeout(10_000); // a step that hangs fails with its name, within the test's time
  return context.newPage();
}

describe.skipIf(!runs)("the demo in Chromium", () => {
  beforeAll(async () => {
    // Fake GitHub and Google credentials: their buttons appear (the layout checks cover them);
    // nothing here contacts them.
    [demo, browser] = await Promise.all([
      startDemoProcess({
        AUTH_GITHUB_ID: "e2e-github-id",
        AUTH_GITHUB_SECRET: "e2e-github-secret",
        AUTH_GOOGLE_ID: "e2e-google-id",
        AUTH_GOOGLE_SECRET: "e2e-google-secret",
      }),
      launchChromium(),
    ]);
  }, 60_000 * inject("timeScale"));

  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await demo?.stop();
  });

  it("e-mail code: the six-digit code from /dev/mail typed into the verify-request page signs in, once", async () => {
    const page = await freshPage();
    const address = `coder-${Date.now()}@example.com`;
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
    const form = formOf(page, "/auth/signin/nodemailer");
    await form.locator('input[name="email"]').fill(address);
    await Promise.all([page.waitForURL(/\/auth\/verify-request/), form.locator("button").click()]);
    const codeForm = page.locator('form.email-code[action$="/auth/callback/nodemailer"]');
    expect(await codeForm.count()).toBe(1);
    expect(await codeForm.locator('input[name="code"]').getAttribute("autocomplete")).toBe("one-time-code");

    // The mailbox in a second tab of the same browser, as a person would read the mail.
    const mailbox = await page.context().newPage();
    await mailbox.goto(`${demo.url}/dev/mail`);
    const message = mailbox.locator("li.mail", { has: mailbox.locator(".to", { hasText: address }) });
    await expect.poll(() => message.count()).toBe(1);
    const code = (await message.locator("code.code").textContent()) ?? "";
    expect(code).toMatch(/^\d{6}$/);
    await mailbox.close();

    // A wrong code first: the same page again, with the error and the form.
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    await codeForm.locator('input[name="code"]').fill(wrongCode);
    await Promise.all([page.waitForURL(/error=Verification/), codeForm.locator("button").click()]);
    expect(await page.textContent(".error")).toContain("That code is not valid");

    await codeForm.locator('input[name="code"]').fill(code);
    await Promise.all([page.waitForURL(`${demo.url}/account`), codeForm.locator("button").click()]);
    const session = JSON.parse((await page.textContent("#session")) ?? "null");
    expect(session).toMatchObject({ user: { email: address }, provider: "nodemailer" });
    expect(await whoIsSignedIn(page, demo.url)).toBe(`Signed in as ${address} (${address}) with e-mail link or code.`);

    // The code worked once: after signing out, the same code in the same browser is refused,
    // and so is the e-mail's link.
    await signOut(page, demo.url);
    await page.goto(`${demo.url}/auth/verify-request?provider=nodemailer&type=email`);
    await codeForm.locator('input[name="code"]').fill(code);
    await Promise.all([page.waitForURL(/error=Verification/), codeForm.locator("button").click()]);
    expect(await whoIsSignedIn(page, demo.url)).toBe("You are not signed in.");
  });

  it("Demo IdP: the button, the IdP's login page, back signed in and the account linked", async () => {
    const page = await freshPage();
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
    await page.getByRole("button", { name: "Sign in with Demo IdP" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/interaction\//);
    await page.fill('input[name="login"]', "alice");
    await page.fill('input[name="password"]', "any password");
    await Promise.all([page.waitForURL(`${demo.url}/account`), page.click('button[type="submit"]')]);

    const session = JSON.parse((await page.textContent("#session")) ?? "null");
    expect(session).toMatchObject({ user: { name: "alice", email: "alice@idp.example" }, provider: "demo-idp" });
    const rows = await page
      .locator("#accounts tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td, th")].map((cell) => (cell as HTMLElement).innerText.trim())),
      );
    expect(rows).toEqual([
      ["provider", "type", "account id", ""],
      ["Demo IdP", "oidc", "alice", "Unlink"],
    ]);
    expect(await whoIsSignedIn(page, demo.url)).toBe("Signed in as alice (alice@idp.example) with Demo IdP.");
    await signOut(page, demo.url);
  });

  it("account page: a Demo IdP user adds a passkey, then unlinks the Demo IdP", async () => {
    const page = await freshPage();
    const cdp = await page.context().newCDPSession(page);
    const authenticatorId = await addVirtualPasskey(cdp);
    const login = `carol-${Date.now()}`;
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
    await page.getByRole("button", { name: "Sign in with Demo IdP" }).click();
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', "any password");
    await Promise.all([page.waitForURL(`${demo.url}/account`), page.click('button[type="submit"]')]);
    // JWT sessions in this demo: the page says why there is no device list.
    expect(await page.textContent("#devices-note")).toContain("DEMO_SESSIONS=database");
    expect(await page.textContent("#devices-note")).not.toContain("off");
    expect(await page.textContent("#passkeys")).toBe("0 registered.");

    await page.waitForFunction(
      () => !!document.querySelector<HTMLInputElement>("#add-passkey [name=csrfToken]")?.value,
    );
    // The page is already at /account: wait for the callback's redirect back to it, not the URL.
    await Promise.all([
      page.waitForResponse((r) => r.url() === `${demo.url}/auth/callback/passkey` && r.request().method() === "POST"),
      page.getByRole("button", { name: "Add a passkey" }).click(),
    ]);
    // The redirect's page load is not a URL change: wait for the new page's count.
    await page.waitForFunction(() => document.querySelector("#passkeys")?.textContent !== "0 registered.");
    expect(page.url()).toBe(`${demo.url}/account`);
    expect(await page.textContent("#passkeys")).toBe("1 registered.");
    expect((await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials).toHaveLength(1);
    expect(JSON.parse((await page.textContent("#session")) ?? "null")).toMatchObject({
      user: { email: `${login}@idp.example` },
    });

    const unlinkIdP = page.locator("#accounts tr", { hasText: "Demo IdP" }).getByRole("button", { name: "Unlink" });
    await Promise.all([page.waitForURL(/notice=unlinked/), unlinkIdP.click()]);
    const providers = await page
      .locator("#accounts tr td:first-child")
      .evaluateAll((tds) => tds.map((td) => (td as HTMLElement).innerText));
    expect(providers).toEqual(["passkey"]);
    await signOut(page, demo.url);
  });

  it("account page: the only passkey of a user with no verified address cannot be unlinked", async () => {
    const page = await freshPage();
    const cdp = await page.context().newCDPSession(page);
    await addVirtualPasskey(cdp);
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
    await page.fill("#input-email-for-passkey-provider", `lone-${Date.now()}@example.com`);
    await Promise.all([
      page.waitForURL(`${demo.url}/account`),
      page.getByRole("button", { name: "Sign in with Passkey" }).click(),
    ]);
    const unlink = page.locator("#accounts tr", { hasText: "passkey" }).getByRole("button", { name: "Unlink" });
    await Promise.all([page.waitForURL(/notice=last-sign-in-method/), unlink.click()]);
    expect(await page.textContent("#notice")).toContain("last way to sign in");
    expect(await page.locator("#accounts tr", { hasText: "passkey" }).count()).toBe(1);
    await signOut(page, demo.url);
  });

  it("Demo IdP with the demo user's address signs into the same user as the password", async () => {
    const page = await freshPage();
    await page.goto(`${demo.url}/auth/signin`);
    await page.getByRole("button", { name: "Sign in with Demo IdP" }).click();
    await page.fill('input[name="login"]', "demo@example.com");
    await page.fill('input[name="password"]', "x");
    await Promise.all([page.waitForURL(`${demo.url}/`), page.click('button[type="submit"]')]);
    expect(await whoIsSignedIn(page, demo.url)).toBe("Signed in as Demo User (demo@example.com) with Demo IdP.");
  });

  it("passkeys: register with a new address, sign out, sign in with the passkey", async () => {
    const page = await freshPage();
    const cdp = await page.context().newCDPSession(page);
    const authenticatorId = await addVirtualPasskey(cdp);
    const address = `ada-${Date.now()}@example.com`;
    const passkeyButton = page.getByRole("button", { name: "Sign in with Passkey" });

    // An unknown address: the button creates a passkey and a user.
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
    await page.fill("#input-email-for-passkey-provider", address);
    await Promise.all([page.waitForURL(`${demo.url}/account`), passkeyButton.click()]);
    expect(JSON.parse((await page.textContent("#session")) ?? "null")).toMatchObject({
      user: { email: address },
      provider: "passkey",
    });
    expect(await page.textContent("#passkeys")).toBe("1 registered.");
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    const credentialId = Buffer.from(credentials[0]?.credentialId as string, "base64").toString("base64url");
    const rows = await page
      .locator("#accounts tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td, th")].map((cell) => (cell as HTMLElement).innerText.trim())),
      );
    expect(
      rows
        .slice(1)
        .map(([name, type, id]) => [name, type, id?.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")]),
    ).toEqual([["passkey", "webauthn", credentialId]]);
    await signOut(page, demo.url);

    // Autofill: the page starts a conditional request on load; the virtual authenticator answers
    // it at once with the one passkey (a person would pick it from the e-mail field's list).
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Fprotected`);
    await page.waitForURL(`${demo.url}/protected`);
    expect(await whoIsSignedIn(page, demo.url)).toBe(`Signed in as ${address} (${address}) with passkey.`);
    await signOut(page, demo.url);

    // The button, with conditional requests unavailable (as in browsers without passkey autofill):
    // a known address makes it ask the authenticator for an assertion.
    await page.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    });
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
    await page.fill("#input-email-for-passkey-provider", address);
    await Promise.all([page.waitForURL(`${demo.url}/account`), passkeyButton.click()]);
    expect(JSON.parse((await page.textContent("#session")) ?? "null")).toMatchObject({ provider: "passkey" });
    const after = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(after.credentials[0]?.signCount).toBeGreaterThan((credentials[0]?.signCount ?? 0) + 1);
  });

  it("sign-in page: light and dark themes, every button visible, nothing overlapping, fits 375 px", async () => {
    mkdirSync(artifacts, { recursive: true });
    const backgrounds: string[] = [];
    for (const [colorScheme, width] of [
      ["light", 1024],
      ["dark", 1024],
      ["light", 375],
      ["dark", 375],
    ] as const) {
      const page = await freshPage({ colorScheme, viewport: { width, height: 900 } });
      await page.goto(`${demo.url}/auth/signin`);
      await page.screenshot({ path: join(artifacts, `signin-${colorScheme}-${width}.png`), fullPage: true });
      const where = `${colorScheme} ${width}px`;

      const names = (await page.locator("button").allTextContents()).map((t) => t.trim());
      expect(names, where).toEqual(
        expect.arrayContaining([
          "Sign in with Demo IdP",
          "Sign in with GitHub",
          "Sign in with Google",
          "Sign in with Password",
          "Sign in with Email",
          "Sign in with Passkey",
        ]),
      );
      const boxes = await page.evaluate(() =>
        [...document.querySelectorAll("button, input:not([type=hidden]), label")].map((el) => {
          const r = el.getBoundingClientRect();
          const style = getComputedStyle(el);
          return {
            what: `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute("name") || "").trim()}"`,
            control: el.tagName !== "LABEL",
            visible: style.visibility !== "hidden" && style.display !== "none" && Number(style.opacity) > 0,
            left: r.left + window.scrollX,
            top: r.top + window.scrollY,
            right: r.right + window.scrollX,
            bottom: r.bottom + window.scrollY,
          };
        }),
      );
      for (const box of boxes.filter((b) => b.control)) {
        expect(box.visible, `${where}: ${box.what} hidden`).toBe(true);
        expect(box.right - box.left, `${where}: ${box.what} has no width`).toBeGreaterThan(20);
        expect(box.bottom - box.top, `${where}: ${box.what} has no height`).toBeGreaterThan(10);
        expect(box.left, `${where}: ${box.what} starts off-screen`).toBeGreaterThanOrEqual(0);
        expect(box.right, `${where}: ${box.what} ends off-screen`).toBeLessThanOrEqual(width);
      }
      for (const [i, a] of boxes.entries()) {
        for (const b of boxes.slice(i + 1)) {
          const overlapX = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const overlapY = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          expect(overlapX > 0.5 && overlapY > 0.5, `${where}: ${a.what} overlaps ${b.what}`).toBe(false);
        }
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${where}: horizontal overflow`).toBeLessThanOrEqual(0);
      backgrounds.push(await page.evaluate(() => getComputedStyle(document.body).backgroundColor));
    }
    // The theme follows the browser's color scheme.
    expect(backgrounds[0]).not.toBe(backgrounds[1]);
    expect(backgrounds[2]).toBe(backgrounds[0]);
    expect(backgrounds[3]).toBe(backgrounds[1]);
  });

  it("each method's e-mail field is labelled by its method, and /dev/mail with a sign-in link fits 375 px", async () => {
    const page = await freshPage({ viewport: { width: 375, height: 800 } });
    await page.goto(`${demo.url}/auth/signin`);
    const labels = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLInputElement>("input[type=email]")].map(
        (input) => document.querySelector(`label[for="${input.id}"]`)?.textContent?.trim() ?? "",
      ),
    );
    expect(labels).toEqual(["Email for your password", "Email for a sign-in link or code", "Email for your passkey"]);

    const address = `narrow-${Date.now()}@example.com`;
    const form = formOf(page, "/auth/signin/nodemailer");
    await form.locator('input[name="email"]').fill(address);
    await Promise.all([page.waitForURL(/\/auth\/verify-request/), form.locator("button").click()]);
    await page.goto(`${demo.url}/dev/mail`);
    expect(await page.locator(".mail .to").first().textContent()).toBe(address);
    await page.screenshot({ path: join(artifacts, "dev-mail-375.png"), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, "/dev/mail: horizontal overflow").toBeLessThanOrEqual(0);
  });
});
