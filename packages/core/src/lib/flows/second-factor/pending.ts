/**
 * The pending sign-in of a user with a second factor: what a first factor completed, sealed in a
 * short-lived cookie until the code is given. `finish-sign-in.ts` holds a sign-in here
 * (`holdForSecondFactor`); `index.ts` reads it back when the code comes.
 */
import { randomUUID } from "#platform";
import type { AdapterUser } from "../../../shapes/adapters.js";
import type { Account, Profile, User } from "../../../shapes/data.js";
import { CookieTooLarge } from "../../base/errors.js";
import { fieldOf } from "../../base/merge.js";
import type { ResolvedConfig } from "../../config/types.js";
import { openToken, sealToken } from "../../crypto/jwe.js";
import { readChunkedCookie, writeChunkedCookie } from "../../http/cookies.js";
import type { RequestInternal } from "../../http/request.js";
import type { Context } from "../../serve/context.js";
import { secondFactorStore } from "./secret.js";

export type TotpProvider = Extract<NonNullable<Context["provider"]>, { type: "totp" }>;

/**
 * What a first factor completed, kept sealed in the pending cookie until the code is given. Only
 * what the session will need: under database sessions the ids (the user and the account, tokens
 * included, are read back from the adapter), so nothing token-sized is ever in it, and the
 * provider's profile when it fits; under JWT sessions also the user, the account and the profile
 * the `jwt` callback receives, within the cookie's bound.
 */
export interface PendingSignIn {
  /** The id of the cookie: the attempt counter of this pending sign-in is keyed on it. */
  jti: string;
  userId: string;
  /** JWT sessions only: the user as the first factor gave it (the `jwt` callback's `user`). */
  user?: User | AdapterUser;
  /** Under database sessions without its tokens (the adapter holds them). */
  account: Account | null;
  /**
   * The provider's profile (the `jwt` callback's and `events.signIn`'s `profile`). Under database
   * sessions only while the cookie stays within its bound (`second-factor-profile-omitted` else).
   */
  profile?: Profile;
  isNewUser: boolean;
  /** The first factor's methods (`["pwd"]`, `["oauth"]`, ...). */
  amr: string[];
  callbackUrl: string;
  /** The user's `lastStep` when the first factor succeeded: the compare-and-set's expected value. */
  step: number;
  /** The record's `generation` when the first factor succeeded: completes only while it is unchanged. */
  generation: number;
}

/**
 * The most the pending cookie may hold: one cookie, as the browser sends it back. It rides only
 * on requests to the code step (its `Path`), next to the session cookie (at most
 * `MAX_SESSION_COOKIE_BYTES`) and the flow cookies, all within Node's 16 KiB of request headers.
 */
const MAX_PENDING_COOKIE_BYTES = 4 * 1024;

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

/** The pending cookie: the session cookie's attributes, 5 minutes, sent only to the code step. */
export function pendingCookie(req: RequestInternal, ctx: Context, provider: TotpProvider) {
  const session = ctx.cookieOptions.sessionToken;
  const { expires: _expires, ...options } = session.options;
  return {
    name: `${options.secure ? "__Secure-" : ""}latchkey.second-factor`,
    options: { ...options, path: `${req.basePath}/callback/${provider.id}`, maxAge: provider.pendingMaxAge },
  };
}

/**
 * The longest callback URL the pending cookie carries. Anyone can send a user a link with a long
 * `callbackUrl` (it is kept in the callback-URL cookie): sealed as it is, it would push the
 * pending sign-in past its bound and fail every sign-in of that browser. A longer one lands on
 * the site's origin instead.
 */
const MAX_PENDING_CALLBACK_URL = 1024;

function landingOf(ctx: Context, callbackUrl: string): string {
  return callbackUrl.length <= MAX_PENDING_CALLBACK_URL ? callbackUrl : ctx.origin;
}

