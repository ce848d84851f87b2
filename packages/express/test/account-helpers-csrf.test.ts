/**
 * The account helpers are safe to mount as the README shows them (issue 22, item 12). A form on
 * another site, or on a sibling sub-domain (same site, so `SameSite=Lax` does not stop it), posts
 * to the application's account routes with the victim's cookies: without a check inside the
 * helpers it signs her out of her devices or unlinks her accounts. `revokeSession`,
 * `revokeOtherSessions` and `unlinkAccount` check the double-submit CSRF token themselves
 * (`req.body.csrfToken` against the signed CSRF cookie), `requireCsrf` does it for routes of the
 * application's own (the second-factor forms), and `getCsrfToken` puts the token in its forms.
 */
import { randomBytes } from "node:crypto";
import type { AuthConfig } from "@latchkey/core";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import OIDC from "@latchkey/express/providers/generic-oidc";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ExpressAuth,
  getCsrfToken,
  listSessions,
  requireCsrf,
  revokeOtherSessions,
  revokeSession,
  unlinkAccount,
} from "../src/index.js";
import { Jar, listen } from "./helpers.js";

const SECRET = "account-helpers-csrf-test-secret-0123456789";
const store = createMemoryStore();
const signOuts: string[] = [];
const config: AuthConfig = {
  secret: SECRET,
  trustHost: true,
  adapter: MemoryAdapter(store),
  session: { strategy: "database" },
  providers: [
    OIDC({ id: "op", name: "OP", issuer: "https://op.example", clientId: "a", clientSecret: "a" }),
    OIDC({ id: "second", name: "Second", issuer: "https://second.example", clientId: "b", clientSecret: "b" }),
  ],
  events: { signOut: ({ reason }) => void signOuts.push(String(reason)) },
  logger: { error: () => {}, warn: () => {}, debug: () => {} },
};
let reached = 0;
let app: string;
let close: () => Promise<void>;

beforeAll(async () => {
  // The application's routes exactly as the README mounts them, with Express's own error handler.
  const application = express();
  application.use("/auth", ExpressAuth(config));
  application.use("/account", express.urlencoded({ extended: false }));
  application.get("/account", async (req, res) => {
    const csrfToken = await getCsrfToken(req, res, config);
    const sessions = (await listSessions(req, config)) ?? [];
    res.send(
      `<form method="post" action="/account/sessions/revoke-others"><input type="hidden" name="csrfToken" value="${csrfToken}"><button>Sign out other devices</button></form>${sessions.map((s) => `<i data-id="${s.id}" data-current="${s.current}"></i>`).join("")}`,
    );
  });
  application.post("/account/sessions/revoke", async (req, res) => {
    res.json({ revoked: await revokeSession(req, config, req.body.id) });
  });
  application.post("/account/sessions/revoke-others", async (req, res) => {
    res.json({ revoked: await revokeOtherSessions(req, config) });
  });
  application.post("/account/accounts/unlink", async (req, res) => {
    res.json(await unlinkAccount(req, config, { provider: req.body.provider, providerAccountId: req.body.id }));
  });
  application.use("/account/totp", requireCsrf(config));
  application.post("/account/totp/disable", (_req, res) => {
    reached++;
    res.json({ disabled: true });
  });
  ({ url: app, close } = await listen(application));
});
afterAll(() => close?.());
beforeEach(() => {
  signOuts.length = 0;
  reached = 0;
});

/** A user signed in on a laptop and a phone, with two linked accounts; the laptop's browser. */
async function victim() {
  const id = crypto.randomUUID();
  await config.adapter?.createUser?.({ id, email: `${id}@example.com`, emailVerified: null });
  for (const provider of ["op", "second"])
    await config.adapter?.linkAccount?.({ userId: id, provider, providerAccountId: id, type: "oidc" });
  const expires = new Date(Date.now() + 86_400_000);
  const laptopToken = randomBytes(32).toString("hex");
  const phoneToken = randomBytes(32).toString("hex");
  await config.adapter?.createSession?.({ sessionToken: laptopToken, userId: id, expires });
  await config.adapter?.createSession?.({ sessionToken: phoneToken, userId: id, expires });
  const laptop = new Jar();
  laptop.cookies.set("authjs.session-token", laptopToken);
  // She has visited her account page: her browser holds the signed CSRF cookie.
  const page = await (await laptop.fetch(`${app}/account`)).text();
  const csrfToken = /name="csrfToken" value="([0-9a-f]{64})"/.exec(page)?.[1] as string;
  const phoneId = /data-id="([^"]+)" data-current="false"/.exec(page)?.[1] as string;
  expect(csrfToken).toMatch(/^[0-9a-f]{64}$/);
  expect(phoneId).toMatch(/^[A-Za-z0-9_-]{32}$/);
  const state = () => ({
    sessions: [laptopToken, phoneToken].filter((t) => store.sessions.has(t)).length,
    accounts: [...store.accounts.values()].filter((a) => a.userId === id).length,
  });
  return { id, laptop, csrfToken, phoneId, phoneToken, state };
}

