// SvelteKit: `SvelteKitAuth((event) => config)` making a configuration per request (its `handle`,
// `event.locals.auth()` and the `signOut` form action), and the core's Auth() on the
// application's own object in a route of the same application, are one application. SvelteKit's
// part is run in process: each request becomes the event SvelteKit hands a hook (its URL, Web
// request, locals, cookies and client address), as adapter-node's server builds it; the built
// demo's tests (sveltekit.test.ts) run the same package through a real Vite build.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Auth } from "@latchkey/core";
import { isRedirect } from "@sveltejs/kit";
import { vi } from "vitest";
import { oneApplicationSuite } from "../../../test/frameworks/one-application.js";

// SvelteKit's private environment, which the package imports at the first request: empty (the
// configuration carries its secret).
vi.mock("$env/dynamic/private", () => ({ env: {} }));
const { SvelteKitAuth } = await import("@latchkey/sveltekit");

interface CookieOptions {
  path?: string;
  maxAge?: number;
  expires?: Date;
}

/** The Web request of a Node request, its body read. */
async function webRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = req.method === "POST" ? Buffer.concat(chunks) : undefined;
  return new Request(`${origin}${req.url}`, { method: req.method, headers, body });
}

oneApplicationSuite("SvelteKit", async (app) => {
  const kit = SvelteKitAuth(() => app.config());
  let origin = "";
  const server = createServer(async (req, res) => {
    const request = await webRequest(req, origin);
    const url = new URL(request.url);
    const setCookies: string[] = [];
    const event = {
      url,
      request,
      locals: {} as App.Locals,
      getClientAddress: () => req.socket.remoteAddress ?? "",
      cookies: {
        set(name: string, value: string, options: CookieOptions) {
          const parts = [`${name}=${value}`, `Path=${options.path ?? "/"}`];
          if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
          if (options.expires) parts.push(`Expires=${options.expires.toUTCString()}`);
          setCookies.push(parts.join("; "));
        },
      },
    };
    let response: Response;
    try {
      if (url.pathname.startsWith("/core/auth")) {
        const peer = req.socket.remoteAddress;
        response = await Auth(request, { ...app.own, basePath: "/core/auth", clientAddress: () => peer });
      } else if (url.pathname === "/logout") {
        // The page's form action: `export const actions = { default: signOut }`.
        await kit.signOut(event as never);
        response = new Response(null, { status: 204 });
      } else {
        response = await kit.handle({
          event: event as never,
          resolve: async () => {
            // A page reading event.locals.auth(), as +page.server.ts does.
            const session = await event.locals.auth();
            return Response.json({ id: session?.user?.id ?? null });
          },
        });
      }
    } catch (e) {
      if (!isRedirect(e)) throw e;
      response = new Response(null, { status: e.status, headers: { location: e.location } });
    }
    res.statusCode = response.status;
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") res.setHeader(name, value);
    });
    res.setHeader("set-cookie", [...response.headers.getSetCookie(), ...setCookies]);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    mounts: [`${origin}/auth`, `${origin}/core/auth`],
    readers: [`${origin}/page`],
    signOuts: {
      "the signOut form action": (jar) =>
        jar.fetch(`${origin}/logout`, {
          form: { redirectTo: "/" },
          headers: { origin, "sec-fetch-site": "same-origin" },
        }),
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
