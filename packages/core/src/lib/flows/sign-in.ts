import type { AdapterSession, AdapterUser } from "../../adapters.js";
import { AccessDenied, AuthError } from "../../errors.js";
import type { JWT } from "../../jwt.js";
import type { Account, Profile, ResponseInternal, User } from "../../types.js";
import type { Context } from "../context.js";
import { clearChunkedCookie } from "../cookies.js";
import type { RequestInternal } from "../request.js";
import { describeUserAgent } from "../session/device.js";
import { sessionTokenCookies } from "../session/jwt-strategy.js";
import { withQuery } from "../url.js";

/**
 * Asks the `signIn` callback. Returns nothing to continue, or the URL it redirected to (already
 * passed through the `redirect` callback). `false` and unexpected throws become `AccessDenied`.
 */
export async function askSignIn(
  ctx: Context,
  params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    credentials?: Record<string, unknown>;
    email?: { verificationRequest?: boolean };
  },
): Promise<string | undefined> {
  let verdict: boolean | string;
  try {
    verdict = await ctx.config.callbacks.signIn(params);
  } catch (e) {
    if (e instanceof AuthError) throw e;
    throw new AccessDenied(e as Error);
  }
  if (!verdict) throw new AccessDenied("The signIn callback refused the user");
  if (typeof verdict !== "string") return undefined;
  return await ctx.config.callbacks.redirect({ url: verdict, baseUrl: ctx.origin });
}

/**
 * Starts the session of a signed-in user: a JWT cookie (after the `jwt` callback with trigger
 * `signIn`, or `signUp` for a new user) or a database session. Emits the `signIn` event.
 */
export async function startSession(
  req: RequestInternal,
  ctx: Context,
  params: { user: User | AdapterUser; account: Account | null; profile?: Profile; isNewUser?: boolean },
): Promise<void> {
  const { config } = ctx;
  const { user, account, profile, isNewUser = false } = params;
  const cookie = ctx.cookieOptions.sessionToken;
  if (config.session.strategy === "jwt") {
    const initial: JWT = { name: user.name, email: user.email, picture: user.image, sub: user.id?.toString() };
    const token = await config.callbacks.jwt({
      token: initial,
      user,
      account,
      profile,
      isNewUser,
      trigger: isNewUser ? "signUp" : "signIn",
    });
    if (token === null) {
      // The application declined to keep a token: no session, and any old one is removed.
      ctx.cookies.push(...clearChunkedCookie(req.cookies, cookie.name, cookie.options));
    } else {
      ctx.cookies.push(...(await sessionTokenCookies(config, req.cookies, cookie, token)));
    }
  } else {
    const adapter = config.adapter!;
    const sessionToken = config.session.generateSessionToken();
    const expires = new Date(Date.now() + config.session.maxAge * 1000);
    const record: AdapterSession = { sessionToken, userId: (user as AdapterUser).id, expires };
    // Only an adapter that lists sessions stores their metadata (an Auth.js adapter's schema has
    // no column for it, and some reject unknown fields).
    if (adapter.listSessions) {
      const now = new Date();
      record.createdAt = now;
      record.lastSeenAt = now;
      record.device = describeUserAgent(req.headers.get("user-agent"));
      // An address is at most 45 characters (IPv6 with IPv4); anything longer is not one.
      const address = req.clientIp;
      if (config.session.recordClientAddress && address && address.length <= 64) record.clientAddress = address;
    }
    const created = await adapter.createSession!(record);
    ctx.cookies.push({
      name: cookie.name,
      value: created.sessionToken,
      options: { ...cookie.options, expires: created.expires },
    });
  }
  await config.events.signIn?.({ user, account, profile, isNewUser });
}

/**
 * Where a completed sign-in lands: `pages.newUser` (with the callback URL as `callbackUrl`) the
 * first time a user signs in, the callback URL otherwise.
 */
export function landing(ctx: Context, callbackUrl: string, isNewUser: boolean): ResponseInternal {
  const newUserPage = ctx.config.pages.newUser;
  if (!isNewUser || !newUserPage) return { redirect: callbackUrl, cookies: ctx.cookies };
  // As given (a path stays relative, as Auth.js sends it): the application chose this page.
  return {
    redirect: withQuery(newUserPage, new URLSearchParams({ callbackUrl })),
    cookies: ctx.cookies,
  };
}
