// The browser functions of @latchkey/next/react, without React and without a browser: Node's own
// fetch (with a cookie store, as a browser keeps one) against the route handlers served over
// HTTP, and Node's own BroadcastChannel standing in for the application's other tabs.
import "./next-internals.js";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { MemoryRevocationStore } from "@latchkey/core/revocation";
import { NextAuth } from "@latchkey/next";
import Credentials from "@latchkey/next/providers/credentials";
import {
  getCsrfToken,
  getProviders,
  getSession,
  SessionProvider,
  signIn,
  signOut,
  useSession,
} from "@latchkey/next/react";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Jar } from "./support.js";

const credentials = () =>
  Credentials({
    credentials: { email: {}, password: {} },
    authorize: async (c) => (c.password === "right" ? { id: "u1", name: "Ada", email: String(c.email) } : null),
  });

/** An application whose revocation store can be cut: its sign-outs are then answered as not done. */
const revocations = new MemoryRevocationStore();
const addRevocation = revocations.add.bind(revocations);
let storeDown = false;
revocations.add = (entry) => (storeDown ? Promise.reject(new Error("store unreachable")) : addRevocation(entry));
const withRevocation = NextAuth({
  secret: "a-test-secret-of-at-least-thirty-two-characters",
  session: { revocation: { store: revocations } },
  providers: [credentials()],
}).handlers;

const { handlers } = NextAuth({
  secret: "a-test-secret-of-at-least-thirty-two-characters",
  providers: [
    Credentials({
      credentials: { email: {}, password: {} },
      authorize: async (c) => (c.password === "right" ? { id: "u1", name: "Ada", email: String(c.email) } : null),
    }),
  ],
});

let served = handlers;
let server: ReturnType<typeof createServer>;
const seen: string[] = [];
const jar = new Jar();
const browserFetch = globalThis.fetch;
const savedAuthUrl = process.env.AUTH_URL;

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "POST" ? (Readable.toWeb(req) as ReadableStream) : undefined,
      duplex: "half",
    } as RequestInit);
    const response = await (req.method === "POST" ? served.POST : served.GET)(request);
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) headers["set-cookie"] = cookies;
    res.writeHead(response.status, headers);
    res.end(await response.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // On a server, the client functions reach the application at AUTH_URL (relative URLs in a browser).
  process.env.AUTH_URL = `http://localhost:${(server.address() as AddressInfo).port}`;
  // A browser's cookie store for this origin.
  globalThis.fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (jar.cookies.size) headers.set("cookie", jar.header());
    const res = await browserFetch(input, { ...init, headers, redirect: "manual" });
    jar.apply(res.headers.getSetCookie());
    return res;
  };
});

