/**
 * The code half of e-mail sign-in: the sealed cookie that remembers which e-mail this browser asked
 * for, and `POST /callback/<email provider>` with the code typed on the verify-request page.
 * The records it consumes are described in `lib/flows/email/code.ts`.
 */

import type { CookieSerializeOptions, ResponseInternal } from "../../../shapes/data.js";
import { noteSignInAttempt, recordSignInFailure } from "../../audit/sign-in.js";
import { MissingCSRF, Verification } from "../../base/errors.js";
import { openToken, sealToken } from "../../crypto/jwe.js";
import type { RequestInternal } from "../../http/request.js";
import { reserveEmailCodeAttempt } from "../../limits/attempts.js";
import type { Context } from "../../serve/context.js";
import { aliveRecord, attemptRecord, codeRecord, emailCodeKey, emailCodeOptions, parseSubmittedCode } from "./code.js";
import {
  adapterOf,
  completeEmailSignIn,
  type EmailProvider,
  normalize,
  tokenSecrets,
  verifyRequestUrl,
} from "./common.js";

/** What the code cookie seals: the provider, the normalised address and the e-mail's send id. */
interface CodeClaims {
  provider: string;
  identifier: string;
  sendId: string;
}

/**
 * Name and options of the code cookie: `__Secure-` on https like the session cookie, HttpOnly,
 * SameSite=Strict (only the application's own form posts it) and sent to the auth routes only.
 */
function codeCookie(req: RequestInternal, ctx: Context): { name: string; options: CookieSerializeOptions } {
  const secure = ctx.cookieOptions.sessionToken.options.secure === true;
  return {
    name: `${secure ? "__Secure-" : ""}authjs.email-code`,
    options: { httpOnly: true, sameSite: "strict", path: req.basePath || "/", secure },
  };
}

/**
 * Queues the sealed code cookie after a code was mailed, for as long as the code lives. The
 * address comes from here, not from the form: a client cannot point a code at another address,
 * and a guess only ever meets the code of the one e-mail this browser asked for.
 */
export async function setCodeCookie(
  req: RequestInternal,
  ctx: Context,
  provider: EmailProvider,
  params: { identifier: string; sendId: string },
): Promise<void> {
  const { name, options } = codeCookie(req, ctx);
  const claims: CodeClaims = { provider: provider.id, identifier: params.identifier, sendId: params.sendId };
  const value = await sealToken({ ...claims }, ctx.config.secrets, name, provider.maxAge);
  ctx.cookies.push({ name, value, options: { ...options, maxAge: provider.maxAge } });
}

/** The code cookie's claims for `provider`, or null when absent, forged, expired or another provider's. */
async function readCodeCookie(req: RequestInternal, ctx: Context, provider: EmailProvider): Promise<CodeClaims | null> {
  const { name } = codeCookie(req, ctx);
  const raw = req.cookies[name];
  if (!raw) return null;
  const claims = await openToken(raw, ctx.config.secrets, name);
  if (
    !claims ||
    claims.provider !== provider.id ||
    typeof claims.identifier !== "string" ||
    typeof claims.sendId !== "string" ||
    !/^[0-9a-f]{32}$/.test(claims.sendId)
  ) {
    return null;
  }
  return { provider: provider.id, identifier: claims.identifier, sendId: claims.sendId };
}

/**
 * `POST /callback/<email provider>` with `csrfToken` and `code` (and optionally `email`, which must
 * then be the cookie's): checks the CSRF token, reads the address from the sealed cookie, counts
 * the submission against the rate limits, spends one attempt record, consumes the code record and
 * then the alive record, and signs in as the link does.
 *
 * Every refusal (no cookie, a malformed, wrong, expired or used code, no attempt left, another
 * address) gives the client the same answer, the verify-request page with `error=Verification`,
 * and logs the reason as a `Verification` error.
 *
 * @example
 * ```ts
 * // POST /auth/callback/nodemailer  csrfToken=...&code=049281   (Cookie: authjs.email-code=...)
 * ```
 */
export async function submitEmailCode(
  req: RequestInternal,
  ctx: Context,
  provider: EmailProvider,
): Promise<ResponseInternal> {
  if (!ctx.csrf().verified) throw new MissingCSRF("An e-mail code was posted without a valid CSRF token");
  const options = emailCodeOptions(provider);
  const refuse = async (reason: string): Promise<ResponseInternal> => {
    ctx.config.logger.error(new Verification(`E-mail code refused: ${reason}`, { provider: provider.id }));
    await recordSignInFailure(req, ctx, "email-code-invalid");
    return { redirect: verifyRequestUrl(ctx, provider.id, { error: "Verification" }), cookies: ctx.cookies };
  };
  if (!options) return refuse("this provider does not mail codes");
  const claims = await readCodeCookie(req, ctx, provider);
  if (!claims) return refuse("no valid code cookie (another browser, expired, or forged)");
  const { identifier, sendId } = claims;
  noteSignInAttempt(ctx, { identifier });
  const email = req.body?.email;
  if (email !== undefined && email !== "") {
    let submitted: string | null;
    try {
      submitted = normalize(provider, email);
    } catch {
      submitted = null;
    }
    if (submitted !== identifier) return refuse("the submitted address is not the one the code was mailed to");
  }
  const reservation = await reserveEmailCodeAttempt(req, ctx, provider.id, identifier);
  const code = parseSubmittedCode(req.body?.code, options.length);
  if (!code) return refuse(`not a ${options.length}-digit code`);

  const adapter = adapterOf(ctx);
  const now = Date.now();
  const live = (record: { expires: Date | string } | null) => !!record && new Date(record.expires).valueOf() > now;
  // One attempt record per submission, the lowest left; tried under each secret (rotation).
  let key: Uint8Array | undefined;
  let attempt = -1;
  for (const secret of tokenSecrets(ctx, provider)) {
    const candidate = emailCodeKey(secret);
    for (let i = 0; i < options.attempts && attempt < 0; i++) {
      const record = await adapter.useVerificationToken({
        identifier,
        token: attemptRecord(candidate, identifier, sendId, i),
      });
      if (record) {
        if (!live(record)) return refuse("the code has expired");
        attempt = i;
      }
    }
    if (attempt >= 0) {
      key = candidate;
      break;
    }
  }
  if (!key) return refuse("no attempt left (all spent, expired, or the e-mail is unknown)");
  const stored = await adapter.useVerificationToken({ identifier, token: codeRecord(key, identifier, sendId, code) });
  if (!stored) return refuse(`wrong or already used code (attempt ${attempt + 1} of ${options.attempts})`);
  if (!live(stored)) return refuse("the code has expired");
  if (!(await adapter.useVerificationToken({ identifier, token: aliveRecord(key, identifier, sendId) }))) {
    return refuse("the e-mail's link already signed in");
  }
  await reservation.succeeded();
  const { name, options: cookieOptions } = codeCookie(req, ctx);
  ctx.cookies.push({ name, value: "", options: { ...cookieOptions, maxAge: 0 } });
  return completeEmailSignIn(req, ctx, provider, identifier);
}
