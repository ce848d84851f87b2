import { createHmac, hkdfSync, randomBytes } from "node:crypto";

/**
 * A sign-in token: 32 random bytes (256 bits) as 64 hex characters.
 *
 * @example
 * ```ts
 * randomVerificationToken() // "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
 * ```
 */
export function randomVerificationToken(): string {
  return randomBytes(32).toString("hex");
}

/**
 * The key that hashes verification tokens, derived from a secret with HKDF-SHA256, so that the
 * secret itself never keys anything but the derivation.
 */
export function verificationTokenKey(secret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "", "Latchkey e-mail verification token", 32));
}

/**
 * What is stored for a token: HMAC-SHA256 of the identifier and the token under a key from the
 * secret, hex. A database leak reveals no usable link, and a hash is bound to its address, so a
 * token cannot be replayed with another e-mail even by an adapter that looked up tokens alone.
 *
 * @example
 * ```ts
 * const stored = hashVerificationToken(verificationTokenKey(secret), "ada@example.com", token)
 * ```
 */
export function hashVerificationToken(key: Buffer, identifier: string, token: string): string {
  return createHmac("sha256", key).update(identifier).update("\0").update(token).digest("hex");
}
