/**
 * The few cryptographic steps of the authorization server, on Web Crypto (`crypto.subtle`,
 * `crypto.getRandomValues`) and `jose`'s base64url: random values, SHA-256 digests of the
 * secrets it stores (codes, tokens, client secrets are kept as digests, never as they are
 * handed out), and HMACs under keys derived from the application's secret.
 */
import { base64url } from "jose";

const encoder = new TextEncoder();

/**
 * `bytes` random bytes as base64url: codes, tokens, ids and secrets.
 *
 * @example
 * ```ts
 * randomToken() // "q2V0-…" (43 characters: 256 bits)
 * ```
 */
export function randomToken(bytes = 32): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * SHA-256 of `text` as base64url: what the store keeps of a code or a token, so a copy of the
 * store holds nothing a client could present.
 */
export async function digest(text: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** The HMAC-SHA256 keys derived from each secret, per (secret, label): derived once. */
const keys = new Map<string, Promise<CryptoKey>>();
const KEY_CACHE_LIMIT = 64;

/** The HMAC key of `label` derived from `secret` (HKDF-SHA256), made once per pair. */
function macKey(secret: string, label: string): Promise<CryptoKey> {
  const cacheKey = `${label}\u0000${secret}`;
  const known = keys.get(cacheKey);
  if (known) return known;
  const made = (async () => {
    const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
    return crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(`Latchkey ${label}`) },
      base,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign"],
    );
  })();
  if (keys.size >= KEY_CACHE_LIMIT) {
    const [oldest] = keys.keys();
    if (oldest !== undefined) keys.delete(oldest);
  }
  keys.set(cacheKey, made);
  return made;
}

/**
 * HMAC-SHA256 of `text` under the key of `label` derived from `secret`, as base64url.
 *
 * @example
 * ```ts
 * await mac(secret, "refresh token", `${family}.${generation}`)
 * ```
 */
export async function mac(secret: string, label: string, text: string): Promise<string> {
  const key = await macKey(secret, label);
  return base64url.encode(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text))));
}

/** Whether two strings are equal, in time that depends only on their length. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
