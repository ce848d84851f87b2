/**
 * How second-factor material is kept: the TOTP key sealed (JWE, key derived from the
 * configuration's secret, bound to the user id) and backup codes hashed. Internal; shared by the
 * enrolment functions (`@latchkey/core/second-factor`) and the code check (flows/second-factor/index.ts).
 */
import { hash, randomBytes, toBase64url } from "#platform";
import { type AdapterWith, hasMethods } from "../../base/adapter-for.js";
import { InvalidConfiguration, MissingAdapterMethods } from "../../base/errors.js";
import type { ResolvedConfig } from "../../config/types.js";
import { openToken, sealToken } from "../../crypto/jwe.js";
import { base32Decode, base32Encode } from "./totp.js";

/** HKDF salt of the key sealing TOTP secrets: no cookie has this name, so no cookie opens with it. */
const SECRET_SALT = "latchkey.second-factor.secret";
/** A sealed secret does not expire by itself: it lives until the user disables the factor. */
const SECRET_MAX_AGE = 100 * 365 * 24 * 60 * 60;

/** 160-bit TOTP key (RFC 4226 §4 recommends 160 bits), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** Seals a base32 TOTP secret for storage, bound to the user (a sealed secret moved to another user opens as nothing). */
export function sealSecret(config: ResolvedConfig, userId: string, secret: string): string | Promise<string> {
  return sealToken({ uid: userId, totp: secret }, config.secrets, SECRET_SALT, SECRET_MAX_AGE);
}

/** The TOTP key of a stored record, or null when no configured secret opens it or it is someone else's. */
export async function openSecret(config: ResolvedConfig, userId: string, sealed: string): Promise<Uint8Array | null> {
  const claims = await openToken(sealed, config.secrets, SECRET_SALT);
  if (!claims || claims.uid !== userId || typeof claims.totp !== "string") return null;
  return base32Decode(claims.totp);
}

/**
 * After a code of this record was accepted: a key sealed under a secret that is no longer the
 * first of the list is sealed again under the first, so that retiring the old secret (the second
 * step of docs/deployment.md §3) does not lock its user out. Written once per user and rotation,
 * with the step just used and the backup codes left as they are (the adapter has no write of the
 * key alone: a code of a later step accepted between the two writes would see its step written
 * back, a window of one write, once per user and rotation).
 */
export async function resealIfRetired(
  config: ResolvedConfig,
  record: { userId: string; secret: string },
  lastStep: number,
): Promise<void> {
  const [first] = config.secrets;
  if (config.secrets.length < 2 || !first || (await openToken(record.secret, [first], SECRET_SALT))) return;
  const claims = await openToken(record.secret, config.secrets, SECRET_SALT);
  if (claims?.uid !== record.userId || typeof claims.totp !== "string") return;
  const secret = await sealSecret(config, record.userId, claims.totp);
  await secondFactorStore(config).setSecondFactor({ userId: record.userId, secret, active: true, lastStep }, undefined);
}

const BACKUP_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/** 12 characters of a 32-letter alphabet: 60 bits, so a leaked hash is not worth inverting. */
const BACKUP_LENGTH = 12;

/** Ten backup codes as shown to the user: `ABCD-EFGH-JKLM`. */
export function newBackupCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(BACKUP_LENGTH);
    let code = "";
    for (const byte of bytes) code += BACKUP_ALPHABET[byte & 31];
    return `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`;
  });
}

/**
 * The stored hashes of codes {@link newBackupCodes} made: their canonical form is the shown one
 * without its dashes.
 *
 * @example
 * ```ts
 * await store.setSecondFactor(record, newBackupCodeHashes(userId, newBackupCodes()))
 * ```
 */
export function newBackupCodeHashes(userId: string, codes: readonly string[]): string[] {
  return codes.map((code) => hashBackupCode(userId, code.replace(/-/g, "")));
}

/** A backup code as typed (any case, spaces, dashes) in canonical form, or null if it cannot be one. */
export function canonicalBackupCode(input: string): string | null {
  const code = input.replace(/[\s-]/g, "").toUpperCase();
  if (code.length !== BACKUP_LENGTH) return null;
  for (const char of code) if (!BACKUP_ALPHABET.includes(char)) return null;
  return code;
}

/**
 * The stored form of a backup code: SHA-256 over the user id and the code. A fast hash is enough
 * for 60 random bits, and it must be deterministic so that one atomic `DELETE` finds the code.
 */
export function hashBackupCode(userId: string, canonical: string): string {
  return toBase64url(hash("sha256", `${userId}\u0000${canonical}`));
}

/**
 * The single-use ticket of a waiting enrolment, stored among its backup codes: confirming spends
 * it with the adapter's atomic `useBackupCode`, so of concurrent confirmations exactly one
 * activates the factor (and its backup codes are the ones stored). Derived from the sealed
 * secret, so a restarted enrolment has another; never a backup code's hash (that input is
 * twelve letters of the backup alphabet), and backup codes count only once the factor is active.
 */
export function enrolmentTicket(userId: string, sealedSecret: string): string {
  return toBase64url(hash("sha256", `${userId}\u0000enrolment\u0000${sealedSecret}`));
}

/** The adapter methods a second factor (the TOTP provider) needs. */
export const secondFactorMethods = [
  "getSecondFactor",
  "setSecondFactor",
  "deleteSecondFactor",
  "useSecondFactorStep",
  "useBackupCode",
] as const;

type SecondFactorAdapter = AdapterWith<(typeof secondFactorMethods)[number]>;

/** The adapter's second-factor methods, or a clear error naming what is missing. */
export function secondFactorStore(config: ResolvedConfig): SecondFactorAdapter {
  const adapter = config.adapter;
  if (!adapter) throw new InvalidConfiguration("A second factor needs an `adapter` that stores it.");
  if (!hasMethods(adapter, ...secondFactorMethods)) {
    const missing = secondFactorMethods.filter((m) => typeof adapter[m] !== "function");
    throw new MissingAdapterMethods(`The adapter lacks second-factor methods: ${missing.join(", ")}.`);
  }
  return adapter;
}
