/**
 * `requireAuth(config, { factors: 2 })` and `{ amr }` over Express, with the TOTP second factor
 * (memory adapter, JWT sessions): a user with an active factor gets no session from the password
 * alone (a pending cookie instead), a user without one gets a one-factor session that such routes
 * refuse (403 JSON, or a redirect to `factorPage` for a browser), and password then code opens them.
 * The codes are computed here from the enrolment's secret (RFC 6238 on node:crypto).
 */
import type { AuthConfig } from "@latchkey/core";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import Credentials from "@latchkey/core/providers/credentials";
import TOTP from "@latchkey/core/providers/totp";
import { confirmTotpEnrolment, startTotpEnrolment } from "@latchkey/core/second-factor";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExpressAuth, requireAuth } from "../src/index.js";
import { Jar, listen, totpAt } from "./helpers.js";

const users: Record<string, { id: string; password: string; email: string }> = {
  ada: { id: "u-ada", password: "lovelace", email: "ada@example.com" },
  bob: { id: "u-bob", password: "builder", email: "bob@example.com" },
};

const config = {
  secret: "require-auth-factors-secret-0123456789abcdef",
  logger: { error() {}, warn() {}, debug() {} },
  adapter: MemoryAdapter(createMemoryStore()),
  session: { strategy: "jwt" },
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize: (c) => {
        const user = users[String(c.username)];
        return user && user.password === c.password ? { id: user.id, email: user.email } : null;
      },
    }),
    TOTP({ issuer: "Factors Test" }),
  ],
  callbacks: {
    session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub as string } }),
  },
} satisfies AuthConfig;

const stepNow = () => Math.floor(Date.now() / 30_000);

let url: string;
let close: () => Promise<void>;
let adaSecret: string;
let adaBackupCodes: string[];

beforeAll(async () => {
  const app = express();
  app.use("/auth", ExpressAuth(config));
  app.get("/any", requireAuth(config), (_req, res) => void res.json({ route: "any" }));
  app.get("/transfer", requireAuth(config, { factors: 2, factorPage: "/account/security" }), (_req, res) => {
    res.json({ route: "transfer", user: res.locals.session.user.id });
  });
  app.get("/otp-only", requireAuth(config, { amr: ["otp"] }), (_req, res) => void res.json({ route: "otp" }));
  app.get("/pwd-and-otp", requireAuth(config, { factors: 2, amr: ["pwd", "otp"] }), (_req, res) => {
    res.json({ route: "pwd-and-otp" });
  });
  ({ url, close } = await listen(app));

  // Ada enrols: the secret is confirmed with the code of the current step (which is then used).
  const enrolment = await startTotpEnrolment(config, { id: "u-ada", label: "ada@example.com" });
  const confirmed = await confirmTotpEnrolment(config, "u-ada", totpAt(enrolment.secret, stepNow()));
  if (!confirmed.ok) throw new Error(`enrolment refused: ${confirmed.reason}`);
  adaSecret = enrolment.secret;
  adaBackupCodes = confirmed.backupCodes;
});
afterAll(() => close());

