/**
 * The face of lib/accounts/: every name the rest of the library uses from this wing. Entry modules
 * import lib/accounts/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/accounts/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { type AccountPage, accountPage } from "./account-page.js";
export { changePassword } from "./change.js";
export { accountInputs, type FormFields } from "./forms.js";
export type { AccountLimits } from "./limits.js";
export { type AccountMail, type AccountMailKind, minutes, renderMail } from "./mail.js";
export {
  type AccountsPagesAnswer,
  type AccountsPagesRequest,
  accountsPages,
} from "./pages-router.js";
export {
  type AccountsRequest,
  type ChangeResult,
  MemoryPasswordStore,
  type NewPasswordError,
  type PasswordAccountsOptions,
  type PasswordStore,
  type RateLimitedResult,
  type ResetRequestResult,
  type ResetResult,
  type ResultCookies,
  type SignUpResult,
  type VerifyEmailResult,
} from "./password-accounts.js";
export { requestPasswordReset, resetPassword } from "./reset.js";
export {
  confirmTotpEnrolment,
  disableTotp,
  regenerateBackupCodes,
  type SecondFactorOptions,
  type SecondFactorStatus,
  secondFactorStatus,
  startTotpEnrolment,
  type TotpEnrolment,
} from "./second-factor.js";
export { senderOf } from "./shared.js";
export { authorizePassword } from "./sign-in.js";
export { signUp, verifyEmail } from "./sign-up.js";
