import { randomUUID } from "#platform";
import type { AdapterSession, AdapterUser } from "../../shapes/adapters.js";
import type { Account, Awaitable, Profile, ResponseInternal, User } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import { refuseBanned } from "../admin/config.js";
import { recordSignInSuccess } from "../audit/sign-in.js";
import { isThenable } from "../base/awaitable.js";
import { errorOf } from "../base/error-of.js";
import { AccessDenied, AuthError } from "../base/errors.js";
import { clearChunkedCookie } from "../http/cookies.js";
import type { RequestInternal } from "../http/request.js";
import { withQuery } from "../http/url.js";
import { providerTokensOf } from "../refresh/tokens.js";
import type { Context } from "../serve/context.js";
import { describeUserAgent } from "../session/device.js";
import { keepSessionIdentity, sessionTokenCookiesNow } from "../session/jwt-strategy.js";
import { databaseSessionId } from "../session/session-id.js";
import { holdForSecondFactor, methodOf, totpProviderOf } from "./second-factor/pending.js";

/**
 * Asks the `signIn` callback. Returns nothing to continue, or the URL it redirected to (already
 * passed through the `redirect` callback). `false` and unexpected throws become `AccessDenied`.
 * At once when the callbacks answer at once (the default ones do); a promise otherwise.
 */
export function askSignIn(
  ctx: Context,
  params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    credentials?: Record<string, unknown>;
    email?: { verificationRequest?: boolean };
  },
): Awaitable<string | undefined> {
  let verdict: Awaitable<boolean | string>;
  try {
    verdict = ctx.config.callbacks.signIn(params);
  } catch (e) {
    throw refusal(e);
  }
  if (isThenable(verdict)) {
    return Promise.resolve(verdict).then(
      (answer) => afterVerdict(ctx, answer),
      (e: unknown) => {
        throw refusal(e);
      },
    );
  }
  return afterVerdict(ctx, verdict);
}

/** What a throwing `signIn` callback means: its own `AuthError`, else `AccessDenied`. */
function refusal(e: unknown): AuthError {
  return e instanceof AuthError ? e : new AccessDenied(errorOf(e));
}

function afterVerdict(ctx: Context, verdict: boolean | string): Awaitable<string | undefined> {
  if (!verdict) throw new AccessDenied("The signIn callback refused the user");
  if (typeof verdict !== "string") return undefined;
  return ctx.config.callbacks.redirect({ url: verdict, baseUrl: ctx.origin });
}

/**
 * Starts the session of a signed-in user: a JWT cookie (after the `jwt` callback with trigger
 * `signIn`, or `signUp` for a new user) or a database session. Emits the `signIn` event.
 *
 * With a TOTP provider configured, the session records its methods (`amr`: the first factor's,
 * or `params.amr` from the second-factor check), and a user with an active second factor gets no
 * session here: the sign-in is held in the pending cookie, the code page noted on the context
 * (`ctx.heldForSecondFactor`), and `landing` sends them there. False only when
 * `params.revokedSince` ended the new session (or held sign-in) before its cookie was written.
 */
