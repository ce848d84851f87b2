// Password accounts (the public module accounts.ts): sign-up, verification, reset, change, the
// check of a password at sign-in, and the account pages.
import { randomUUID } from "#platform";
import type { AdapterUser } from "../../adapters.js";
import {
  AuthError,
  InvalidConfiguration,
  MissingAdapterMethods,
  SessionCookieTooLarge,
  SignOutError,
} from "../../errors.js";
import type { Awaitable, Cookie, CookieOption } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import type { AuthConfig } from "../../types.js";
import { recordAudit } from "../audit/record.js";
import { type AdapterWith, hasMethods, withMethods } from "../base/adapter-for.js";
import { errorOf } from "../base/error-of.js";
import { smtpSender } from "../base/symbols.js";
import type { Env } from "../config/env.js";
import type { EmailProviderInternal, ResolvedConfig } from "../config/types.js";
import { openToken, sealToken } from "../crypto/jwe.js";
import { normalizeEmailIdentifier } from "../email/identifier.js";
import { releaseToProver } from "../flows/identity.js";
import { endPendingSignIns } from "../flows/second-factor/pending.js";
import { noteVerifiedPassword } from "../flows/sign-in-guard.js";
import { serializeCookie } from "../http/cookies.js";
import { linksMailable, unmailableOrigin } from "../http/origin.js";
import { type AccountPageName, accountPageContent } from "../pages/accounts.js";
import type { SafeHtml } from "../pages/html.js";
import { page } from "../pages/layout.js";
import { type BreachedPasswordOptions, checkBreachedPassword } from "../password/breached.js";
import { dummyVerify, type HashOptions, hashPassword, needsRehash, verifyPassword } from "../password/hash.js";
import { checkPasswordPolicy, type PasswordPolicyOptions, type PasswordPolicyReason } from "../password/policy.js";
import { type SessionRequest, sessionCookieOf, sessionRequestOf } from "../serve/pipeline.js";
import { amrOf, keepSessionIdentity, sessionTokenCookies } from "../session/jwt-strategy.js";
import { checkCsrf, revokeUserSessions } from "../session/manage.js";
import { signedInOf } from "../session/read.js";
import { readingOf } from "../session/request-read.js";
import {
  type AccountEvent,
  type AccountLimits,
  accountLimitsOf,
  countAccountEvent,
  firstResetOfLinkLife,
} from "./limits.js";
import { type AccountMail, accountMails } from "./mail.js";
import { accountKey, consume, randomCode, randomToken, resetRecord, sendIdOf, verifyRecords } from "./records.js";

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
const RESET_MAX_AGE = 1800;

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

// ------------------------------------------------------------------ shared

interface Resolved {
  config: ResolvedConfig;
  adapter: AdapterWith<(typeof REQUIRED)[number]>;
  origin: string;
  /** Links may be mailed from `origin` (`linksMailable`); otherwise no e-mail is sent. */
  mailable: boolean;
  secure: boolean;
  cookies: Record<string, string>;
  sessionCookie: string | null;
  /** The session cookie's name and attributes for this request's origin. */
  sessionCookieOptions: CookieOption | null;
  limits: AccountLimits;
  send: (mail: AccountMail) => Promise<void>;
}

const REQUIRED = [
  "createUser",
  "getUser",
  "getUserByEmail",
  "updateUser",
  "createVerificationToken",
  "useVerificationToken",
] as const;

function checkOptions(options: PasswordAccountsOptions, what: string): void {
  const store = options?.passwords;
  if (typeof store?.getPasswordHash !== "function" || typeof store?.setPasswordHash !== "function") {
    throw new InvalidConfiguration(
      `${what}: \`passwords\` must be a PasswordStore ({ getPasswordHash(userId), setPasswordHash(userId, hash) }), for example new MemoryPasswordStore() in tests.`,
    );
  }
  const urls = options.urls;
  for (const name of ["verify", "reset", "signIn", "signUp"] as const) {
    if (typeof urls?.[name] !== "string" || urls[name] === "") {
      throw new InvalidConfiguration(
        `${what}: \`urls.${name}\` must be the page's URL or path (the e-mails link to it), e.g. "/account/${name === "signIn" ? "signin" : name === "signUp" ? "signup" : name}".`,
      );
    }
  }
}

/**
 * The e-mail sender: `options.send`, else the SMTP sender of the configuration's Nodemailer (or
 * Email) provider. Taken from the provider, so this module imports no nodemailer: an application
 * without an SMTP provider bundles none for an Edge runtime or a Worker.
 */
function senderOf(config: ResolvedConfig, options: PasswordAccountsOptions): (mail: AccountMail) => Promise<void> {
  if (options.send) return options.send;
  const provider = config.providers.find(
    (p): p is EmailProviderInternal => p.type === "email" && !!p.server && typeof p[smtpSender] === "function",
  );
  const send = provider?.[smtpSender];
  if (!provider || !send) {
    throw new InvalidConfiguration(
      "Password accounts send e-mails: give `send(mail)` in their options, or configure a Nodemailer provider (its `server` and `from` are used).",
    );
  }
  return (mail) =>
    send(
      {
        identifier: mail.to,
        url: mail.url ?? "",
        expires: new Date(),
        provider,
        token: "",
        theme: config.theme,
      },
      { subject: mail.subject, text: mail.text, html: mail.html },
    );
}

