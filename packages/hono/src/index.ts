/**
 * Latchkey for Hono: mount the actions with `HonoAuth`, read the session with `getSession(c,
 * config)` (or `c.get("session")` after `session(config)`), and guard routes with
 * `requireAuth(config)`. Tested on Node.js (`@hono/node-server`), Bun, Deno, Cloudflare Workers
 * (`workerd` with `nodejs_compat`) and Next.js's Edge runtime (the repository's `test/runtimes`).
 *
 * @example
 * ```ts
 * import { serve } from "@hono/node-server"
 * import { Hono } from "hono"
 * import { HonoAuth, requireAuth } from "@latchkey/hono"
 * import GitHub from "@latchkey/hono/providers/github"
 *
 * const config = { providers: [GitHub] }     // AUTH_SECRET, AUTH_GITHUB_ID/SECRET from the environment
 * const app = new Hono()
 * app.use("/auth/*", HonoAuth(config))
 * app.get("/me", requireAuth(config), (c) => c.json(c.get("session").user))
 * serve(app)
 * ```
 * @module @latchkey/hono
 */
import type { AuthConfig, SessionOf } from "@latchkey/core";
import {
  finalizeResponse,
  type GuardOptions,
  guard,
  mountNoted,
  noteMount,
  serve,
  sessionReadOf,
  toResponse,
  webIncoming,
} from "@latchkey/core/internal";
import type { Context, MiddlewareHandler } from "hono";

export { customFetch, skipCSRFCheck } from "@latchkey/core";
export * from "@latchkey/core/errors";
export type * from "@latchkey/core/types";
export { type ApiKeyVariables, requireApiKey } from "./api-keys.js";

/** The context variables Latchkey sets: `c.get("session")`. */
export type SessionVariables<S> = { Variables: { session: S } };

/**
 * Where a request arrived and its cookies: its URL (on Node.js, the one `@hono/node-server` built
 * from `Host`), and its headers, from which the core reads a proxy's only under `trustProxy`.
 */
function arrival(c: Context, url = new URL(c.req.url)) {
  return { protocol: url.protocol, host: url.host, headers: c.req.raw.headers, cookieHeader: c.req.header("cookie") };
}

/** What the servers Hono runs on pass as `c.env` (the second argument of `app.fetch`), as far as the peer goes. */
interface ServerArgument {
  /** `@hono/node-server`: the Node.js request. */
  incoming?: { socket?: { remoteAddress?: unknown } };
  /** Bun: `Bun.serve({ fetch: app.fetch })` passes the server (or `{ server }` beside bindings). */
  requestIP?: (request: Request) => { address?: unknown } | null;
  server?: { requestIP?: (request: Request) => { address?: unknown } | null };
  /** Deno: `Deno.serve(app.fetch)` passes the handler's info. */
  remoteAddr?: { transport?: unknown; hostname?: unknown };
}

/**
 * The peer's address, where the server under Hono gives it (what each of Hono's adapters reads in
 * its `getConnInfo`): the socket of `@hono/node-server`'s Node.js request, Bun's
 * `server.requestIP(request)`, Deno's `info.remoteAddr`. None on Cloudflare Workers and Next.js's
 * Edge runtime: a request there carries only headers, and `CF-Connecting-IP` is the client's
 * address only behind Cloudflare's network (a `workerd` serving directly passes on whatever the
 * client wrote), so the application's `clientAddress` decides there.
 */
function peerAddress(c: Context): string | undefined {
  const server = c.env as ServerArgument | undefined;
  if (typeof server !== "object" || server === null) return undefined;
  const address = (value: unknown) => (typeof value === "string" && value ? value : undefined);
  const node = address(server.incoming?.socket?.remoteAddress);
  if (node) return node;
  const bun = typeof server.requestIP === "function" ? server : server.server;
  if (typeof bun?.requestIP === "function") {
    try {
      return address(bun.requestIP(c.req.raw)?.address);
    } catch {
      return undefined; // a request Bun's server did not receive (made by the application)
    }
  }
  const deno = server.remoteAddr;
  return deno?.transport === "tcp" ? address(deno.hostname) : undefined;
}