afterAll(async () => {
  globalThis.fetch = browserFetch;
  if (savedAuthUrl === undefined) delete process.env.AUTH_URL;
  else process.env.AUTH_URL = savedAuthUrl;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the client functions, without React", () => {
  it("read the providers and a CSRF token from the application only", async () => {
    expect(Object.keys((await getProviders()) ?? {})).toEqual(["credentials"]);
    expect(await getCsrfToken()).toMatch(/^[0-9a-f]{64}$/);
    expect(seen.every((line) => / \/api\/auth\//.test(line))).toBe(true);
  });

  it("share one session request between callers at the same time", async () => {
    seen.length = 0;
    const [a, b, c] = await Promise.all([
      getSession({ broadcast: false }),
      getSession({ broadcast: false }),
      getSession({ broadcast: false }),
    ]);
    expect([a, b, c]).toEqual([null, null, null]);
    expect(seen.filter((line) => line === "GET /api/auth/session")).toHaveLength(1);
  });

  it("signIn with redirect: false answers the error and code of a wrong password", async () => {
    const result = await signIn("credentials", { email: "ada@example.com", password: "wrong", redirect: false });
    expect(result).toMatchObject({ ok: false, error: "CredentialsSignin", code: "credentials", url: null });
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
  });

  it("signIn with redirect: false signs in, and the other tabs are told to fetch their session", async () => {
    const otherTab = new BroadcastChannel("latchkey.session");
    const heard = new Promise<unknown>((resolve) => {
      otherTab.onmessage = (event) => resolve(event.data);
    });
    const result = await signIn("credentials", { email: "ada@example.com", password: "right", redirect: false });
    expect(result).toMatchObject({ ok: true, error: undefined });
    expect((await getSession({ broadcast: false }))?.user?.email).toBe("ada@example.com");
    expect(await heard).toMatchObject({ event: "session", data: { trigger: "getSession" } });
    otherTab.close();
  });

  it("attack: a sign-out the server answers as not done (503) is not shown as done: the session stays, no tab hears signout, the caller gets the error", async () => {
    served = withRevocation;
    try {
      const signedIn = await signIn("credentials", { email: "ada@example.com", password: "right", redirect: false });
      expect(signedIn).toMatchObject({ ok: true });
      const otherTab = new BroadcastChannel("latchkey.session");
      const heard: unknown[] = [];
      let next: () => void = () => {};
      otherTab.onmessage = (event) => {
        heard.push(event.data);
        next();
      };
      storeDown = true;
      const result = await signOut({ redirect: false, redirectTo: "/bye" });
      expect(result.error).toBe("SignOutError");
      expect(result.url).toMatch(/\/api\/auth\/error\?error=SignOutError$/);
      expect(jar.cookies.has("authjs.session-token")).toBe(true);
      // the next message the other tab hears is this refresh, not a signout before it
      const refreshed = new Promise<void>((resolve) => {
        next = resolve;
      });
      expect((await getSession())?.user?.email).toBe("ada@example.com");
      await refreshed;
      expect(heard.map((m) => (m as { data?: { trigger?: string } }).data?.trigger)).toEqual(["getSession"]);
      storeDown = false;
      const done = await signOut({ redirect: false, redirectTo: "/bye" });
      expect(done.error).toBeUndefined();
      expect(await getSession({ broadcast: false })).toBeNull();
      otherTab.close();
    } finally {
      storeDown = false;
      served = handlers;
    }
  });

  it("signOut ends the session and every other tab hears of it", async () => {
    const otherTab = new BroadcastChannel("latchkey.session");
    const heard = new Promise<unknown>((resolve) => {
      otherTab.onmessage = (event) => resolve(event.data);
    });
    const result = await signOut({ redirect: false, redirectTo: "/bye" });
    expect(result.url).toMatch(/\/bye$/);
    expect(await heard).toMatchObject({ event: "session", data: { trigger: "signout" } });
    expect(await getSession({ broadcast: false })).toBeNull();
    otherTab.close();
  });
});

describe("SessionProvider and useSession", () => {
  function Status() {
    const { data, status } = useSession();
    return createElement("p", null, `${status}:${data?.user?.name ?? ""}`);
  }

  it("render the session the server read without fetching it", () => {
    const session = { user: { name: "Ada" }, expires: new Date(Date.now() + 60_000).toISOString() };
    const html = renderToString(createElement(SessionProvider, { session }, createElement(Status)));
    expect(html).toContain("authenticated:Ada");
  });

  it("on the server, one request's session never shows in another request's render", () => {
    const ada = { user: { name: "Ada" }, expires: new Date(Date.now() + 60_000).toISOString() };
    expect(renderToString(createElement(SessionProvider, { session: ada }, createElement(Status)))).toContain(
      "authenticated:Ada",
    );
    // The next request renders with no session of its own: it is loading, not Ada.
    expect(renderToString(createElement(SessionProvider, null, createElement(Status)))).toContain("loading:");
    expect(renderToString(createElement(SessionProvider, { session: null }, createElement(Status)))).toContain(
      "unauthenticated:",
    );
  });

  it("useSession outside a SessionProvider names the fix", () => {
    expect(() => renderToString(createElement(Status))).toThrow(/inside <SessionProvider>/);
  });
});
