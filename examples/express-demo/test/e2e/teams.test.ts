/**
 * Organizations, members, invitations and API keys in the demo, in Debian's Chromium
 * (playwright-core), driven as people would: the demo user (owner of the seeded organization)
 * invites a second person by e-mail; the invitation's link, read from the development mail
 * catcher at /dev/mail, is accepted by that person signed in with the invited address; they switch
 * to the organization and see their role; as a member they see no invite form, and a forced post
 * is refused; the owner promotes them and they see it at once. An API key made in the browser
 * opens /api/organization with fetch, and stops opening it when revoked in the browser.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserSuiteRuns, launchChromium } from "../../../../packages/express/test/support/chromium.js";
import {
  type DemoProcess,
  forcePost,
  freshPage,
  mailsTo,
  signInAsDemoUser,
  signInByEmailCode,
  startDemoProcess,
} from "../support.js";

const runs = browserSuiteRuns("express-demo teams e2e");

let demo: DemoProcess;
let browser: Browser;
const contexts: BrowserContext[] = [];

/** The invitation link of the newest invitation e-mail to `address` on /dev/mail. */
async function invitationLink(page: Page, address: string): Promise<string> {
  await page.goto(`${demo.url}/dev/mail`);
  const mail = mailsTo(page, address, "You are invited to Demo Company").first();
  const links = await mail.locator("a").evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
  const link = links.find((href) => href.startsWith(`${demo.url}/account/invitations/accept?token=`));
  expect(link, `an invitation link to ${address} on /dev/mail`).toBeDefined();
  return link as string;
}

/** Switches to the organization `slug` on the account page (Latchkey's POST /auth/organization); resolves once the page says so. */
async function switchTo(page: Page, slug: string, name: string): Promise<string> {
  await page.goto(`${demo.url}/account`);
  await page.locator(`#organizations tr[data-slug="${slug}"] form.switch-organization button`).click();
  const active = page.locator("#active-organization", { hasText: name });
  await active.waitFor();
  return (await active.locator(".role").textContent()) ?? "";
}

