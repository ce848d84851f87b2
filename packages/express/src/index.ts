/**
 * Latchkey for Express 4 and 5: mount the actions with `ExpressAuth`, read the session of any
 * request with `getSession`.
 *
 * @example
 * ```ts
 * import express from "express"
 * import { ExpressAuth, getSession } from "@latchkey/express"
 * import GitHub from "@latchkey/express/providers/github"
 *
 * const config = { providers: [GitHub] }          // AUTH_SECRET, AUTH_GITHUB_ID/SECRET from the environment
 * const app = express()
 * app.set("trust proxy", 1)                       // only behind one proxy you control
 * app.use("/auth", ExpressAuth(config))
 * app.get("/me", async (req, res) => res.json(await getSession(req, config)))
 * ```
 * @module @latchkey/express
 */
import type { ServerResponse } from "node:http";
import type { AuthConfig, Session } from "@latchkey/core";
import { serve, sessionOf } from "@latchkey/core/internal";
import { type ExpressRequestLike, toIncoming, writeResponse } from "./convert.js";

export { customFetch, skipCSRFCheck } from "@latchkey/core";
export * from "@latchkey/core/errors";
export type * from "@latchkey/core/types";
export { type ExpressRequestLike, toIncoming, writeResponse } from "./convert.js";
export * from "./sessions.js";

type Next = (error?: unknown) => void;

/**
 * Serves Latchkey's actions. Mount it on the base path: `app.use("/auth", ExpressAuth(config))`
 * (Express 4 and 5). It reads the body itself, so no body parser is needed in front of it (one
 * that already ran is used as is). Environment defaults (`AUTH_SECRET`, `AUTH_URL`, ...) are read
 * once, when the configuration is first resolved; `config` itself is never written to.
 *
 * @example
 * ```ts
 * app.use("/auth", ExpressAuth({ providers: [Credentials({ ... })] }))
 * ```
 */
export function ExpressAuth(config: AuthConfig) {
  return async function latchkey(req: ExpressRequestLike, res: ServerResponse, next: Next): Promise<void> {
    try {
      const incoming = toIncoming(req);
      incoming.clientIpForgeable = req.app?.get("trust proxy") === true;
      writeResponse(res, await serve(incoming, config, { env: process.env }));
    } catch (e) {
      next(e);
    }
  };
}

/**
 * The session of a request, or null. It runs the `jwt` and `session` callbacks like
 * `GET /auth/session` does, but sets no cookie (so it never re-seals a token it would throw
 * away). A failing session store is logged and gives null: the request is treated as signed out.
 *
 * @example
 * ```ts
 * app.get("/dashboard", async (req, res) => {
 *   const session = await getSession(req, config)
 *   if (!session?.user) return res.redirect("/auth/signin?callbackUrl=/dashboard")
 *   res.render("dashboard", { user: session.user })
 * })
 * ```
 */
export function getSession(req: ExpressRequestLike, config: AuthConfig): Promise<Session | null> {
  const { protocol, host } = toIncoming(req);
  return sessionOf({ protocol, host, cookieHeader: req.headers.cookie }, config, { env: process.env });
}
