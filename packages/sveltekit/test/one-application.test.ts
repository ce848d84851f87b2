// SvelteKit: `SvelteKitAuth((event) => config)` making a configuration per request (its `handle`,
// `event.locals.auth()` and the `signOut` form action), and the core's Auth() on the
// application's own object in a route of the same application, are one application. SvelteKit's
// part is run in process: each request becomes the event SvelteKit hands a hook (its URL, Web
// request, locals, cookies and client address), as adapter-node's server builds it; the built
// demo's tests (sveltekit.test.ts) run the same package through a real Vite build.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Auth } from "@latchkey/core";
import { isRedirect } from "@sveltejs/kit";
import { vi } from "vitest";
import { writeWebResponse } from "../../../test/frameworks/http.js";
import { oneApplicationSuite } from "../../../test/frameworks/one-application.js";
import { eventOf } from "./event.js";

// SvelteKit's private environment, which the package imports at the first request: empty (the
// configuration carries its secret).
vi.mock("$env/dynamic/private", () => ({ env: {} }));
const { SvelteKitAuth } = await import("@latchkey/sveltekit");

oneApplicationSuite("SvelteKit", async (app) => {
  const kit = SvelteKitAuth(() => app.config());
  let origin = "";
  const server = createServer(async (req, res) => {
    const { event, setCookies } = await eventOf(req, origin);
    const { url, request } = event;
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
    await writeWebResponse(res, response, setCookies);
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
