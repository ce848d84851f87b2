// Runs the built demo (`dist/server.js`, what `npm start` runs) as a child process on loopback,
// with its own data folder, and reads its URL from what it prints.
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect, inject } from "vitest";
import { type ServerProcess, startServerProcess } from "../../../test/support/server-process.js";

const expressServerJs = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "server.js");

export interface DemoProcess extends ServerProcess {
  dataDir: string;
}

/** A free port on 127.0.0.1 (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts the demo (the Express one, or the built `server.js` of another framework's demo); `env`
 * is added to a copy of this process's environment less the demo's own settings.
 */
export async function startDemoProcess(
  env: Record<string, string> = {},
  dataDir = mkdtempSync(join(tmpdir(), "latchkey-demo-")),
  serverJs = expressServerJs,
): Promise<DemoProcess> {
  const base = { ...process.env };
  for (const name of [
    "PORT",
    "HOST",
    "AUTH_SECRET",
    "AUTH_URL",
    "DATABASE_URL",
    "REDIS_URL",
    "NODE_ENV",
    "EMAIL_SERVER",
    "DEMO_SESSIONS",
  ])
    delete base[name];
  for (const name of Object.keys(base)) if (/^AUTH_(GITHUB|GOOGLE)_/.test(name)) delete base[name];
  const demo = await startServerProcess([serverJs], {
    env: { ...base, PORT: "0", DEMO_DATA_DIR: dataDir, ...env },
    name: "the demo",
    timeoutMs: 20_000 * inject("timeScale"),
    ready: (output) => (output.includes("storage:") ? /Latchkey demo on (http:\/\/\S+)/.exec(output)?.[1] : undefined),
  });
  return { ...demo, dataDir };
}

/** The sign-in form of a provider on the built-in page (several forms share `#submitButton`). */
export const formOf = (page: Page, action: string) => page.locator(`form[action$="${action}"]`);

/** What the demo's home page at `url` says about who is signed in. */
export async function whoIsSignedIn(page: Page, url: string): Promise<string> {
  await page.goto(`${url}/`);
  return (await page.textContent("#who"))?.replace(/\s+/g, " ").trim() ?? "";
}

/** Signs out through the demo's link and the built-in sign-out page. */
export async function signOut(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await Promise.all([page.waitForURL(/\/auth\/signout/), page.getByRole("link", { name: "Sign out" }).first().click()]);
  await Promise.all([page.waitForURL(`${url}/`), page.click('form[action$="/auth/signout"] button')]);
  expect(await whoIsSignedIn(page, url)).toBe("You are not signed in.");
}

/** Signs the seeded demo user in with the password, on the built-in page; resolves on the home page. */
export async function signInAsDemoUser(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/auth/signin`);
  const form = formOf(page, "/auth/callback/credentials");
  await form.locator('input[name="email"]').fill("demo@example.com");
  await form.locator('input[name="password"]').fill("demo-password");
  await Promise.all([page.waitForURL(`${url}/`), form.locator("button").click()]);
}

/** The messages to `to` on the /dev/mail page open in `page` whose text has `subject`, newest first. */
export function mailsTo(page: Page, to: string, subject: string) {
  return page.locator("li.mail", { has: page.locator(".to", { hasText: to }) }).filter({ hasText: subject });
}

/**
 * Signs `address` in with the e-mailed code (which proves the address), read from /dev/mail in a
 * second tab; resolves once the browser is on `landing` (the account page when signed in).
 */
export async function signInByEmailCode(
  page: Page,
  url: string,
  address: string,
  landing: string | RegExp = `${url}/account`,
): Promise<void> {
  await page.goto(`${url}/auth/signin?callbackUrl=%2Faccount`);
  const form = formOf(page, "/auth/signin/nodemailer");
  await form.locator('input[name="email"]').fill(address);
  await Promise.all([page.waitForURL(/\/auth\/verify-request/), form.locator("button").click()]);
  const mailbox = await page.context().newPage();
  await mailbox.goto(`${url}/dev/mail`);
  const code = (await mailsTo(mailbox, address, "Sign in").first().locator("code.code").textContent()) ?? "";
  await mailbox.close();
  const codeForm = page.locator('form.email-code[action$="/auth/callback/nodemailer"]');
  await codeForm.locator('input[name="code"]').fill(code);
  await Promise.all([page.waitForURL(landing), codeForm.locator("button").click()]);
}

/**
 * Posts `fields` with the CSRF token of the page's first form to `action`, with fetch from the
 * page (what a person could forge from the console, past what the page offers); resolves to the status.
 */
export function forcePost(page: Page, action: string, fields: Record<string, string>): Promise<number> {
  return page.evaluate(
    async ({ action, fields }) => {
      const csrfToken = (document.querySelector('input[name="csrfToken"]') as HTMLInputElement).value;
      const answer = await fetch(action, { method: "POST", body: new URLSearchParams({ ...fields, csrfToken }) });
      return answer.status;
    },
    { action, fields },
  );
}

/**
 * A new page in a fresh context of `browser` (no cookies shared with other tests), added to
 * `contexts` for the suite to close; a step that hangs fails with its name within the test's time.
 */
export async function freshPage(browser: Browser, contexts: BrowserContext[]): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  context.setDefaultTimeout(10_000);
  return context.newPage();
}
