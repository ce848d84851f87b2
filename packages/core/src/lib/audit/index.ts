/**
 * The face of lib/audit/: every name the rest of the library uses from this wing. Entry modules
 * import lib/audit/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/audit/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */

export { type AuditFunctionOptions, listAuditEvents, recordPasswordChange } from "./events.js";
export {
  admitAnonymous,
  admitRecord,
  noteSecretRotation,
  type ResolvedAudit,
  recordAudit,
  recordPendingAudit,
  resolveAudit,
  withAuditedEvents,
} from "./record.js";
export {
  failureReasonOf,
  noteSignInAttempt,
  recordSignInFailure,
  recordSignInSuccess,
  UnknownUserSignin,
} from "./sign-in.js";
