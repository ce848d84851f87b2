// @latchkey/next held to the framework contract of @latchkey/adapter-test: the Route Handlers at
// the base path, auth() in a Route Handler, the proxy's `authorized` guard, the signIn and signOut
// server actions, auth(handler), and PasswordAccounts' requestPasswordReset and changePassword. Run in process as Next.js runs each
// layer's code (next-internals.ts); examples/next-demo runs the package on next build + next start.
import "./next-internals.js";

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
import { NextAuth, type NextAuthConfig, requireApiKey } from "@latchkey/next";
import { PasswordAccounts } from "@latchkey/next/accounts";
import { NextRequest } from "next/server.js";
import { webRequestOf, writeWebResponse } from "../../../test/frameworks/http.js";
import { sessionReads } from "../../../test/frameworks/session-reads.js";
import { serveHostileHosts } from "./hostile-hosts.js";
import { type InRequest, inNextRequest } from "./next-internals.js";

/** A server action's outcome as the browser sees it: its redirect, 403 for MissingCSRF, its result. */
function answerOf(out: InRequest<unknown>): Response {
  let response: Response;
  if (out.redirectedTo) response = new Response(null, { status: 303, headers: { location: out.redirectedTo } });
  else if (out.error) response = new Response(null, { status: out.error instanceof MissingCSRF ? 403 : 400 });
  else response = Response.json(out.result ?? null);
  for (const cookie of out.setCookies) response.headers.append("set-cookie", cookie);
  return response;
}

const next: FrameworkDriver = {
  name: "Next.js",
  defaultMount: "/api/auth",
  namesPeer: false,
  guard: "redirect",
  organizationGuard: true,
  apiKeyGuard: true,
  // Next.js's server builds the request from Node.js's `headers`, which keep the first Authorization only.
  seesRepeatedAuthorization: false,
  helpers: { signIn: true, signOut: true, requestPasswordReset: true, changePassword: true, switchOrganization: true },
  readers: ["/contract/proxied"],
  async start(config, { mount, accounts, apiKeys }) {
    const own: NextAuthConfig = {
      ...config,
      basePath: mount === "/api/auth" ? undefined : mount,
      callbacks: { ...config.callbacks, authorized: ({ auth }) => !!auth },
    };
    const { handlers, auth, signIn, signOut, requireAuth, switchOrganization } = NextAuth(own);
    // Route Handlers behind the guards, as an application exports them from its route.ts files.
    const routes: Record<string, ((req: NextRequest, ctx: unknown) => Promise<Response>) | undefined> = {
      "/contract/organization": own.organizations
        ? requireAuth(CONTRACT_GUARDS.organization, async (req) => Response.json(organizationAnswer(req.auth)))
        : undefined,
      "/contract/permission": own.organizations
        ? requireAuth(CONTRACT_GUARDS.permission, async (req) => Response.json(organizationAnswer(req.auth)))
        : undefined,
      "/contract/api-key": apiKeys
        ? requireApiKey(apiKeys, CONTRACT_GUARDS.apiKey, async (req) => Response.json(apiKeyAnswer(req.apiKey)))
        : undefined,
    };
    const passwordAccounts = PasswordAccounts(own, accounts);
    let origin = "";
    const server = createServer(async (req, res) => {
      const request = await webRequestOf(req, origin);
      const { pathname } = new URL(request.url);
      const headers = Object.fromEntries(request.headers);
      const form = async () => new URLSearchParams(await request.text());
      let response: Response;
      const route = routes[pathname];
      if (route) {
        response = await route(new NextRequest(request), { params: Promise.resolve({}) });
      } else if (pathname === "/contract/switch-organization") {
        const data = new FormData();
        for (const [name, value] of await form()) data.append(name, value);
        const out = await inNextRequest(request.url, headers, () => switchOrganization(data));
        const switched = out.result;
        if (!switched) response = answerOf(out);
        else {
          response = switched.ok
            ? Response.json({ activeOrganization: switched.activeOrganization })
            : Response.json({ error: switched.error }, { status: switched.status });
          for (const cookie of out.setCookies) response.headers.append("set-cookie", cookie);
        }
      } else if (pathname.startsWith(`${mount}/`)) {
        const nextRequest = new NextRequest(request);
        response = await (request.method === "POST" ? handlers.POST(nextRequest) : handlers.GET(nextRequest));
      } else if (pathname === "/contract/session") {
        // A Route Handler: the cookies auth() set through next/headers are sent with its answer.
        const out = await inNextRequest(request.url, headers, () => auth());
        response = Response.json(sessionAnswer(out.result));
        for (const cookie of out.setCookies) response.headers.append("set-cookie", cookie);
      } else if (pathname === "/contract/guarded") {
        // The proxy (`export { auth as proxy }`) in front of a Route Handler reading auth().
        const gate = await auth(new NextRequest(request));
        if (gate.headers.get("location")) response = gate;
        else {
          const out = await inNextRequest(request.url, headers, () => auth());
          response = Response.json({ id: out.result?.user?.id ?? null });
        }
      } else if (pathname === "/contract/sign-in") {
        const fields = await form();
        const data = new FormData();
        for (const [name, value] of fields) data.append(name, value);
        response = answerOf(
          await inNextRequest(request.url, headers, () => signIn(fields.get("providerId") ?? undefined, data)),
        );
      } else if (pathname === "/contract/sign-out") {
        const redirectTo = (await form()).get("redirectTo") ?? undefined;
        response = answerOf(await inNextRequest(request.url, headers, () => signOut({ redirectTo })));
      } else if (pathname === "/contract/proxied") {
        // A Route Handler wrapped by auth((req) => ...), its session on req.auth.
        const handler = auth((r) => Response.json(sessionAnswer(r.auth)));
        response = (await handler(new NextRequest(request), { params: Promise.resolve({}) })) as Response;
      } else if (pathname === "/contract/change") {
        const data = new FormData();
        for (const [name, value] of await form()) data.append(name, value);
        response = answerOf(await inNextRequest(request.url, headers, () => passwordAccounts.changePassword(data)));
      } else if (pathname === "/contract/forgot") {
        const data = new FormData();
        for (const [name, value] of await form()) data.append(name, value);
        response = answerOf(
          await inNextRequest(request.url, headers, () => passwordAccounts.requestPasswordReset(data)),
        );
      } else {
        response = new Response(null, { status: 404 });
      }
      await writeWebResponse(res, response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
};

runFrameworkContract(next, [
  await sessionReads(true),
  (driver) => hostileHostMailCases(driver.name, serveHostileHosts),
]);