/** The attacker's own genuine token: from his own browser's visit (a pair that is not hers). */
async function attackersToken(): Promise<string> {
  const jar = new Jar();
  return ((await (await jar.fetch(`${app}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

describe("rule: the account helpers refuse a cross-site form; nothing is revoked or unlinked", () => {
  it("a form without the token, with the attacker's own token, her cookie's value, an empty or a query token: 403 on every route, and nothing changes", async () => {
    const v = await victim();
    const before = v.state();
    expect(before).toEqual({ sessions: 2, accounts: 2 });
    const cookieValue = decodeURIComponent(v.laptop.cookies.get("authjs.csrf-token") ?? "");
    const forged: Array<[string, Record<string, string>, string]> = [
      ["no token", {}, ""],
      ["the attacker's own token", { csrfToken: await attackersToken() }, ""],
      ["her CSRF cookie's value", { csrfToken: cookieValue }, ""],
      ["an empty token", { csrfToken: "" }, ""],
      ["the token in the query only", {}, `?csrfToken=${v.csrfToken}`],
    ];
    const routes: Array<[string, Record<string, string>]> = [
      ["/account/sessions/revoke-others", {}],
      ["/account/sessions/revoke", { id: v.phoneId }],
      ["/account/accounts/unlink", { provider: "second", id: v.id }],
    ];
    for (const [route, fields] of routes) {
      for (const [label, token, query] of forged) {
        // The browser sends her cookies with the attacker's form; the form's fields are his.
        const response = await v.laptop.fetch(`${app}${route}${query}`, {
          method: "POST",
          form: { ...fields, ...token },
          headers: { origin: "https://evil.example.com" },
        });
        expect(response.status, `${route}, ${label}`).toBe(403);
        expect(await response.text(), `${route}, ${label}`).toContain("CSRF token");
      }
    }
    expect(v.state()).toEqual(before);
    expect(signOuts).toEqual([]);
  });

  it("the application's own forms still work: the token the page gave revokes and unlinks", async () => {
    const v = await victim();
    const unlinked = await v.laptop.fetch(`${app}/account/accounts/unlink`, {
      form: { csrfToken: v.csrfToken, provider: "second", id: v.id },
    });
    expect(await unlinked.json()).toMatchObject({ unlinked: true });
    const one = await v.laptop.fetch(`${app}/account/sessions/revoke`, {
      form: { csrfToken: v.csrfToken, id: v.phoneId },
    });
    expect(await one.json()).toEqual({ revoked: true });
    expect(store.sessions.has(v.phoneToken)).toBe(false);
    const others = await v.laptop.fetch(`${app}/account/sessions/revoke-others`, { form: { csrfToken: v.csrfToken } });
    expect(await others.json()).toEqual({ revoked: 0 });
    expect(v.state()).toEqual({ sessions: 1, accounts: 1 });
    expect(signOuts).toEqual(["revoked"]);
  });

  it("a signed-out request still answers as signed out (nothing to protect), without a token", async () => {
    const response = await new Jar().fetch(`${app}/account/sessions/revoke-others`, { method: "POST", form: {} });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ revoked: null });
  });
});

describe("requireCsrf and getCsrfToken, for the application's own routes", () => {
  it("requireCsrf answers 403 JSON and never reaches the route without the page's token; with it the route runs", async () => {
    const v = await victim();
    const forms: Record<string, string>[] = [{ code: "123456" }, { code: "123456", csrfToken: await attackersToken() }];
    for (const form of forms) {
      const refused = await v.laptop.fetch(`${app}/account/totp/disable`, { form });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: "MissingCSRF" });
    }
    expect(reached).toBe(0);
    const allowed = await v.laptop.fetch(`${app}/account/totp/disable`, {
      form: { code: "123456", csrfToken: v.csrfToken },
    });
    expect(await allowed.json()).toEqual({ disabled: true });
    expect(reached).toBe(1);
  });

  it("getCsrfToken sets the signed cookie once and then gives the same token", async () => {
    const jar = new Jar();
    const first = await jar.fetch(`${app}/account`);
    expect(first.headers.getSetCookie().some((c) => c.startsWith("authjs.csrf-token="))).toBe(true);
    // attack: the page that sets the cookie is kept out of every cache (a CDN would hand the
    // cookie, and the token in the page, to the next visitor); the next one, with no cookie, is not touched.
    expect(first.headers.get("cache-control")).toBe("private, no-cache, no-store");
    const token = /value="([0-9a-f]{64})"/.exec(await first.text())?.[1];
    const second = await jar.fetch(`${app}/account`);
    expect(second.headers.getSetCookie()).toEqual([]);
    expect(second.headers.get("cache-control")).toBeNull();
    expect(/value="([0-9a-f]{64})"/.exec(await second.text())?.[1]).toBe(token);
    // The same token Latchkey's own pages and GET /auth/csrf give this browser.
    expect(((await (await jar.fetch(`${app}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken).toBe(token);
  });
});
