// Where the browser client navigates: only to pages of the application (http or https, its own
// origin), and to an OAuth / OIDC provider only when the application's own sign-in answered with
// it. A `callbackUrl` / `redirectTo` an application passes on from its query string, or an answer
// a proxy or an extension altered, never takes the browser to `javascript:` (script run in this
// origin) or to another site: the client falls back to the current page.
//
// A stand-in for the browser's `window` (its location, which records where the page was sent)
// and its relative `fetch`, which reaches the route handlers of a real NextAuth configuration.
import "./next-internals.js";
import { NextAuth } from "@latchkey/next";
import Credentials from "@latchkey/next/providers/credentials";
import GitHub from "@latchkey/next/providers/github";
import { signIn, signOut } from "@latchkey/next/react";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Jar } from "./support.js";

const ORIGIN = "http://localhost:3000";
const PAGE = `${ORIGIN}/account?tab=1`;

const { handlers } = NextAuth({
  secret: "a-test-secret-of-at-least-thirty-two-characters",
  trustHost: true,
  providers: [
    Credentials({
      credentials: { email: {}, password: {} },
      authorize: async (c) => (c.password === "right" ? { id: "u1", email: String(c.email) } : null),
    }),
    GitHub({ clientId: "id", clientSecret: "secret" }),
  ],
});

/** Where the page was sent, in order. */
const visits: string[] = [];
const location = {
  origin: ORIGIN,
  get href() {
    return PAGE;
  },
  set href(value: string) {
    visits.push(value);
  },
  reload() {},
};
/** When set, rewrites the application's answer to a POST (a proxy or an extension in between). */
let alter: ((path: string) => Response | undefined) | undefined;
const jar = new Jar();
const saved = { fetch: globalThis.fetch, window: (globalThis as { window?: unknown }).window };

beforeAll(() => {
  (globalThis as { window?: unknown }).window = { location };
  globalThis.fetch = async (input, init) => {
    const url = new URL(String(input), ORIGIN);
    const altered = init?.method === "POST" ? alter?.(url.pathname) : undefined;
    if (altered) return altered;
    const headers = new Headers(init?.headers);
    if (jar.cookies.size) headers.set("cookie", jar.header());
    const request = new Request(url, { ...init, headers });
    const res = await (request.method === "POST" ? handlers.POST(request) : handlers.GET(request));
    jar.apply(res.headers.getSetCookie());
    return res;
  };
});

afterAll(() => {
  globalThis.fetch = saved.fetch;
  (globalThis as { window?: unknown }).window = saved.window;
});

beforeEach(() => {
  visits.length = 0;
  alter = undefined;
});

const answer = (body: unknown, status = 200) =>
  alter === undefined ? undefined : Response.json(body, { status, headers: { "content-type": "application/json" } });

describe("attack: the client navigates only to the application's own pages", () => {
  it("a redirectTo on this origin is followed (the control)", async () => {
    await signIn("credentials", { email: "ada@example.com", password: "right", redirectTo: "/dashboard" });
    expect(visits).toEqual([`${ORIGIN}/dashboard`]);
  });

  it("a javascript: or other-origin URL in the sign-in answer is not followed", async () => {
    for (const url of [
      "javascript:alert(document.cookie)",
      " JavaScript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "https://evil.example/phish",
      "//evil.example/phish",
      "http://localhost:3001/",
    ]) {
      visits.length = 0;
      alter = () => answer({ url });
      await signIn("credentials", { email: "ada@example.com", password: "right", redirectTo: "/dashboard" });
      expect(visits, url).toEqual([PAGE]);
    }
  });

  it("a caller's javascript: or other-origin redirectTo is not followed when the answer names no URL", async () => {
    for (const redirectTo of ["javascript:alert(1)", "https://evil.example/phish"]) {
      visits.length = 0;
      alter = () => answer({ message: "no url here" }, 500);
      await signIn("credentials", { email: "ada@example.com", password: "right", redirectTo });
      expect(visits, redirectTo).toEqual([PAGE]);
      visits.length = 0;
      await signOut({ redirectTo });
      expect(visits, redirectTo).toEqual([PAGE]);
      // An answer whose url is no string at all is no URL either.
      visits.length = 0;
      alter = () => answer({ url: { href: "https://evil.example/" } });
      await signOut({ redirectTo });
      expect(visits, redirectTo).toEqual([PAGE]);
    }
  });

  it("a sign-out answer pointing elsewhere is not followed", async () => {
    alter = () => answer({ url: "javascript:alert(1)" });
    await signOut({ redirectTo: "/bye" });
    alter = () => answer({ url: "https://evil.example/" });
    await signOut({ redirectTo: "/bye" });
    expect(visits).toEqual([PAGE, PAGE]);
  });

  it("an OAuth sign-in goes to its provider's http(s) URL, and never to javascript:", async () => {
    await signIn("github", { redirectTo: "/after" });
    expect(new URL(visits[0] as string).origin).toBe("https://github.com");
    visits.length = 0;
    alter = () => answer({ url: "javascript:alert(1)" });
    await signIn("github", { redirectTo: "/after" });
    expect(visits).toEqual([PAGE]);
  });
});