function resolveAccounts(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  what: string,
): Resolved {
  checkOptions(options, what);
  const described = sessionRequestOf(request);
  const { resolved, cookie, cookies, origin } = sessionCookieOf(described, config, options);
  const adapter = resolved.adapter;
  if (!adapter)
    throw new InvalidConfiguration(`${what} needs an \`adapter\`: users and single-use records live in it.`);
  if (!hasMethods(adapter, ...REQUIRED)) {
    const missing = REQUIRED.filter((m) => typeof adapter[m] !== "function");
    throw new MissingAdapterMethods(`${what} needs the adapter methods ${missing.join(", ")}.`);
  }
  // The origin of the links: AUTH_URL's when set (a forged Host then changes nothing), else the
  // request's as the pipeline decides it, which sessionCookieOf has checked is trusted (or
  // refused). Mailed only when `linksMailable` (AUTH_URL, trustedOrigins, a loopback name).
  if (!origin) {
    throw Object.assign(new AuthError(`${what}: the request's Host header is not host[:port]`), {
      status: 400,
      statusCode: 400,
      expose: true,
    });
  }
  return {
    config: resolved,
    adapter,
    origin,
    mailable: linksMailable(resolved, new URL(origin)),
    secure: cookie?.options.secure === true,
    cookies,
    sessionCookie: cookie?.name ?? null,
    sessionCookieOptions: cookie,
    limits: accountLimitsOf(options.limits),
    send: senderOf(resolved, options),
  };
}

function absolute(r: Resolved, page: string, query?: Record<string, string>): string {
  const url = new URL(page, `${r.origin}/`);
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
  return url.href;
}

function normalized(email: unknown): string | null {
  try {
    return typeof email === "string" ? normalizeEmailIdentifier(email) : null;
  } catch {
    return null;
  }
}

/** Counts an event: null when counted, else the `rate-limited` answer. */
async function limited(
  r: Resolved,
  event: AccountEvent,
  subject: string | null,
  clientAddress: string | undefined,
): Promise<RateLimitedResult | null> {
  const refused = await countAccountEvent(r.config, r.limits, event, subject, clientAddress);
  return refused && { ok: false, error: "rate-limited", retryAfter: refused.retryAfter };
}

/** Policy, then breached check, of a new password: the password when it may be used. */
async function checkNewPassword(
  options: PasswordAccountsOptions,
  password: unknown,
  identifiers: Array<string | null | undefined>,
): Promise<NewPasswordError | { ok: true; password: string }> {
  const verdict = checkPasswordPolicy(password, { ...options.policy, identifiers });
  if (!verdict.ok) return { ok: false, error: "weak-password", reasons: verdict.reasons };
  // The policy refuses anything but a string ("invalid"), so this only tells the type checker.
  if (typeof password !== "string") return { ok: false, error: "weak-password", reasons: ["invalid"] };
  if (options.breached !== false && (await checkBreachedPassword(password, options.breached ?? {})).breached) {
    return { ok: false, error: "breached-password" };
  }
  return { ok: true, password };
}

/**
 * False, with the logged `UntrustedHost` naming the fix, when the request's origin may not be the
 * origin of a mailed link (a host the request named: password-reset poisoning); the caller then
 * answers as if the e-mail had gone, having stored nothing.
 */
function mailAllowed(r: Resolved, what: string): boolean {
  if (!r.mailable) r.config.logger.error(unmailableOrigin(r.origin, what));
  return r.mailable;
}

/** Sends an e-mail; a failure is logged (the answer must not tell whether a mail went out). */
async function mail(r: Resolved, message: AccountMail): Promise<void> {
  if (!mailAllowed(r, `A password-account e-mail (${message.kind})`)) return;
  try {
    await r.send(message);
  } catch (e) {
    r.config.logger.error(
      new AuthError(`A password-account e-mail (${message.kind}) was not sent`, { err: errorOf(e) }),
    );
  }
}

// ------------------------------------------------------------------ the verification cookie

const VERIFY_COOKIE = "latchkey.email-verification";

interface VerifyClaims {
  email: string;
  userId: string;
  sendId: string;
}

/** The longest user id the verification cookie hides the length of (the links accept up to 255). */
const USER_ID_PAD = 255;

/**
 * `__Host-` on https, not `__Secure-`: a sibling sub-domain may set a `__Secure-` cookie for the
 * parent domain, and the stranger's own cookie planted in the owner's browser would make the
 * owner's click on the mailed link (or the code typed there) prove the stranger's sign-up.
 */
function verifyCookieName(r: Resolved): string {
  return `${r.secure ? "__Host-" : ""}${VERIFY_COOKIE}`;
}

