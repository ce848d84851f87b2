/**
 * A provider access token that is valid when the application uses it. `getAccessToken` reads the
 * signed-in user's tokens for a provider (database sessions: the account record; JWT sessions:
 * the session token, with `accessTokens: { jwt: true }`), and when the access token has expired
 * or will within `skewSeconds`, redeems the refresh token (RFC 6749 §6) once, however many
 * requests and instances ask at the same moment, writes the rotated tokens back, and returns the
 * new access token with the session cookie to set (JWT sessions).
 *
 * @example
 * ```ts
 * import { getAccessToken } from "@latchkey/core/access-token"
 * const token = await getAccessToken(request, config, { provider: "google" })
 * if (!token) return Response.redirect("/auth/signin")
 * const events = await fetch("https://www.googleapis.com/calendar/v3/users/me/calendarList", {
 *   headers: { authorization: `Bearer ${token.accessToken}` },
 * })
 * ```
 * @module access-token
 */

// AuthError is re-exported so `instanceof` checks need one import.
export {
  AccessTokenError,
  AuthError,
  IdTokenRefused,
  RefreshTokenRevoked,
  ResponseAlreadySent,
} from "./lib/base/index.js";
export {
  type AccessToken,
  type AccessTokenRequest,
  type GetAccessTokenOptions,
  getAccessToken,
} from "./lib/refresh/index.js";
export type { RefreshStore } from "./shapes/refresh.js";
