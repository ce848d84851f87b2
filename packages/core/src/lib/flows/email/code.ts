/**
 * E-mail one-time codes: the short numeric code mailed with (or instead of) the link, and the
 * verification records that make it safe with nothing but the adapter's
 * `createVerificationToken` / `useVerificationToken` (single use, atomic).
 *
 * One sign-in e-mail with a code stores, all with the link's expiry and under keyed hashes bound to
 * the address and to this one e-mail (its "send id"):
 * - the **code** record (the code's keyed hash: a 6-digit code has 10^6 values, so a plain hash
 *   would be reversed from a database leak in a moment);
 * - `attempts` **attempt** records. Every code submission first consumes one: the consumption is
 *   the count, atomic in every adapter, so 50 concurrent guesses get at most `attempts` tries. When
 *   none is left the code is dead, and so is the link, which needs the last one (below);
 * - one **alive** record, consumed by whichever completes the sign-in first, the link or the code:
 *   one e-mail gives one session, however the two race.
 *
 * The link path consumes its own record, then the *last* attempt record (gone once every attempt
 * was spent: the verification is void), then the alive record.
 */
import { hkdf, hmac, randomInt, toHex } from "#platform";
import type { EmailConfig } from "../../../shapes/email.js";
import { InvalidProvider } from "../../base/errors.js";

/** The resolved `code` option of an e-mail provider. */
export interface EmailCodeOptions {
  /** Digits in a code. */
  length: number;
  /** Wrong submissions after which the e-mail's code and link are void. */
  attempts: number;
}

const DEFAULT_LENGTH = 6;
const DEFAULT_ATTEMPTS = 5;

/**
 * The provider's `code` option resolved (null when codes are off), or `InvalidProvider` naming
 * what is wrong: a length outside 6..10, attempts outside 1..10, or `link: false` without codes
 * (an e-mail with nothing to sign in with).
 *
 * @example
 * ```ts
 * emailCodeOptions({ ...provider, code: true }) // { length: 6, attempts: 5 }
 * ```
 */
export function emailCodeOptions(provider: Pick<EmailConfig, "id" | "code" | "link">): EmailCodeOptions | null {
  const { code, link } = provider;
  if (link !== undefined && typeof link !== "boolean") {
    throw new InvalidProvider(`E-mail provider "${provider.id}": \`link\` must be true or false.`);
  }
  if (code === undefined || code === false) {
    if (link === false) {
      throw new InvalidProvider(
        `E-mail provider "${provider.id}": \`link: false\` needs \`code\`, or the e-mail has nothing to sign in with.`,
      );
    }
    return null;
  }
  if (code === true) return { length: DEFAULT_LENGTH, attempts: DEFAULT_ATTEMPTS };
  if (typeof code !== "object" || code === null) {
    throw new InvalidProvider(`E-mail provider "${provider.id}": \`code\` must be true or { length, attempts }.`);
  }
  const length = code.length ?? DEFAULT_LENGTH;
  const attempts = code.attempts ?? DEFAULT_ATTEMPTS;
  // Below 6 digits the guessing odds (attempts / 10^length) stop being negligible.
  if (!Number.isInteger(length) || length < 6 || length > 10) {
    throw new InvalidProvider(`E-mail provider "${provider.id}": \`code.length\` must be an integer from 6 to 10.`);
  }
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 10) {
    throw new InvalidProvider(`E-mail provider "${provider.id}": \`code.attempts\` must be an integer from 1 to 10.`);
  }
  return { length, attempts };
}

/**
 * A uniformly random numeric code of `length` digits (leading zeros kept).
 *
 * @example
 * ```ts
 * randomEmailCode(6) // "049281"
 * ```
 */
export function randomEmailCode(length: number): string {
  // randomInt draws without modulo bias; 10^10 is far below its 2^48 range limit.
  return String(randomInt(10 ** length)).padStart(length, "0");
}

/**
 * The code as submitted, or null: digits only once spaces and dashes (how people copy codes) are
 * dropped, and exactly `length` of them.
 */
export function parseSubmittedCode(value: unknown, length: number): string | null {
  if (typeof value !== "string" || value.length > 64) return null;
  const digits = value.replace(/[\s-]/g, "");
  return digits.length === length && /^[0-9]+$/.test(digits) ? digits : null;
}

/** The key of the code records, derived from a secret apart from the link's key (HKDF info). */
export function emailCodeKey(secret: string): Uint8Array {
  return hkdf(secret, "", "Latchkey e-mail one-time code", 32);
}

function mac(key: Uint8Array, parts: string[]): string {
  return toHex(hmac("sha256", key, ...parts.flatMap((part) => [part, "\0"])));
}

/**
 * The id of one sign-in e-mail, derived from its link token, so that the link path finds the
 * e-mail's records from the link alone and the code path from the sealed cookie.
 */
export function emailSendId(key: Uint8Array, identifier: string, linkToken: string): string {
  return mac(key, ["send", identifier, linkToken]).slice(0, 32);
}

/** The stored value of the code record. */
export function codeRecord(key: Uint8Array, identifier: string, sendId: string, code: string): string {
  return mac(key, ["code", identifier, sendId, code]);
}

/** The stored value of attempt record `index` (0-based). */
export function attemptRecord(key: Uint8Array, identifier: string, sendId: string, index: number): string {
  return mac(key, ["attempt", identifier, sendId, String(index)]);
}

/** The stored value of the record that the first completion (link or code) consumes. */
export function aliveRecord(key: Uint8Array, identifier: string, sendId: string): string {
  return mac(key, ["alive", identifier, sendId]);
}
