// The code of @latchkey/core's public module src/second-factor.ts (which documents it and re-exports it).
import qrcode from "qrcode-generator";
import { toBase64, utf8 } from "#platform";
import { AuthError, InvalidConfiguration, RateLimited } from "../base/errors.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import type { ResolvedConfig } from "../config/types.js";
import {
  canonicalBackupCode,
  enrolmentTicket,
  hashBackupCode,
  newBackupCodeHashes,
  newBackupCodes,
  newTotpSecret,
  openSecret,
  resealIfRetired,
  sealSecret,
  secondFactorStore,
} from "../flows/second-factor/secret.js";
import { matchTotp, TOTP_DIGITS, TOTP_PERIOD, timeStep } from "../flows/second-factor/totp.js";
import { reserveSecondFactorAttempt } from "../limits/attempts.js";

/** Options every function here takes. */
export interface SecondFactorOptions {
  /** Fill unset options from this environment (`AUTH_SECRET`, ...), as framework shells do. */
  env?: Env;
}

/** What {@link startTotpEnrolment} returns: show it to the user, keep none of it. */
export interface TotpEnrolment {
  /** The secret in base32, for typing into an app by hand. */
  secret: string;
  /** `otpauth://totp/<issuer>:<label>?secret=...&issuer=...&algorithm=SHA1&digits=6&period=30` */
  uri: string;
  /** The URI as a QR code: a standalone `<svg>` element. */
  qrSvg: string;
  /** The same SVG as a `data:image/svg+xml` URL, for an `<img src>`. */
  qrDataUrl: string;
}

/** The second-factor state of a user, for the account page. */
export interface SecondFactorStatus {
  /** A confirmed TOTP factor: every sign-in asks for a code. */
  active: boolean;
  /** An enrolment was started and is waiting for its first code. */
  pending: boolean;
  backupCodesLeft: number;
}

function resolve(config: AuthConfig, options: SecondFactorOptions): { resolved: ResolvedConfig; issuer: string } {
  const resolved = resolveConfig(config, options.env);
  const provider = resolved.providers.find((p) => p.type === "totp");
  if (provider?.type !== "totp") {
    throw new InvalidConfiguration(
      "No TOTP provider is configured: add `TOTP()` from @latchkey/core/providers/totp to `providers`.",
    );
  }
  return { resolved, issuer: provider.issuer };
}

/**
 * Counts an attempt on the user's second-factor limit (shared with sign-in codes), or throws
 * `RateLimited`. No pending sign-in here, so no per-pending counter: a fixed key in its place
 * would be one budget for every user's account page.
 */
function reserve(resolved: ResolvedConfig, userId: string) {
  return reserveSecondFactorAttempt({ config: resolved }, userId, null);
}

/** A QR code of `text` as SVG: one path of dark modules, four modules of quiet zone. */
function qrSvgOf(text: string): string {
  const qr = qrcode(0, "M");
  qr.addData(text, "Byte");
  qr.make();
  const count = qr.getModuleCount();
  const size = count + 8;
  let path = "";
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; col++) if (qr.isDark(row, col)) path += `M${col + 4} ${row + 4}h1v1h-1z`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="${size * 6}" height="${size * 6}" shape-rendering="crispEdges" role="img" aria-label="QR code for your authenticator app"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`;
}

/**
 * Starts (or restarts) a TOTP enrolment for a user: a new 160-bit secret, stored sealed and not
 * yet active. Refused while the user has an active factor (disable it first, with a code), also
 * when a confirmation activates one while this start runs: a start never overwrites it.
 *
 * @param user `id` as the sign-in knows the user (the adapter's user id, or what a credentials
 * provider's `authorize()` returns); `label` is what the app shows, usually the e-mail address.
 * @example
 * ```ts
 * const enrolment = await startTotpEnrolment(config, { id: user.id, label: user.email })
 * res.send(`${enrolment.qrSvg}<code>${enrolment.secret}</code>`)
 * ```
 */
export async function startTotpEnrolment(
  config: AuthConfig,
  user: { id: string; label: string },
  options: SecondFactorOptions = {},
): Promise<TotpEnrolment> {
  const { resolved, issuer } = resolve(config, options);
  if (typeof user?.id !== "string" || !user.id || typeof user.label !== "string" || !user.label) {
    throw new TypeError("startTotpEnrolment: `user` must be { id: string, label: string }, both non-empty.");
  }
  const store = secondFactorStore(resolved);
  const active = () => new AuthError("The user already has an active second factor; disable it first.");
  const existing = await store.getSecondFactor(user.id);
  if (existing?.active) throw active();
  const secret = newTotpSecret();
  const sealed = await sealSecret(resolved, user.id, secret);
  // A compare-and-set: a confirmation that won between the read above and this write keeps its
  // active factor (the write would have replaced it with this inactive one).
  const written = await store.setSecondFactor(
    { userId: user.id, secret: sealed, active: false, lastStep: 0 },
    [enrolmentTicket(user.id, sealed)],
    { active: false },
  );
  if (written === false) throw active();
  // The label's ":" separates issuer and account in the URI's path; both parts are encoded.
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(user.label.replaceAll(":", ""))}`;
  const query = new URLSearchParams({
    secret,
    issuer,
    algorithm: "SHA1",
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD),
  });
  const uri = `otpauth://totp/${label}?${query}`;
  const qrSvg = qrSvgOf(uri);
  return { secret, uri, qrSvg, qrDataUrl: `data:image/svg+xml;base64,${toBase64(utf8(qrSvg))}` };
}

