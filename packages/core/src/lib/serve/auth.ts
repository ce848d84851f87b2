// The code of @latchkey/core's public module src/index.ts (which documents it and re-exports it).

import type { ResponseInternal, Session } from "../../shapes/data.js";
import { raw } from "../base/symbols.js";
import type { AuthConfig } from "../config/options.js";
import { toResponse } from "../http/response.js";
import { webIncoming } from "../http/web-incoming.js";
import { sessionReadOf } from "../session/request-read.js";
import { serve } from "./pipeline.js";

/**
 * Handles a request to one of Latchkey's actions. Returns a `Response`, or with `raw` in the
 * configuration the `ResponseInternal` (and then client-safe errors are thrown to the caller,
 * as frameworks with server-side form actions want).
 *
 * @example
 * ```ts
 * const response = await Auth(new Request("https://app.example/auth/session", { headers }), config)
 * const session = await response.json()
 * ```
 */
export async function Auth(request: Request, config: AuthConfig & { raw: typeof raw }): Promise<ResponseInternal>;
export async function Auth(request: Request, config: AuthConfig): Promise<Response>;
export async function Auth(request: Request, config: AuthConfig): Promise<Response | ResponseInternal> {
  const isRaw = config.raw === raw;
  const res = await serve(webIncoming(request, config), config, { raw: isRaw });
  return isRaw ? res : toResponse(res);
}

/**
 * The session of a Web `Request`, or null, on any server (Bun, Deno, Hono, a `node:http` handler
 * that builds a `Request`): what `GET <basePath>/session` would answer, with the `jwt` and
 * `session` callbacks run, but no cookie set. Environment variables (`AUTH_SECRET`, `AUTH_URL`,
 * ...) are read as `Auth` reads them. It never throws: the one session read's failure policy
 * (README, "Reading the session") answers null for a missing secret, an untrusted host (neither
 * AUTH_URL, `trustHost` nor a loopback name) and a failing session store, each logged.
 *
 * @example
 * ```ts
 * const session = await getSession(request, config)
 * if (!session?.user) return Response.redirect(new URL("/auth/signin", request.url), 303)
 * ```
 */
export async function getSession(request: Request, config: AuthConfig): Promise<Session | null> {
  const url = new URL(request.url);
  const where = { protocol: url.protocol, host: url.host, cookieHeader: request.headers.get("cookie") };
  return (await sessionReadOf(where, config, { reissue: false })).session;
}
