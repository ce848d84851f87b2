/**
 * Sessions a user can see and end, and the accounts linked to the user: functions the application
 * calls from its own routes (Latchkey's HTTP actions stay the spec's). Framework packages wrap them
 * with their own request type (`@latchkey/express` exports the same names taking `req`).
 *
 * Session lists and the revocation of one session or of the others need database sessions
 * (`session.strategy: "database"`); under the JWT strategy they throw `UnsupportedStrategy`.
 * `revokeUserSessions` serves both: it deletes database sessions, and revokes JWT sessions through
 * `session.revocation` (without it, `UnsupportedStrategy`). Linked accounts work under both strategies, with
 * an adapter. Sessions are named by an id derived from their token (a keyed hash), never by the
 * token itself: the token is a bearer credential, the id is safe to put in a page.
 *
 * @example
 * ```ts
 * import { listSessions, revokeSession } from "@latchkey/core/sessions"
 * const sessions = await listSessions(request, config) // [{ id, current: true, device: "Firefox on macOS", ... }]
 * // A change needs the CSRF token the form posted (getCsrfToken puts it in the form):
 * await revokeSession(request, config, sessions[1].id, { csrfToken: form.get("csrfToken") })
 * ```
 * @module sessions
 */
export { MissingCSRF } from "./errors.js";
export { skipCSRFCheck } from "./lib/base/index.js";
export type { SessionRequest } from "./lib/serve/index.js";
export {
  announceSessionChange,
  type ChangeOptions,
  type CsrfTokenAnswer,
  checkCsrf,
  describeUserAgent,
  getCsrfToken,
  type LinkedAccount,
  listAccounts,
  listSessions,
  type RevokeUserSessionsOptions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  type SessionInfo,
  type SessionsOptions,
  type SessionsRequest,
  type UnlinkOptions,
  type UnlinkResult,
  unlinkAccount,
} from "./lib/session/index.js";
