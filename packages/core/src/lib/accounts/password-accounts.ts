import type { Awaitable, Cookie } from "../../shapes/data.js";
import type { Env } from "../config/env.js";
import type { BreachedPasswordOptions } from "../password/breached.js";
import type { HashOptions } from "../password/hash.js";
import type { PasswordPolicyOptions, PasswordPolicyReason } from "../password/policy.js";
import type { SessionRequest } from "../serve/pipeline.js";
import type { AccountLimits } from "./limits.js";
import type { AccountMail } from "./mail.js";

/** Where the application keeps password hashes (`$scrypt$...` strings), by the adapter's user id. */
export interface PasswordStore {
  /** The user's hash, or null when the user has no password. */
  getPasswordHash(userId: string): Awaitable<string | null | undefined>;
  /** Sets (or replaces) the user's hash. */
  setPasswordHash(userId: string, hash: string): Awaitable<void>;
}

/**
 * A {@link PasswordStore} in this process's memory: for tests and demos (hashes are lost on
 * restart). Keep hashes in your database otherwise.
 *
 * @example
 * ```ts
 * const passwords = new MemoryPasswordStore()
 * ```
 */
export class MemoryPasswordStore implements PasswordStore {
  readonly #hashes = new Map<string, string>();
  getPasswordHash(userId: string): string | null {
    return this.#hashes.get(userId) ?? null;
  }
  setPasswordHash(userId: string, hash: string): void {
    this.#hashes.set(userId, hash);
  }
}

/** Seconds a reset link works unless `resetMaxAge` says otherwise. */
export const RESET_MAX_AGE = 1800;

/** Options of every function of this module. */
export interface PasswordAccountsOptions {
  /** Where the hashes are kept. */
  passwords: PasswordStore;
  /**
   * The pages the e-mails link to, absolute or a path of the request's origin: `verify` gets
   * `?token&email&user`, `reset` gets `?token&email&user`; `signIn` and `signUp` are linked from
   * the "already taken" and "no account" e-mails.
   */
  urls: { verify: string; reset: string; signIn: string; signUp: string };
  /**
   * Sends one e-mail. Defaults to the configuration's Nodemailer provider (its `server` and
   * `from`); give it for any other e-mail service.
   */
  send?: (mail: AccountMail) => Promise<void>;
  /** The password policy (`identifiers` are filled with the address and name). @default NIST minimums */
  policy?: Omit<PasswordPolicyOptions, "identifiers">;
  /** The breached-password check, or `false` to skip it (tests, air-gapped servers). */
  breached?: BreachedPasswordOptions | false;
  /** scrypt parameters of new hashes. */
  hash?: HashOptions;
  /** Seconds a verification e-mail works. @default 86400 (one day) */
  verifyMaxAge?: number;
  /** Seconds a reset link works. @default 1800 (30 minutes, OWASP: short-lived) */
  resetMaxAge?: number;
  /** Wrong codes after which a verification e-mail is void. @default 5 */
  codeAttempts?: number;
  /** Seconds after sign-in during which {@link changePassword} needs no current password. @default 300 */
  recentSignIn?: number;
  /** Rate limits, each replacing its default. */
  limits?: Partial<AccountLimits>;
  /** Fill unset options from this environment (`AUTH_SECRET`, ...), as framework packages do. */
  env?: Env;
}

/** Why a new password was refused. */
export type NewPasswordError =
  | { ok: false; error: "weak-password"; reasons: PasswordPolicyReason[] }
  | { ok: false; error: "breached-password" };

/** A refusal because of too many attempts or e-mails; `retryAfter` in seconds. */
export type RateLimitedResult = { ok: false; error: "rate-limited"; retryAfter: number };

/**
 * The cookies a result sets, twice: as `Set-Cookie` header values (`setCookie`), and as name,
 * value and options (`cookies`) for a framework's cookie store (Next.js's `cookies().set`).
 */
export interface ResultCookies {
  setCookie: string[];
  cookies: Cookie[];
}

/** What {@link signUp} answers: the same `ok: true` whether or not the address was free. */
export type SignUpResult =
  | ({ ok: true } & ResultCookies)
  | { ok: false; error: "invalid-email" }
  | NewPasswordError
  | RateLimitedResult;

/** What {@link verifyEmail} answers. `password-required`: a link opened in another browser. */
export type VerifyEmailResult =
  | ({ ok: true; userId: string } & ResultCookies)
  | ({ ok: false; error: "invalid" | "password-required" } & ResultCookies)
  | (RateLimitedResult & ResultCookies);

/** What {@link requestPasswordReset} answers: the same `ok: true` for every well-formed address. */
export type ResetRequestResult = { ok: true } | { ok: false; error: "invalid-email" } | RateLimitedResult;

/** What {@link resetPassword} answers. */
export type ResetResult =
  | { ok: true; userId: string; sessionsEnded: true }
  | { ok: false; error: "invalid-token" }
  | NewPasswordError
  | RateLimitedResult;

/** What {@link changePassword} answers. */
export type ChangeResult =
  | {
      ok: true;
      userId: string;
      /** True when this session ended too and the user signs in again; false when it lives on. */
      signedOut: boolean;
      /**
       * Under JWT sessions, the new session cookie of this browser (a new session id begun after
       * the revocation that ended every other session): send each as a `Set-Cookie` header (or
       * put `cookies` in the framework's cookie store). Empty under database sessions (this
       * session's record is kept).
       */
      setCookie: string[];
      cookies: Cookie[];
    }
  | { ok: false; error: "signed-out" | "wrong-password" | "reauthenticate" }
  | NewPasswordError
  | RateLimitedResult;

/** A Web `Request`, or where a request arrived and its `Cookie` header (what framework packages pass). */
export type AccountsRequest = Request | SessionRequest;
