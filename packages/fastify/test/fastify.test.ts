/**
 * `@latchkey/fastify` as a Fastify application writes it: `register(latchkey, { prefix, ...config })`,
 * `getSession(request)`, the `requireAuth()` preHandler and `request.session`; forms parsed by
 * Fastify (the plugin's parser or the application's own, once), Fastify's body limit, Latchkey's
 * log lines on `fastify.log`; and what an attacker sends.
 */
import { Writable } from "node:stream";
import type { AuthConfig } from "@latchkey/core";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adaCredentials, Jar, signIn } from "../../../test/frameworks/http.js";
import latchkey, { getSession } from "../src/index.js";

const config = {
  secret: "fastify-test-secret-0123456789abcdefghijk",
  providers: [adaCredentials()],
} satisfies AuthConfig;

/** Every line the application's pino logger wrote, parsed. */
const lines: Array<Record<string, unknown>> = [];
const apps: FastifyInstance[] = [];

async function start(build: (app: FastifyInstance) => Promise<void> | void): Promise<string> {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({ logger: { level: "debug", stream } });
  apps.push(app);
  await build(app);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address() as { port: number };
  return `http://localhost:${address.port}`;
}

let url: string;
let parsedByApp = 0;
let appUrl: string;
beforeAll(async () => {
  url = await start(async (app) => {
    await app.register(latchkey, { prefix: "/auth", ...config, debug: true });
    app.get("/me", async (request) => (await getSession(request)) ?? { signedOut: true });
    app.get("/account", { preHandler: app.requireAuth() }, async (request) => ({ name: request.session.user?.name }));
  });
  // An application with its own form parser and the plugin under /api/auth.
  appUrl = await start(async (app) => {
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => {
      parsedByApp++;
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    await app.register(latchkey, { prefix: "/api/auth", ...config });
    app.get("/account", { preHandler: app.requireAuth() }, async (request) => ({ name: request.session.user?.name }));
  });
});
afterAll(() => Promise.all(apps.map((app) => app.close())));

describe("the plugin", () => {
  it("signs in with credentials under its prefix; getSession and requireAuth read the session", async () => {
    const jar = new Jar();
    const response = await signIn(jar, `${url}/auth`);
    expect(response.status).toBe(302);
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true);
    expect(await (await jar.fetch(`${url}/me`)).json()).toMatchObject({ user: { name: "Ada" } });
    expect(await (await jar.fetch(`${url}/account`)).json()).toEqual({ name: "Ada" });
    expect(await (await fetch(`${url}/me`)).json()).toEqual({ signedOut: true });
  });

  it("a wrong password redirects with CredentialsSignin and sets no session", async () => {
    const jar = new Jar();
    const response = await signIn(jar, `${url}/auth`, "ada", "babbage");
    expect(response.headers.get("location")).toMatch(/\/auth\/signin\?error=CredentialsSignin/);
    expect(await (await jar.fetch(`${url}/me`)).json()).toEqual({ signedOut: true });
  });

  it("requireAuth sends a browser to sign in with its URL, answers an API client 401", async () => {
    const browser = await fetch(`${url}/account?tab=1`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Faccount%3Ftab%3D1");
    const api = await fetch(`${url}/account`, { headers: { accept: "application/json" } });
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: "SessionRequired" });
  });

  it("under another prefix: the prefix is the base path, and the application's own form parser reads the form once", async () => {
    const before = parsedByApp;
    const jar = new Jar();
    const page = await (await jar.fetch(`${appUrl}/api/auth/signin`)).text();
    expect(page).toContain(`action="${appUrl}/api/auth/callback/credentials"`);
    expect((await signIn(jar, `${appUrl}/api/auth`)).status).toBe(302);
    expect(parsedByApp).toBe(before + 1);
    expect(await (await jar.fetch(`${appUrl}/account`)).json()).toEqual({ name: "Ada" });
    const browser = await fetch(`${appUrl}/account`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(browser.headers.get("location")).toBe("/api/auth/signin?callbackUrl=%2Faccount");
  });

  it("registered inside a plugin with its own prefix, the two prefixes join into the base path", async () => {
    const nested = await start(async (app) => {
      await app.register(
        async (v1) => {
          await v1.register(latchkey, { prefix: "/auth", ...config });
          v1.get("/account", { preHandler: v1.requireAuth() }, async (request) => ({
            name: request.session.user?.name,
          }));
        },
        { prefix: "/v1" },
      );
    });
    const jar = new Jar();
    expect(await (await jar.fetch(`${nested}/v1/auth/signin`)).text()).toContain(
      `action="${nested}/v1/auth/callback/credentials"`,
    );
    expect((await signIn(jar, `${nested}/v1/auth`)).status).toBe(302);
    expect(await (await jar.fetch(`${nested}/v1/account`)).json()).toEqual({ name: "Ada" });
    const browser = await fetch(`${nested}/v1/account`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(browser.headers.get("location")).toBe("/v1/auth/signin?callbackUrl=%2Fv1%2Faccount");
  });

  it("getSession outside the plugin's context names the fix", async () => {
    const bare = await start((app) => {
      app.get("/me", async (request) => getSession(request));
    });
    const response = await fetch(`${bare}/me`);
    expect(response.status).toBe(500);
    expect((await response.json()).message).toContain("register the plugin first");
  });

  it("logs through fastify.log: an authorize() failure as an error record, warnings with their code", async () => {
    const jar = new Jar();
    const response = await signIn(jar, `${url}/auth`, "crash", "x");
    expect(response.headers.get("location")).toMatch(/error=/);
    const error = lines.find((l) => l.level === 50 && l.type === "CallbackRouteError");
    expect(error).toMatchObject({ err: { message: "The credentials provider's authorize() threw" } });
    expect(error?.causes).toEqual([expect.objectContaining({ message: "the user store is down" })]);
    expect(lines.find((l) => l.level === 40 && l.code === "debug-enabled")).toMatchObject({
      msg: expect.stringContaining("Debug logging is on"),
    });
  });
});

describe("what an attacker sends", () => {
  it("a JSON body that is no object, and a body of another type, get a 4xx, never a 500", async () => {
    for (const [type, body] of [
      ["application/json", "null"],
      ["application/json", "[1]"],
      ["application/json", "{"],
      ["text/plain", "csrfToken=x"],
    ]) {
      const response = await fetch(`${url}/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": type as string },
        body,
        redirect: "manual",
      });
      expect(response.status, `${type} ${body}`).toBeGreaterThanOrEqual(300);
      expect(response.status, `${type} ${body}`).toBeLessThan(500);
    }
  });

  it("the configuration's clientAddress is honoured (as in every shell); without it, Fastify's request.ip", async () => {
    const seen: Array<string | undefined> = [];
    const audit = { audit: (event: { clientAddress?: string }) => void seen.push(event.clientAddress) };
    const withOption = await start(async (app) => {
      await app.register(latchkey, {
        ...config,
        events: audit,
        clientAddress: (request: Request) => request.headers.get("x-contract-client"),
      });
    });
    const without = await start(async (app) => {
      await app.register(latchkey, { ...config, events: audit });
    });
    await signIn(new Jar(), `${withOption}/auth`, "ada", "wrong", { "x-contract-client": "203.0.113.77" });
    expect(seen.at(-1)).toBe("203.0.113.77");
    await signIn(new Jar(), `${without}/auth`, "ada", "wrong", { "x-contract-client": "203.0.113.77" });
    expect(seen.at(-1)).toMatch(/127\.0\.0\.1$/);
  });
});