async function verifyCookie(r: Resolved, claims: VerifyClaims, maxAge: number): Promise<Cookie> {
  const name = verifyCookieName(r);
  // Padded to one length: the taken path's made-up id is a UUID, the adapter's may be "1" or a
  // cuid, and the sealed cookie's length would tell a free address from a taken one.
  const pad = " ".repeat(Math.max(0, USER_ID_PAD - claims.userId.length));
  const value = await sealToken({ ...claims, pad }, r.config.secrets, name, maxAge);
  return { name, value, options: { httpOnly: true, sameSite: "lax", path: "/", secure: r.secure, maxAge } };
}

function clearVerifyCookie(r: Resolved): Cookie {
  return {
    name: verifyCookieName(r),
    value: "",
    options: { httpOnly: true, sameSite: "lax", path: "/", secure: r.secure, maxAge: 0 },
  };
}

/** A result's cookies in both forms. */
function resultCookies(cookies: Cookie[]): ResultCookies {
  return { setCookie: cookies.map((c) => serializeCookie(c.name, c.value, c.options)), cookies };
}

async function readVerifyCookie(r: Resolved): Promise<VerifyClaims | null> {
  const name = verifyCookieName(r);
  const raw = r.cookies[name];
  if (!raw) return null;
  const claims = await openToken(raw, r.config.secrets, name);
  const [email, userId, sendId] = [claims?.email, claims?.userId, claims?.sendId];
  if (typeof email !== "string" || typeof userId !== "string" || typeof sendId !== "string") return null;
  return { email, userId, sendId };
}

// ------------------------------------------------------------------ sign-up

/**
 * Creates a password user with an unproven address and mails a verification link and code; or,
 * when the address already has an account, mails its owner that someone tried (with sign-in and
 * reset links) and creates nothing. Both answer `{ ok: true, setCookie }`, after the same work: the
 * password is hashed, records are written, a cookie is sealed and an e-mail is sent either way.
 * The cookie lets this browser type the mailed code. Refusals come before any of that and depend
 * on the input alone: `invalid-email`, `weak-password` (with `reasons`), `breached-password`,
 * `rate-limited` (e-mails per address and per client).
 *
 * @example
 * ```ts
 * const result = await signUp(request, config, accounts, { email: form.email, password: form.password, clientAddress: ip })
 * if (result.ok) for (const c of result.setCookie) headers.append("set-cookie", c)
 * ```
 */
export async function signUp(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: { email: unknown; password: unknown; name?: unknown; clientAddress?: string },
): Promise<SignUpResult> {
  const r = resolveAccounts(request, config, options, "signUp");
  const email = normalized(input.email);
  if (!email) return { ok: false, error: "invalid-email" };
  const name = typeof input.name === "string" && input.name.trim() !== "" ? input.name.trim().slice(0, 200) : null;
  const accepted = await checkNewPassword(options, input.password, [email, name]);
  if (!accepted.ok) return accepted;
  const overLimit = await limited(r, "sign-up", email, input.clientAddress);
  if (overLimit) return overLimit;
  // Nothing created for an e-mail that cannot go: the same answer whether the address is free or taken.
  if (!mailAllowed(r, "A sign-up e-mail")) return { ok: true, ...resultCookies([]) };

  // The same work on both paths: the hash, the records, the cookie and one e-mail.
  const hash = await hashPassword(accepted.password, options.hash);
  const owner = await r.adapter.getUserByEmail(email);
  let user: AdapterUser | null = null;
  if (!owner) {
    try {
      user = await r.adapter.createUser({ id: randomUUID(), email, name, emailVerified: null });
    } catch (e) {
      // Two sign-ups of one new address at once: the store's unique address lets one through.
      if (!(await r.adapter.getUserByEmail(email))) throw e;
    }
  }
  // A string whatever the adapter returns (an Auth.js adapter over a SERIAL column gives numbers).
  const userId = user ? String(user.id) : randomUUID();
  const verification = await issueVerification(r, options, email, userId);
  if (user) {
    await options.passwords.setPasswordHash(userId, hash);
    await r.config.events.createUser?.({ user });
    await mail(r, verification.mail);
  } else {
    const links = { signIn: absolute(r, options.urls.signIn), reset: absolute(r, options.urls.reset) };
    await mail(r, accountMails.taken(email, new URL(r.origin).host, r.config.theme, links));
  }
  return { ok: true, ...resultCookies([verification.cookie]) };
}

