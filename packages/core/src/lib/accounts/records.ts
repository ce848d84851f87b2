/**
 * The single-use records of password accounts, kept with the adapter's verification tokens
 * (`createVerificationToken` / `useVerificationToken`: single use, atomic in every adapter) and
 * stored as keyed hashes only, bound to the address, the user and the purpose:
 *
 * - address verification: the **link** record, the **code** record, `attempts` **attempt**
 *   records (each code submission consumes one first: 50 concurrent guesses get `attempts`
 *   tries) and one **alive** record, consumed by whichever of the link and the code completes
 *   first (one e-mail verifies once);
 * - password reset: one **reset** record per e-mail, bound to the password the user had when it
 *   was sent (so a completed reset or change spends every other link sent before it).
 *
 * The key comes from the configuration's secret through HKDF with its own label, so no record of
 * the e-mail sign-in can ever be taken for one of these.
 */
import { hkdf, hmac, randomBytes, randomInt, toHex } from "#platform";
import type { VerificationToken } from "../../shapes/adapters.js";
import type { AdapterWith } from "../base/adapter-for.js";

/** The key of password-account records under one secret. */
export function accountKey(secret: string): Uint8Array {
  return hkdf(secret, "", "Latchkey password account records", 32);
}

/** A keyed hash of `parts`, each ended by a NUL so that no two lists give the same input. */
function recordMac(key: Uint8Array, parts: string[]): string {
  return toHex(hmac("sha256", key, ...parts.flatMap((part) => [part, "\0"])));
}

/** A 256-bit token for a link, as 64 hex characters. */
export function randomToken(): string {
  return toHex(randomBytes(32));
}

/** A numeric code of `length` digits, leading zeros kept, drawn without modulo bias. */
export function randomCode(length: number): string {
  return String(randomInt(10 ** length)).padStart(length, "0");
}

/** The id of one verification e-mail, derived from its link token (the link finds the rest from it). */
export function sendIdOf(key: Uint8Array, email: string, userId: string, token: string): string {
  return recordMac(key, ["verify-send", email, userId, token]).slice(0, 32);
}

export const verifyRecords = {
  link: (key: Uint8Array, email: string, userId: string, token: string) =>
    recordMac(key, ["verify-link", email, userId, token]),
  code: (key: Uint8Array, email: string, userId: string, sendId: string, code: string) =>
    recordMac(key, ["verify-code", email, userId, sendId, code]),
  attempt: (key: Uint8Array, email: string, userId: string, sendId: string, index: number) =>
    recordMac(key, ["verify-attempt", email, userId, sendId, String(index)]),
  alive: (key: Uint8Array, email: string, userId: string, sendId: string) =>
    recordMac(key, ["verify-alive", email, userId, sendId]),
};

/**
 * The stored value of a reset token. `passwordHash` is the user's hash when the link was sent
 * (`""` for none): once the password changes, the same token gives another value and no older
 * link finds its record.
 */
export function resetRecord(
  key: Uint8Array,
  email: string,
  userId: string,
  token: string,
  passwordHash: string,
): string {
  return recordMac(key, ["reset", email, userId, token, passwordHash]);
}

/**
 * Consumes the record `value(key)` under each secret in turn (newest first: tokens issued before a
 * rotation still work). Returns the record and the key that found it, or null. A record that has
 * expired is consumed all the same, and reported with `expired: true`.
 */
export async function consume(
  adapter: AdapterWith<"useVerificationToken">,
  secrets: readonly string[],
  identifier: string,
  value: (key: Uint8Array) => string,
): Promise<{ record: VerificationToken; key: Uint8Array; expired: boolean } | null> {
  for (const secret of secrets) {
    const key = accountKey(secret);
    const record = await adapter.useVerificationToken({ identifier, token: value(key) });
    if (record) {
      const expired = record.identifier !== identifier || new Date(record.expires).valueOf() <= Date.now();
      return { record, key, expired };
    }
  }
  return null;
}
