// Next.js in process, as `next start` hands it requests (a client's X-Forwarded-Host passed on):
// the Route Handlers of NextAuth (the lazy form, a configuration per request), and the password
// accounts as Server Actions (@latchkey/next/accounts), asked with a hostile Host,
// X-Forwarded-Host or Forwarded, mail no link to another host. examples/next-demo's e2e suite
// asks the same of a real `next build` + `next start`.
import "./next-internals.js";

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { HostileHostApp, HostileHostServer } from "@latchkey/adapter-test/hostile-hosts";
import { NextAuth } from "@latchkey/next";
import { PasswordAccounts } from "@latchkey/next/accounts";
import { NextRequest } from "next/server.js";
import { inNextRequest } from "./next-internals.js";

/** The Web request of a Node request (its URL from Host, as Next.js's own), its body read. */
async function webRequest(req: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  // Next.js fills X-Forwarded-Host from Host only when the client sent none (`??=`).
  if (!headers.has("x-forwarded-host")) headers.set("x-forwarded-host", req.headers.host ?? "");
  const body = req.method === "POST" ? Buffer.concat(chunks) : undefined;
  return new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body });
}

/** Serves the application of the hostile-host mail cases (see the comment above). */
export async function serveHostileHosts(app: HostileHostApp): Promise<HostileHostServer> {
  const { handlers } = NextAuth(() => app.config());
  const accounts = PasswordAccounts(app.config(), app.accounts);
  const server = createServer(async (req, res) => {
    const request = await webRequest(req);
    const { pathname } = new URL(request.url);
    let response: Response;
    if (pathname.startsWith("/api/auth/")) {
      const next = new NextRequest(request);
      response = await (request.method === "POST" ? handlers.POST(next) : handlers.GET(next));
    } else {
      // A Server Action posted from the page. The attacker is no browser: he sends the Origin that
      // agrees with the host he names, so the action's origin check lets him through.
      const fields = (await request.json()) as Record<string, unknown>;
      const headers = {
        ...Object.fromEntries(request.headers),
        origin: `http://${req.headers.host}`,
        "sec-fetch-site": "same-origin",
      };
      const out = await inNextRequest(request.url, headers, async () =>
        pathname === "/forgot" ? (await accounts.requestPasswordReset(fields)).ok : (await accounts.signUp(fields)).ok,
      );
      response = out.error ? new Response(String(out.error), { status: 500 }) : Response.json({ ok: out.result });
    }
    res.statusCode = response.status;
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") res.setHeader(name, value);
    });
    res.setHeader("set-cookie", response.headers.getSetCookie());
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    mount: `${origin}/api/auth`,
    forgot: `${origin}/forgot`,
    signUp: `${origin}/signup`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
