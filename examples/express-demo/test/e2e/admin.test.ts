/**
 * The demo's admin page in Debian's Chromium (playwright-core): the demo user, owner of the admin
 * tools, searches a user by address and bans them with a reason and an expiry; the banned user's
 * browser is signed out at once, and signing in again by e-mail is refused; unbanned, they sign in
 * again. A user who is no admin has no admin page, and a ban forced past the page is refused.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserSuiteRuns, launchChromium } from "../../../../packages/express/test/support/chromium.js";
import {
  type DemoProcess,
  forcePost,
  freshPage,
  signInAsDemoUser,
  signInByEmailCode,
  startDemoProcess,
  whoIsSignedIn,
} from "../support.js";

const runs = browserSuiteRuns("express-demo admin e2e");

let demo: DemoProcess;
let browser: Browser;
const contexts: BrowserContext[] = [];

describe.skipIf(!runs)("the demo's admin page in Chromium", () => {
  beforeAll(async () => {
    [demo, browser] = await Promise.all([startDemoProcess(), launchChromium()]);
  }, 60_000 * inject("timeScale"));

  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await demo?.stop();
  });

  it("the owner finds a user, bans them (signed out at once, sign-in refused), and unbans them; a non-admin cannot", async () => {
    const address = `user-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const user = await freshPage(browser, contexts);
    await signInByEmailCode(user, demo.url, address);
    const userId = JSON.parse((await user.textContent("#session")) ?? "null").user.id as string;

    // No admin: no link, no page, and a forced ban (with a valid CSRF token) is refused by Admin itself.
    expect(await user.locator("#admin-link").count()).toBe(0);
    expect((await user.goto(`${demo.url}/account/admin`))?.status()).toBe(403);
    await user.goto(`${demo.url}/account`);
    const owner = await freshPage(browser, contexts);
    await signInAsDemoUser(owner, demo.url);
    await owner.goto(`${demo.url}/account`);
    const ownerId = JSON.parse((await owner.textContent("#session")) ?? "null").user.id as string;
    expect(await forcePost(user, "/account/admin/ban", { userId: ownerId, reason: "coup", days: "0" })).toBe(403);
    expect(await whoIsSignedIn(owner, demo.url)).toContain("demo@example.com");

    // The owner: the link on the account page, a search by address.
    await owner.goto(`${demo.url}/account`);
    await Promise.all([owner.waitForURL(`${demo.url}/account/admin`), owner.click("#admin-link a")]);
    await owner.fill('#search input[name="q"]', address.slice(0, 13));
    await Promise.all([owner.waitForURL(/\/account\/admin\?q=/), owner.click("#search button")]);
    const row = owner.locator(`#users tr[data-email="${address}"]`);
    expect(await owner.locator("#users tr[data-email]").count()).toBe(1);
    expect(await row.locator(".state").textContent()).toBe("active");
    // Nobody bans themselves: their own row offers nothing, and forcing it is refused.
    await owner.fill('#search input[name="q"]', "demo@example.com");
    await Promise.all([owner.waitForURL(/q=demo%40example\.com/), owner.click("#search button")]);
    expect(await owner.locator('#users tr[data-email="demo@example.com"] form').count()).toBe(0);
    await owner.goto(`${demo.url}/account`); // a page with the CSRF token in its forms
    expect(await forcePost(owner, "/account/admin/ban", { userId: ownerId, reason: "oops", days: "1" })).toBe(409);
    // A length the form does not offer is refused, not turned into a ban for good.
    expect(await forcePost(owner, "/account/admin/ban", { userId, reason: "spam", days: "36500" })).toBe(400);

    await owner.goto(`${demo.url}/account/admin?q=${encodeURIComponent(address)}`);
    await row.locator('input[name="reason"]').fill("spam from this account");
    await row.locator('select[name="days"]').selectOption({ label: "for a week" });
    await Promise.all([owner.waitForURL(/notice=banned$/), row.locator("form.ban button").click()]);
    await owner.goto(`${demo.url}/account/admin?q=${encodeURIComponent(address)}`);
    const banned = (await row.locator(".state").textContent()) ?? "";
    expect(banned).toContain("banned until");
    expect(banned).toContain("spam from this account");
    const until = new Date(`${/until (\S+ \S+) UTC/.exec(banned)?.[1]?.replace(" ", "T")}Z`).getTime();
    expect(until - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);
    expect(until - Date.now()).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);

    // The banned user's browser is signed out at once; signing in again is refused.
    expect(await whoIsSignedIn(user, demo.url)).toBe("You are not signed in.");
    await signInByEmailCode(user, demo.url, address, /\/auth\/error\?error=AccessDenied/);
    expect(await whoIsSignedIn(user, demo.url)).toBe("You are not signed in.");

    // Unbanned: they sign in again.
    await Promise.all([owner.waitForURL(/notice=unbanned$/), row.locator("form.unban button").click()]);
    await owner.goto(`${demo.url}/account/admin?q=${encodeURIComponent(address)}`);
    expect(await row.locator(".state").textContent()).toBe("active");
    await signInByEmailCode(user, demo.url, address);
    expect(await whoIsSignedIn(user, demo.url)).toContain(address);
  });
});
