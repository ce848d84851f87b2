/**
 * The event SvelteKit hands a hook or a form action, as adapter-node builds it from a Node
 * request, for the tests that run `@latchkey/sveltekit` in process: its URL, Web request, locals,
 * client address and cookies (each `cookies.set` kept as the `Set-Cookie` SvelteKit would send).
 */
import type { IncomingMessage } from "node:http";
import { webRequestOf } from "../../../test/frameworks/http.js";

interface CookieOptions {
  path?: string;
  maxAge?: number;
  expires?: Date;
  encode?: (value: string) => string;
}

/** The event of `req` under `origin`, and the `Set-Cookie` values its `cookies.set` calls made. */
export async function eventOf(req: IncomingMessage, origin: string) {
  const request = await webRequestOf(req, origin);
  const setCookies: string[] = [];
  const event = {
    url: new URL(request.url),
    request,
    locals: {} as App.Locals,
    getClientAddress: () => req.socket.remoteAddress ?? "",
    cookies: {
      set(name: string, value: string, options: CookieOptions) {
        const parts = [`${name}=${(options.encode ?? ((v: string) => v))(value)}`, `Path=${options.path ?? "/"}`];
        if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
        if (options.expires) parts.push(`Expires=${options.expires.toUTCString()}`);
        setCookies.push(parts.join("; "));
      },
    },
  };
  return { event, setCookies };
}