/** Writes the records of one verification e-mail and returns the e-mail and the browser's cookie. */
async function issueVerification(r: Resolved, options: PasswordAccountsOptions, email: string, userId: string) {
  const maxAge = options.verifyMaxAge ?? 86_400;
  const attempts = options.codeAttempts ?? 5;
  const key = accountKey(r.config.secrets[0]);
  const token = randomToken();
  const code = randomCode(6);
  const sendId = sendIdOf(key, email, userId, token);
  const expires = new Date(Date.now() + maxAge * 1000);
  const values = [
    verifyRecords.link(key, email, userId, token),
    verifyRecords.code(key, email, userId, sendId, code),
    verifyRecords.alive(key, email, userId, sendId),
    ...Array.from({ length: attempts }, (_, i) => verifyRecords.attempt(key, email, userId, sendId, i)),
  ];
  for (const value of values) await r.adapter.createVerificationToken({ identifier: email, token: value, expires });
  const url = absolute(r, options.urls.verify, { token, email, user: userId });
  return {
    mail: accountMails.verify(email, new URL(r.origin).host, r.config.theme, { url, code, maxAge }),
    cookie: await verifyCookie(r, { email, userId, sendId }, maxAge),
  };
}

// ------------------------------------------------------------------ verification

/**
 * Proves the address of a signed-up user, once: with `code` (typed in the browser that signed up:
 * the address comes from its cookie, never from the form), or with the link's `token`, `email` and
 * `user`. A link opened in another browser also needs the account's `password`
 * (`password-required` asks for it): whoever proves the address must be whoever chose the
 * password, so a stranger's sign-up never becomes the owner's verified account. Each submission
 * counts against the client's limit, a password given with a live link against the address's too
 * (made-up links naming an address never block its owner); a code gets `codeAttempts` tries.
 * Every refusal is `invalid` (the reason is logged).
 *
 * @example
 * ```ts
 * const result = await verifyEmail(request, config, accounts, { code: form.code, clientAddress: ip })
 * ```
 */
export async function verifyEmail(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: {
    code?: unknown;
    token?: unknown;
    email?: unknown;
    user?: unknown;
    password?: unknown;
    clientAddress?: string;
  },
): Promise<VerifyEmailResult> {
  const r = resolveAccounts(request, config, options, "verifyEmail");
  const attempts = options.codeAttempts ?? 5;
  const bound = await readVerifyCookie(r);
  const refuse = (reason: string): VerifyEmailResult => {
    r.config.logger.debug("accounts: address verification refused", { reason });
    return { ok: false, error: "invalid", ...resultCookies([]) };
  };
  const byLink = input.token !== undefined && input.token !== "";
  let found: string | null;
  let userId: string;
  // The link's token, or the e-mail's id the cookie names (for a code).
  let proof: { token: string } | { sendId: string };
  if (byLink) {
    found = normalized(input.email);
    if (!found || typeof input.token !== "string" || !/^[0-9a-f]{64}$/.test(input.token))
      return refuse("malformed link");
    if (typeof input.user !== "string" || input.user === "" || input.user.length > 255) return refuse("malformed link");
    userId = input.user;
    proof = { token: input.token };
  } else {
    if (!bound) return refuse("no verification cookie (another browser, expired or forged)");
    ({ email: found, userId } = bound);
    proof = { sendId: bound.sendId };
  }
  const email = found;
  // Counted per client here: a counter per address would let anyone's made-up links (or codes of
  // his own sign-up with the address) block its owner's verification. Guesses are bounded by the
  // records (a code has `codeAttempts` tries); the password of a live link counts per address below.
  const overLimit = await limited(r, "submit", null, input.clientAddress);
  if (overLimit) return { ...overLimit, ...resultCookies([]) };

  if ("token" in proof) {
    const { token } = proof;
    const sameBrowser =
      bound !== null &&
      bound.email === email &&
      bound.userId === userId &&
      r.config.secrets.some((s) => sendIdOf(accountKey(s), email, userId, token) === bound.sendId);
    // The link record first: without a live token no password is ever checked here (this form is
    // no password oracle). A link opened in another browser needs the account's password; when it
    // is missing or wrong the record is put back, so a typo does not spend the e-mail.
    const link = await consume(r.adapter, r.config.secrets, email, (k) => verifyRecords.link(k, email, userId, token));
    if (!link || link.expired) return refuse("unknown, used or expired link");
    if (!sameBrowser) {
      const posted = postedPassword(input.password);
      const given = posted !== undefined;
      // Passwords tried on a live link count per address too (only a holder of the link gets here).
      const overAddress = given ? await limited(r, "submit", email, undefined) : null;
      if (overAddress) {
        await r.adapter.createVerificationToken(link.record);
        return { ...overAddress, ...resultCookies([]) };
      }
      const ok = posted !== undefined && (await matchesStored(posted, await options.passwords.getPasswordHash(userId)));
      if (!ok) {
        await r.adapter.createVerificationToken(link.record);
        if (!given) return { ok: false, error: "password-required", ...resultCookies([]) };
        return refuse("the password given with a link opened in another browser is wrong");
      }
    }
    const id = sendIdOf(link.key, email, userId, token);
    // The link needs the last attempt record (gone once the code was guessed wrong too often) and
    // the alive record (gone once the code verified).
    if (
      !(await r.adapter.useVerificationToken({
        identifier: email,
        token: verifyRecords.attempt(link.key, email, userId, id, attempts - 1),
      }))
    )
      return refuse("the code of this e-mail was guessed wrong too many times");
    if (
      !(await r.adapter.useVerificationToken({
        identifier: email,
        token: verifyRecords.alive(link.key, email, userId, id),
      }))
    )
      return refuse("this e-mail already verified the address");
  } else {
    const code = typeof input.code === "string" ? input.code.replace(/[\s-]/g, "") : "";
    const id = proof.sendId;
    let key: Uint8Array | undefined;
    for (let i = 0; i < attempts && !key; i++) {
      const spent = await consume(r.adapter, r.config.secrets, email, (k) =>
        verifyRecords.attempt(k, email, userId, id, i),
      );
      if (spent) {
        if (spent.expired) return refuse("the code has expired");
        key = spent.key;
      }
    }
    if (!key) return refuse("no attempt left");
    if (!/^[0-9]{6}$/.test(code)) return refuse("not a 6-digit code");
    const stored = await r.adapter.useVerificationToken({
      identifier: email,
      token: verifyRecords.code(key, email, userId, id, code),
    });
    if (!stored || new Date(stored.expires).valueOf() <= Date.now()) return refuse("wrong, used or expired code");
    if (
      !(await r.adapter.useVerificationToken({ identifier: email, token: verifyRecords.alive(key, email, userId, id) }))
    )
      return refuse("the link of this e-mail already verified the address");
  }
  const user = await r.adapter.getUser(userId);
  // The address may have moved since the e-mail (released to someone who proved it first).
  if (!user || user.email !== email) return refuse("the address no longer belongs to this user");
  if (!user.emailVerified) {
    const updated = await r.adapter.updateUser({ id: user.id, emailVerified: new Date() });
    await r.config.events.updateUser?.({ user: updated });
  }
  return { ok: true, userId: String(user.id), ...resultCookies([clearVerifyCookie(r)]) };
}

