/**
 * The sessions and linked-accounts functions of `@latchkey/core/sessions`, taking an Express
 * request (like `getSession`) and reading the environment's defaults as `ExpressAuth` does.
 * @module sessions
 */
export type {
  ChangeOptions,
  LinkedAccount,
  RevokeUserSessionsOptions,
  SessionInfo,
  UnlinkOptions,
  UnlinkResult,
} from "@latchkey/core/sessions";
export { describeUserAgent } from "@latchkey/core/sessions";

import type { ServerResponse } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import { MissingCSRF } from "@latchkey/core/errors";
import { boundSessions } from "@latchkey/core/internal";
import { appendCookies, type ExpressRequestLike, sessionRequest } from "./convert.js";

/** The `csrfToken` field of the parsed body (`express.urlencoded()` or `express.json()` before the route). */
function submittedToken(req: ExpressRequestLike): unknown {
  const body = req.body;
  return body && typeof body === "object" && Object.hasOwn(body, "csrfToken")
    ? (body as { csrfToken: unknown }).csrfToken
    : undefined;
}

const bound = boundSessions<ExpressRequestLike>(sessionRequest, () => process.env, submittedToken);

/**
 * `fn`, with a refused CSRF check marked as HTTP 403 (`status`, `expose`): an application without
 * its own error handler answers 403 with the reason, never a 500.
 */
function forbiddenWithoutCsrf<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T {
  return (...args: A): T => {
    const mark = (e: unknown) => {
      if (e instanceof MissingCSRF) Object.assign(e, { status: 403, statusCode: 403, expose: true });
      throw e;
    };
    try {
      const result = fn(...args);
      return (result instanceof Promise ? result.catch(mark) : result) as T;
    } catch (e) {
      return mark(e);
    }
  };
}

/**
 * The signed-in user's sessions (current first), or null when signed out. Needs database sessions.
 * @example
 * ```ts
 * app.get("/account/sessions", async (req, res) => res.json(await listSessions(req, config)))
 * ```
 */
export const listSessions = bound.listSessions;

/**
 * Revokes one of the signed-in user's sessions by its listed `id`; false for any other id. The
 * form must post `csrfToken` (see {@link getCsrfToken}; parse the body first): without it, or
 * with a wrong one, it throws `MissingCSRF` (HTTP 403) and revokes nothing.
 * @example
 * ```ts
 * app.post("/account/sessions/revoke", express.urlencoded({ extended: false }), async (req, res) =>
 *   res.json({ revoked: await revokeSession(req, config, req.body.id) }))
 * ```
 */
export const revokeSession = forbiddenWithoutCsrf(bound.revokeSession);

/**
 * Revokes every session of the signed-in user but this one; answers how many (null when signed
 * out). The form must post `csrfToken`, as for {@link revokeSession}.
 * @example
 * ```ts
 * app.post("/account/sessions/revoke-others", express.urlencoded({ extended: false }), async (req, res) =>
 *   res.json({ revoked: await revokeOtherSessions(req, config) }))
 * ```
 */
export const revokeOtherSessions = forbiddenWithoutCsrf(bound.revokeOtherSessions);

/**
 * Revokes every session of a user (an administrator, a password change): deletes database
 * sessions and answers how many; with JWT sessions and `session.revocation`, revokes them on every
 * instance and answers null.
 * @example
 * ```ts
 * await revokeUserSessions(config, user.id, { reason: "password-changed" })
 * ```
 */
export const revokeUserSessions = bound.revokeUserSessions;

/**
 * The signed-in user's linked accounts, without tokens (null when signed out).
 * @example
 * ```ts
 * app.get("/account/accounts", async (req, res) => res.json(await listAccounts(req, config)))
 * ```
 */
export const listAccounts = bound.listAccounts;

/**
 * Unlinks one of the signed-in user's accounts, refusing the last way to sign in. The form must
 * post `csrfToken`, as for {@link revokeSession}.
 * @example
 * ```ts
 * const result = await unlinkAccount(req, config, { provider: req.body.provider, providerAccountId: req.body.id })
 * ```
 */
export const unlinkAccount = forbiddenWithoutCsrf(bound.unlinkAccount);

/**
 * The CSRF token for a form of your own (a hidden `csrfToken` field): the one of the request's
 * signed CSRF cookie, or a new one, whose cookie is then set on `res`. What Latchkey's own pages
 * post; the functions above that change something check it.
 * @example
 * ```ts
 * app.get("/account", async (req, res) => {
 *   const csrfToken = await getCsrfToken(req, res, config)
 *   res.send(`<form method="post" action="/account/sessions/revoke-others">
 *     <input type="hidden" name="csrfToken" value="${csrfToken}"><button>Sign out other devices</button></form>`)
 * })
 * ```
 */
export async function getCsrfToken(req: ExpressRequestLike, res: ServerResponse, config: AuthConfig): Promise<string> {
  const answer = await bound.getCsrfToken(req, config);
  appendCookies(res, answer.setCookie);
  return answer.token;
}

/**
 * Middleware: the CSRF check of Latchkey's own POSTs for routes of yours that change something
 * (the second-factor forms of an account page, say). A request whose parsed body's `csrfToken`
 * is not the token of its signed CSRF cookie gets `403 {"error":"MissingCSRF"}` and never reaches
 * the route. Put a body parser before it.
 * @example
 * ```ts
 * app.use("/account/totp", express.urlencoded({ extended: false }), requireCsrf(config))
 * app.post("/account/totp/disable", async (req, res) => { await disableTotp(config, userId, req.body.code) })
 * ```
 */
export function requireCsrf(config: AuthConfig) {
  return function csrfChecked(req: ExpressRequestLike, res: ServerResponse, next: (error?: unknown) => void): void {
    try {
      bound.checkCsrf(req, config);
    } catch (e) {
      if (!(e instanceof MissingCSRF)) {
        next(e);
        return;
      }
      res.statusCode = 403;
      res.setHeader("Content-Type", "application/json");
      res.setHeader("Cache-Control", "no-store");
      res.end(JSON.stringify({ error: "MissingCSRF", message: "This form was not sent with a valid CSRF token." }));
      return;
    }
    next();
  };
}
