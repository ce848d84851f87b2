// A re-issued session cookie never rides on a cacheable response: the fixture app
// (packages/next/fixtures/app, test/fixture-app.ts) is built with `next build` and served by `next start`; its
// static and ISR pages (which Next.js serves with `s-maxage`) go through the proxy's auth(), which
// renews the session cookie on every read (`updateAge: 0`). A CDN honouring `s-maxage` would store
// that `Set-Cookie` and hand one user's session to every later visitor.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerProcess } from "../../../test/support/server-process.js";
import { startFixtureApp } from "./fixture-app.js";
import { Jar } from "./support.js";

let app: ServerProcess;
let jar: Jar;

beforeAll(async () => {
  app = await startFixtureApp();
  jar = new Jar();
  const csrf = await fetch(`${app.url}/api/auth/csrf`);
  jar.apply(csrf.headers.getSetCookie());
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signIn = await fetch(`${app.url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
    body: new URLSearchParams({ csrfToken, email: "ada@example.com", password: "right", callbackUrl: "/" }),
  });
  jar.apply(signIn.headers.getSetCookie());
  expect(jar.cookies.has("authjs.session-token")).toBe(true);
});

afterAll(async () => {
  await app?.stop();
});

/** The session cookies a response sets, and its Cache-Control. */
async function get(path: string, cookie?: string) {
  const res = await fetch(`${app.url}${path}`, { headers: cookie ? { cookie } : {} });
  await res.arrayBuffer();
  return {
    status: res.status,
    renewed: res.headers.getSetCookie().filter((c) => c.startsWith("authjs.session-token=")),
    cacheControl: res.headers.get("cache-control") ?? "",
  };
}

describe("a renewed session cookie on a cacheable page (next build + next start)", () => {
  it("attack: a static page through the proxy is not cacheable once it carries the renewed cookie", async () => {
    // Signed out, the page keeps Next.js's caching: the check below is about the cookie alone.
    const anonymous = await get("/");
    expect(anonymous.renewed).toEqual([]);
    expect(anonymous.cacheControl).toMatch(/s-maxage/);
    const signedIn = await get("/", jar.header());
    expect(signedIn.status).toBe(200);
    expect(signedIn.renewed).toHaveLength(1);
    expect(signedIn.cacheControl).toMatch(/\bprivate\b/);
    expect(signedIn.cacheControl).toMatch(/\bno-store\b/);
    expect(signedIn.cacheControl).not.toMatch(/s-maxage|public/);
  });

  it("attack: an ISR page (revalidate) through the proxy is not cacheable either", async () => {
    expect((await get("/isr")).cacheControl).toMatch(/s-maxage=60/);
    const signedIn = await get("/isr", jar.header());
    expect(signedIn.renewed).toHaveLength(1);
    expect(signedIn.cacheControl).toMatch(/\bno-store\b/);
    expect(signedIn.cacheControl).not.toMatch(/s-maxage|public/);
  });

  it("attack: a Route Handler wrapped by auth() and a Pages Router route that set public caching are not cacheable", async () => {
    for (const path of ["/api/me", "/api/pages-me"]) {
      const signedIn = await get(path, jar.header());
      expect(signedIn.renewed, path).toHaveLength(1);
      expect(signedIn.cacheControl, path).toMatch(/\bno-store\b/);
      expect(signedIn.cacheControl, path).not.toMatch(/s-maxage|public/);
    }
    // The Pages Router route's own caching stands when no cookie is set.
    expect((await get("/api/pages-me")).cacheControl).toMatch(/public, s-maxage=600/);
  });

  // Here the handler makes its own Response and Next.js adds the cookie store's cookies to it:
  // auth() has no say over its headers (README: set Cache-Control yourself, or use the wrapper).
  it("a Route Handler calling auth() is dynamic: its renewed cookie is not given a shared-cache lifetime", async () => {
    const signedIn = await get("/api/plain", jar.header());
    expect(signedIn.renewed).toHaveLength(1);
    expect(signedIn.cacheControl).not.toMatch(/s-maxage|public/);
  });
});

/** A GET with exactly these headers (a `Host` of its own included), as any client can send it. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; location: string }> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, headers }, (res) => {
      res.resume();
      res.once("end", () => resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? "") }));
    });
    req.once("error", reject);
    req.end();
  });
}

// The sign-in redirects of the proxy: the library's own (`callbacks.authorized` says no, /own)
// and one the application builds from `request.nextUrl` (/gated, as examples/next-demo's gate).
// Next.js builds the proxy's URL from its own host name and port, never from `Host` or
// `X-Forwarded-Host` (which it keeps as a client sent them), and makes a redirect to that host
// relative; the library's `callbackUrl` carries the path alone (AUTH_URL's origin when set).
describe("attack: a hostile Host or X-Forwarded-Host cannot point the proxy's redirects at another origin", () => {
  const hostile: Array<Record<string, string>> = [
    { host: "evil.example" },
    { host: "evil.example:443" },
    { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
    { forwarded: "host=evil.example;proto=https", "x-forwarded-host": "evil.example, app.example" },
  ];

  it.each(["/own", "/gated"])("%s: the sign-in redirect stays on this application", async (path) => {
    const control = await rawGet(path, {});
    expect(control.status).toBe(307);
    const target = new URL(control.location, app.url);
    expect(target.origin).toBe(app.url);
    expect(target.pathname).toBe("/api/auth/signin");
    expect(target.searchParams.get("callbackUrl")).toBe(path);
    for (const headers of hostile) {
      const out = await rawGet(path, headers);
      const label = JSON.stringify(headers);
      expect(out.status, label).toBe(307);
      expect(out.location, label).not.toMatch(/evil/);
      expect(new URL(out.location, app.url).origin, label).toBe(app.url);
      expect(new URL(out.location, app.url).searchParams.get("callbackUrl"), label).toBe(path);
    }
  });
});
