import type { Adapter, AdapterUser } from "../../../shapes/adapters.js";
import type { Account, ResponseInternal } from "../../../shapes/data.js";
import { noteSignInAttempt } from "../../audit/sign-in.js";
import { errorOf } from "../../base/error-of.js";
import { AuthError, EmailSignInError, Verification } from "../../base/errors.js";
import type { InternalProvider } from "../../config/types.js";
import { unmailableOrigin } from "../../http/origin.js";
import type { RequestInternal } from "../../http/request.js";
import { reserveEmailSend } from "../../limits/attempts.js";
import { otherPages } from "../../pages/responses.js";
import type { Context } from "../../serve/context.js";
import { bindLink, linkOpenedWhereAsked } from "../binding.js";
import { askSignIn } from "../finish-sign-in.js";
import {
  aliveRecord,
  attemptRecord,
  codeRecord,
  emailCodeKey,
  emailCodeOptions,
  emailSendId,
  randomEmailCode,
} from "./code.js";
import { setCodeCookie, submitEmailCode } from "./code-flow.js";
import { adapterOf, completeEmailSignIn, normalize, tokenSecrets, verifyRequestUrl } from "./common.js";
import { hashVerificationToken, randomVerificationToken, verificationTokenKey } from "./token.js";

/**
 * `POST /signin/<email provider>` (CSRF already verified): normalises the address, counts the
 * send against the rate limits (on the normalised address, so spellings of one mailbox share a
 * counter; past the address's own budget, one e-mail per link life still goes out and the others
 * are answered as usual, sending nothing: `reserveEmailSend`), asks the
 * `signIn` callback (`email.verificationRequest: true`), stores the keyed hash of a fresh token
 * with its expiry, mails the link (bound to this browser: lib/flows/binding.ts) and redirects to the
 * verify-request page.
 *
 * Failures: a refused address or a failed send is `EmailSignInError` (`?error=EmailSignin` on the
 * sign-in page) with the cause logged; after a failed send the stored token is consumed again, so
 * nothing usable is left behind.
 */
export async function sendSignInLink(
  req: RequestInternal,
  ctx: Context,
  provider: InternalProvider,
): Promise<ResponseInternal> {
  if (provider.type !== "email") throw new EmailSignInError(`Provider "${provider.id}" is not an e-mail provider`);
  const adapter = adapterOf(ctx);

  let identifier: string;
  try {
    identifier = normalize(provider, req.body?.email);
  } catch (e) {
    throw new EmailSignInError("The e-mail address was refused", { err: errorOf(e), provider: provider.id });
  }
  const linkLife = provider.link !== false ? provider.maxAge : null;
  const reserved = await reserveEmailSend(req, ctx, provider.id, identifier, linkLife);

  const existing = await adapter.getUserByEmail(identifier);
  // As in the callback: a holder of the address who never proved it is not who will sign in.
  const user: AdapterUser = existing?.emailVerified
    ? existing
    : { id: identifier, email: identifier, emailVerified: null };
  const account: Account = { provider: provider.id, providerAccountId: identifier, type: "email", userId: user.id };
  const redirect = await askSignIn(ctx, { user, account, email: { verificationRequest: true } });
  if (redirect) return { redirect, cookies: ctx.cookies };
  if (reserved === "sent") {
    ctx.config.logger.debug("email: sign-in e-mail not sent, the address holds one whose link still works", {
      provider: provider.id,
    });
    return { redirect: verifyRequestUrl(ctx, provider.id), cookies: ctx.cookies };
  }

  const callbackUrl = await ctx.callbackUrl();
  // A link (or a code typed on the page a link names) built from a host the request named would
  // hand the token to that host: nothing is stored or sent, and the answer is a success's.
  if (!ctx.linksMailable) {
    ctx.config.logger.error(unmailableOrigin(ctx.origin, "A sign-in e-mail"));
    return { redirect: verifyRequestUrl(ctx, provider.id), cookies: ctx.cookies };
  }
  let token: string;
  try {
    token = provider.generateVerificationToken ? await provider.generateVerificationToken() : randomVerificationToken();
  } catch (e) {
    throw new EmailSignInError("generateVerificationToken() threw", { err: errorOf(e), provider: provider.id });
  }
  if (typeof token !== "string" || token === "") {
    throw new EmailSignInError("generateVerificationToken() returned no token", { provider: provider.id });
  }
  const [secret] = tokenSecrets(ctx, provider);
  const hashed = hashVerificationToken(verificationTokenKey(secret), identifier, token);
  const expires = new Date(Date.now() + provider.maxAge * 1000);
  const codeOptions = emailCodeOptions(provider);
  const withLink = provider.link !== false;
  const records: string[] = withLink ? [hashed] : [];
  let code: string | undefined;
  let sendId: string | undefined;
  if (codeOptions) {
    const codeKey = emailCodeKey(secret);
    sendId = emailSendId(codeKey, identifier, token);
    code = randomEmailCode(codeOptions.length);
    records.push(codeRecord(codeKey, identifier, sendId, code), aliveRecord(codeKey, identifier, sendId));
    for (let i = 0; i < codeOptions.attempts; i++) records.push(attemptRecord(codeKey, identifier, sendId, i));
  }
  // Every record or none: a failed write or send consumes again whatever was stored.
  const withdraw = async (stored: string[]) => {
    try {
      await Promise.all(stored.map((value) => adapter.useVerificationToken({ identifier, token: value })));
    } catch (cleanup) {
      ctx.config.logger.error(
        cleanup instanceof AuthError
          ? cleanup
          : new AuthError("The unsent verification token could not be removed", { err: errorOf(cleanup) }),
      );
    }
  };
  const written = await Promise.allSettled(
    records.map((value) => adapter.createVerificationToken({ identifier, token: value, expires })),
  );
  const failed = written.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    await withdraw(records.filter((_, i) => written[i]?.status === "fulfilled"));
    throw failed.reason;
  }

  const target = verifyRequestUrl(ctx, provider.id);
  // The link knows the browser that asked for it: opened there it signs in, anywhere else it asks first.
  let url = target;
  if (withLink) {
    const binding = bindLink(req, ctx, secret, identifier, token);
    const params = new URLSearchParams({ callbackUrl, token, email: identifier, binding });
    url = `${ctx.authUrl}/callback/${encodeURIComponent(provider.id)}?${params}`;
  }
  try {
    await provider.sendVerificationRequest({
      identifier,
      url,
      expires,
      provider,
      token,
      code,
      theme: ctx.config.theme,
      request: req.toRequest(),
    });
  } catch (e) {
    await withdraw(records);
    throw new EmailSignInError("The sign-in e-mail could not be sent", { err: errorOf(e), provider: provider.id });
  }
  if (sendId) await setCodeCookie(req, ctx, provider, { identifier, sendId });
  return { redirect: target, cookies: ctx.cookies };
}

