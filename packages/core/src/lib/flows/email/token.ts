import { hkdf, hmac, randomBytes, toHex } from "#platform";

/**
 * A sign-in token: 32 random bytes (256 bits) as 64 hex characters.
 *
 * @example
 * ```ts
 * randomVerificationToken() // "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
 * ```
 */
export function randomVerificationToken(): string {
  return toHex(randomBytes(32));
}

/**
 * The key that hashes verification tokens, derived from a secret with HKDF-SHA256, so that the
 * secret itself never keys anything but the derivation.
 */
export function verificationTokenKey(secret: string): Uint8Array {
  return hkdf(secret, "", "Latchkey e-mail verification token", 32);
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
export function hashVerificationToken(key: Uint8Array, identifier: string, token: string): string {
  return toHex(hmac("sha256", key, identifier, "\0", token));
}
