/**
 * Passwords done right, for applications that keep them (Latchkey's adapters never store one):
 *
 * - {@link hashPassword} / {@link verifyPassword}: scrypt from `node:crypto` (RFC 7914), run on
 *   the thread pool, stored as a self-describing PHC string
 *   `$scrypt$ln=17,r=8,p=1$<salt>$<hash>`; {@link needsRehash} tells when to upgrade a hash at
 *   sign-in, and {@link dummyVerify} makes an unknown account cost what a wrong password costs;
 * - {@link checkPasswordPolicy}: NIST SP 800-63B length rules, no composition rules, not the
 *   user's own identifier; reasons as codes;
 * - {@link checkBreachedPassword}: Have I Been Pwned's k-anonymity range API (only 5 hex
 *   characters of the SHA-1 leave the process).
 *
 * @example
 * ```ts
 * import { checkBreachedPassword, checkPasswordPolicy, hashPassword } from "@latchkey/core/password"
 * // sign-up
 * const policy = checkPasswordPolicy(password, { identifiers: [email] })
 * if (!policy.ok) return reply(400, { error: "weak-password", reasons: policy.reasons })
 * if ((await checkBreachedPassword(password)).breached) return reply(400, { error: "breached-password" })
 * await db.users.insert({ email, passwordHash: await hashPassword(password) })
 * ```
 * @module password
 */

export {
  type BreachedPasswordOptions,
  type BreachedPasswordResult,
  checkBreachedPassword,
  checkPasswordPolicy,
  DEFAULT_SCRYPT_PARAMETERS,
  dummyVerify,
  type HashOptions,
  hashPassword,
  isBreachedPassword,
  MAX_PASSWORD_BYTES,
  needsRehash,
  type PasswordPolicyOptions,
  type PasswordPolicyReason,
  type PasswordPolicyResult,
  type ScryptParameters,
  verifyPassword,
} from "./lib/password/index.js";
