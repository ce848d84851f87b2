/**
 * The second factor at sign-in (`@latchkey/core/providers/totp`). A first factor that would start
 * the session of a user with an active second factor leaves a sealed "pending" cookie instead
 * (`holdForSecondFactor`); `GET /callback/<totp>` asks for the code and `POST /callback/<totp>`
 * checks it and starts the session through the same `startSession` as every other sign-in.
 *
 * Single use: the pending cookie carries the user's last used time step as it was when the first
 * factor succeeded, and a right code moves that value on with one compare-and-set
 * (`useSecondFactorStep(user, expected, next)`). Of concurrent submissions, replays and a second
 * use of the same cookie, exactly one can win; a code of an already used step never does.
 */
import { randomUUID } from "node:crypto";
import type { AdapterUser } from "../../../adapters.js";
import { AuthError, RateLimited } from "../../../errors.js";
import type { Account, Profile, ResponseInternal, User } from "../../../types.js";
import { reserveSecondFactorAttempt } from "../../attempts.js";
import { noteSignInAttempt, recordSignInFailure } from "../../audit/sign-in.js";
import type { Context } from "../../context.js";
import { clearChunkedCookie, readChunkedCookie, writeChunkedCookie } from "../../cookies.js";
import { openToken, sealToken } from "../../jwe.js";
import { page } from "../../pages/layout.js";
import { secondFactorPage } from "../../pages/second-factor.js";
import type { RequestInternal } from "../../request.js";
import { withQuery } from "../../url.js";
import { canonicalBackupCode, hashBackupCode, openSecret, secondFactorStore } from "./secret.js";
import { matchTotp, timeStep } from "./totp.js";

type TotpProvider = Extract<NonNullable<Context["provider"]>, { type: "totp" }>;

/** What a first factor completed, kept sealed in the pending cookie until the code is given. */
export interface PendingSignIn {
  /** The id of the cookie: the attempt counter of this pending sign-in is keyed on it. */
  jti: string;
  userId: string;
  user: User | AdapterUser;
  account: Account | null;
  profile?: Profile;
  isNewUser: boolean;
  /** The first factor's methods (`["pwd"]`, `["oauth"]`, ...). */
  amr: string[];
  callbackUrl: string;
  /** The user's `lastStep` when the first factor succeeded: the compare-and-set's expected value. */
  step: number;
}

/** The configured TOTP provider, if any. */
export function totpProviderOf(ctx: Context): TotpProvider | undefined {
  return ctx.config.providers.find((p): p is TotpProvider => p.type === "totp");
}

/** The authentication method a first factor counts as (RFC 8176 names where one fits). */
export function methodOf(account: Account | null): string {
  switch (account?.type) {
    case "credentials":
      return "pwd";
    case "oauth":
    case "oidc":
      return "oauth";
    case "email":
      return "email";
    case "webauthn":
      return "webauthn";
    default:
      return "unknown";
  }
}

function pendingCookie(ctx: Context, provider: TotpProvider) {
  const session = ctx.cookieOptions.sessionToken;
  const { expires: _expires, ...options } = session.options;
  return {
    name: `${options.secure ? "__Secure-" : ""}latchkey.second-factor`,
    options: { ...options, maxAge: provider.pendingMaxAge },
  };
}

/**
 * Decides whether the session may start now. When the user has an active second factor, the
 * sign-in is sealed into the pending cookie (queued on `ctx.cookies`) and the URL of the code
 * page is returned; otherwise undefined (no second factor: sign in as before).
 */
export async function holdForSecondFactor(
  req: RequestInternal,
  ctx: Context,
  provider: TotpProvider,
  params: { user: User | AdapterUser; account: Account | null; profile?: Profile; isNewUser: boolean; amr: string[] },
): Promise<string | undefined> {
  const userId = params.user.id?.toString();
  if (!userId) return undefined;
  const record = await secondFactorStore(ctx.config).getSecondFactor(userId);
  if (!record?.active) return undefined;
  const cookie = pendingCookie(ctx, provider);
  const pending: PendingSignIn = {
    jti: randomUUID(),
    userId,
    user: params.user,
    account: params.account,
    profile: params.profile,
    isNewUser: params.isNewUser,
    amr: params.amr,
    callbackUrl: await ctx.callbackUrl(),
    step: record.lastStep,
  };
  const sealed = sealToken({ pending }, ctx.config.secrets, cookie.name, provider.pendingMaxAge);
  ctx.cookies.push(...writeChunkedCookie(req.cookies, cookie.name, sealed, cookie.options));
  return `${ctx.authUrl}/callback/${provider.id}`;
}

function readPending(req: RequestInternal, ctx: Context, provider: TotpProvider): PendingSignIn | null {
  const cookie = pendingCookie(ctx, provider);
  const raw = readChunkedCookie(req.cookies, cookie.name);
  if (!raw) return null;
  const claims = openToken(raw, ctx.config.secrets, cookie.name);
  const pending = claims?.pending as PendingSignIn | undefined;
  if (!pending || typeof pending.userId !== "string" || typeof pending.step !== "number") return null;
  return pending;
}

/** Back to the sign-in page: there is no pending sign-in (none, expired, or forged). */
function signInAgain(req: RequestInternal, ctx: Context, provider: TotpProvider): ResponseInternal {
  const cookie = pendingCookie(ctx, provider);
  ctx.cookies.push(...clearChunkedCookie(req.cookies, cookie.name, cookie.options));
  return { redirect: `${ctx.authUrl}/signin?error=SessionRequired`, cookies: ctx.cookies };
}

