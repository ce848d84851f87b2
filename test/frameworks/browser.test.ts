/**
 * One browser suite for every framework: the flows of the Express demo's end-to-end tests
 * (password right and wrong, a protected route and back, the Demo IdP through the local OpenID
 * Provider, the magic link read from /dev/mail, sign-out) run in Debian's Chromium against each
 * framework's built demo. A new framework is one more row of `frameworks`: the path of its demo's
 * `server.js`, which serves `/`, `/protected`, `/account` and `/dev/mail` from
 * `@latchkey/express-demo/pages` on top of `startDemo`, and what must be built first (`build`, run
 * once per vitest run) and the path of a page signing in by a form action (`formAction`), if any.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  type DemoProcess,
  formOf,
  signOut,
  startDemoProcess,
  whoIsSignedIn,
} from "../../examples/express-demo/test/support.js";
import { browserSuiteRuns, launchChromium } from "../../packages/express/test/support/chromium.js";
import { buildSvelteKitDemo, svelteKitServer } from "./sveltekit-build.js";

const examples = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "examples");

interface Framework {
  name: string;
  server: string;
  build?: () => Promise<void>;
  formAction?: string;
}

/** The frameworks and their demos (each one's `npm start`). */
const frameworks: Framework[] = [
  { name: "Express", server: join(examples, "express-demo", "dist", "server.js") },
  { name: "Hono", server: join(examples, "hono-demo", "dist", "server.js") },
  { name: "Fastify", server: join(examples, "fastify-demo", "dist", "server.js") },
  { name: "SvelteKit", server: svelteKitServer, build: buildSvelteKitDemo, formAction: "/login" },
];

const runs = browserSuiteRuns("framework demos e2e");
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (runs) browser = await launchChromium();
});
afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
});

describe.skipIf(!runs).each(frameworks)("the $name demo in Chromium", ({ name, server, build, formAction }) => {
  let demo: DemoProcess;
  beforeAll(async () => {
    await build?.();
    demo = await startDemoProcess({}, undefined, server);
    expect(demo.output()).toContain(`framework: ${name}`);
  }, 180_000 * inject("timeScale"));
  afterAll(() => demo?.stop());

  async function freshPage(): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    context.setDefaultTimeout(10_000 * inject("timeScale"));
    return context.newPage();
  }

  it("password: protected route → sign-in (a wrong password refused) → back to it; sign-out closes it again", async () => {
    const page = await freshPage();
    await page.goto(`${demo.url}/protected`);
    expect(page.url()).toBe(`${demo.url}/auth/signin?callbackUrl=%2Fprotected`);
    const form = formOf(page, "/auth/callback/credentials");
    await form.locator('input[name="email"]').fill("demo@example.com");
    await form.locator('input[name="password"]').fill("wrong-password");
    await Promise.all([page.waitForURL(/error=CredentialsSignin/), form.locator("button").click()]);
    expect(await page.textContent('[role="alert"]')).toContain("Sign-in failed");
    expect(await whoIsSignedIn(page, demo.url)).toBe("You are not signed in.");

    await page.goto(`${demo.url}/protected`);
    await form.locator('input[name="email"]').fill("demo@example.com");
    await form.locator('input[name="password"]').fill("demo-password");
    await Promise.all([page.waitForURL(`${demo.url}/protected`), form.locator("button").click()]);
    expect(await page.textContent("#secret")).toBe("Only signed-in users see this, Demo User.");
    expect(await whoIsSignedIn(page, demo.url)).toBe("Signed in as Demo User (demo@example.com) with password.");

    await signOut(page, demo.url);
    await page.goto(`${demo.url}/protected`);
    expect(page.url()).toBe(`${demo.url}/auth/signin?callbackUrl=%2Fprotected`);
  });

  it("Demo IdP: the button, the local OpenID Provider's login page, back signed in", async () => {
    const page = await freshPage();
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
    await page.getByRole("button", { name: "Sign in with Demo IdP" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/interaction\//);
    await page.fill('input[name="login"]', "alice");
    await page.fill('input[name="password"]', "any password");
    await Promise.all([page.waitForURL(`${demo.url}/account`), page.click('button[type="submit"]')]);
    expect(JSON.parse((await page.textContent("#session")) ?? "null")).toMatchObject({
      user: { name: "alice", email: "alice@idp.example" },
      provider: "demo-idp",
    });
    expect(await whoIsSignedIn(page, demo.url)).toBe("Signed in as alice (alice@idp.example) with Demo IdP.");
    await signOut(page, demo.url);
  });

  it("magic link: the address on the built-in page, the link from /dev/mail signs in, once", async () => {
    const page = await freshPage();
    const address = `${name.toLowerCase()}-reader-${Date.now()}@example.com`;
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2Faccount`);
    const form = formOf(page, "/auth/signin/nodemailer");
    await form.locator('input[name="email"]').fill(address);
    await Promise.all([page.waitForURL(/\/auth\/verify-request/), form.locator("button").click()]);
    expect(await page.textContent("body")).toMatch(/check your (e-mail|email|inbox)/i);

    await page.goto(`${demo.url}/dev/mail`);
    const message = page.locator("li.mail", { has: page.locator(".to", { hasText: address }) });
    await expect.poll(() => message.count()).toBe(1);
    const link = message.locator('a[href*="/auth/callback/nodemailer"]');
    const href = (await link.getAttribute("href")) as string;
    await Promise.all([page.waitForURL(`${demo.url}/account`), link.click()]);
    expect(JSON.parse((await page.textContent("#session")) ?? "null")).toMatchObject({
      user: { email: address },
      provider: "nodemailer",
    });
    expect(await whoIsSignedIn(page, demo.url)).toBe(`Signed in as ${address} (${address}) with e-mail link or code.`);

    await signOut(page, demo.url);
    await page.goto(href);
    expect(page.url()).toMatch(/\/auth\/error\?error=Verification/);
    expect(await whoIsSignedIn(page, demo.url)).toBe("You are not signed in.");
  });

  it.runIf(formAction)(
    "a form action signs in: the wrong password's CredentialsSignin shown on the page, the right one redirected",
    async () => {
      const page = await freshPage();
      await page.goto(`${demo.url}${formAction}`);
      const form = formOf(page, "?/signin");
      await form.locator('input[name="email"]').fill("demo@example.com");
      await form.locator('input[name="password"]').fill("wrong-password");
      await Promise.all([page.waitForSelector("#action-error"), form.locator("button").click()]);
      expect(await page.textContent("#action-error")).toBe("CredentialsSignin (credentials)");
      expect(await whoIsSignedIn(page, demo.url)).toBe("You are not signed in.");

      await page.goto(`${demo.url}${formAction}`);
      await form.locator('input[name="email"]').fill("demo@example.com");
      await form.locator('input[name="password"]').fill("demo-password");
      await Promise.all([page.waitForURL(`${demo.url}/protected`), form.locator("button").click()]);
      expect(await page.textContent("#secret")).toBe("Only signed-in users see this, Demo User.");

      await page.goto(`${demo.url}${formAction}`);
      await Promise.all([
        page.waitForSelector("form[action='?/signin']"),
        formOf(page, "?/signout").locator("button").click(),
      ]);
      expect(await whoIsSignedIn(page, demo.url)).toBe("You are not signed in.");
    },
  );
});