// ------------------------------------------------------------------ forgotten password

/**
 * Mails a reset link to the address when it has an account, and a "no account with this address"
 * note otherwise: the same answer, `{ ok: true }`, and the same work (a token made and hashed, one
 * e-mail) either way. A flood sends a handful of e-mails: past `limits.mailPerClient` a client is
 * answered `rate-limited`; past `limits.resetMailPerAddress` (reset e-mails only: sign-ups count
 * apart) one e-mail per `resetMaxAge` still goes out and the others are answered `{ ok: true }`
 * with nothing sent, so the address always holds a link that works and nobody's requests keep its
 * owner from a reset. The token (256 bits) is stored as a keyed hash bound to the address,
 * the user and the user's current password, works once, within `resetMaxAge`, and not at all once
 * the password has changed (by this link, another one, or `changePassword`).
 *
 * @example
 * ```ts
 * await requestPasswordReset(request, config, accounts, { email: form.email, clientAddress: ip })
 * ```
 */
export async function requestPasswordReset(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: { email: unknown; clientAddress?: string },
): Promise<ResetRequestResult> {
  const r = resolveAccounts(request, config, options, "requestPasswordReset");
  const email = normalized(input.email);
  if (!email) return { ok: false, error: "invalid-email" };
  const maxAge = options.resetMaxAge ?? RESET_MAX_AGE;
  const refused = await countAccountEvent(r.config, r.limits, "reset", email, input.clientAddress);
  if (refused?.over === "client") return { ok: false, error: "rate-limited", retryAfter: refused.retryAfter };
  // Past the address's limit, one e-mail per link life still goes out, and the rest are answered
  // as usual with nothing sent: the address always holds a link that works, whoever spent its
  // budget, so a stranger's requests never stand between its owner and a reset.
  if (refused && !(await firstResetOfLinkLife(r.config, email, maxAge))) {
    r.config.logger.debug("accounts: reset e-mail not sent, the address holds one whose link still works");
    return { ok: true };
  }
  if (!mailAllowed(r, "A password-reset e-mail")) return { ok: true };
  const user = await r.adapter.getUserByEmail(email);
  const userId = user ? String(user.id) : randomUUID();
  const token = randomToken();
  // Read for a made-up id too, so that both branches do the same work.
  const current = (await options.passwords.getPasswordHash(userId)) ?? "";
  const value = resetRecord(accountKey(r.config.secrets[0]), email, userId, token, current);
  const host = new URL(r.origin).host;
  if (user) {
    try {
      await r.adapter.createVerificationToken({
        identifier: email,
        token: value,
        expires: new Date(Date.now() + maxAge * 1000),
      });
    } catch (e) {
      // The answer stays the same (an outage must not tell which addresses have accounts); no
      // e-mail goes out, and the operator is told.
      r.config.logger.error(
        new AuthError("A reset token could not be stored; no e-mail was sent", { err: errorOf(e) }),
      );
      return { ok: true };
    }
    const url = absolute(r, options.urls.reset, { token, email, user: userId });
    await mail(r, accountMails.reset(email, host, r.config.theme, { url, maxAge }));
  } else {
    await mail(r, accountMails.resetUnknown(email, host, r.config.theme, { signUp: absolute(r, options.urls.signUp) }));
  }
  return { ok: true };
}

