/**
 * The few cryptographic steps of the authorization server, on the core's platform module
 * (`#platform`: Node.js's crypto, or Web Crypto and `@noble/hashes` elsewhere): random values,
 * SHA-256 digests of the secrets it stores (codes, tokens and client secrets are kept as digests,
 * never as they are handed out), and HMACs under keys derived from the application's secret.
 */
import { hash, hkdf, type Mac, macOf, randomBytes, timingSafeEqual, toBase64url, utf8 } from "#platform";

/**
 * `bytes` random bytes as base64url: codes, tokens, ids and secrets.
 *
 * @example
 * ```ts
 * randomToken() // "q2V0-…" (43 characters: 256 bits)
 * ```
 */
export function randomToken(bytes = 32): string {
  return toBase64url(randomBytes(bytes));
}

/**
 * SHA-256 of `text` as base64url: what the store keeps of a code or a token, so a copy of the
 * store holds nothing a client could present.
 */
export function digest(text: string): string {
  return toBase64url(hash("sha256", text));
}

/** The left half of the SHA-256 of `text`, base64url (`at_hash`, OIDC Core §3.1.3.6). */
export function leftHalfDigest(text: string): string {
  return toBase64url(hash("sha256", text).subarray(0, 16));
}

/** The HMAC keys derived from each secret, per (secret, label): derived once. */
const keys = new Map<string, Mac>();
const KEY_CACHE_LIMIT = 64;

function macKey(secret: string, label: string): Mac {
  const cacheKey = `${label}\u0000${secret}`;
  const known = keys.get(cacheKey);
  if (known) return known;
  const made = macOf("sha256", hkdf(secret, "", `Latchkey ${label}`, 32));
  if (keys.size >= KEY_CACHE_LIMIT) {
    const [oldest] = keys.keys();
    if (oldest !== undefined) keys.delete(oldest);
  }
  keys.set(cacheKey, made);
  return made;
}

/**
 * HMAC-SHA256 of `text` under the key of `label` derived from `secret` (HKDF-SHA256), as base64url.
 *
 * @example
 * ```ts
 * mac(secret, "refresh token", `${family}.${generation}`)
 * ```
 */
export function mac(secret: string, label: string, text: string): string {
  return toBase64url(macKey(secret, label)(text));
}

/** Whether two strings are equal, in time that depends only on their length. */
export function sameText(a: string, b: string): boolean {
  return timingSafeEqual(utf8(a), utf8(b));
}
