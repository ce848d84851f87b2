/**
 * Password accounts, end to end: sign-up, address verification (link or code), forgotten
 * password, change of password, and the password sign-in check for a Credentials provider.
 * Latchkey extension: Auth.js leaves all of it to the application.
 *
 * Latchkey's adapters keep users, sessions and single-use records; the password hashes live in a
 * {@link PasswordStore} the application gives (its own table), keyed by the adapter's user id.
 *
 * - {@link signUp}: the same answer and the same work whether or not the address is taken (its
 *   owner gets an e-mail instead); policy and breached-password checks; the address stays unproven
 *   until verified.
 * - {@link verifyEmail}: the mailed code (in the browser that signed up) or link (elsewhere it also
 *   asks for the password: whoever proves the address must be whoever chose the password).
 * - {@link requestPasswordReset} / {@link resetPassword}: no enumeration, limited, a single-use
 *   expiring token stored hashed; a completed reset ends every session of the user and pending
 *   second-factor sign-ins, and signs no one in (the second factor still applies).
 * - {@link changePassword}: the current password (or a recent sign-in), CSRF-checked; ends the
 *   user's other sessions and records `password.changed`.
 * - {@link authorizePassword}: the check a Credentials provider's `authorize()` makes.
 *
 * @example
 * ```ts
 * import { signUp, MemoryPasswordStore } from "@latchkey/core/accounts"
 * const accounts = { passwords: new MemoryPasswordStore(), urls: { verify: "/account/verify", reset: "/account/reset", signIn: "/auth/signin", signUp: "/account/signup" } }
 * const result = await signUp(request, config, accounts, { email, password, clientAddress })
 * if (!result.ok) return reply(400, result)
 * // result.setCookie: the cookie that lets this browser type the mailed code
 * ```
 * @module accounts
 */
export type { AccountLimits, AccountMail, AccountMailKind } from "./lib/accounts/index.js";
export {
  type AccountPage,
  type AccountsRequest,
  accountPage,
  authorizePassword,
  type ChangeResult,
  changePassword,
  MemoryPasswordStore,
  type NewPasswordError,
  type PasswordAccountsOptions,
  type PasswordStore,
  type RateLimitedResult,
  type ResetRequestResult,
  type ResetResult,
  type ResultCookies,
  requestPasswordReset,
  resetPassword,
  type SignUpResult,
  signUp,
  type VerifyEmailResult,
  verifyEmail,
} from "./lib/accounts/index.js";
export type { AccountPageName, PageNotice } from "./lib/pages/index.js";