/** Fails before anything is spent when the sessions of a user cannot all be ended. */
function assertSessionsCanEnd(config: ResolvedConfig, what: string): void {
  if (config.session.strategy === "database") {
    if (typeof config.adapter?.deleteSessions !== "function") {
      throw new MissingAdapterMethods(`${what} ends the user's sessions: the adapter needs \`deleteSessions\`.`);
    }
  } else if (!config.revocation) {
    throw new InvalidConfiguration(
      `${what} ends every session of the user: under JWT sessions that needs \`session.revocation\` (see @latchkey/core/revocation), or a stolen session would outlive the new password.`,
    );
  }
}

/** Ends every session of the user (both strategies, every instance) and its pending second-factor sign-ins. */
async function endAllSessions(config: AuthConfig, userId: string, env?: Env): Promise<void> {
  await revokeUserSessions(config, userId, { reason: "password-changed", env });
}

/**
 * Sets a new password with the token of a reset e-mail (`token`, `email` and `user` from its
 * link). The new password is checked first (policy, breached), so a refused one does not spend the
 * token; then the token is consumed (of 50 concurrent submissions, one wins), the hash stored,
 * every session of the user ended (database sessions and JWT revocation alike, with pending
 * second-factor sign-ins), `password.changed` recorded and the owner told by e-mail. Nobody is
 * signed in: the user signs in with the new password, and a second factor is still asked for.
 *
 * A reset proves the address. When the account never proved it, the address goes to a fresh
 * verified user with the new password, and whatever the old record held (a stranger's password,
 * accounts, passkeys) stays with it (docs/security.md, "Identity").
 *
 * @example
 * ```ts
 * const result = await resetPassword(request, config, accounts, { token, email, user, password: form.password, clientAddress: ip })
 * ```
 */
export async function resetPassword(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: { token: unknown; email: unknown; user: unknown; password: unknown; clientAddress?: string },
): Promise<ResetResult> {
  const r = resolveAccounts(request, config, options, "resetPassword");
  assertSessionsCanEnd(r.config, "resetPassword");
  const invalid = (reason: string): ResetResult => {
    r.config.logger.debug("accounts: password reset refused", { reason });
    return { ok: false, error: "invalid-token" };
  };
  const email = normalized(input.email);
  const { token, user: userId } = input;
  if (!email || typeof token !== "string" || !/^[0-9a-f]{64}$/.test(token)) return invalid("malformed link");
  if (typeof userId !== "string" || userId === "" || userId.length > 255) return invalid("malformed link");
  // Counted per client only: a 256-bit token is not guessed, and a counter per address would let
  // anyone's bogus submissions block the owner's reset.
  const overLimit = await limited(r, "submit", null, input.clientAddress);
  if (overLimit) return overLimit;
  const accepted = await checkNewPassword(options, input.password, [email]);
  if (!accepted.ok) return accepted;
  const hash = await hashPassword(accepted.password, options.hash);

  // Bound to the password the user has now: a link sent before the last reset or change finds
  // no record.
  const current = (await options.passwords.getPasswordHash(userId)) ?? "";
  const spent = await consume(r.adapter, r.config.secrets, email, (k) => resetRecord(k, email, userId, token, current));
  if (!spent) return invalid("unknown, used, or another user's token");
  if (spent.expired) return invalid("expired token");
  const user = await r.adapter.getUser(userId);
  if (!user || user.email !== email) return invalid("the address no longer belongs to this user");

  let owner = user;
  if (user.emailVerified) {
    await options.passwords.setPasswordHash(userId, hash);
  } else {
    const released = await releaseToProver(
      { config: r.config },
      r.adapter,
      user,
      { email, name: user.name ?? null },
      "password-reset",
    );
    if (!released) return invalid("another proof of the address came first");
    owner = released.user;
    await options.passwords.setPasswordHash(String(owner.id), hash);
  }
  try {
    await endAllSessions(config, String(owner.id), options.env);
  } catch (e) {
    if (e instanceof SignOutError) throw e;
    throw new SignOutError("The password was reset but the sessions were not ended; retry ending them", {
      err: errorOf(e),
    });
  }
  await recordAudit(r.config, {
    type: "password.changed",
    at: new Date(),
    userId: String(owner.id),
    clientAddress: input.clientAddress,
  });
  await mail(
    r,
    accountMails.changed(email, new URL(r.origin).host, r.config.theme, { reset: absolute(r, options.urls.reset) }),
  );
  return { ok: true, userId: String(owner.id), sessionsEnded: true };
}

// ------------------------------------------------------------------ change while signed in

/**
 * A password field as posted: `undefined` when absent (missing or empty), the text when a string,
 * null for any other type (a repeated field parsed as an array, an object): given, and never a
 * match, rather than the string an array or object would turn into.
 */