/**
 * Activates a started enrolment with the first code the app shows. On success the factor is
 * active (that code's step counts as used) and ten backup codes are returned, to show once.
 * An enrolment is confirmed once: of concurrent confirmations exactly one succeeds.
 * A wrong code leaves the enrolment waiting; too many count against the rate limit.
 *
 * @example
 * ```ts
 * const result = await confirmTotpEnrolment(config, user.id, req.body.code)
 * if (!result.ok) return res.status(400).send("That code was not accepted.")
 * res.send(result.backupCodes.join("<br>"))
 * ```
 */
export async function confirmTotpEnrolment(
  config: AuthConfig,
  userId: string,
  code: unknown,
  options: SecondFactorOptions = {},
): Promise<{ ok: true; backupCodes: string[] } | { ok: false; reason: "invalid" | "rate-limited" }> {
  const { resolved } = resolve(config, options);
  const store = secondFactorStore(resolved);
  const record = await store.getSecondFactor(userId);
  if (!record || record.active) return { ok: false, reason: "invalid" };
  let attempt: Awaited<ReturnType<typeof reserve>>;
  try {
    attempt = await reserve(resolved, userId);
  } catch (e) {
    if (e instanceof RateLimited) return { ok: false, reason: "rate-limited" };
    throw e;
  }
  const key = await openSecret(resolved, userId, record.secret);
  const step = key && typeof code === "string" ? matchTotp(key, code.trim(), timeStep()) : null;
  if (step === null) return { ok: false, reason: "invalid" };
  // One winner among concurrent confirmations (and none for an enrolment restarted meanwhile).
  if (!(await store.useBackupCode(userId, enrolmentTicket(userId, record.secret))))
    return { ok: false, reason: "invalid" };
  await attempt.succeeded();
  const backupCodes = newBackupCodes();
  await store.setSecondFactor(
    { userId, secret: record.secret, active: true, lastStep: step },
    newBackupCodeHashes(userId, backupCodes),
  );
  return { ok: true, backupCodes };
}

/**
 * Spends a fresh code of an active factor: a TOTP code of a step after the last used one (moved
 * on atomically) or an unused backup code. False for anything else.
 */
async function spendCode(resolved: ResolvedConfig, userId: string, code: unknown): Promise<boolean | "rate-limited"> {
  const store = secondFactorStore(resolved);
  const record = await store.getSecondFactor(userId);
  if (!record?.active || typeof code !== "string") return false;
  let attempt: Awaited<ReturnType<typeof reserve>>;
  try {
    attempt = await reserve(resolved, userId);
  } catch (e) {
    if (e instanceof RateLimited) return "rate-limited";
    throw e;
  }
  const typed = code.trim();
  let ok = false;
  if (/^\d{6}$/.test(typed)) {
    const key = await openSecret(resolved, userId, record.secret);
    const step = key ? matchTotp(key, typed, timeStep()) : null;
    ok = step !== null && step > record.lastStep && (await store.useSecondFactorStep(userId, record.lastStep, step));
    if (ok && step !== null) await resealIfRetired(resolved, record, step);
  } else {
    const canonical = canonicalBackupCode(typed);
    ok = !!canonical && (await store.useBackupCode(userId, hashBackupCode(userId, canonical)));
  }
  if (ok) await attempt.succeeded();
  return ok;
}

/**
 * Turns the second factor off; requires a fresh code (TOTP or backup), so a stolen session alone
 * cannot remove it. Returns whether it was turned off.
 *
 * @example
 * ```ts
 * if (!(await disableTotp(config, user.id, req.body.code)).ok) return res.status(400).send("Wrong code")
 * ```
 */
export async function disableTotp(
  config: AuthConfig,
  userId: string,
  code: unknown,
  options: SecondFactorOptions = {},
): Promise<{ ok: true } | { ok: false; reason: "invalid" | "rate-limited" }> {
  const { resolved } = resolve(config, options);
  const spent = await spendCode(resolved, userId, code);
  if (spent !== true) return { ok: false, reason: spent === "rate-limited" ? "rate-limited" : "invalid" };
  await secondFactorStore(resolved).deleteSecondFactor(userId);
  return { ok: true };
}

/**
 * Replaces the backup codes with ten new ones (the old ones stop working); requires a fresh code.
 *
 * @example
 * ```ts
 * const result = await regenerateBackupCodes(config, user.id, req.body.code)
 * if (result.ok) showOnce(result.backupCodes)
 * ```
 */
export async function regenerateBackupCodes(
  config: AuthConfig,
  userId: string,
  code: unknown,
  options: SecondFactorOptions = {},
): Promise<{ ok: true; backupCodes: string[] } | { ok: false; reason: "invalid" | "rate-limited" }> {
  const { resolved } = resolve(config, options);
  const spent = await spendCode(resolved, userId, code);
  if (spent !== true) return { ok: false, reason: spent === "rate-limited" ? "rate-limited" : "invalid" };
  const store = secondFactorStore(resolved);
  const record = await store.getSecondFactor(userId);
  if (!record?.active) return { ok: false, reason: "invalid" };
  const backupCodes = newBackupCodes();
  await store.setSecondFactor(
    { userId, secret: record.secret, active: true, lastStep: record.lastStep },
    newBackupCodeHashes(userId, backupCodes),
  );
  return { ok: true, backupCodes };
}

/**
 * Whether a user has a second factor, for the account page.
 *
 * @example
 * ```ts
 * const { active, backupCodesLeft } = await secondFactorStatus(config, user.id)
 * ```
 */
export async function secondFactorStatus(
  config: AuthConfig,
  userId: string,
  options: SecondFactorOptions = {},
): Promise<SecondFactorStatus> {
  const { resolved } = resolve(config, options);
  const record = await secondFactorStore(resolved).getSecondFactor(userId);
  return {
    active: !!record?.active,
    pending: !!record && !record.active,
    backupCodesLeft: record?.active ? (record.backupCodesLeft ?? 0) : 0,
  };
}
