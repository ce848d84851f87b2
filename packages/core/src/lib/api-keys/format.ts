/**
 * What an API key looks like and how it is kept: `<prefix>_<id>_<secret>`, where `prefix` names
 * the application (`lk` by default: a secret scanner or a person recognises it), `id` is 16 hex
 * digits that find the record (public: lists show it), and `secret` 32 random bytes (base64url).
 *
 * The store keeps an HMAC-SHA-256 of the whole key under a key derived from the configuration's
 * secret, not a password hash: the secret part has 256 bits of entropy, so no guessing is made
 * cheaper by a fast hash, and verification stays a microsecond on every request. Keyed, so a
 * database read alone cannot even check a guess, and a database write alone cannot plant a key.
 */
import { hkdf, macOf, randomBytes, timingSafeEqual, toBase64url, toHex, utf8 } from "#platform";
import { derivedOnce } from "../base/key-cache.js";

/** The longest key (prefix of at most 16) and then some: anything longer is refused before any work. */
export const MAX_KEY_LENGTH = 100;
const PREFIX = /^[a-z][a-z0-9]{0,15}$/;
const KEY = /^([a-z][a-z0-9]{0,15})_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** True for a prefix Latchkey accepts: 1 to 16 lower-case letters and digits, a letter first. */
export function isKeyPrefix(value: unknown): value is string {
  return typeof value === "string" && PREFIX.test(value);
}

/** A fresh key with its id. */
export function newKey(prefix: string): { id: string; key: string } {
  const id = toHex(randomBytes(8));
  return { id, key: `${prefix}_${id}_${toBase64url(randomBytes(32))}` };
}

/** The id of a well-formed key with this prefix, or undefined. */
export function keyIdOf(key: string, prefix: string): string | undefined {
  if (key.length > MAX_KEY_LENGTH) return undefined;
  const parts = KEY.exec(key);
  return parts && parts[1] === prefix ? parts[2] : undefined;
}

const hashKey = derivedOnce((secret: string) => macOf("sha256", hkdf(secret, "", "Latchkey API key hash", 32)));

/** The stored form of `key`: its HMAC under the configuration's signing secret (the first). */
export function keyHash(key: string, secrets: readonly string[]): string {
  return toBase64url(hashKey(secrets[0] as string)(key));
}

/**
 * True when `key` hashes to `stored` under one of the secrets (the newest first: a key made before
 * a secret rotation keeps working while the old secret is listed). Each comparison is in constant
 * time; how many secrets are tried depends only on the configuration.
 */
export function keyMatches(key: string, stored: string, secrets: readonly string[]): boolean {
  const expected = utf8(stored);
  let matched = false;
  for (const secret of secrets) {
    // Every secret is tried, so a match under an older one takes no longer than a miss.
    if (timingSafeEqual(utf8(toBase64url(hashKey(secret)(key))), expected)) matched = true;
  }
  return matched;
}