function postedPassword(value: unknown): string | null | undefined {
  if (value === undefined || value === "") return undefined;
  return typeof value === "string" ? value : null;
}

/** Whether `posted` is the password of `stored`; the same work when there is nothing to match. */
async function matchesStored(posted: string | null, stored: string | null | undefined): Promise<boolean> {
  if (posted === null || !stored) return dummyVerify(posted ?? "");
  return verifyPassword(posted, stored);
}

interface Current {
  user: AdapterUser;
  /** Epoch ms of the sign-in, when known. */
  signedInAt: number | null;
  sessionToken?: string;
  /** JWT sessions: the session token's claims, re-sealed for this browser after a change. */
  claims?: JWT;
}

/** The signed-in user of the request, by the one session read (`lib/session/request-read.ts`). */
async function currentUser(r: Resolved): Promise<Current | null> {
  const cookie = r.sessionCookieOptions;
  if (!cookie) return null;
  const me = await signedInOf({ resolved: r.config, cookie, cookies: r.cookies });
  if (!me) return null;
  const { live, user } = me;
  return { user, signedInAt: live.signedInAt, sessionToken: live.sessionToken, claims: live.token };
}

/**
 * JWT sessions, after the user's sessions were revoked: the cookies of a new session for this
 * browser, with the claims of the one it replaces, a new id and a sign-in time after the
 * revocation (so it survives it on every instance). Nothing when the cookie cannot be written (the
 * user then signs in again).
 */
async function sessionAfterChange(r: Resolved, me: Current): Promise<Cookie[]> {
  const cookie = r.sessionCookieOptions;
  if (!cookie || !me.claims) return [];
  const list = r.config.revocation?.list;
  const token = keepSessionIdentity(me.claims, {
    sid: randomUUID(),
    authTime: list ? list.signInTime(String(me.user.id), Date.now()) : Date.now() / 1000,
    amr: amrOf(me.claims.amr),
    sub: String(me.user.id),
  });
  try {
    return await sessionTokenCookies(r.config, r.cookies, cookie, token);
  } catch (e) {
    if (e instanceof SessionCookieTooLarge) return [];
    throw e;
  }
}

/**
 * Changes the signed-in user's password. Needs the CSRF token the form posted (`csrfToken`, as
 * the other account helpers), and `currentPassword`, unless the user signed in within
 * `recentSignIn` seconds (the JWT's `auth_time`, the database session's creation). Wrong current
 * passwords count against the limits per user and per client. Then the user's other sessions end
 * and this one lives on: database sessions delete every record but this one; JWT sessions revoke
 * every session of the user begun before now, and this browser gets a new session (a new id, begun
 * after that revocation, the same claims) in `setCookie`, to send as `Set-Cookie` headers. Pending
 * second-factor sign-ins end, `password.changed` is recorded and the owner told by e-mail.
 *
 * @example
 * ```ts
 * const result = await changePassword(request, config, accounts, { csrfToken: form.csrfToken, currentPassword: form.current, newPassword: form.password, clientAddress: ip })
 * ```
 */
export async function changePassword(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: { csrfToken: unknown; currentPassword?: unknown; newPassword: unknown; clientAddress?: string },
): Promise<ChangeResult> {
  // The one session read's front: no secret or an untrusted host is no session, logged (its fix named).
  if (!readingOf(sessionRequestOf(request), config, options.env)) return { ok: false, error: "signed-out" };
  const r = resolveAccounts(request, config, options, "changePassword");
  checkCsrf(request, config, input.csrfToken, { env: options.env });
  assertSessionsCanEnd(r.config, "changePassword");
  const me = await currentUser(r);
  if (!me) return { ok: false, error: "signed-out" };
  const { user } = me;
  const posted = postedPassword(input.currentPassword);
  if (posted !== undefined) {
    const overLimit = await limited(r, "submit", `user:${user.id}`, input.clientAddress);
    if (overLimit) return overLimit;
    const ok = await matchesStored(posted, await options.passwords.getPasswordHash(String(user.id)));
    if (!ok) return { ok: false, error: "wrong-password" };
  } else {
    const recent = (options.recentSignIn ?? 300) * 1000;
    if (me.signedInAt === null || Date.now() - me.signedInAt > recent) return { ok: false, error: "reauthenticate" };
  }
  const accepted = await checkNewPassword(options, input.newPassword, [user.email, user.name]);
  if (!accepted.ok) return accepted;
  await options.passwords.setPasswordHash(String(user.id), await hashPassword(accepted.password, options.hash));
  let signedOut = false;
  let cookies: Cookie[] = [];
  if (r.config.session.strategy === "database") {
    await endPendingSignIns(r.config, user.id);
    // assertSessionsCanEnd checked the method before anything was spent.
    const deleted = await withMethods(r.adapter, ["deleteSessions"]).deleteSessions(user.id, me.sessionToken);
    for (const session of deleted) await r.config.events.signOut?.({ session, reason: "password-changed" });
  } else {
    await revokeUserSessions(config, user.id, { reason: "password-changed", env: options.env });
    cookies = await sessionAfterChange(r, me);
    signedOut = cookies.length === 0;
  }
  await recordAudit(r.config, {
    type: "password.changed",
    at: new Date(),
    userId: user.id,
    clientAddress: input.clientAddress,
  });
  if (user.email) {
    await mail(
      r,
      accountMails.changed(user.email, new URL(r.origin).host, r.config.theme, {
        reset: absolute(r, options.urls.reset),
      }),
    );
  }
  return { ok: true, userId: user.id, signedOut, ...resultCookies(cookies) };
}

