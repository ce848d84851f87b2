/**
 * The face of lib/accounts/: every name the rest of the library uses from this wing. Entry modules
 * import lib/accounts/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/accounts/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { accountInputs, type FormFields } from "./forms.js";
export {
  type AccountEvent,
  type AccountLimits,
  accountLimitsOf,
  countAccountEvent,
  firstResetOfLinkLife,
} from "./limits.js";
export { type AccountMail, type AccountMailKind, accountMails } from "./mail.js";
export {
  type AccountsPagesAnswer,
  type AccountsPagesCalls,
  type AccountsPagesRequest,
  accountsPages,
} from "./pages-router.js";
export { accountKey, consume, randomCode, randomToken, resetRecord, sendIdOf, verifyRecords } from "./records.js";
