/**
 * The face of lib/password/: every name the rest of the library uses from this wing. Entry modules
 * import lib/password/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/password/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export {
  type BreachedPasswordOptions,
  type BreachedPasswordResult,
  checkBreachedPassword,
  isBreachedPassword,
} from "./breached.js";
export {
  DEFAULT_SCRYPT_PARAMETERS,
  dummyVerify,
  type HashOptions,
  hashPassword,
  MAX_PASSWORD_BYTES,
  needsRehash,
  type ScryptParameters,
  verifyPassword,
} from "./hash.js";
export {
  checkPasswordPolicy,
  type PasswordPolicyOptions,
  type PasswordPolicyReason,
  type PasswordPolicyResult,
} from "./policy.js";
