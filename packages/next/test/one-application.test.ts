// Next.js: `next build` loads the application's auth.ts once per server layer (Route Handlers,
// Server Components, Server Actions, the proxy), so each layer calls NextAuth with an object of
// its own; next-auth's lazy form `NextAuth((req) => config)` makes one per request besides. All of
// them are one application. Run in process as Next.js runs each layer's code (next-internals.ts);
// examples/next-demo's e2e suite proves the same on real `next build` + `next start`.
import "./next-internals.js";

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { NextAuth } from "@latchkey/next";
import { NextRequest, NextResponse } from "next/server.js";
import { webRequestOf, writeWebResponse } from "../../../test/frameworks/http.js";
import { oneApplicationSuite } from "../../../test/frameworks/one-application.js";
import { inNextRequest } from "./next-internals.js";

const headersOf = (request: Request) => Object.fromEntries(request.headers);
const ctx = { params: Promise.resolve({}) };

oneApplicationSuite("Next.js", async (app) => {
  // One module instance per layer, each with its own NextAuth: the Route Handlers' in the lazy form.
  const routes = NextAuth(() => app.config());
  const render = NextAuth(() => app.config());
  const actions = NextAuth(app.config());
  const proxy = NextAuth(app.config());
  const second = NextAuth({ ...app.config(), basePath: "/second/api/auth" });
  let origin = "";
  const server = createServer(async (req, res) => {
    const request = await webRequestOf(req, origin);
    const { pathname } = new URL(request.url);
    let response: Response;
    if (pathname.startsWith("/api/auth/") || pathname.startsWith("/second/api/auth/")) {
      const { handlers } = pathname.startsWith("/api/") ? routes : second;
      const next = new NextRequest(request);
      response = await (request.method === "POST" ? handlers.POST(next) : handlers.GET(next));
    } else if (pathname === "/page") {
      // A Server Component's auth().
      const out = await inNextRequest(request.url, headersOf(request), () => render.auth(), "render");
      response = Response.json({ id: out.result?.user?.id ?? null });
    } else if (pathname === "/route") {
      // A Route Handler's auth().
      const out = await inNextRequest(request.url, headersOf(request), () => actions.auth());
      response = Response.json({ id: out.result?.user?.id ?? null });
    } else if (pathname === "/proxied") {
      // The proxy: auth((req) => ...) in front of a page.
      const gate = proxy.auth((r) => NextResponse.json({ id: r.auth?.user?.id ?? null }));
      response = (await gate(new NextRequest(request), ctx)) as Response;
    } else if (pathname === "/logout") {
      // A Server Action calling signOut().
      const out = await inNextRequest(request.url, headersOf(request), () => actions.signOut({ redirect: false }));
      response = new Response(null, { status: 204 });
      for (const cookie of out.setCookies) response.headers.append("set-cookie", cookie);
    } else {
      response = new Response(null, { status: 404 });
    }
    await writeWebResponse(res, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    mounts: [`${origin}/api/auth`, `${origin}/second/api/auth`],
    readers: [`${origin}/page`, `${origin}/route`, `${origin}/proxied`],
    signOuts: {
      "a Server Action's signOut()": (jar) =>
        jar.fetch(`${origin}/logout`, { method: "POST", headers: { origin, "sec-fetch-site": "same-origin" } }),
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
