/**
 * Middleware on Next.js's Edge runtime as next-auth applications write it, on a real `next build`
 * and `next start` (edge-middleware-app.ts), driven over HTTP: the `authorized` callback sending
 * the signed-out to the sign-in page, the signed-in through with their cookie re-issued (and
 * never on a cacheable response), bad cookies turned away at the edge, `req.auth` in a wrapped
 * middleware (Next.js 15), and what `revocation: true` guarantees there: the Edge middleware is
 * a global of its own, so a sign-out through the Node.js route handler ends the session on the
 * server but not in the middleware, which then never re-issues it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ServerProcess } from "../../../test/support/server-process.js";
import { buildEdgeApp, type NextMajor, startEdgeApp } from "./edge-middleware-app.js";
import { Jar } from "./support.js";

const SESSION = "authjs.session-token";

/** A GET as a browser makes it (no redirect followed): status, body, renewed session cookies, Cache-Control. */
async function get(url: string, cookie?: string) {
  const res = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
  return {
    status: res.status,
    location: res.headers.get("location"),
    body: await res.text(),
    renewed: res.headers.getSetCookie().filter((c) => c.startsWith(`${SESSION}=`) && !/max-age=0/i.test(c)),
    cacheControl: res.headers.get("cache-control") ?? "",
  };
}

/** Signs Ada in through the Node.js route handler; the jar then holds her session cookie. */
async function signIn(url: string): Promise<Jar> {
  const jar = new Jar();
  const csrf = await fetch(`${url}/api/auth/csrf`);
  jar.apply(csrf.headers.getSetCookie());
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
    body: new URLSearchParams({ csrfToken, email: "ada@example.com", password: "right", callbackUrl: "/" }),
  });
  jar.apply(res.headers.getSetCookie());
  expect(jar.cookies.has(SESSION)).toBe(true);
  return jar;
}