/**
 * Serves Latchkey's actions. Mount it on the base path with a wildcard:
 * `app.use("/auth/*", HonoAuth(config))` (the prefix of the route is the base path). A body Hono
 * already read (`c.req.parseBody()`, a validator) is taken from Hono's cache, never read twice.
 * Behind a proxy, set `AUTH_URL` (the request's URL is built from `Host`), or `trustProxy` when
 * the proxy overwrites `X-Forwarded-Host` and `X-Forwarded-Proto` (`"forwarded"`: `Forwarded`).
 *
 * @example
 * ```ts
 * app.use("/auth/*", HonoAuth({ providers: [Credentials({ ... })] }))
 * ```
 */
export function HonoAuth(config: AuthConfig): MiddlewareHandler {
  return async function latchkey(c) {
    const request = c.req.raw;
    const url = new URL(request.url);
    const mountPath = /^(\/[^*:?{}]*?)\/\*$/.exec(c.req.routePath)?.[1];
    noteMount(config, mountPath);
    const incoming = webIncoming(request, config, {
      where: arrival(c, url),
      url,
      peer: peerAddress(c),
      mountPath,
      body: request.bodyUsed ? () => c.req.text() : undefined,
    });
    return toResponse(await serve(incoming, config));
  };
}

/**
 * The session of a request, or null. It runs the `jwt` and `session` callbacks like
 * `GET /auth/session` does, and re-issues no cookie; a session cookie that is not a live session
 * (garbage, tampered, expired, revoked) is cleared on `c`'s response. It never throws: a missing
 * secret, an untrusted host and a failing session store are logged and give null.
 *
 * @example
 * ```ts
 * app.get("/", async (c) => {
 *   const session = await getSession(c, config)
 *   return c.text(session?.user ? `Hello ${session.user.name}` : "Not signed in")
 * })
 * ```
 */
export async function getSession<C extends AuthConfig>(c: Context, config: C): Promise<SessionOf<C> | null> {
  const read = await sessionReadOf(arrival(c), config, { reissue: false });
  // Latchkey's one encoding of the deletions, with the headers that keep them out of every cache.
  if (read.cookies.length)
    for (const [name, value] of finalizeResponse({ cookies: read.cookies }).headers)
      c.header(name, value, { append: name === "Set-Cookie" });
  return read.session as SessionOf<C> | null;
}

/**
 * Middleware that puts the session (or null) on `c.get("session")` for the handlers after it.
 *
 * @example
 * ```ts
 * app.use("*", session(config))
 * app.get("/", (c) => c.text(c.get("session")?.user?.name ?? "Not signed in"))
 * ```
 */
export function session<C extends AuthConfig>(config: C): MiddlewareHandler<SessionVariables<SessionOf<C> | null>> {
  return async function readSession(c, next) {
    c.set("session", await getSession(c, config));
    await next();
  };
}

/**
 * Middleware for routes that need a signed-in user: the session is put on `c.get("session")`
 * (typed, never null). Without one, a browser is redirected to the sign-in page with this URL as
 * `callbackUrl`; another client gets `401 {"error":"SessionRequired"}`. `factors`, `amr` and
 * `factorPage` demand a second factor as for `@latchkey/express`'s `requireAuth`.
 *
 * @example
 * ```ts
 * app.get("/account", requireAuth(config), (c) => c.json(c.get("session").user))
 * app.use("/admin/*", requireAuth(config, { factors: 2 }))
 * ```
 */
export function requireAuth<C extends AuthConfig>(
  config: C,
  options: GuardOptions = {},
): MiddlewareHandler<SessionVariables<SessionOf<C>>> {
  const check = guard(config, options);
  return async function requireSession(c, next) {
    const url = new URL(c.req.url);
    const mountPath = options.signInPage === undefined ? signInMount(config) : undefined;
    const request = {
      ...arrival(c, url),
      accept: c.req.header("accept"),
      url: `${url.pathname}${url.search}`,
      mountPath,
    };
    const result = await check(request);
    if (result.response) return toResponse(result.response);
    c.set("session", result.session as SessionOf<C>);
    await next();
  };
}

/**
 * Where `HonoAuth(config)` serves (its sign-in page is there) when the configuration names no
 * `basePath`: the mount its last request arrived under (`app.route("/api", ...)` with
 * `HonoAuth` on `/auth/*` is `/api/auth`). Hono gives a middleware no view of the other routes, so
 * before `HonoAuth` has served a request the default (`/auth`, or `AUTH_URL`'s path) is used: set
 * `basePath` for a mount elsewhere to be right from the first request.
 */
function signInMount(config: AuthConfig): string | undefined {
  return config.basePath === undefined ? mountNoted(config) : undefined;
}