async function csrf(jar: Jar): Promise<string> {
  return ((await (await jar.fetch(`${url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

async function password(name: string, jar = new Jar()) {
  const user = users[name] as { password: string };
  const response = await jar.fetch(`${url}/auth/callback/credentials`, {
    form: { csrfToken: await csrf(jar), username: name, password: user.password },
  });
  return { jar, response };
}

async function code(jar: Jar, value: string): Promise<Response> {
  return jar.fetch(`${url}/auth/callback/totp`, { form: { csrfToken: await csrf(jar), code: value } });
}

const hasSession = (jar: Jar) => [...jar.cookies.keys()].some((name) => name.startsWith("authjs.session-token"));

async function status(jar: Jar, path: string, accept = "application/json") {
  const response = await jar.fetch(`${url}${path}`, { headers: { accept } });
  const body = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
  return { status: response.status, location: response.headers.get("location"), body };
}

describe("requireAuth with factors and amr", () => {
  it("never issues a session for the password alone of a user with TOTP: a pending cookie, and every guarded route refuses", async () => {
    const { jar, response } = await password("ada");
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location") as string, url).pathname).toBe("/auth/callback/totp");
    expect(hasSession(jar)).toBe(false);
    expect(jar.cookies.has("latchkey.second-factor")).toBe(true);
    for (const path of ["/any", "/transfer", "/otp-only"]) {
      expect(await status(jar, path)).toMatchObject({ status: 401, body: { error: "SessionRequired" } });
    }
    expect(await (await jar.fetch(`${url}/auth/session`)).json()).toBeNull();
  });

  it("gives a user without TOTP a one-factor session that factors: 2 and amr routes refuse (403 JSON, or factorPage for a browser)", async () => {
    const { jar } = await password("bob");
    expect(hasSession(jar)).toBe(true);
    expect(await status(jar, "/any")).toEqual({ status: 200, location: null, body: { route: "any" } });
    for (const path of ["/transfer", "/otp-only", "/pwd-and-otp"]) {
      const refused = await status(jar, path);
      expect(refused).toMatchObject({
        status: 403,
        body: { error: "SecondFactorRequired", message: expect.any(String) },
      });
    }
    const browser = await status(jar, "/transfer?amount=10", "text/html,application/xhtml+xml");
    expect(browser.status).toBe(302);
    const location = new URL(browser.location as string, url);
    expect(location.pathname).toBe("/account/security");
    expect(location.searchParams.get("callbackUrl")).toBe("/transfer?amount=10");
    // Without a factorPage a browser gets the same 403 (there is nowhere useful to send it).
    expect((await status(jar, "/otp-only", "text/html")).status).toBe(403);
  });

  it("opens factors: 2 and amr routes after password then code, and refuses a replayed and a wrong code", async () => {
    const { jar } = await password("ada");
    const wrong = String((Number(totpAt(adaSecret, stepNow())) + 1) % 1_000_000).padStart(6, "0");
    const refused = await code(jar, wrong);
    expect(refused.headers.get("location")).toContain("error=CredentialsSignin");
    expect(hasSession(jar)).toBe(false);
    // The step after the one the enrolment used: accepted within one step of drift.
    const fresh = totpAt(adaSecret, stepNow() + 1);
    const accepted = await code(jar, fresh);
    expect(accepted.status).toBe(302);
    expect(hasSession(jar)).toBe(true);
    expect(jar.cookies.has("latchkey.second-factor")).toBe(false);
    expect(await status(jar, "/transfer")).toEqual({
      status: 200,
      location: null,
      body: { route: "transfer", user: "u-ada" },
    });
    expect((await status(jar, "/transfer", "text/html")).status).toBe(200);
    expect((await status(jar, "/otp-only")).body).toEqual({ route: "otp" });
    expect((await status(jar, "/pwd-and-otp")).body).toEqual({ route: "pwd-and-otp" });

    // The same code on a new password sign-in is a replay: refused, no session.
    const again = await password("ada");
    const replay = await code(again.jar, fresh);
    expect(replay.headers.get("location")).toContain("error=CredentialsSignin");
    expect(hasSession(again.jar)).toBe(false);
    expect((await status(again.jar, "/transfer")).status).toBe(401);
  });

  it("counts a backup code as the second factor, once", async () => {
    const backup = adaBackupCodes[0] as string;
    const first = await password("ada");
    await code(first.jar, backup);
    expect(hasSession(first.jar)).toBe(true);
    expect((await status(first.jar, "/transfer")).status).toBe(200);

    const second = await password("ada");
    const reused = await code(second.jar, backup);
    expect(reused.headers.get("location")).toContain("error=CredentialsSignin");
    expect(hasSession(second.jar)).toBe(false);
  });

  it("refuses a forged session cookie and a copied pending cookie alike", async () => {
    const { jar } = await password("ada");
    const pending = jar.cookies.get("latchkey.second-factor") as string;
    const forged = new Jar();
    forged.cookies.set("authjs.session-token", pending);
    expect((await status(forged, "/transfer")).status).toBe(401);
  });

  it("rejects a factors option that is not an integer >= 1 when the middleware is made", () => {
    expect(() => requireAuth(config, { factors: 0 })).toThrow(/factors/);
    expect(() => requireAuth(config, { factors: 1.5 })).toThrow(/factors/);
  });
});
