/**
 * The face of lib/limits/: every name the rest of the library uses from this wing. Entry modules
 * import lib/limits/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/limits/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export {
  clientKey,
  reserveCredentialsAttempt,
  reserveEmailCodeAttempt,
  reserveEmailSend,
  reserveSecondFactorAttempt,
  reserveWebAuthnOptions,
} from "./attempts.js";
export { MemoryRateLimitStore } from "./memory-store.js";
export {
  defaultRateLimitStore,
  isSecretOrControlField,
  type ResolvedRateLimit,
  resolveRateLimit,
} from "./rate-limits.js";
