import { fromHex, hkdf, type Mac, macOf, timingSafeEqual, toHex, utf8 } from "#platform";
import { derivedOnce } from "../base/key-cache.js";
import type { Secrets } from "./jwe.js";
import { randomHexFromPool } from "./random-pool.js";

/**
 * Double-submit CSRF tokens (spec §5.4). The cookie holds `token|mac`, where `mac` is an
 * HMAC-SHA256 of the token under a key derived from the secret: a cookie planted by an attacker
 * (through a sub-domain, say) cannot carry a valid mac. A POST is verified when its body's
 * `csrfToken` equals the token of a cookie whose mac checks out.
 */
export interface CsrfKeys {
  /** One key per secret; the first signs, all verify (secret rotation). Derived on first use. */
  readonly keys: readonly [Mac, ...Mac[]];
}

// Derived once per secret and process, on first use, and prepared (macOf): keying an HMAC again
// at every call costs as much as the MAC itself.
const csrfKey = derivedOnce((secret) => macOf("sha256", hkdf(secret, "", "Latchkey CSRF token key", 32)));

/**
 * The CSRF keys of a configuration's secrets. Nothing is derived here: configuration resolution
 * stays free of cryptographic work, and the keys are made at the first token minted or checked.
 */
export function deriveCsrfKeys(secrets: Secrets): CsrfKeys {
  return new KeysAtFirstUse(secrets);
}

/** A class instance, which the configuration's deep freeze keeps as it is instead of reading it. */
class KeysAtFirstUse implements CsrfKeys {
  readonly #secrets: Secrets;
  #keys: readonly [Mac, ...Mac[]] | undefined;
  constructor(secrets: Secrets) {
    this.#secrets = secrets;
  }
  get keys(): readonly [Mac, ...Mac[]] {
    if (!this.#keys) {
      const [newest, ...older] = this.#secrets;
      this.#keys = [csrfKey(newest), ...older.map(csrfKey)];
    }
    return this.#keys;
  }
}

/** A new token and the cookie value that proves it. */
export function createCsrfToken(keys: CsrfKeys): { token: string; cookieValue: string } {
  // 32 bytes of the shared pool (random-pool.ts): one CSPRNG call serves many tokens.
  const token = randomHexFromPool(32);
  return { token, cookieValue: `${token}|${toHex(keys.keys[0](token))}` };
}

const TOKEN = /^[0-9a-f]{64}$/;
const MAC = /^[0-9a-f]{64}$/;

/** The token of a genuine cookie value, or undefined for a missing or forged one. */
export function readCsrfCookie(keys: CsrfKeys, cookieValue: string | undefined): string | undefined {
  if (!cookieValue) return undefined;
  const bar = cookieValue.indexOf("|");
  if (bar === -1) return undefined;
  const token = cookieValue.slice(0, bar);
  const received = cookieValue.slice(bar + 1);
  if (!TOKEN.test(token) || !MAC.test(received)) return undefined;
  const receivedMac = fromHex(received);
  for (const key of keys.keys) {
    if (timingSafeEqual(key(token), receivedMac)) return token;
  }
  return undefined;
}

/** Constant-time comparison of the submitted token with the cookie's. */
export function csrfTokensMatch(cookieToken: string | undefined, submitted: unknown): boolean {
  if (!cookieToken || typeof submitted !== "string" || submitted.length !== cookieToken.length) return false;
  return timingSafeEqual(utf8(cookieToken), utf8(submitted));
}