// ------------------------------------------------------------------ sign-in

/**
 * The check of a Credentials provider's `authorize()` for password accounts: the user of the
 * address when the password matches its stored hash, else null. An unknown address costs what a
 * wrong password costs (`dummyVerify`); a hash made with weaker parameters is upgraded. A user whose
 * address is not verified yet is refused unless `allowUnverified` (they then sign in to an account
 * that loses the address to whoever proves it). Inside a credentials sign-in the hash is read
 * again once the session exists: a reset or change of the password in between (which ends the
 * user's sessions) refuses the sign-in with `CredentialsSignin`. For that, pass `authorize()`'s
 * credentials object as `input` (as below), or return the user this returns (a copy made for this
 * call, so a user object the adapter shares between sign-ins never carries one sign-in's check
 * into another).
 *
 * @example
 * ```ts
 * Credentials({
 *   credentials: { email: { type: "email" }, password: { type: "password" } },
 *   authorize: ({ email, password }) => authorizePassword(config, accounts, { email, password }),
 * })
 * ```
 */
export async function authorizePassword(
  config: AuthConfig,
  options: Pick<PasswordAccountsOptions, "passwords" | "hash" | "env"> & { allowUnverified?: boolean },
  input: { email?: unknown; password?: unknown },
): Promise<AdapterUser | null> {
  const { resolved } = sessionCookieOf({ protocol: "http", host: "localhost", cookieHeader: null }, config, options);
  const adapter = resolved.adapter;
  if (typeof adapter?.getUserByEmail !== "function") {
    throw new MissingAdapterMethods("authorizePassword needs an adapter with `getUserByEmail`.");
  }
  const password = typeof input.password === "string" ? input.password : "";
  const email = normalized(input.email);
  const user = email ? await adapter.getUserByEmail(email) : null;
  const stored = user ? await options.passwords.getPasswordHash(String(user.id)) : null;
  if (!user || !stored) {
    await dummyVerify(password, options.hash);
    return null;
  }
  if (!(await verifyPassword(password, stored))) return null;
  if (!user.emailVerified && !options.allowUnverified) return null;
  let verified = stored;
  if (needsRehash(stored, options.hash)) {
    verified = await hashPassword(password, options.hash);
    await options.passwords.setPasswordHash(String(user.id), verified);
  }
  // Asked again by the credentials flow once the session exists: a reset or change that stored
  // another hash since refuses the sign-in. Another hash of this same password (a concurrent
  // sign-in's rehash) is still this password.
  const userId = String(user.id);
  // The copy returned (a new object per call) leads to this sign-in, whatever the adapter shares.
  return noteVerifiedPassword(input, user, async () => {
    const now = await options.passwords.getPasswordHash(userId);
    return now === verified || (!!now && (await verifyPassword(password, now)));
  });
}

// ------------------------------------------------------------------ pages

/** The props of each built-in page. */
type AccountPageProps = { [N in AccountPageName]: Parameters<(typeof accountPageContent)[N]>[0] };

/** The pages' renderers, typed per name so that a page's props reach its renderer unchecked by casts. */
const accountPageRenderers: {
  [N in AccountPageName]: (props: AccountPageProps[N]) => { title: string; content: SafeHtml };
} = accountPageContent;

/** A built-in page, ready to send: status, headers (no caching, no framing, a CSP) and HTML. */
export interface AccountPage {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Renders one of the built-in password-account pages, themed like Latchkey's sign-in page: `signUp`,
 * `checkEmail` (the code form), `verifyLink`, `forgot`, `reset`, `change` or `done`. Every value is
 * escaped. `@latchkey/express`'s `PasswordAccounts` serves them; a custom page posts the same fields.
 *
 * @example
 * ```ts
 * const { status, headers, body } = accountPage(config, "reset", { action: "/account/reset", csrfToken, token, email, user })
 * ```
 */
export function accountPage<N extends AccountPageName>(
  config: AuthConfig,
  name: N,
  props: AccountPageProps[N],
  options: { status?: number; env?: Env } = {},
): AccountPage {
  const { resolved } = sessionCookieOf({ protocol: "http", host: "localhost", cookieHeader: null }, config, options);
  const { title, content } = accountPageRenderers[name](props);
  const response = page({ title, content, theme: resolved.theme, status: options.status ?? 200 });
  return {
    status: response.status ?? 200,
    headers: { ...response.headers },
    body: String(response.body),
  };
}
