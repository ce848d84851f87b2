// @latchkey/sveltekit held to the framework contract of @latchkey/adapter-test: `handle` at the
// base path, `event.locals.auth()`, and the signIn and signOut form actions. Run in process: each
// request becomes the event SvelteKit hands a hook (its URL, Web request, locals, cookies and
// client address), as adapter-node builds it; sveltekit.test.ts runs the package through a real build.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { type FrameworkDriver, runFrameworkContract } from "@latchkey/adapter-test/framework";
import { MissingCSRF } from "@latchkey/core/errors";
import { isRedirect } from "@sveltejs/kit";
import { vi } from "vitest";

// SvelteKit's private environment, which the package imports at the first request: empty (the
// configuration carries its secret).
vi.mock("$env/dynamic/private", () => ({ env: {} }));
const { SvelteKitAuth } = await import("@latchkey/sveltekit");

/** The Web request adapter-node makes of a Node request (the body read whole, as it does within its limit). */
async function webRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = req.method === "POST" ? Buffer.concat(chunks) : undefined;
  return new Request(`${origin}${req.url}`, { method: req.method, headers, body });
}

const svelteKit: FrameworkDriver = {
  name: "SvelteKit",
  defaultMount: "/auth",
  namesPeer: true,
  helpers: { signIn: true, signOut: true },
  async start(config, { mount }) {
    const kit = SvelteKitAuth(mount === "/auth" ? config : { ...config, basePath: mount });
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
          set(
            name: string,
            value: string,
            options: { path?: string; maxAge?: number; encode?: (v: string) => string },
          ) {
            const parts = [`${name}=${(options.encode ?? encodeURIComponent)(value)}`, `Path=${options.path ?? "/"}`];
            if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
            setCookies.push(parts.join("; "));
          },
        },
      };
      let response: Response;
      try {
        if (url.pathname === "/contract/sign-in") await kit.signIn(event as never);
        else if (url.pathname === "/contract/sign-out") await kit.signOut(event as never);
        response = await kit.handle({
          event: event as never,
          resolve: async () => Response.json({ id: (await event.locals.auth())?.user?.id ?? null }),
        });
      } catch (e) {
        if (isRedirect(e)) response = new Response(null, { status: e.status, headers: { location: e.location } });
        else response = new Response(null, { status: e instanceof MissingCSRF ? 403 : 400 });
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
    return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
};

runFrameworkContract(svelteKit);
