/**
 * The sessions and linked-accounts functions of `@latchkey/core/sessions`, taking an Express
 * request (like `getSession`) and reading the environment's defaults as `ExpressAuth` does.
 * @module sessions
 */
export type {
  LinkedAccount,
  RevokeUserSessionsOptions,
  SessionInfo,
  UnlinkOptions,
  UnlinkResult,
} from "@latchkey/core/sessions";
export { describeUserAgent } from "@latchkey/core/sessions";

import { boundSessions } from "@latchkey/core/internal";
import { type ExpressRequestLike, sessionRequest } from "./convert.js";

const bound = boundSessions<ExpressRequestLike>(sessionRequest, () => process.env);

/**
 * The signed-in user's sessions (current first), or null when signed out. Needs database sessions.
 * @example
 * ```ts
 * app.get("/account/sessions", async (req, res) => res.json(await listSessions(req, config)))
 * ```
 */
export const listSessions = bound.listSessions;

/**
 * Revokes one of the signed-in user's sessions by its listed `id`; false for any other id.
 * @example
 * ```ts
 * app.post("/account/sessions/revoke", async (req, res) => res.json({ revoked: await revokeSession(req, config, req.body.id) }))
 * ```
 */
export const revokeSession = bound.revokeSession;

/**
 * Revokes every session of the signed-in user but this one; answers how many (null when signed out).
 * @example
 * ```ts
 * app.post("/account/sessions/revoke-others", async (req, res) => res.json({ revoked: await revokeOtherSessions(req, config) }))
 * ```
 */
export const revokeOtherSessions = bound.revokeOtherSessions;

/**
 * Revokes every session of a user (an administrator, a password change); answers how many.
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
 * Unlinks one of the signed-in user's accounts, refusing the last way to sign in.
 * @example
 * ```ts
 * const result = await unlinkAccount(req, config, { provider: req.body.provider, providerAccountId: req.body.id })
 * ```
 */
export const unlinkAccount = bound.unlinkAccount;
