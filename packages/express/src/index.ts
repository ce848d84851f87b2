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
import type { AuthConfig, SessionOf } from "@latchkey/core";
import {
  type GuardOptions,
  guard,
  noteMount,
  serve,
  sessionReadOf,
  warnOnceFor,
  writeNodeResponse,
} from "@latchkey/core/internal";
import { type ExpressRequestLike, type ExpressSessionSource, sessionRequest, toIncoming } from "./convert.js";
import { markHandler, mountOf } from "./mount.js";

export { customFetch, skipCSRFCheck } from "@latchkey/core";
export * from "@latchkey/core/errors";
export type * from "@latchkey/core/types";
export { getAccessToken } from "./access-token.js";
export * from "./accounts.js";
export { requireApiKey } from "./api-keys.js";
export * from "./audit.js";
export { ExpressAuthorizationServer } from "./authorization-server.js";
export { type ExpressRequestLike, toIncoming } from "./convert.js";
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
  return markHandler(async function latchkey(req: ExpressRequestLike, res: ServerResponse, next: Next): Promise<void> {
    try {
      const incoming = toIncoming(req, config);
      noteMount(config, incoming.mountPath);
      incoming.clientIpForgeable = req.app?.get("trust proxy") === true;
      writeNodeResponse(res, await serve(incoming, config, { env: process.env }));
    } catch (e) {
      next(e);
    }
  }, config);
}

/**
 * The session of a request, or null. It runs the `jwt` and `session` callbacks like
 * `GET /auth/session` does, but sets no cookie (it has no response to set one on, so it never
 * re-seals a token it would throw away). It never throws: the one session read's failure policy
 * (README, "Reading the session") answers null for a missing secret, an untrusted host and a
 * failing session store, each logged.
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
export async function getSession<C extends AuthConfig>(
  req: ExpressRequestLike,
  config: C,
): Promise<SessionOf<C> | null> {
  const read = await sessionReadOf(sessionRequest(req), config, { env: process.env, reissue: false });
  return read.session as SessionOf<C> | null;
}

/**
 * Express's `res.locals` once `requireAuth` has run: `res.locals.session` is the signed-in session.
 * Name it where a handler types its own request or response, so that its `res.locals.session` is
 * typed too: a handler typed only `Request<P, ResBody, ReqBody>` or `RequestHandler<P, ResBody,
 * ReqBody>` gets Express's default locals, in which `session` is `any`.
 *
 * @example
 * ```ts
 * type Locals = SessionLocals<typeof config>
 * app.post("/orders", requireAuth(config), (req: Request<{}, unknown, Order>, res: Response<unknown, Locals>) => {
 *   res.json({ by: res.locals.session.user.name, item: req.body.item })
 * })
 * const place: RequestHandler<{ id: string }, unknown, Order, ParsedQs, Locals> = (req, res) => { ... }
 * ```
 */
export type SessionLocals<C extends AuthConfig> = { session: SessionOf<C> };

/** What `requireAuth` reads of a request (no `body`, no `params`: those stay Express's to infer). */
type GuardedRequest = ExpressSessionSource & Pick<ExpressRequestLike, "originalUrl" | "url">;

// biome-ignore lint/suspicious/noExplicitAny: Express's own `locals` type, for inference and assignment
type AnyLocals = Record<string, any>;

/**
 * What `requireAuth` returns, written without Express's types (the package does not depend on
 * them). Two call signatures, because a handler in the chain that names its own types fixes
 * Express's `LocalsObj` before `requireAuth` can:
 * - the first accepts any response whose `locals.session` is absent or the session (the locals of
 *   `Request<P, ResBody, ReqBody>`, of `RequestHandler<...>`, of `Response<ResBody, SessionLocals<C>>`);
 * - the last is the one TypeScript infers Express's `LocalsObj` from when nothing else fixes it,
 *   so an unannotated `(req, res) => ...` after `requireAuth` gets `res.locals.session` typed and
 *   non-null.
 * A handler whose locals give `session` another type is refused.
 */
export interface SessionGuard<S> {
  (req: GuardedRequest, res: ServerResponse & { locals: AnyLocals & { session?: S } }, next: Next): Promise<void>;
  (req: GuardedRequest, res: ServerResponse & { locals: AnyLocals & { session: S } }, next: Next): Promise<void>;
}

/**
 * Middleware for routes and routers that need a signed-in user. With one, the session is put on
 * `res.locals.session` (typed, never null, for the handlers after it). Without one, a browser is
 * redirected to the sign-in page with this URL as `callbackUrl`; any other client (one that does
 * not accept HTML) gets `401 {"error":"SessionRequired"}`.
 *
 * `factors` and `amr` demand how the user signed in (recorded when a second factor is
 * configured, see `@latchkey/core/providers/totp`): a session that signed in with fewer distinct
 * methods, or without each listed one, gets `403 {"error":"SecondFactorRequired"}`, or a
 * redirect to `factorPage` (with this URL as `callbackUrl`) for a browser when one is given.
 *
 * @example
 * ```ts
 * app.get("/account", requireAuth(config), (req, res) => res.json(res.locals.session.user))
 * app.use("/admin", requireAuth(config, { signInPage: "/login" })) // a whole path, before its router
 * app.use("/admin", adminRouter)
 * app.post("/transfer", requireAuth(config, { factors: 2, factorPage: "/account" }), transfer)
 * app.delete("/projects/:id", requireAuth(config, { permission: "project:delete" }), removeProject)
 * ```
 *
 * `organization`, `role` and `permission` demand the active organization (`organizations` in the
 * configuration; the membership is read from the store on this request): without one
 * `403 {"error":"OrganizationRequired"}`, with a role that is not enough `403 {"error":"Forbidden"}`.
 */
export function requireAuth<C extends AuthConfig>(config: C, options: GuardOptions = {}): SessionGuard<SessionOf<C>> {
  const check = guard(config, options);
  return async function requireSession(
    req: GuardedRequest,
    res: ServerResponse & { locals: AnyLocals & { session?: SessionOf<C> } },
    next: Next,
  ) {
    try {
      const url = req.originalUrl ?? req.url ?? "/";
      const mountPath = options.signInPage === undefined ? signInMount(req, config) : undefined;
      const request = { ...sessionRequest(req), accept: req.headers.accept, url, mountPath };
      const result = await check(request, { env: process.env });
      if (result.response) return writeNodeResponse(res, result.response);
      res.locals.session = result.session as SessionOf<C>;
      next();
    } catch (e) {
      next(e);
    }
  };
}

/**
 * Where `ExpressAuth(config)` is mounted when the configuration sets no `basePath` (its sign-in
 * page is there); warns once when the application's router does not send the usual sign-in paths
 * to it, which would otherwise redirect browsers to a 404.
 */
function signInMount(req: GuardedRequest, config: AuthConfig): string | undefined {
  if (config.basePath !== undefined) return undefined;
  const mount = mountOf(req.app, config);
  if (mount !== null) return mount;
  warnOnceFor(config, "require-auth-mount", process.env);
  return undefined;
}
