/**
 * Enrolment and management of the TOTP second factor (RFC 6238), called by the application from
 * its own account page for the signed-in user. Latchkey extension: Auth.js has no second factor.
 *
 * 1. `startTotpEnrolment` makes a 160-bit secret and returns it as text, as an `otpauth://` URI
 *    and as a QR code (SVG, rendered in process: the secret never leaves the server).
 * 2. `confirmTotpEnrolment` activates it with the first valid code from the app and returns ten
 *    backup codes, shown once (only their hashes are stored).
 * 3. From then on, every sign-in of this user asks for a code (see `@latchkey/core/providers/totp`).
 * 4. `disableTotp` and `regenerateBackupCodes` require a fresh code (or a backup code).
 *
 * The secret is stored sealed under a key derived from the configuration's `secret`, through the
 * adapter's second-factor methods. Codes of a time step already used are refused, and attempts
 * count against the user's second-factor rate limit.
 *
 * @example
 * ```ts
 * import { startTotpEnrolment, confirmTotpEnrolment } from "@latchkey/core/second-factor"
 * const { secret, uri, qrSvg } = await startTotpEnrolment(config, { id: user.id, label: user.email })
 * // ...the user scans qrSvg, types a code...
 * const result = await confirmTotpEnrolment(config, user.id, code)
 * if (result.ok) showOnce(result.backupCodes)
 * ```
 * @module second-factor
 */

export {
  confirmTotpEnrolment,
  disableTotp,
  regenerateBackupCodes,
  type SecondFactorOptions,
  type SecondFactorStatus,
  secondFactorStatus,
  startTotpEnrolment,
  type TotpEnrolment,
} from "./lib/accounts/index.js";
