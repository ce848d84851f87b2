import { randomUUID } from "node:crypto";
import { AuthError, CallbackRouteError, CredentialsSignin, MissingCSRF } from "../../errors.js";
import type { Account, ResponseInternal, User } from "../../types.js";
import type { Context } from "../context.js";
import { credentialsIdentifier, guardAttempt } from "../rate-limiter.js";
import { lazyRequest, type RequestInternal } from "../request.js";
import { askSignIn, startSession } from "./sign-in.js";

/**
 * `POST /callback/<credentials provider>`: CSRF check, `authorize`, `signIn` callback, JWT
 * session, redirect to the callback URL. A refusal is always `CredentialsSignin` with the
 * provider's `code`: nothing tells which field was wrong. Unexpected errors are logged in full
 * and shown as `Configuration`.
 */
export async function credentialsCallback(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const provider = ctx.provider;
  if (provider?.type !== "credentials") throw new CallbackRouteError("Not a credentials provider");
  if (req.method !== "POST") return { redirect: `${ctx.authUrl}/signin`, cookies: ctx.cookies };
  if (!ctx.csrf().verified) throw new MissingCSRF("The credentials form was posted without a valid CSRF token");

  const credentials = { ...req.body } as Record<string, unknown>;
  const attempt = await guardAttempt(
    req,
    ctx,
    "credentials",
    provider.id,
    credentialsIdentifier(req.body, Object.keys(provider.credentials)),
  );
  let user: User | null;
  try {
    user = await provider.authorize(
      credentials,
      lazyRequest(() => req.toRequest()),
    );
  } catch (e) {
    if (e instanceof CredentialsSignin) await attempt.failed();
    if (e instanceof AuthError) throw e;
    throw new CallbackRouteError("The credentials provider's authorize() threw", {
      err: e as Error,
      provider: provider.id,
    });
  }
  if (!user) {
    await attempt.failed();
    throw new CredentialsSignin("authorize() returned no user");
  }
  const signedIn: User = { ...user, id: user.id?.toString() ?? randomUUID() };
  const account: Account = { providerAccountId: signedIn.id as string, type: "credentials", provider: provider.id };

  const redirect = await askSignIn(ctx, { user: signedIn, account, credentials });
  if (redirect) return { redirect, cookies: ctx.cookies };
  const callbackUrl = await ctx.callbackUrl();
  await startSession(req, ctx, { user: signedIn, account });
  return { redirect: callbackUrl, cookies: ctx.cookies };
}
