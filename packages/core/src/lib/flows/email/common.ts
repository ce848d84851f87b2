/**
 * What the e-mail flows share: the link flow (index.ts) and the code flow (code-flow.ts) both
 * normalise addresses, key tokens with the same secrets and end the same way. Kept apart so the
 * two flows do not import each other.
 */
import { randomUUID } from "#platform";
import type { AdapterUser } from "../../../shapes/adapters.js";
import type { Account, ResponseInternal } from "../../../shapes/data.js";
import { type AdapterWith, adapterFor } from "../../base/adapter-for.js";
import type { InternalProvider } from "../../config/types.js";
import type { Secrets } from "../../crypto/jwe.js";
import { assertSingleMailbox, normalizeEmailIdentifier } from "../../email/identifier.js";
import type { RequestInternal } from "../../http/request.js";
import { withQuery } from "../../http/url.js";
import type { Context } from "../../serve/context.js";
import { askSignIn, landing, startSession } from "../finish-sign-in.js";
import { loginWithEmail } from "../identity.js";

export type EmailProvider = Extract<InternalProvider, { type: "email" }>;

/** The provider's normaliser (or the strict default), checked to still name one mailbox. */
export function normalize(provider: EmailProvider, value: unknown): string {
  if (typeof value !== "string") throw new TypeError("No e-mail address was submitted");
  if (provider.normalizeIdentifier) return assertSingleMailbox(provider.normalizeIdentifier(value));
  return normalizeEmailIdentifier(value);
}

/** The secrets that key tokens and codes: the provider's `secret`, else the configuration's (newest first). */
export function tokenSecrets(ctx: Context, provider: EmailProvider): Secrets {
  return provider.secret ? [provider.secret] : ctx.config.secrets;
}

/** The adapter with what an e-mail sign-in asks of it (checked when the configuration resolved). */
export function adapterOf(
  ctx: Context,
): AdapterWith<"createVerificationToken" | "useVerificationToken" | "getUserByEmail"> {
  return adapterFor(ctx.config, "createVerificationToken", "useVerificationToken", "getUserByEmail");
}

/** The verify-request page of `providerId` (the application's, or the built-in one), with `extra` query. */
export function verifyRequestUrl(ctx: Context, providerId: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ provider: providerId, type: "email", ...extra });
  const custom = ctx.config.pages.verifyRequest;
  return custom ? withQuery(custom, query) : `${ctx.authUrl}/verify-request?${query}`;
}

/**
 * The end of an e-mail sign-in, once the address is proven (by the link or by the code): asks the
 * `signIn` callback, finds or creates the user (`loginWithEmail`), starts the session and lands.
 */
export async function completeEmailSignIn(
  req: RequestInternal,
  ctx: Context,
  provider: EmailProvider,
  identifier: string,
): Promise<ResponseInternal> {
  const adapter = adapterOf(ctx);
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
