/**
 * `requireAuth` as Express users write it: on a route and on a router, browsers sent to sign in
 * and back, API clients answered 401, and the session typed for the handlers after it.
 */
import type { AuthConfig } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import express from "express";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { ExpressAuth, getSession, requireAuth } from "../src/index.js";
import { Jar, listen } from "./helpers.js";

const config = {
  secret: "require-auth-secret-0123456789abcdefghij",
  logger: { error() {}, warn() {}, debug() {} },
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize: (c) => (c.username === "ada" && c.password === "lovelace" ? { id: "u1", name: "Ada" } : null),
    }),
  ],
  callbacks: {
    session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub as string } }),
  },
} satisfies AuthConfig;

let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const app = express();
  app.use("/auth", ExpressAuth(config));
  app.get("/account", requireAuth(config), (_req, res) => {
    expectTypeOf(res.locals.session.user.id).toEqualTypeOf<string>();
    res.json({ id: res.locals.session.user.id });
  });
  const admin = express.Router();
  admin.get("/stats", (_req, res) => void res.json({ ok: true }));
  app.use("/admin", requireAuth(config, { signInPage: "/login?from=admin" }));
  app.use("/admin", admin);
  app.get("/me", async (req, res) => {
    const session = await getSession(req, config);
    // the application's own session shape, from its session callback
    expectTypeOf(session?.user.id).toEqualTypeOf<string | undefined>();
    // @ts-expect-error a session that may be null cannot be read without a check
    session.user;
    res.json(session);
  });
  ({ url, close } = await listen(app));
});
afterAll(() => close());

async function signedIn(): Promise<Jar> {
  const jar = new Jar();
  const { csrfToken } = (await (await jar.fetch(`${url}/auth/csrf`)).json()) as { csrfToken: string };
  await jar.fetch(`${url}/auth/callback/credentials`, { form: { csrfToken, username: "ada", password: "lovelace" } });
  return jar;
}

describe("requireAuth", () => {
  it("sends a browser without a session to the sign-in page with the URL it wanted as callbackUrl", async () => {
    const response = await fetch(`${url}/account?tab=devices`, {
      headers: { accept: "text/html" },
      redirect: "manual",
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") as string, url);
    expect(location.pathname).toBe("/auth/signin");
    expect(location.searchParams.get("callbackUrl")).toBe("/account?tab=devices");
  });
  it("answers 401 JSON to a client that does not ask for HTML, and never runs the handler", async () => {
    for (const accept of ["application/json", "*/*", ""]) {
      const response = await fetch(`${url}/account`, { headers: { accept }, redirect: "manual" });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: "SessionRequired", message: expect.any(String) });
    }
  });
  it("refuses a forged or foreign session cookie like no cookie at all", async () => {
    const response = await fetch(`${url}/account`, {
      headers: { accept: "application/json", cookie: "authjs.session-token=forged.token.value" },
    });
    expect(response.status).toBe(401);
  });
  it("lets a signed-in user through with the session (the application's own shape) on res.locals", async () => {
    const jar = await signedIn();
    const response = await jar.fetch(`${url}/account`);
    expect(await response.json()).toEqual({ id: "u1" });
    expect(await (await jar.fetch(`${url}/me`)).json()).toMatchObject({ user: { id: "u1", name: "Ada" } });
  });
  it("guards a whole router, with a custom sign-in page that already has a query", async () => {
    const anonymous = await fetch(`${url}/admin/stats`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(anonymous.headers.get("location")).toBe("/login?from=admin&callbackUrl=%2Fadmin%2Fstats");
    const jar = await signedIn();
    expect(await (await jar.fetch(`${url}/admin/stats`)).json()).toEqual({ ok: true });
  });
});