describe.skipIf(!runs)("the demo's organizations, invitations and API keys in Chromium", () => {
  beforeAll(async () => {
    [demo, browser] = await Promise.all([startDemoProcess(), launchChromium()]);
  }, 60_000 * inject("timeScale"));

  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await demo?.stop();
  });

  it("the owner invites by e-mail; the invited person accepts with the mailed link, switches, sees their role; a member cannot invite", async () => {
    const owner = await freshPage(browser, contexts);
    await signInAsDemoUser(owner, demo.url);
    // The seeded organization: the demo user owns it from the first start.
    expect(await switchTo(owner, "demo-company", "Demo Company")).toBe("owner");
    const session = JSON.parse((await owner.textContent("#session")) ?? "null");
    expect(session.activeOrganization).toMatchObject({ role: "owner" });

    const invited = `teammate-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await owner.goto(`${demo.url}/account/members`);
    expect(await owner.textContent('#members tr[data-email="demo@example.com"] .role')).toBe("owner");
    await owner.fill('#invite input[name="email"]', invited);
    await owner.selectOption('#invite select[name="role"]', "member");
    await Promise.all([owner.waitForURL(/\/account\/members\?notice=invited$/), owner.click("#invite button")]);
    expect(await owner.textContent(`#invitations tr[data-email="${invited}"]`)).toContain("member");

    // The invited person signs in with the invited address (the e-mailed code proves it).
    const teammate = await freshPage(browser, contexts);
    await signInByEmailCode(teammate, demo.url, invited);
    expect(await teammate.locator("#organizations-note").count()).toBe(1);
    const link = await invitationLink(teammate, invited);
    // Opening the link uses nothing up (a mail scanner may open it); the button accepts.
    await teammate.goto(link);
    expect(await teammate.textContent("#accepting-as")).toBe(invited);
    await Promise.all([
      teammate.waitForURL(/\/account\?notice=joined$/),
      teammate.click("form.accept-invitation button"),
    ]);
    expect(await teammate.textContent(`#organizations tr[data-slug="demo-company"] .role`)).toBe("member");
    expect(await switchTo(teammate, "demo-company", "Demo Company")).toBe("member");

    // The link worked once.
    await teammate.goto(link);
    const reused = await Promise.all([
      teammate.waitForResponse(
        (r) => r.url().endsWith("/account/invitations/accept") && r.request().method() === "POST",
      ),
      teammate.click("form.accept-invitation button"),
    ]);
    expect(reused[0].status()).toBe(404);

    // The owner's pending list no longer has it; the member appears with their role.
    await owner.goto(`${demo.url}/account/members`);
    expect(await owner.locator(`#invitations tr[data-email="${invited}"]`).count()).toBe(0);
    expect(await owner.textContent(`#members tr[data-email="${invited}"] .role`)).toBe("member");

    // As a member: the members, their roles, no invite form, no role change or removal of others.
    await teammate.goto(`${demo.url}/account/members`);
    expect(await teammate.textContent("#my-role")).toContain("member");
    expect(await teammate.textContent('#members tr[data-email="demo@example.com"] .role')).toBe("owner");
    expect(await teammate.locator("#invite").count()).toBe(0);
    expect(await teammate.textContent("#invite-note")).toContain("does not invite");
    expect(await teammate.locator('#members tr[data-email="demo@example.com"] form').count()).toBe(0);
    // Forcing the invite form's post, with a valid CSRF token, is refused by Organizations itself.
    const forced = `forced-${crypto.randomUUID().slice(0, 8)}@example.com`;
    expect(await forcePost(teammate, "/account/members/invite", { email: forced, role: "member" })).toBe(403);
    expect(await forcePost(teammate, "/account/members/invite", { email: forced, role: "owner" })).toBe(403);
    expect(
      await forcePost(teammate, "/account/members/role", { userId: session.user.id, role: "member" }),
      "a member demoting the owner",
    ).toBe(403);
    // ...and so is a member making themselves an admin.
    await teammate.goto(`${demo.url}/account`);
    const teammateId = JSON.parse((await teammate.textContent("#session")) ?? "null").user.id;
    expect(await forcePost(teammate, "/account/members/role", { userId: teammateId, role: "admin" })).toBe(403);
    expect(await teammate.textContent("#active-organization .role")).toBe("member");
    await teammate.goto(`${demo.url}/dev/mail`);
    expect(await mailsTo(teammate, forced, "invited").count()).toBe(0);
    await owner.goto(`${demo.url}/account/members`);
    expect(await owner.locator(`#invitations tr[data-email="${forced}"]`).count()).toBe(0);
    // A member does not manage the organization's API keys.
    const keysPage = await teammate.goto(`${demo.url}/account/api-keys`);
    expect(keysPage?.status()).toBe(403);

    // The owner makes them an admin: their next page reads the new role from the store.
    const row = owner.locator(`#members tr[data-email="${invited}"]`);
    await row.locator('select[name="role"]').selectOption("admin");
    await Promise.all([owner.waitForURL(/notice=role-changed$/), row.locator("form.set-role button").click()]);
    await teammate.goto(`${demo.url}/account`);
    expect(await teammate.textContent("#active-organization .role")).toBe("admin");
    await teammate.goto(`${demo.url}/account/members`);
    expect(await teammate.locator("#invite").count()).toBe(1);
    // An admin grants no role above their own: owner is not offered, and forcing it is refused.
    expect(await teammate.locator('#invite select[name="role"] option').allTextContents()).toEqual(["admin", "member"]);
    expect(await forcePost(teammate, "/account/members/invite", { email: forced, role: "owner" })).toBe(403);
  });

  it("an invitation for another address is refused, and a revoked one no longer opens", async () => {
    const owner = await freshPage(browser, contexts);
    await signInAsDemoUser(owner, demo.url);
    await switchTo(owner, "demo-company", "Demo Company");
    const invited = `invitee-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await owner.goto(`${demo.url}/account/members`);
    await owner.fill('#invite input[name="email"]', invited);
    await Promise.all([owner.waitForURL(/notice=invited$/), owner.click("#invite button")]);

    // Someone else, signed in with their own proven address, holds the link: it does not open for them.
    const other = await freshPage(browser, contexts);
    const otherAddress = `other-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await signInByEmailCode(other, demo.url, otherAddress);
    const link = await invitationLink(other, invited);
    await other.goto(link);
    const [stolen] = await Promise.all([
      other.waitForResponse((r) => r.url().endsWith("/account/invitations/accept") && r.request().method() === "POST"),
      other.click("form.accept-invitation button"),
    ]);
    expect(stolen.status()).toBe(403);
    expect(await other.textContent("#refusal")).toContain("another e-mail address");

    // The owner revokes it; the invited person's link then opens nothing.
    await owner.goto(`${demo.url}/account/members`);
    await Promise.all([
      owner.waitForURL(/notice=invitation-revoked$/),
      owner.click(`#invitations tr[data-email="${invited}"] button`),
    ]);
    expect(await owner.locator(`#invitations tr[data-email="${invited}"]`).count()).toBe(0);
    const invitee = await freshPage(browser, contexts);
    await signInByEmailCode(invitee, demo.url, invited);
    await invitee.goto(link);
    const [revoked] = await Promise.all([
      invitee.waitForResponse(
        (r) => r.url().endsWith("/account/invitations/accept") && r.request().method() === "POST",
      ),
      invitee.click("form.accept-invitation button"),
    ]);
    expect(revoked.status()).toBe(404);
    await invitee.goto(`${demo.url}/account`);
    expect(await invitee.locator('#organizations tr[data-slug="demo-company"]').count()).toBe(0);
  });

  it("an API key made in the browser opens /api/organization with fetch, is listed with its last use, and stops at revocation", async () => {
    const owner = await freshPage(browser, contexts);
    await signInAsDemoUser(owner, demo.url);
    await switchTo(owner, "demo-company", "Demo Company");
    const api = (key: string) =>
      owner.evaluate(async (key) => {
        const answer = await fetch("/api/organization", { headers: { Authorization: `Bearer ${key}` } });
        return {
          status: answer.status,
          body: answer.headers.get("content-type")?.includes("json") ? await answer.json() : null,
        };
      }, key);

    await owner.goto(`${demo.url}/account/api-keys`);
    const name = `CI ${crypto.randomUUID().slice(0, 8)}`;
    await owner.fill('#create-api-key input[name="name"]', name);
    await owner.click("#create-api-key button");
    const key = ((await owner.locator("#new-key").textContent()) ?? "").trim();
    expect(key).toMatch(/^demo_[0-9a-f]{16}_\S+$/);
    const id = key.split("_")[1] as string;

    const used = await api(key);
    expect(used.status).toBe(200);
    expect(used.body).toMatchObject({
      organization: { slug: "demo-company" },
      key: { id, name, scopes: ["project:read"] },
    });
    // A key one character off opens nothing.
    expect((await api(`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`)).status).toBe(401);

    // Listed by its public part and scopes, never the key; its last use is written after the request.
    const row = owner.locator(`#api-keys tr[data-key="${id}"]`);
    await expect
      .poll(async () => {
        await owner.goto(`${demo.url}/account/api-keys`);
        return row.locator(".last-used").textContent();
      })
      .not.toBe("never");
    expect(await row.textContent()).toContain(`demo_${id}_`);
    expect(await row.textContent()).toContain("project:read");
    expect(await owner.content()).not.toContain(key);

    await Promise.all([owner.waitForURL(/notice=key-revoked$/), row.locator("button").click()]);
    expect(await row.locator(".state").textContent()).toContain("revoked");
    expect(await row.locator("button").count()).toBe(0);
    const after = await api(key);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ error: "invalid_token" });
  });
});
