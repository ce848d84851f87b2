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

import type { ResponseInternal } from "../../../shapes/data.js";
import { noteSignInAttempt, recordSignInFailure } from "../../audit/sign-in.js";
import { AuthError, RateLimited } from "../../base/errors.js";
import { clearChunkedCookie } from "../../http/cookies.js";
import type { RequestInternal } from "../../http/request.js";
import { withQuery } from "../../http/url.js";
import { reserveSecondFactorAttempt } from "../../limits/attempts.js";
import { page } from "../../pages/layout.js";
import { secondFactorPage } from "../../pages/second-factor.js";
import type { Context } from "../../serve/context.js";
import { landing, startSession } from "../finish-sign-in.js";
import { type PendingSignIn, pendingCookie, readPending, type TotpProvider } from "./pending.js";
import { canonicalBackupCode, hashBackupCode, openSecret, resealIfRetired, secondFactorStore } from "./secret.js";
import { matchTotp, timeStep } from "./totp.js";

/** Back to the sign-in page: there is no pending sign-in (none, expired, or forged). */
function signInAgain(req: RequestInternal, ctx: Context, provider: TotpProvider): ResponseInternal {
  const cookie = pendingCookie(req, ctx, provider);
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
export async function secondFactorForm(
  req: RequestInternal,
  ctx: Context,
  provider: TotpProvider,
): Promise<ResponseInternal> {
  const pending = await readPending(req, ctx, provider);
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
  const pending = await readPending(req, ctx, provider);
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

  const cookie = pendingCookie(req, ctx, provider);
  ctx.cookies.push(...clearChunkedCookie(req.cookies, cookie.name, cookie.options));
  let user = pending.user;
  let account = pending.account;
  if (ctx.config.session.strategy === "database") {
    // The stored user and account as they are now: the cookie names them and holds no tokens.
    const adapter = ctx.config.adapter;
    const stored = await adapter?.getUser?.(pending.userId);
    if (!stored) return signInAgain(req, ctx, provider);
    user = stored;
    const found = account && (await adapter?.getAccount?.(account.providerAccountId, account.provider));
    // Only while it is still this user's (it could have been unlinked and linked to another since).
    if (found && found.userId === pending.userId) account = found;
  }
  if (!user) return signInAgain(req, ctx, provider);
  const started = await startSession(req, ctx, {
    user,
    account,
    profile: pending.profile,
    isNewUser: pending.isNewUser,
    amr: [...pending.amr, "otp"],
    // Asked again once the session exists: a revocation ends pending sign-ins before it ends
    // sessions, so either it is seen here or the session it ends already existed.
    revokedSince: async () => (await endedSince(ctx, pending)) !== undefined,
  });
  if (!started) {
    ctx.config.logger.debug(`second factor: the sign-in of user ${pending.userId} was ended by a revocation`);
    return signInAgain(req, ctx, provider);
  }
  return landing(ctx, pending.callbackUrl, pending.isNewUser);
}

/** Checks the code against the stored factor; returns why it was refused, or undefined. */
async function checkCode(ctx: Context, pending: PendingSignIn, code: string): Promise<string | undefined> {
  const store = secondFactorStore(ctx.config);
  const record = await store.getSecondFactor(pending.userId);
  if (!record?.active) return "no active second factor";
  const current = timeStep();
  if (/^\d{6}$/.test(code)) {
    const key = await openSecret(ctx.config, pending.userId, record.secret);
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
    await resealIfRetired(ctx.config, record, step);
    return endedSince(ctx, pending);
  }
  const canonical = canonicalBackupCode(code);
  if (!canonical) return "not a code";
  if (!(await store.useBackupCode(pending.userId, hashBackupCode(pending.userId, canonical))))
    return "unknown or used backup code";
  // Moves the step on as a code would, so this pending cookie (and any copy of it) is spent.
  const next = Math.max(pending.step + 1, current - 1);
  if (!(await store.useSecondFactorStep(pending.userId, pending.step, next)))
    return "pending sign-in already used, or a concurrent code won";
  return endedSince(ctx, pending);
}

/**
 * Read after the code won (the code stays spent either way): a revocation that ended the user's
 * pending sign-ins since this one began (`endPendingSignIns`) refuses it. Reading after the
 * compare-and-set, not before, leaves no gap where a revocation passes between check and use.
 */
async function endedSince(ctx: Context, pending: PendingSignIn): Promise<string | undefined> {
  const record = await secondFactorStore(ctx.config).getSecondFactor(pending.userId);
  return (record?.generation ?? 0) === pending.generation ? undefined : "pending sign-ins ended by a revocation";
}