/** The account without what a provider answered (tokens): enough to name it and read it back. */
function accountName(account: Account | null): Account | null {
  if (!account) return null;
  const { provider, providerAccountId, type, userId } = account;
  return userId === undefined ? { provider, providerAccountId, type } : { provider, providerAccountId, type, userId };
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
  const cookie = pendingCookie(req, ctx, provider);
  const database = ctx.config.session.strategy === "database";
  const pending: PendingSignIn = {
    jti: randomUUID(),
    userId,
    account: database ? accountName(params.account) : params.account,
    isNewUser: params.isNewUser,
    amr: params.amr,
    callbackUrl: landingOf(ctx, await ctx.callbackUrl()),
    step: record.lastStep,
    generation: record.generation ?? 0,
  };
  if (!database) pending.user = params.user;
  // The profile for `events.signIn` at the code step, as a sign-in without a second factor has it.
  if (params.profile) pending.profile = params.profile;
  const write = async () =>
    writeChunkedCookie(
      req.cookies,
      cookie.name,
      await sealToken({ pending }, ctx.config.secrets, cookie.name, provider.pendingMaxAge),
      cookie.options,
      {
        maxBytes: MAX_PENDING_COOKIE_BYTES,
        tooLarge: (size, max) =>
          new CookieTooLarge(
            `The second factor's pending sign-in would be a ${size}-byte cookie, over its bound of ${max}: it was not written and the sign-in stops here. Under JWT sessions it carries what the \`jwt\` callback receives (the provider's tokens and profile, the callback URL); use database sessions (it then holds only ids), or ask the provider for fewer or smaller tokens.`,
          ),
      },
    );
  try {
    let cookies: Awaited<ReturnType<typeof write>>;
    try {
      cookies = await write();
    } catch (e) {
      // Under database sessions the ids always fit: a profile too large for the bound is left out.
      if (!(e instanceof CookieTooLarge && database && pending.profile)) throw e;
      delete pending.profile;
      ctx.config.logger.warn("second-factor-profile-omitted");
      cookies = await write();
    }
    ctx.cookies.push(...cookies);
  } catch (e) {
    if (e instanceof CookieTooLarge) ctx.config.logger.error(e);
    throw e;
  }
  return `${ctx.authUrl}/callback/${provider.id}`;
}

/**
 * Ends every pending sign-in of `userId` begun before this call: the sessions' revocations call it
 * before they end the sessions, so that a first factor accepted earlier (an attacker who had the
 * password and waits at the code step) can no longer complete. It moves the record's `generation`
 * on; a pending cookie completes only if, after its code won the compare-and-set of `lastStep`,
 * the generation is still the one it sealed. `lastStep` is left alone, so however often this runs
 * (anyone holding one of the user's sessions can call `revokeOtherSessions`) no valid code is
 * held back. An adapter without `endSecondFactorSignIns` gets the older way: `lastStep` moved on
 * by one, which spends the sealed cookies but refuses the code of that step as if used.
 */
export async function endPendingSignIns(config: ResolvedConfig, userId: string): Promise<void> {
  if (!config.providers.some((p) => p.type === "totp")) return;
  const store = secondFactorStore(config);
  if (config.adapter?.endSecondFactorSignIns) return void (await config.adapter.endSecondFactorSignIns(userId));
  const record = await store.getSecondFactor(userId);
  if (record?.active) await store.useSecondFactorStep(userId, record.lastStep, record.lastStep + 1);
}

export async function readPending(
  req: RequestInternal,
  ctx: Context,
  provider: TotpProvider,
): Promise<PendingSignIn | null> {
  const cookie = pendingCookie(req, ctx, provider);
  const raw = readChunkedCookie(req.cookies, cookie.name);
  if (!raw) return null;
  const claims = await openToken(raw, ctx.config.secrets, cookie.name);
  const pending = claims?.pending;
  return isPending(pending) ? pending : null;
}

/** True for a pending sign-in as the cookie carries it (sealed by this server: its fields are ours). */
function isPending(value: unknown): value is PendingSignIn {
  return (
    !!value &&
    typeof fieldOf(value, "userId") === "string" &&
    typeof fieldOf(value, "step") === "number" &&
    typeof fieldOf(value, "generation") === "number"
  );
}
