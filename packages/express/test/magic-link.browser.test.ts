/**
 * A magic link signs in only the browser that asked for it, in Debian's Chromium (playwright-core,
 * never a downloaded browser): a page of another site sends a signed-in victim's browser to the
 * attacker's own link (a top-level cross-site GET that carries her cookies), and she must neither
 * be signed in as him nor spend his token. The honest flows beside it: the link opened in the
 * browser that asked for it signs in at once; opened in another browser it asks first.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import express from "express";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Jar, listen } from "./helpers.js";
import { browserSuiteRuns, launchChromium } from "./support/chromium.js";

const runs = browserSuiteRuns("magic-link.browser.test");

const mailed: Array<{ identifier: string; url: string }> = [];
const config: AuthConfig = {
  secret: "magic-link-browser-test-secret-0123456789abcdef",
  trustHost: true,
  adapter: MemoryAdapter(createMemoryStore()),
  logger: { error() {}, warn() {}, debug() {} },
  providers: [
    Nodemailer({
      server: "smtp://127.0.0.1:1",
      from: "Latchkey <no-reply@app.test>",
      sendVerificationRequest: async ({ identifier, url }) => void mailed.push({ identifier, url }),
    }),
  ],
};

let chromium: Browser;
let app: { url: string; close: () => Promise<void> };
let evil: { url: string; close: () => Promise<void> };
let attackersLink = "";

beforeAll(async () => {
  if (!runs) return;
  const application = express();
  application.use("/auth", ExpressAuth(config));
  application.get("/", (_req, res) => void res.send("<p>home</p>"));
  app = await listen(application, "localhost");
  // Another site (127.0.0.1 is not localhost's site): its page sends the visitor to a link.
  const attackerSite = express();
  attackerSite.get("/", (_req, res) => {
    res.send(`<p>cute cats</p><script>location.href = ${JSON.stringify(attackersLink)}</script>`);
  });
  evil = await listen(attackerSite, "127.0.0.1");
  chromium = await launchChromium();
});
afterAll(async () => {
  await chromium?.close();
  await app?.close();
  await evil?.close();
});

/** Asks for a sign-in link for `email` from `page` (its built-in sign-in page); returns the mailed link. */
async function askInPage(page: Page, email: string): Promise<string> {
  const before = mailed.length;
  await page.goto(`${app.url}/auth/signin?callbackUrl=${encodeURIComponent(`${app.url}/`)}`);
  await page.fill('input[name="email"]', email);
  await Promise.all([page.waitForURL(/verify-request/), page.locator('input[name="email"] ~ button').first().click()]);
  expect(mailed.length).toBe(before + 1);
  return mailed.at(-1)?.url as string;
}

async function whoIs(page: Page): Promise<string | null> {
  return page.evaluate(async () => {
    const session = await (await fetch("/auth/session")).json();
    return session?.user?.email ?? null;
  });
}

/** The attacker, in his own browser (not Chromium): asks for a link for his own address. */
async function attackerAsks(jar: Jar, email: string): Promise<string> {
  const before = mailed.length;
  const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
  await jar.fetch(`${app.url}/auth/signin/nodemailer`, {
    form: { csrfToken, email, callbackUrl: `${app.url}/auth/signin` },
  });
  expect(mailed.length).toBe(before + 1);
  return mailed.at(-1)?.url as string;
}

describe.skipIf(!runs)("rule: a magic link signs in only the browser that asked for it (Chromium)", () => {
  it("honest: the link opened in the browser that asked for it signs in at once", async () => {
    const context = await chromium.newContext();
    const page = await context.newPage();
    const link = await askInPage(page, "ada@example.com");
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await whoIs(page)).toBe("ada@example.com");
    await context.close();
  });

  it("attack: another site sends a signed-in victim to the attacker's own link: a confirmation page, she stays herself, his token unspent", async () => {
    const victim = await chromium.newContext();
    const page = await victim.newPage();
    await page.goto(await askInPage(page, "victim@example.com"));
    expect(await whoIs(page)).toBe("victim@example.com");

    const attacker = new Jar();
    attackersLink = await attackerAsks(attacker, "mallory@example.com");
    await page.goto(evil.url);
    await page.waitForURL((url) => url.pathname === "/auth/callback/nodemailer");
    await expect(page.locator("h1").textContent()).resolves.toBe("Sign in as mallory@example.com?");
    expect(await whoIs(page)).toBe("victim@example.com");

    // The link still works for the one who asked for it, in his browser: nothing was spent.
    const own = await attacker.fetch(attackersLink);
    expect(own.status).toBe(302);
    expect(own.headers.get("location")).toBe(`${app.url}/auth/signin`);
    await victim.close();
  });

  it("honest: opened in another browser, the link asks first, and its button signs in there", async () => {
    const laptop = await chromium.newContext();
    const link = await askInPage(await laptop.newPage(), "erin@example.com");
    const phone = await chromium.newContext();
    const page = await phone.newPage();
    await page.goto(link);
    await expect(page.locator("h1").textContent()).resolves.toBe("Sign in as erin@example.com?");
    await Promise.all([page.waitForURL(`${app.url}/`), page.getByRole("button", { name: /Sign in as/ }).click()]);
    expect(await whoIs(page)).toBe("erin@example.com");
    await laptop.close();
    await phone.close();
  });
});
