// @latchkey/sveltekit held to the framework contract of @latchkey/adapter-test: `handle` at the
// base path, `event.locals.auth()`, and the signIn and signOut form actions. Run in process: each
// request becomes the event SvelteKit hands a hook (its URL, Web request, locals, cookies and
// client address), as adapter-node builds it; sveltekit.test.ts runs the package through a real build.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type FrameworkDriver, runFrameworkContract, sessionAnswer } from "@latchkey/adapter-test/framework";
import { hostileHostMailCases } from "@latchkey/adapter-test/hostile-hosts";
import { MissingCSRF } from "@latchkey/core/errors";
import { isRedirect } from "@sveltejs/kit";
import { vi } from "vitest";
import { writeWebResponse } from "../../../test/frameworks/http.js";
import { sessionReads } from "../../../test/frameworks/session-reads.js";
import { eventOf } from "./event.js";
import { serveHostileHosts } from "./hostile-hosts.js";

// SvelteKit's private environment, which the package imports at the first request: empty (the
// configuration carries its secret).
vi.mock("$env/dynamic/private", () => ({ env: {} }));
const { SvelteKitAuth } = await import("@latchkey/sveltekit");

const svelteKit: FrameworkDriver = {
  name: "SvelteKit",
  defaultMount: "/auth",
  namesPeer: true,
  helpers: { signIn: true, signOut: true },
  async start(config, { mount }) {
    const kit = SvelteKitAuth(mount === "/auth" ? config : { ...config, basePath: mount });
    const server = createServer(async (req, res) => {
      // adapter-node without ORIGIN: the request's URL is built from its Host, which a client
      // writes (the built demo's tests run with ORIGIN); a Host no URL can hold is a 400.
      const made = await eventOf(req, `http://${req.headers.host ?? ""}`).catch(() => undefined);
      if (!made) return void res.writeHead(400).end();
      const { event, setCookies } = made;
      const { url } = event;
      let response: Response;
      try {
        if (url.pathname === "/contract/sign-in") await kit.signIn(event as never);
        else if (url.pathname === "/contract/sign-out") await kit.signOut(event as never);
        response = await kit.handle({
          event: event as never,
          resolve: async () => Response.json(sessionAnswer(await event.locals.auth())),
        });
      } catch (e) {
        if (isRedirect(e)) response = new Response(null, { status: e.status, headers: { location: e.location } });
        else response = new Response(null, { status: e instanceof MissingCSRF ? 403 : 400 });
      }
      await writeWebResponse(res, response, setCookies);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
};

runFrameworkContract(svelteKit, [
  await sessionReads(true),
  (driver) => hostileHostMailCases(driver.name, serveHostileHosts),
]);