/**
 * `GET /callback/<email provider>?token=&email=&callbackUrl=&binding=` opened in the browser that
 * asked for the link (its `binding` fits this browser's binding cookie), or `POST` of the same
 * fields with the CSRF token (the confirmation page's button): consumes the token (once, through
 * the adapter's atomic `useVerificationToken`), asks the `signIn` callback, finds or creates the
 * user with `emailVerified` set, starts the session and redirects to the callback URL (or to
 * `pages.newUser` for a new user). A missing, unknown, used or expired token, or a token used with
 * another address, is `Verification` (`/error?error=Verification`). When the provider mails codes,
 * the link also dies with its e-mail's code (spent attempts, or the code signed in first).
 *
 * A GET anywhere else (another device, a mail scanner, a page that sent the browser there: login
 * CSRF) spends nothing and signs no one in: it answers the confirmation page, which names the
 * address and finishes with a CSRF-checked POST.
 *
 * `POST /callback/<email provider>` with a `code` field is the code form (`submitEmailCode`).
 */
export async function emailCallback(
  req: RequestInternal,
  ctx: Context,
  provider: InternalProvider,
): Promise<ResponseInternal> {
  if (provider.type !== "email") throw new Verification(`Provider "${provider.id}" is not an e-mail provider`);
  if (req.method === "POST" && req.body?.code !== undefined) return submitEmailCode(req, ctx, provider);
  const adapter = adapterOf(ctx);
  const token = req.method === "POST" ? req.body?.token : req.query.token;
  const email = req.method === "POST" ? req.body?.email : req.query.email;
  if (typeof token !== "string" || token === "" || typeof email !== "string" || email === "") {
    throw new Verification("The sign-in link has no token or no e-mail address");
  }
  let identifier: string;
  try {
    identifier = normalize(provider, email);
  } catch (e) {
    throw new Verification("The sign-in link's e-mail address was refused", { err: errorOf(e) });
  }
  noteSignInAttempt(ctx, { identifier });

  if (provider.link === false) throw new Verification("This provider mails codes only; a link was followed");
  if (req.method === "POST") {
    ctx.requireCsrf("A sign-in link's confirmation");
  } else if (!linkOpenedWhereAsked(req, ctx, tokenSecrets(ctx, provider), identifier, token, req.query.binding)) {
    // The callback URL goes through the redirect callback now, as the POST will take it again.
    const callbackUrl = await ctx.callbackUrl();
    return otherPages.confirmLink(ctx, {
      action: `${ctx.authUrl}/callback/${encodeURIComponent(provider.id)}`,
      email: identifier,
      token,
      callbackUrl,
    });
  }

  let record: Awaited<ReturnType<Required<Adapter>["useVerificationToken"]>> = null;
  let secret: string | undefined;
  for (const candidate of tokenSecrets(ctx, provider)) {
    const hashed = hashVerificationToken(verificationTokenKey(candidate), identifier, token);
    record = await adapter.useVerificationToken({ identifier, token: hashed });
    if (record) {
      secret = candidate;
      break;
    }
  }
  if (!record || !secret) throw new Verification("The sign-in link is unknown, already used or for another address");
  if (record.identifier !== identifier || new Date(record.expires).valueOf() <= Date.now()) {
    throw new Verification("The sign-in link has expired");
  }
  const codeOptions = emailCodeOptions(provider);
  if (codeOptions) {
    // The e-mail also carried a code: the link needs the last attempt record (gone once every
    // attempt was spent on wrong codes) and then the alive record (gone once the code signed in).
    const codeKey = emailCodeKey(secret);
    const sendId = emailSendId(codeKey, identifier, token);
    const last = attemptRecord(codeKey, identifier, sendId, codeOptions.attempts - 1);
    if (!(await adapter.useVerificationToken({ identifier, token: last }))) {
      throw new Verification("The sign-in link is void: its e-mail's code was guessed wrong too many times");
    }
    if (!(await adapter.useVerificationToken({ identifier, token: aliveRecord(codeKey, identifier, sendId) }))) {
      throw new Verification("The sign-in link is void: its e-mail's code already signed in");
    }
  }
  return completeEmailSignIn(req, ctx, provider, identifier);
}
