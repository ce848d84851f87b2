/**
 * `@latchkey/hono` on `@hono/node-server` as a Hono application writes it: the actions under
 * `/auth/*`, `getSession`, `session()` and `requireAuth`, bodies Hono already read, and what an
 * attacker sends (oversized and repeated fields, hostile hosts, many sign-ins at once).
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { AuthConfig } from "@latchkey/core";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { adaCredentials, Jar, signIn } from "../../../test/frameworks/http.js";
import { getSession, HonoAuth, requireAuth, session } from "../src/index.js";

const errors: Error[] = [];
const config = {
  secret: "hono-test-secret-0123456789abcdefghijklmn",
  logger: { error: (e: Error) => void errors.push(e), warn() {}, debug() {} },
  providers: [adaCredentials()],
  callbacks: {
    session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub as string } }),
  },
} satisfies AuthConfig;

let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const app = new Hono();
  // An application middleware that reads every form first (as a validator would).
  app.use("/auth/callback/*", async (c, next) => {
    if (c.req.header("x-read-first")) c.set("form" as never, (await c.req.parseBody()) as never);
    await next();
  });
  app.use("/auth/*", HonoAuth(config));
  app.get("/account", requireAuth(config), (c) => {
    expectTypeOf(c.get("session").user.id).toEqualTypeOf<string>();
    return c.json({ id: c.get("session").user.id });
  });
  app.get("/me", async (c) => c.json(await getSession(c, config)));
  app.get("/who", session(config), (c) => c.text(c.get("session")?.user.name ?? "nobody"));
  const api = new Hono();
  const apiConfig = { ...config };
  api.use("/auth/*", HonoAuth(apiConfig));
  api.get("/account", requireAuth(apiConfig), (c) => c.json({ id: c.get("session").user.id }));
  app.route("/api", api);
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://localhost:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

describe("HonoAuth", () => {
  it("signs in with credentials: a form post under /auth/*, the session cookie, getSession and session() read it", async () => {
    const jar = new Jar();
    const response = await signIn(jar, `${url}/auth`);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(url);
    expect(await (await jar.fetch(`${url}/me`)).json()).toMatchObject({ user: { id: "u1", name: "Ada" } });
    expect(await (await jar.fetch(`${url}/who`)).text()).toBe("Ada");
    expect(await (await fetch(`${url}/who`)).text()).toBe("nobody");
  });

  it("a wrong password redirects with CredentialsSignin and sets no session", async () => {
    const jar = new Jar();
    const response = await signIn(jar, `${url}/auth`, "ada", "babbage");
    expect(response.headers.get("location")).toMatch(/\/auth\/signin\?error=CredentialsSignin/);
    expect(await (await jar.fetch(`${url}/me`)).json()).toBeNull();
  });

  it("uses a form an earlier middleware already read (Hono's body cache), never reading the stream twice", async () => {
    errors.length = 0;
    const jar = new Jar();
    const response = await signIn(jar, `${url}/auth`, "ada", "lovelace", { "x-read-first": "1" });
    expect(response.status).toBe(302);
    expect(await (await jar.fetch(`${url}/me`)).json()).toMatchObject({ user: { name: "Ada" } });
    expect(errors.map(String)).toEqual([]);
  });

  it("takes the route's prefix as the base path when mounted under app.route('/api', ...)", async () => {
    const jar = new Jar();
    const page = await jar.fetch(`${url}/api/auth/signin`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`action="${url}/api/auth/callback/credentials"`);
    expect((await signIn(jar, `${url}/api/auth`)).status).toBe(302);
  });
});

describe("requireAuth", () => {
  it("sends a browser to sign in with the URL it wanted, answers an API client 401, lets a session through", async () => {
    const browser = await fetch(`${url}/account?tab=1`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Faccount%3Ftab%3D1");
    const api = await fetch(`${url}/account`, { headers: { accept: "application/json" } });
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: "SessionRequired" });
    const jar = new Jar();
    await signIn(jar, `${url}/auth`);
    expect(await (await jar.fetch(`${url}/account`)).json()).toEqual({ id: "u1" });
  });

  it("finds a mount other than the default: under app.route('/api', ...), a browser is sent to /api/auth/signin", async () => {
    expect((await fetch(`${url}/api/auth/csrf`)).status).toBe(200); // the handler has served once
    const browser = await fetch(`${url}/api/account`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe("/api/auth/signin?callbackUrl=%2Fapi%2Faccount");
    const jar = new Jar();
    await signIn(jar, `${url}/api/auth`);
    expect(await (await jar.fetch(`${url}/api/account`)).json()).toEqual({ id: "u1" });
  });
});

describe("what an attacker sends", () => {
  it("a hostile Host header gets a 4xx, never a 500", async () => {
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${url}/auth/session`, { headers: { host: "evil.example/../x" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once("error", reject);
      req.end();
    });
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
  });
});
