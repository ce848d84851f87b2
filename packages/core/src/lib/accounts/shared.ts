import type { Cookie, CookieOption } from "../../shapes/data.js";
import { type AdapterWith, hasMethods } from "../base/adapter-for.js";
import { errorOf } from "../base/error-of.js";
import { AuthError, InvalidConfiguration, MissingAdapterMethods } from "../base/errors.js";
import { smtpSender } from "../base/symbols.js";
import type { AuthConfig } from "../config/options.js";
import type { EmailProviderInternal, ResolvedConfig } from "../config/types.js";
import { openToken, sealToken } from "../crypto/jwe.js";
import { normalizeEmailIdentifier } from "../email/identifier.js";
import { serializeCookie } from "../http/cookies.js";
import { linksMailable, unmailableOrigin } from "../http/origin.js";
import { checkBreachedPassword } from "../password/breached.js";
import { checkPasswordPolicy } from "../password/policy.js";
import { sessionCookieOf, sessionRequestOf } from "../serve/pipeline.js";
import { type AccountEvent, type AccountLimits, accountLimitsOf, countAccountEvent } from "./limits.js";
import type { AccountMail } from "./mail.js";
import type {
  AccountsRequest,
  NewPasswordError,
  PasswordAccountsOptions,
  RateLimitedResult,
  ResultCookies,
} from "./password-accounts.js";

// ------------------------------------------------------------------ shared

export interface Resolved {
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

/** An e-mail of the library as a sender takes it. */
type SentMail = Pick<AccountMail, "to" | "subject" | "text" | "html" | "url">;

/**
 * The e-mail sender: `given` (the `send` option), else the SMTP sender of the configuration's
 * Nodemailer (or Email) provider. Taken from the provider, so this module imports no nodemailer:
 * an application without an SMTP provider bundles none for an Edge runtime or a Worker. `what`
 * names who sends, in the error that names the fix.
 */
export function senderOf<M extends SentMail>(
  config: ResolvedConfig,
  given: ((mail: M) => Promise<void>) | undefined,
  what: string,
): (mail: M) => Promise<void> {
  if (given) return given;
  const provider = config.providers.find(
    (p): p is EmailProviderInternal => p.type === "email" && !!p.server && typeof p[smtpSender] === "function",
  );
  const send = provider?.[smtpSender];
  if (!provider || !send) {
    throw new InvalidConfiguration(
      `${what} send e-mails: give \`send(mail)\` in their options, or configure a Nodemailer provider (its \`server\` and \`from\` are used).`,
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

export function resolveAccounts(
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
    send: senderOf(resolved, options.send, "Password accounts"),
  };
}

export function absolute(r: Resolved, page: string, query?: Record<string, string>): string {
  const url = new URL(page, `${r.origin}/`);
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
  return url.href;
}

export function normalized(email: unknown): string | null {
  try {
    return typeof email === "string" ? normalizeEmailIdentifier(email) : null;
  } catch {
    return null;
  }
}

/** Counts an event: null when counted, else the `rate-limited` answer. */
export async function limited(
  r: Resolved,
  event: AccountEvent,
  subject: string | null,
  clientAddress: string | undefined,
): Promise<RateLimitedResult | null> {
  const refused = await countAccountEvent(r.config, r.limits, event, subject, clientAddress);
  return refused && { ok: false, error: "rate-limited", retryAfter: refused.retryAfter };
}

/** Policy, then breached check, of a new password: the password when it may be used. */
export async function checkNewPassword(
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
export function mailAllowed(r: Resolved, what: string): boolean {
  if (!r.mailable) r.config.logger.error(unmailableOrigin(r.origin, what));
  return r.mailable;
}

/** Sends an e-mail; a failure is logged (the answer must not tell whether a mail went out). */
export async function mail(r: Resolved, message: AccountMail): Promise<void> {
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

export interface VerifyClaims {
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

export async function verifyCookie(r: Resolved, claims: VerifyClaims, maxAge: number): Promise<Cookie> {
  const name = verifyCookieName(r);
  // Padded to one length: the taken path's made-up id is a UUID, the adapter's may be "1" or a
  // cuid, and the sealed cookie's length would tell a free address from a taken one.
  const pad = " ".repeat(Math.max(0, USER_ID_PAD - claims.userId.length));
  const value = await sealToken({ ...claims, pad }, r.config.secrets, name, maxAge);
  return { name, value, options: { httpOnly: true, sameSite: "lax", path: "/", secure: r.secure, maxAge } };
}

export function clearVerifyCookie(r: Resolved): Cookie {
  return {
    name: verifyCookieName(r),
    value: "",
    options: { httpOnly: true, sameSite: "lax", path: "/", secure: r.secure, maxAge: 0 },
  };
}

/** A result's cookies in both forms. */
export function resultCookies(cookies: Cookie[]): ResultCookies {
  return { setCookie: cookies.map((c) => serializeCookie(c.name, c.value, c.options)), cookies };
}

export async function readVerifyCookie(r: Resolved): Promise<VerifyClaims | null> {
  const name = verifyCookieName(r);
  const raw = r.cookies[name];
  if (!raw) return null;
  const claims = await openToken(raw, r.config.secrets, name);
  const [email, userId, sendId] = [claims?.email, claims?.userId, claims?.sendId];
  if (typeof email !== "string" || typeof userId !== "string" || typeof sendId !== "string") return null;
  return { email, userId, sendId };
}