async function signOut(url: string, jar: Jar): Promise<number> {
  const csrf = await fetch(`${url}/api/auth/csrf`, { headers: { cookie: jar.header() } });
  jar.apply(csrf.headers.getSetCookie());
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${url}/api/auth/signout`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
    body: new URLSearchParams({ csrfToken }),
  });
  jar.apply(res.headers.getSetCookie());
  return res.status;
}

/** Who the Node.js server finds signed in (auth() in a Route Handler). */
async function serverSees(url: string, cookie: string): Promise<string | null> {
  return ((await (await fetch(`${url}/api/whoami`, { headers: { cookie } })).json()) as { user: string | null }).user;
}

/**
 * The sign-in page the middleware redirected to, and the page it brings back to: on this server
 * (Next.js 15's `req.nextUrl` names it `localhost` where it listens on 127.0.0.1).
 */
function signInRedirect(url: string, location: string | null): { page: string; back: string } {
  const here = (target: URL) => {
    expect(target.port).toBe(new URL(url).port);
    expect(["127.0.0.1", "localhost"]).toContain(target.hostname);
  };
  const to = new URL(location ?? "", url);
  here(to);
  const back = new URL(to.searchParams.get("callbackUrl") ?? "", url);
  here(back);
  return { page: to.pathname, back: back.pathname + back.search };
}

export function edgeMiddlewareSuite(major: NextMajor): void {
  const form = major === 16 ? "`export { auth as middleware }`" : "`export default auth((req) => ...)`";
  const timeout = 600_000 * inject("timeScale");

  describe(`Next.js ${major}: middleware.ts on the Edge runtime (${form}, next build + next start)`, () => {
    let app: ServerProcess;
    beforeAll(async () => {
      app = await startEdgeApp(major);
    }, timeout);
    afterAll(() => app?.stop());

    it("is built for the Edge runtime: Next.js lists it in the Edge middleware manifest, bundled without node:crypto", async () => {
      const dir = await buildEdgeApp(major);
      const manifest = JSON.parse(readFileSync(join(dir, ".next", "server", "middleware-manifest.json"), "utf8")) as {
        middleware: Record<string, { files: string[] }>;
      };
      const files = manifest.middleware["/"]?.files ?? [];
      expect(files.length).toBeGreaterThan(0);
      // The core's Node.js platform (node:crypto) is not in it: Next.js chose the Web one (`edge-light`).
      const code = files.map((file) => readFileSync(join(dir, ".next", file), "utf8")).join("\n");
      expect(/["']node:crypto["']/.test(code)).toBe(false);
      expect(code.includes("latchkey")).toBe(true);
    });

    it("signed out: a protected page sends to the sign-in page (pages.signIn) with the way back; a public page is served", async () => {
      for (const path of ["/dashboard?tab=keys", "/members"]) {
        const res = await get(`${app.url}${path}`);
        expect(res.status, path).toBe(307);
        expect(signInRedirect(app.url, res.location), path).toEqual({ page: "/login", back: path });
      }
      expect((await get(`${app.url}/`)).body).toContain("Public page");
    });

    it("signed in through the Node.js route handler: the middleware lets the pages through and re-issues the cookie, never on a cacheable response", async () => {
      const jar = await signIn(app.url);
      const dashboard = await get(`${app.url}/dashboard`, jar.header());
      expect(dashboard.status).toBe(200);
      expect(dashboard.body).toContain("Dashboard of <!-- -->ada@example.com");
      expect(dashboard.renewed).toHaveLength(1);
      // A static page (s-maxage when no cookie rides on it): the renewed cookie makes it private, no-store.
      const members = await get(`${app.url}/members`, jar.header());
      expect(members.status).toBe(200);
      expect(members.body).toContain("Members only");
      expect(members.renewed).toHaveLength(1);
      expect(members.cacheControl).toMatch(/\bprivate\b/);
      expect(members.cacheControl).toMatch(/\bno-store\b/);
      expect(members.cacheControl).not.toMatch(/s-maxage|public/);
      // The re-issued cookie is a working session on the server.
      const renewed = members.renewed[0]?.split(";")[0] ?? "";
      expect(await serverSees(app.url, renewed)).toBe("ada@example.com");
    });

    it("attack: 40 requests at once with tampered, planted and made-up cookies are all sent to sign in, beside 10 with the real one let through", async () => {
      const jar = await signIn(app.url);
      const token = jar.cookies.get(SESSION) ?? "";
      const parts = token.split(".");
      const flip = (part: string) => `${part.startsWith("A") ? "B" : "A"}${part.slice(1)}`;
      const bad = [
        ...Array.from(
          { length: 10 },
          (_, i) => `${SESSION}=${parts.map((p, j) => (j === 4 - (i % 2) ? flip(p) : p)).join(".")}`,
        ),
        ...Array.from({ length: 10 }, (_, i) => `${SESSION}=planted-${i}`),
        ...Array.from({ length: 10 }, () => `${SESSION}.0=${token.slice(0, 40)}; ${SESSION}.1=${token.slice(40)}x`),
        ...Array.from({ length: 10 }, (_, i) => `${SESSION}=${"e30".repeat(i + 1)}.${parts.slice(1).join(".")}`),
      ];
      const results = await Promise.all([
        ...bad.map((cookie) => get(`${app.url}/members`, cookie)),
        ...Array.from({ length: 10 }, () => get(`${app.url}/members`, jar.header())),
      ]);
      const refused = results.slice(0, bad.length);
      expect(refused.map((r) => r.status)).toEqual(bad.map(() => 307));
      expect(refused.flatMap((r) => r.renewed)).toEqual([]);
      expect(results.slice(bad.length).map((r) => r.status)).toEqual(Array(10).fill(200));
    });

    if (major === 15) {
      it("the application's middleware gets `req.auth` on the Edge runtime; none for a tampered cookie", async () => {
        const jar = await signIn(app.url);
        const whoami = async (cookie?: string) =>
          JSON.parse((await get(`${app.url}/edge/whoami`, cookie)).body) as { user: string | null; runtime: string };
        expect(await whoami(jar.header())).toEqual({ user: "ada@example.com", runtime: "edge" });
        expect(await whoami()).toEqual({ user: null, runtime: "edge" });
        const token = jar.cookies.get(SESSION) ?? "";
        expect(await whoami(`${SESSION}=${token.slice(0, -2)}xx`)).toEqual({ user: null, runtime: "edge" });
      });
    }
  });

  describe(`Next.js ${major}: revocation: true, with the middleware on the Edge runtime`, () => {
    let app: ServerProcess;
    beforeAll(async () => {
      app = await startEdgeApp(major, { FIXTURE_REVOCATION: "memory" });
    }, timeout);
    afterAll(() => app?.stop());

    it("attack: a sign-out through the Node.js route handler ends a copied cookie on the server; the Edge middleware, a global of its own, does not hear it, lets the copy through to the pages, and never re-issues it", async () => {
      const jar = await signIn(app.url);
      const copy = jar.header();
      // Before: the middleware serves the session without re-issuing it (its list cannot hear the server's).
      const before = await get(`${app.url}/members`, copy);
      expect(before.status).toBe(200);
      expect(before.renewed).toEqual([]);
      expect(await serverSees(app.url, copy)).toBe("ada@example.com");

      expect(await signOut(app.url, jar)).toBe(302);
      expect(await serverSees(app.url, copy)).toBeNull();
      // The middleware still lets the copy through: only what the server renders checks the list.
      const dashboard = await get(`${app.url}/dashboard`, copy);
      expect(dashboard.status).toBe(200);
      expect(dashboard.body).toContain("Dashboard of <!-- -->nobody");
      const members = await get(`${app.url}/members`, copy);
      expect(members.status).toBe(200);
      expect(members.renewed).toEqual([]);
      // Latchkey said so at startup, in the middleware's global: in-memory revocations are per global there.
      expect(app.output()).toMatch(/memory-state-isolated\]? The Edge runtime/);
    });
  });
}
