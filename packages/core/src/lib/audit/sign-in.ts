import type { SignInFailureReason } from "../../shapes/audit.js";
import {
  AccessDenied,
  AccountNotLinked,
  CallbackRouteError,
  CredentialsSignin,
  InvalidCheck,
  MissingCSRF,
  OAuthAccountNotLinked,
  OAuthCallbackError,
  OAuthProfileParseError,
  Verification,
  WebAuthnVerificationError,
} from "../base/errors.js";
import type { RequestInternal } from "../http/request.js";
import { clientKey } from "../limits/attempts.js";
import type { Context } from "../serve/context.js";
import { admitAnonymous, recordAudit } from "./record.js";

/**
 * Thrown by a credentials provider's `authorize()` when no such user exists. The client sees
 * exactly what a wrong password shows (`CredentialsSignin`, same code, same redirect); only the
 * audit trail records `unknown-user`. Make the two cost the same time too (`dummyVerify` of
 * `@latchkey/core/password`).
 *
 * @example
 * ```ts
 * import { UnknownUserSignin } from "@latchkey/core/audit"
 * import { dummyVerify, verifyPassword } from "@latchkey/core/password"
 * async authorize({ email, password }) {
 *   const user = await db.users.byEmail(email)
 *   if (!user) { await dummyVerify(password); throw new UnknownUserSignin() }
 *   return (await verifyPassword(password, user.hash)).valid ? user : null
 * }
 * ```
 */
export class UnknownUserSignin extends CredentialsSignin {}

/**
 * Notes what this request tries to sign in as, on its context, for its success or failure record.
 *
 * @example
 * ```ts
 * noteSignInAttempt(ctx, { identifier: "ada@example.com" })
 * ```
 */
export function noteSignInAttempt(ctx: Context, attempt: { identifier?: string; userId?: string }): void {
  if (ctx.config.audit) ctx.signInAttempt = { ...ctx.signInAttempt, ...attempt };
}

/** The internal reason of a sign-in that threw `error`. */
export function failureReasonOf(error: unknown): SignInFailureReason {
  if (error instanceof UnknownUserSignin) return "unknown-user";
  if (error instanceof CredentialsSignin) return "wrong-credentials";
  if (error instanceof CallbackRouteError) return "authorize-error";
  if (error instanceof AccessDenied) return "sign-in-refused";
  if (error instanceof Verification) return "email-token-invalid";
  if (error instanceof OAuthAccountNotLinked || error instanceof AccountNotLinked) return "account-not-linked";
  if (error instanceof OAuthCallbackError || error instanceof InvalidCheck || error instanceof OAuthProfileParseError)
    return "oauth-error";
  if (error instanceof WebAuthnVerificationError) return "webauthn-error";
  if (error instanceof MissingCSRF) return "missing-csrf";
  return "server-error";
}

/**
 * The budget a failure counts against. An unknown user and a wrong password answer alike, so they
 * must be recorded alike too: with a budget each, past one of them only the other would still
 * write, and that write shows in the response time.
 */
function budgetOf(reason: SignInFailureReason): SignInFailureReason {
  return reason === "unknown-user" ? "wrong-credentials" : reason;
}

/**
 * Records a failed sign-in with its internal reason. Anonymous clients can fail as often as they
 * like in some flows (an OAuth callback with a forged state is not rate-limited), so failures are
 * recorded at most `audit.failuresPerClient` times per client address, reason and window (and
 * sixteen times that per IPv6 /48). Per
 * reason: a budget shared by every kind of failure would let a client spend it on free failures
 * (posts without CSRF) and then guess passwords unrecorded. Reasons the client's answer does not
 * tell apart share a budget (see budgetOf).
 */
export async function recordSignInFailure(
  req: RequestInternal,
  ctx: Context,
  reason: SignInFailureReason,
): Promise<void> {
  const { config } = ctx;
  if (!config.audit) return;
  if (!(await admitAnonymous(config, clientKey(req.clientIp), budgetOf(reason)))) return;
  await recordAudit(config, {
    type: "signin.failed",
    at: new Date(),
    reason,
    provider: ctx.provider?.id,
    clientAddress: req.clientIp,
    ...ctx.signInAttempt,
  });
}

/** Records a completed sign-in: the session exists (`sessionId` names it, never its token). */
export async function recordSignInSuccess(
  req: RequestInternal,
  ctx: Context,
  event: { userId?: string; provider?: string; sessionId?: string },
): Promise<void> {
  if (!ctx.config.audit) return;
  await recordAudit(ctx.config, {
    type: "signin.succeeded",
    at: new Date(),
    clientAddress: req.clientIp,
    ...ctx.signInAttempt,
    ...event,
  });
}
