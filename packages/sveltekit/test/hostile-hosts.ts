// SvelteKit as adapter-node serves it without ORIGIN (the URL built from Host): the handle's
// actions, and the accounts functions given event.request, asked with a hostile Host,
// X-Forwarded-Host or Forwarded, mail no link to another host.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { HostileHostApp, HostileHostServer } from "@latchkey/adapter-test/hostile-hosts";
import { requestPasswordReset, signUp } from "@latchkey/core/accounts";

// The test that imports this mocks SvelteKit's private environment ($env/dynamic/private) first.
const { SvelteKitAuth } = await import("@latchkey/sveltekit");

/** The Web request adapter-node makes of a Node request without ORIGIN: `http://` + its Host. */
async function webRequest(req: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = req.method === "POST" ? Buffer.concat(chunks) : undefined;
  return new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body });
}

/** Serves the application of the hostile-host mail cases (see the comment above). */
export async function serveHostileHosts(app: HostileHostApp): Promise<HostileHostServer> {
  const kit = SvelteKitAuth(() => app.config());
  const server = createServer(async (req, res) => {
    const request = await webRequest(req);
    const url = new URL(request.url);
    const event = {
      url,
      request,
      locals: {} as App.Locals,
      getClientAddress: () => req.socket.remoteAddress ?? "",
      cookies: { set() {} },
    };
    const response = await kit.handle({
      event: event as never,
      // The application's routes (+server.ts), given event.request as SvelteKit hands it.
      resolve: async () => {
        const fields = (await request.json()) as { email: string; password: string };
        if (url.pathname === "/forgot")
          return Response.json({ ok: (await requestPasswordReset(request, app.config(), app.accounts, fields)).ok });
        return Response.json({ ok: (await signUp(request, app.config(), app.accounts, fields)).ok });
      },
    });
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
    mount: `${origin}/auth`,
    forgot: `${origin}/forgot`,
    signUp: `${origin}/signup`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
