/**
 * The face of lib/accounts/: every name the rest of the library uses from this wing. Entry modules
 * import lib/accounts/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/accounts/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { accountInputs, type FormFields } from "./forms.js";
export type { AccountLimits } from "./limits.js";
export type { AccountMail, AccountMailKind } from "./mail.js";
export {
  type AccountsPagesAnswer,
  type AccountsPagesCalls,
  type AccountsPagesRequest,
  accountsPages,
} from "./pages-router.js";
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
} from "./password-accounts.js";