/** Back to the code page with an error the page names (never which check failed). */
function askAgain(ctx: Context, provider: TotpProvider, error: string): ResponseInternal {
  return {
    redirect: withQuery(`${ctx.authUrl}/callback/${provider.id}`, new URLSearchParams({ error })),
    cookies: ctx.cookies,
  };
}

/**
 * `GET /callback/<totp>`: the page asking for the code (or a redirect to `pages.secondFactor`
 * with `callbackUrl`), for a request that holds a pending sign-in; the sign-in page otherwise.
 */
export function secondFactorForm(req: RequestInternal, ctx: Context, provider: TotpProvider): ResponseInternal {
  const pending = readPending(req, ctx, provider);
  if (!pending) return signInAgain(req, ctx, provider);
  const error = req.query.error;
  const custom = ctx.config.pages.secondFactor;
  if (custom) {
    const params = new URLSearchParams({ callbackUrl: pending.callbackUrl });
    if (error) params.set("error", error);
    return { redirect: withQuery(custom, params), cookies: ctx.cookies };
  }
  const { title, content } = secondFactorPage({
    action: `${ctx.authUrl}/callback/${provider.id}`,
    csrfToken: ctx.csrf().token,
    providerName: provider.name.toLowerCase(),
    error,
  });
  return page({ title, content, theme: ctx.config.theme, cookies: ctx.cookies });
}

/**
 * `POST /callback/<totp>`: CSRF check, pending sign-in, attempt reserved (per pending cookie and
 * per user), then a TOTP code (six digits, one step of drift) or a backup code. Every refusal
 * looks the same to the client. On success the pending cookie is cleared and the session starts
 * with the first factor's methods plus `"otp"` in `amr`.
 */
export async function secondFactorCallback(
  req: RequestInternal,
  ctx: Context,
  provider: TotpProvider,
): Promise<ResponseInternal> {
  if (req.method !== "POST") return secondFactorForm(req, ctx, provider);
  const pending = readPending(req, ctx, provider);
  if (!pending) return signInAgain(req, ctx, provider);
  if (!ctx.csrf().verified) return askAgain(ctx, provider, "MissingCSRF");

  let attempt: Awaited<ReturnType<typeof reserveSecondFactorAttempt>>;
  try {
    attempt = await reserveSecondFactorAttempt(ctx, pending.userId, pending.jti);
  } catch (e) {
    if (e instanceof RateLimited) {
      ctx.config.logger.debug(`second factor: attempts exhausted for user ${pending.userId}`);
      return askAgain(ctx, provider, "RateLimited");
    }
    throw e;
  }

  const code = typeof req.body?.code === "string" ? req.body.code.trim() : "";
  const refusedBecause = await checkCode(ctx, pending, code);
  if (refusedBecause) {
    // The reason is for the operator's log only: the client learns nothing about which check failed.
    ctx.config.logger.debug(`second factor refused for user ${pending.userId}: ${refusedBecause}`);
    noteSignInAttempt(ctx, { userId: pending.userId });
    await recordSignInFailure(req, ctx, "second-factor-invalid");
    return askAgain(ctx, provider, "CredentialsSignin");
  }
  await attempt.succeeded();

  const cookie = pendingCookie(ctx, provider);
  ctx.cookies.push(...clearChunkedCookie(req.cookies, cookie.name, cookie.options));
  let user = pending.user;
  if (ctx.config.session.strategy === "database") {
    // The stored user as it is now (the cookie holds a JSON copy, with dates as strings).
    const stored = await ctx.config.adapter?.getUser?.(pending.userId);
    if (!stored) return signInAgain(req, ctx, provider);
    user = stored;
  }
  const { startSession, landing } = await import("../finish-sign-in.js");
  await startSession(req, ctx, {
    user,
    account: pending.account,
    profile: pending.profile,
    isNewUser: pending.isNewUser,
    amr: [...pending.amr, "otp"],
  });
  return landing(ctx, pending.callbackUrl, pending.isNewUser);
}

/** Checks the code against the stored factor; returns why it was refused, or undefined. */
async function checkCode(ctx: Context, pending: PendingSignIn, code: string): Promise<string | undefined> {
  const store = secondFactorStore(ctx.config);
  const record = await store.getSecondFactor(pending.userId);
  if (!record?.active) return "no active second factor";
  const current = timeStep();
  if (/^\d{6}$/.test(code)) {
    const key = openSecret(ctx.config, pending.userId, record.secret);
    if (!key) {
      ctx.config.logger.error(
        new AuthError(`The TOTP secret of user ${pending.userId} opens with no configured secret`),
      );
      return "secret cannot be opened";
    }
    const step = matchTotp(key, code, current);
    if (step === null) return "wrong code";
    if (step <= pending.step) return "code of a step already used";
    if (!(await store.useSecondFactorStep(pending.userId, pending.step, step)))
      return "pending sign-in already used, or a concurrent code won";
    return undefined;
  }
  const canonical = canonicalBackupCode(code);
  if (!canonical) return "not a code";
  if (!(await store.useBackupCode(pending.userId, hashBackupCode(pending.userId, canonical))))
    return "unknown or used backup code";
  // Moves the step on as a code would, so this pending cookie (and any copy of it) is spent.
  const next = Math.max(pending.step + 1, current - 1);
  if (!(await store.useSecondFactorStep(pending.userId, pending.step, next)))
    return "pending sign-in already used, or a concurrent code won";
  return undefined;
}
