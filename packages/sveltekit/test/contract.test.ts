// @latchkey/sveltekit held to the framework contract of @latchkey/adapter-test: `handle` at the
// base path, `event.locals.auth()`, and the signIn and signOut form actions. Run in process: each
// request becomes the event SvelteKit hands a hook (its URL, Web request, locals, cookies and
// client address), as adapter-node builds it; sveltekit.test.ts runs the package through a real build.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  apiKeyAnswer,
  CONTRACT_GUARDS,
  type FrameworkDriver,
  organizationAnswer,
  runFrameworkContract,
  sessionAnswer,
} from "@latchkey/adapter-test/framework";
import { hostileHostMailCases } from "@latchkey/adapter-test/hostile-hosts";
import { MissingCSRF } from "@latchkey/core/errors";
import { isActionFailure, isHttpError, isRedirect } from "@sveltejs/kit";
import { vi } from "vitest";
import { writeWebResponse } from "../../../test/frameworks/http.js";
import { sessionReads } from "../../../test/frameworks/session-reads.js";
import { eventOf } from "./event.js";
import { serveHostileHosts } from "./hostile-hosts.js";

// SvelteKit's private environment, which the package imports at the first request: empty (the
// configuration carries its secret).
vi.mock("$env/dynamic/private", () => ({ env: {} }));
const { SvelteKitAuth, requireApiKey } = await import("@latchkey/sveltekit");

const svelteKit: FrameworkDriver = {
  name: "SvelteKit",
  defaultMount: "/auth",
  namesPeer: true,
  organizationGuard: true,
  apiKeyGuard: true,
  // adapter-node builds the request from Node.js's `headers`, which keep the first Authorization only.
  seesRepeatedAuthorization: false,
  helpers: { signIn: true, signOut: true, switchOrganization: true },
  async start(config, { mount, apiKeys }) {
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
        const guarded = { "/contract/organization": "organization", "/contract/permission": "permission" } as const;
        const demand = guarded[url.pathname as keyof typeof guarded];
        if (demand && config.organizations) {
          // A load function or endpoint behind the guard.
          const session = await kit.requireAuth(event as never, CONTRACT_GUARDS[demand]);
          response = Response.json(organizationAnswer(session));
        } else if (url.pathname === "/contract/api-key" && apiKeys) {
          // A +server.ts endpoint.
          const key = await requireApiKey(event as never, apiKeys, CONTRACT_GUARDS.apiKey);
          response = key instanceof Response ? key : Response.json(apiKeyAnswer(key));
        } else if (url.pathname === "/contract/switch-organization") {
          const result = await kit.switchOrganization(event as never);
          response = isActionFailure(result)
            ? Response.json(result.data, { status: result.status })
            : Response.json(result);
        } else
          response = await kit.handle({
            event: event as never,
            resolve: async () => Response.json(sessionAnswer(await event.locals.auth())),
          });
      } catch (e) {
        if (isRedirect(e)) response = new Response(null, { status: e.status, headers: { location: e.location } });
        else if (isHttpError(e)) response = Response.json(e.body, { status: e.status });
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
