import { randomUUID } from "node:crypto";
import type { Adapter, AdapterUser } from "../../adapters.js";
import { AuthError, EmailSignInError, Verification } from "../../errors.js";
import type { EmailConfig } from "../../providers/email.js";
import type { Account, ResponseInternal } from "../../types.js";
import type { InternalProvider } from "../config.js";
import type { Context } from "../context.js";
import { assertSingleMailbox, normalizeEmailIdentifier } from "../email/identifier.js";
import { hashVerificationToken, randomVerificationToken, verificationTokenKey } from "../email/token.js";
import { reserveEmailSend } from "../rate-limiter.js";
import type { RequestInternal } from "../request.js";
import { loginWithEmail } from "./handle-login.js";
import { askSignIn, landing, startSession } from "./sign-in.js";

type EmailProvider = Extract<InternalProvider, { type: "email" }>;

/** The provider's normaliser (or the strict default), checked to still name one mailbox. */
function normalize(provider: EmailProvider, value: unknown): string {
  if (typeof value !== "string") throw new TypeError("No e-mail address was submitted");
  if (provider.normalizeIdentifier) return assertSingleMailbox(provider.normalizeIdentifier(value));
  return normalizeEmailIdentifier(value);
}

/** The keys that hash tokens: the provider's `secret`, else one per configured secret (newest first). */
function tokenKeys(ctx: Context, provider: EmailProvider): Buffer[] {
  const secrets = provider.secret ? [provider.secret] : ctx.config.secrets;
  return secrets.map(verificationTokenKey);
}

function adapterOf(ctx: Context): Required<Adapter> {
  return ctx.config.adapter as Required<Adapter>;
}

/**
 * `POST /signin/<email provider>` (CSRF already verified): normalises the address, counts the
 * send against the rate limits (on the normalised address, so spellings of one mailbox share a
 * counter), asks the
 * `signIn` callback (`email.verificationRequest: true`), stores the keyed hash of a fresh token
 * with its expiry, mails the link and redirects to the verify-request page.
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
    throw new EmailSignInError("The e-mail address was refused", { err: e as Error, provider: provider.id });
  }
  await reserveEmailSend(req, ctx, provider.id, identifier);

  const existing = await adapter.getUserByEmail(identifier);
  // As in the callback: a holder of the address who never proved it is not who will sign in.
  const user: AdapterUser = existing?.emailVerified
    ? existing
    : { id: identifier, email: identifier, emailVerified: null };
  const account: Account = { provider: provider.id, providerAccountId: identifier, type: "email", userId: user.id };
  const redirect = await askSignIn(ctx, { user, account, email: { verificationRequest: true } });
  if (redirect) return { redirect, cookies: ctx.cookies };

  const callbackUrl = await ctx.callbackUrl();
  let token: string;
  try {
    token = provider.generateVerificationToken ? await provider.generateVerificationToken() : randomVerificationToken();
  } catch (e) {
    throw new EmailSignInError("generateVerificationToken() threw", { err: e as Error, provider: provider.id });
  }
  if (typeof token !== "string" || token === "") {
    throw new EmailSignInError("generateVerificationToken() returned no token", { provider: provider.id });
  }
  const [key] = tokenKeys(ctx, provider) as [Buffer];
  const hashed = hashVerificationToken(key, identifier, token);
  const expires = new Date(Date.now() + provider.maxAge * 1000);
  await adapter.createVerificationToken({ identifier, token: hashed, expires });

  const params = new URLSearchParams({ callbackUrl, token, email: identifier });
  const url = `${ctx.authUrl}/callback/${encodeURIComponent(provider.id)}?${params}`;
  try {
    await provider.sendVerificationRequest({
      identifier,
      url,
      expires,
      provider: provider as EmailConfig,
      token,
      theme: ctx.config.theme,
      request: req.toRequest(),
    });
  } catch (e) {
    try {
      await adapter.useVerificationToken({ identifier, token: hashed });
    } catch (cleanup) {
      ctx.config.logger.error(
        cleanup instanceof AuthError
          ? cleanup
          : new AuthError("The unsent verification token could not be removed", { err: cleanup as Error }),
      );
    }
    throw new EmailSignInError("The sign-in e-mail could not be sent", { err: e as Error, provider: provider.id });
  }

  const query = new URLSearchParams({ provider: provider.id, type: "email" });
  const custom = ctx.config.pages.verifyRequest;
  const target = custom
    ? `${custom}${custom.includes("?") ? "&" : "?"}${query}`
    : `${ctx.authUrl}/verify-request?${query}`;
  return { redirect: target, cookies: ctx.cookies };
}

/**
 * `GET /callback/<email provider>?token=&email=&callbackUrl=`: consumes the token (once, through
 * the adapter's atomic `useVerificationToken`), asks the `signIn` callback, finds or creates the
 * user with `emailVerified` set, starts the session and redirects to the callback URL (or to
 * `pages.newUser` for a new user). A missing, unknown, used or expired token, or a token used with
 * another address, is `Verification` (`/error?error=Verification`).
 */
export async function emailCallback(
  req: RequestInternal,
  ctx: Context,
  provider: InternalProvider,
): Promise<ResponseInternal> {
  if (provider.type !== "email") throw new Verification(`Provider "${provider.id}" is not an e-mail provider`);
  const adapter = adapterOf(ctx);
  const token = req.query.token ?? req.body?.token;
  const email = req.query.email ?? req.body?.email;
  if (typeof token !== "string" || token === "" || typeof email !== "string" || email === "") {
    throw new Verification("The sign-in link has no token or no e-mail address");
  }
  let identifier: string;
  try {
    identifier = normalize(provider, email);
  } catch (e) {
    throw new Verification("The sign-in link's e-mail address was refused", { err: e as Error });
  }

  let record: Awaited<ReturnType<Required<Adapter>["useVerificationToken"]>> = null;
  for (const key of tokenKeys(ctx, provider)) {
    record = await adapter.useVerificationToken({ identifier, token: hashVerificationToken(key, identifier, token) });
    if (record) break;
  }
  if (!record) throw new Verification("The sign-in link is unknown, already used or for another address");
  if (record.identifier !== identifier || new Date(record.expires).valueOf() <= Date.now()) {
    throw new Verification("The sign-in link has expired");
  }

  const existing = await adapter.getUserByEmail(identifier);
  // A holder of the address who never proved it is not who signs in (loginWithEmail releases it).
  const candidate: AdapterUser = existing?.emailVerified
    ? existing
    : { id: randomUUID(), email: identifier, emailVerified: null };
  const account: Account = {
    provider: provider.id,
    providerAccountId: identifier,
    type: "email",
    userId: candidate.id,
  };
  const redirect = await askSignIn(ctx, { user: candidate, account });
  if (redirect) return { redirect, cookies: ctx.cookies };

  const { user, isNewUser } = await loginWithEmail(ctx, provider.id, identifier);
  const callbackUrl = await ctx.callbackUrl();
  await startSession(req, ctx, { user, account: { ...account, userId: user.id }, isNewUser });
  return landing(ctx, callbackUrl, isNewUser);
}
