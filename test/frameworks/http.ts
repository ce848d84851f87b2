/**
 * What the framework packages' own tests share: the one credentials provider they sign in with,
 * the sign-in a browser makes, and an oversized form (the rest of what an attacker sends is the
 * framework contract's, `runFrameworkContract` of `@latchkey/adapter-test`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import Credentials from "@latchkey/core/providers/credentials";
import { Jar } from "../../packages/express/test/helpers.js";

/** A password sign-in for ada / lovelace (user u1); the name "crash" makes authorize() throw. */
export const adaCredentials = () =>
  Credentials({
    credentials: { username: {}, password: {} },
    authorize: (c) => {
      if (c.username === "crash") throw new Error("the user store is down");
      return c.username === "ada" && c.password === "lovelace" ? { id: "u1", name: "Ada" } : null;
    },
  });

/** Fetches a CSRF token under `base` (the mount, such as `http://localhost:3000/auth`) and signs in. */
export async function signIn(jar: Jar, base: string, username = "ada", password = "lovelace", headers = {}) {
  const { csrfToken } = (await (await jar.fetch(`${base}/csrf`)).json()) as { csrfToken: string };
  return jar.fetch(`${base}/callback/credentials`, { form: { csrfToken, username, password }, headers });
}

/** A form over the 64 KiB bound, posted to the credentials callback under `base`. */
export function oversizedForm(base: string): Promise<Response> {
  return fetch(`${base}/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `password=${"x".repeat(70 * 1024)}`,
  });
}

export { Jar };

/**
 * The Web `Request` a framework serving Web requests makes of a Node request (adapter-node, Next.js's
 * server): its URL under `origin`, its headers, its body read whole.
 */
export async function webRequestOf(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = req.method === "POST" ? Buffer.concat(chunks) : undefined;
  return new Request(`${origin}${req.url}`, { method: req.method, headers, body });
}

/** Writes a Web `Response` to a Node response, with `setCookies` after the response's own cookies. */
export async function writeWebResponse(
  res: ServerResponse,
  response: Response,
  setCookies: string[] = [],
): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  res.setHeader("set-cookie", [...response.headers.getSetCookie(), ...setCookies]);
  res.end(Buffer.from(await response.arrayBuffer()));
}