export async function startSession(
  req: RequestInternal,
  ctx: Context,
  params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    isNewUser?: boolean;
    /** Set by the second-factor check only: the methods of a completed two-factor sign-in. */
    amr?: string[];
    /**
     * Asked once the session exists (stored, or its token made) or the sign-in is held for a
     * second factor, and before its cookie is written; true ends it there. The second-factor
     * check asks whether the pending sign-in was ended (`secondFactorCallback`), a credentials
     * sign-in whether its password is still the user's (`sign-in-guard.ts`).
     */
    revokedSince?: () => Promise<boolean>;
  },
): Promise<boolean> {
  const { config } = ctx;
  const { user, account, profile, isNewUser = false } = params;
  // A banned user gets no session, whichever way they signed in: asked before anything is made,
  // and again once the session exists and before its cookie is written (a ban stored meanwhile
  // is seen there; one stored after it ends the session it finds). Only with `admin` configured.
  const refuseIfBanned = config.source.admin ? () => refuseBanned(config.source, user.id?.toString()) : undefined;
  await refuseIfBanned?.();
  const totp = totpProviderOf(ctx);
  let amr: string[] | undefined;
  if (totp) {
    amr = params.amr ?? [methodOf(account)];
    if (!params.amr) {
      const before = ctx.cookies.length;
      const codePage = await holdForSecondFactor(req, ctx, totp, { user, account, profile, isNewUser, amr });
      // The pending sign-in carries the generation it read: a revocation not yet seen will end
      // it, one already seen ends it here (its pending cookie is not written).
      if (codePage && (await params.revokedSince?.())) {
        ctx.cookies.length = before;
        return false;
      }
      if (codePage) {
        ctx.heldForSecondFactor = codePage;
        return true;
      }
    }
  }
  const cookie = ctx.cookieOptions.sessionToken;
  // Names the session in the audit trail: the JWT's `sid`, or the database session's keyed-hash id.
  let sessionId: string | undefined;
  if (config.session.strategy === "jwt") {
    // The session's id and start survive every re-issue (jwt-strategy.ts carries them), so a
    // revocation (by id, or of a user's sessions begun before a time) reaches every later token.
    // Begun after every revocation of the user this instance knows of (a revocation's `before`
    // runs ahead of its instance's clock by the allowed skew: revocation-list.ts).
    const list = config.revocation?.list;
    if (list?.state === "idle") await list.start();
    const userId = user.id?.toString();
    const identity = {
      sid: randomUUID(),
      auth_time: list ? list.signInTime(userId, Date.now()) : Date.now() / 1000,
    };
    sessionId = identity.sid;
    const initial: JWT = {
      name: user.name,
      email: user.email,
      picture: user.image,
      sub: userId,
      ...identity,
    };
    // Only with a second factor configured: without one, tokens stay exactly Auth.js's.
    if (amr) initial.amr = amr;
    // `accessTokens.jwt`: the provider's tokens ride in the sealed token for getAccessToken; the
    // `jwt` callback sees them and may drop them.
    const providerTokens = config.accessTokens.jwt ? providerTokensOf(account) : undefined;
    if (providerTokens && account) initial.providerTokens = { [account.provider]: providerTokens };
    const answered = config.callbacks.jwt({
      token: initial,
      user,
      account,
      profile,
      isNewUser,
      trigger: isNewUser ? "signUp" : "signIn",
    });
    const token = isThenable(answered) ? await answered : answered;
    if (token === null) {
      // The application declined to keep a token: no session, and any old one is removed.
      ctx.cookies.push(...clearChunkedCookie(req.cookies, cookie.name, cookie.options));
      sessionId = undefined;
    } else {
      // The session's id, start and factors are Latchkey's facts: the callback cannot drop or change them.
      const kept = keepSessionIdentity(token, { sid: identity.sid, authTime: identity.auth_time, amr });
      const sealed = sessionTokenCookiesNow(config, req.cookies, cookie, kept);
      const cookies = isThenable(sealed) ? await sealed : sealed;
      // Its `auth_time` is fixed now: a revocation not yet seen began after it, and refuses it.
      if (params.revokedSince && (await params.revokedSince())) return false;
      await refuseIfBanned?.();
      ctx.cookies.push(...cookies);
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
    if (amr) record.amr = amr;
    const created = await adapter.createSession!(record);
    // Stored now: a revocation not yet seen will delete it, one already seen ends it here.
    if (params.revokedSince && (await params.revokedSince())) {
      await adapter.deleteSession!(created.sessionToken);
      return false;
    }
    try {
      await refuseIfBanned?.();
    } catch (e) {
      await adapter.deleteSession!(created.sessionToken);
      throw e;
    }
    // The new session stands even when this fails: the excess is ended at the next sign-in.
    if (adapter.listSessions) {
      await endSessionsPastLimit(ctx, record.userId, created.sessionToken).catch((e: Error) =>
        config.logger.warn("session-limit-failed", `The user's oldest sessions could not be ended: ${e.message}`),
      );
    }
    ctx.cookies.push({
      name: cookie.name,
      value: created.sessionToken,
      options: { ...cookie.options, expires: created.expires },
    });
    // An HMAC per sign-in, paid only when an audit trail records it.
    if (config.audit) sessionId = databaseSessionId(config, created.sessionToken);
  }
  // Both at once; awaited only when one of them is under way (an event handler, an audit trail).
  const event = config.events.signIn?.({ user, account, profile, isNewUser });
  const recorded = config.audit
    ? recordSignInSuccess(req, ctx, { userId: user.id?.toString(), provider: account?.provider, sessionId })
    : undefined;
  if (isThenable(event) || recorded) await Promise.all([event, recorded]);
  return true;
}

/**
 * Where a completed sign-in lands: `pages.newUser` (with the callback URL as `callbackUrl`) the
 * first time a user signs in, the callback URL otherwise.
 */
export function landing(ctx: Context, callbackUrl: string, isNewUser: boolean): ResponseInternal {
  const codePage = ctx.heldForSecondFactor;
  if (codePage) return { redirect: codePage, cookies: ctx.cookies };
  const newUserPage = ctx.config.pages.newUser;
  if (!isNewUser || !newUserPage) return { redirect: callbackUrl, cookies: ctx.cookies };
  // As given (a path stays relative, as Auth.js sends it): the application chose this page.
  return {
    redirect: withQuery(newUserPage, new URLSearchParams({ callbackUrl })),
    cookies: ctx.cookies,
  };
}

/**
 * Ends the oldest sessions of `userId` past `session.maxPerUser`, only ones begun before `keep`
 * (the one just made): a user signing in over and over cannot grow the sessions store, and every ended session
 * reaches the audit trail as a `signOut` with `reason: "session-limit"`. Only the sign-in that
 * removed a session reports it, so concurrent sign-ins never report one twice. A sign-in pays one
 * `listSessions` of at most the limit (plus racing sign-ins); session reads pay nothing.
 */
async function endSessionsPastLimit(ctx: Context, userId: string, keep: string): Promise<void> {
  const { config } = ctx;
  const adapter = config.adapter!;
  const sessions = await adapter.listSessions!(userId);
  const excess = sessions.length - config.session.maxPerUser;
  if (excess <= 0) return;
  // Oldest first; sessions begun in the same millisecond in token order, so that two sign-ins
  // agree on which of them is the older.
  const startedAt = (s: AdapterSession) => (s.createdAt ?? s.expires).valueOf();
  const byAge = (a: AdapterSession, b: AdapterSession) =>
    startedAt(a) - startedAt(b) || (a.sessionToken < b.sessionToken ? -1 : a.sessionToken > b.sessionToken ? 1 : 0);
  const own = sessions.find((s) => s.sessionToken === keep);
  // Only sessions begun before this one: a sign-in racing this one (which sees this session, and
  // this one sees it) would otherwise end it while it ends this one, leaving the user none. Not
  // listed (already ended by a racing sign-in): nothing to end.
  if (!own) return;
  const oldest = sessions
    .filter((s) => s.sessionToken !== keep && byAge(s, own) < 0)
    .sort(byAge)
    .slice(0, excess);
  for (const session of oldest) {
    const removed = await adapter.deleteSession!(session.sessionToken);
    if (removed) await config.events.signOut?.({ session: removed, reason: "session-limit" });
  }
}
