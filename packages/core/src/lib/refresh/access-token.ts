// The code of @latchkey/core's public module src/access-token.ts (which documents it and re-exports it).

import type { Cookie, CookieOption } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import { hasMethods } from "../base/adapter-for.js";
import { errorOf } from "../base/error-of.js";
import {
  AccessTokenError,
  IdTokenRefused,
  InvalidProvider,
  MissingAdapterMethods,
  RefreshTokenRevoked,
  ResponseAlreadySent,
} from "../base/errors.js";
import { warnOnce } from "../base/logger.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import type { RefreshOutcome, ResolvedConfig } from "../config/types.js";
import type { IdTokenSubject } from "../flows/oauth/code-exchange.js";
import type { OAuthProvider } from "../flows/oauth/discovery.js";
import { refreshGrant } from "../flows/oauth/refresh.js";
import { serializeCookie } from "../http/cookies.js";
import { type SessionRequest, sessionRequestOf } from "../serve/pipeline.js";
import { mayExtend, nowSeconds, sessionTokenCookies } from "../session/jwt-strategy.js";
import { liveSessionOf, readSession } from "../session/read.js";
import type { LiveSession } from "../session/read-shapes.js";
import { readingOf } from "../session/request-read.js";
import { refreshTokenHint } from "./hints.js";
import { singleFlight } from "./single-flight.js";
import { identityOf, idTokenSubjectOf, type ProviderTokens, tokenFields } from "./tokens.js";

/** Options of {@link getAccessToken}. */
export interface GetAccessTokenOptions {
  /** The provider id, such as `"google"`. */
  provider: string;
  /** Overrides `accessTokens.skewSeconds` for this call. */
  skewSeconds?: number;
  /**
   * Refresh even though the token looks valid (the provider's API just answered 401). Still one
   * refresh for all concurrent callers.
   * @default false
   */
  forceRefresh?: boolean;
  /** Database sessions: which account when the user linked several of this provider. */
  providerAccountId?: string;
  /**
   * False when the response can no longer carry a cookie (its headers were sent). A JWT session
   * keeps the rotated refresh token only in the re-issued cookie, so it then refuses to refresh
   * and throws `ResponseAlreadySent` instead of losing the new refresh token.
   * @default true
   */
  canSetCookies?: boolean;
  /** Fill unset options from this environment (`AUTH_SECRET`, `AUTH_URL`, ...), as framework shells do. */
  env?: Env;
}

/** What {@link getAccessToken} gives. */
export interface AccessToken {
  accessToken: string;
  tokenType?: string;
  /** Absolute, in seconds; undefined when the provider did not say. */
  expiresAt?: number;
  scope?: string;
  /** True when this call (or one it joined) refreshed the token. */
  refreshed: boolean;
  /** Cookies to set on the response: the re-issued session cookie of a JWT session; may be empty. */
  cookies: Cookie[];
  /** The same cookies as `Set-Cookie` header values (`headers.append("Set-Cookie", value)` each). */
  setCookie: string[];
}

/** The parts of a request {@link getAccessToken} reads: a Web `Request`, or where it arrived and its cookies. */
export type AccessTokenRequest = Request | SessionRequest;

function headerValues(cookies: Cookie[]): string[] {
  return cookies.map((c) => serializeCookie(c.name, c.value, c.options));
}

/** Valid for at least `skew` more seconds; a token without a known expiry counts as valid. */
function isFresh(tokens: { access_token?: unknown; expires_at?: unknown }, skew: number): boolean {
  if (typeof tokens.access_token !== "string" || tokens.access_token === "") return false;
  const expiresAt = Number(tokens.expires_at);
  if (tokens.expires_at === undefined || tokens.expires_at === null || !Number.isFinite(expiresAt)) return true;
  return expiresAt - skew > nowSeconds();
}

function revoked(providerId: string, reason: string, message: string, cookies: Cookie[] = []): RefreshTokenRevoked {
  const error = new RefreshTokenRevoked(message, { provider: providerId, reason });
  error.cookies = cookies;
  error.setCookie = headerValues(cookies);
  return error;
}

function answer(tokens: Partial<ProviderTokens>, refreshed: boolean, cookies: Cookie[]): AccessToken {
  return {
    accessToken: tokens.access_token as string,
    tokenType: tokens.token_type,
    expiresAt: tokens.expires_at,
    scope: tokens.scope,
    refreshed,
    cookies,
    setCookie: headerValues(cookies),
  };
}

function oauthProvider(config: ResolvedConfig, id: string): OAuthProvider {
  const provider = config.providersById.get(id);
  if (!provider || (provider.type !== "oauth" && provider.type !== "oidc")) {
    throw new InvalidProvider(`getAccessToken: no OAuth or OpenID Connect provider with the id ${JSON.stringify(id)}`);
  }
  return provider;
}

/**
 * Runs the shared refresh; store failures become `AccessTokenError`. `subject` is whom a refreshed
 * id_token must name: the account's.
 */
async function refreshOnce(
  config: ResolvedConfig,
  provider: OAuthProvider,
  refreshToken: string,
  subject: IdTokenSubject,
  persist: (outcome: RefreshOutcome) => Promise<void>,
): Promise<RefreshOutcome> {
  try {
    return await singleFlight(
      config,
      config.accessTokens.store,
      provider.id,
      refreshToken,
      async (deadline) => {
        const outcome = await refreshGrant(provider, refreshToken, deadline, subject);
        try {
          await persist(outcome);
        } catch (e) {
          // The provider has rotated: the new tokens are still handed out (and recorded for the
          // waiting requests); failing here would lose the only copy of the new refresh token.
          config.logger.error(
            new AccessTokenError(`The refreshed tokens of provider "${provider.id}" could not be stored`, {
              err: errorOf(e),
              provider: provider.id,
            }),
          );
        }
        return outcome;
      },
      config.accessTokens.reuseWindowSeconds * 1000,
      config.accessTokens.lockTtlMs,
    );
  } catch (e) {
    throw new AccessTokenError(`The refresh of provider "${provider.id}" could not be coordinated`, {
      err: errorOf(e),
      provider: provider.id,
    });
  }
}

/**
 * The provider issued no refresh token at sign-in: only a new sign-in, asking for offline access,
 * helps. The error and a warning logged once name what to set (Google's `access_type: "offline"`).
 */
function noRefreshToken(
  config: ResolvedConfig,
  providerId: string,
  holder: "session" | "account",
): RefreshTokenRevoked {
  const message = `Provider "${providerId}" gave this ${holder} no refresh token: ${refreshTokenHint(providerId)}`;
  warnOnce(config, "refresh-token-missing", message);
  return revoked(providerId, "no-refresh-token", message);
}

/** The error of a refresh that failed but may pass: an answer refused for its id_token has its own type. */
function transient(providerId: string, outcome: { message: string; idToken?: string }): AccessTokenError {
  if (outcome.idToken) {
    return new IdTokenRefused(`${outcome.message}; nothing of this refresh answer was kept`, {
      provider: providerId,
      reason: outcome.idToken,
    });
  }
  return new AccessTokenError(outcome.message, { provider: providerId });
}

/**
 * A valid access token of `options.provider` for the signed-in user of `request`, refreshed
 * first when it has expired or will within the skew; null when nobody is signed in.
 *
 * Throws `RefreshTokenRevoked` when only the user can get a new token (the provider refused the
 * refresh token for good, or there is none): send the user to sign in with the provider again.
 * It marks the account (or the session token: set `error.cookies`), so later calls fail at once
 * without asking the provider again. Throws `AccessTokenError` for failures that may pass (the
 * provider could not be reached), and its subclass `IdTokenRefused` when the refresh answer's
 * id_token fails the checks of a sign-in or names another user (nothing of that answer is kept);
 * `InvalidProvider` for an unknown provider id.
 *
 * @example
 * ```ts
 * try {
 *   const token = await getAccessToken(request, config, { provider: "google" })
 *   // token.cookies: set them on the response (JWT sessions re-issue the session cookie)
 * } catch (e) {
 *   if (e instanceof RefreshTokenRevoked) return redirectToSignIn(e.cookies)
 *   throw e
 * }
 * ```
 */
export async function getAccessToken(
  request: AccessTokenRequest,
  config: AuthConfig,
  options: GetAccessTokenOptions,
): Promise<AccessToken | null> {
  // The one session read (lib/session/request-read.ts), its failure policy included.
  const reading = readingOf(sessionRequestOf(request), config, options.env);
  if (!reading) return null;
  const { resolved, cookie, cookies } = reading;
  const provider = oauthProvider(resolved, options.provider);
  const skew = options.skewSeconds ?? resolved.accessTokens.skewSeconds;
  const read = readSession(resolved, { cookies, cookie, reissue: false });
  const live = liveSessionOf(resolved, read instanceof Promise ? await read : read);
  if (!live) return null;
  // A JWT session carries its provider tokens in its claims; a database session's are on the account.
  return live.claims
    ? fromJwt(resolved, cookie, cookies, live.claims, provider, skew, options)
    : fromAccount(resolved, live, provider, skew, options);
}

/** The provider tokens a JWT session carries (`accessTokens: { jwt: true }`), refreshed into a re-issued cookie. */
async function fromJwt(
  config: ResolvedConfig,
  cookie: CookieOption,
  cookies: Record<string, string>,
  claims: JWT,
  provider: OAuthProvider,
  skew: number,
  options: GetAccessTokenOptions,
): Promise<AccessToken | null> {
  const all = (claims.providerTokens ?? {}) as Record<string, ProviderTokens>;
  const tokens = Object.hasOwn(all, provider.id) ? all[provider.id] : undefined;
  if (!tokens) {
    throw revoked(
      provider.id,
      "no-tokens",
      `The session holds no tokens of provider "${provider.id}": sign in with it (with \`accessTokens: { jwt: true }\` set)`,
    );
  }
  if (tokens.error === "RefreshTokenRevoked") {
    throw revoked(provider.id, "marked", `Provider "${provider.id}" refused this session's refresh token earlier`);
  }
  if (!options.forceRefresh && isFresh(tokens, skew)) return answer(tokens, false, []);
  const refreshToken = tokens.refresh_token;
  if (typeof refreshToken !== "string" || refreshToken === "") {
    throw noRefreshToken(config, provider.id, "session");
  }
  if (options.canSetCookies === false) {
    throw new ResponseAlreadySent(
      `The access token of provider "${provider.id}" is due for a refresh, but the response was already sent: the rotated refresh token, kept only in the session cookie, would be lost. Call getAccessToken before writing the response (or use database sessions).`,
      { provider: provider.id },
    );
  }
  // The rotated tokens ride in a re-issued cookie, which an instance that cannot check the
  // revocation list never writes (`onUnavailable: "serve"`): refused before the provider is asked.
  if (!mayExtend(config)) {
    throw transient(provider.id, {
      message:
        "The revocation list is unavailable: the session is not re-issued, so its provider tokens are not refreshed until the store answers again",
    });
  }
  // Whom a refreshed id_token must name: the sign-in id_token's subject, kept in the session
  // token, or (a session from before it was kept) the provider's account id.
  const subject: IdTokenSubject = { sub: tokens.sub ?? tokens.providerAccountId, iss: tokens.iss };
  const outcome = await refreshOnce(config, provider, refreshToken, subject, async () => {});
  const reseal = (entry: ProviderTokens) => {
    const token: JWT = { ...claims, providerTokens: { ...all, [provider.id]: entry } };
    return sessionTokenCookies(config, cookies, cookie, token);
  };
  if (outcome.ok) {
    const entry: ProviderTokens = { ...identityOf(tokens), ...tokenFields(outcome.tokens) };
    return answer(entry, true, await reseal(entry));
  }
  if (outcome.revoked) {
    const marked: ProviderTokens = { ...identityOf(tokens), error: "RefreshTokenRevoked" };
    throw revoked(provider.id, "invalid_grant", outcome.message, await reseal(marked));
  }
  throw transient(provider.id, outcome);
}

/** The adapter with what a stored account's tokens need, or `MissingAdapterMethods` naming every one missing. */
function accountMethods(config: ResolvedConfig) {
  const methods = ["getSessionAndUser", "getAccountsByUserId", "updateAccount"] as const;
  const adapter = config.adapter;
  if (!hasMethods(adapter, ...methods)) {
    const missing = methods.filter((m) => typeof adapter?.[m] !== "function");
    throw new MissingAdapterMethods(`getAccessToken needs these adapter methods: ${missing.join(", ")}.`);
  }
  return adapter;
}

/** The provider tokens stored on the signed-in user's account, refreshed there. */
async function fromAccount(
  config: ResolvedConfig,
  live: LiveSession,
  provider: OAuthProvider,
  skew: number,
  options: GetAccessTokenOptions,
): Promise<AccessToken | null> {
  const adapter = accountMethods(config);
  if (!live.userId) return null;
  const accounts = (await adapter.getAccountsByUserId(live.userId)).filter(
    (a) =>
      a.provider === provider.id &&
      (options.providerAccountId === undefined || a.providerAccountId === options.providerAccountId),
  );
  const account = accounts[0];
  if (!account) {
    throw revoked(provider.id, "no-account", `The user has no account of provider "${provider.id}"`);
  }
  if (!options.forceRefresh && isFresh(account, skew)) return answer(account as Partial<ProviderTokens>, false, []);
  const refreshToken = account.refresh_token;
  if (typeof refreshToken !== "string" || refreshToken === "") {
    if (account.access_token) throw noRefreshToken(config, provider.id, "account");
    throw revoked(
      provider.id,
      "marked",
      `The account of provider "${provider.id}" holds no tokens (its refresh token was refused earlier)`,
    );
  }
  const identity = { provider: account.provider, providerAccountId: account.providerAccountId };
  // Whom a refreshed id_token must name: the subject of the id_token stored at sign-in, or (none
  // kept: a provider's `account()` that drops it) the provider's account id.
  const subject: IdTokenSubject = idTokenSubjectOf(account.id_token) ?? { sub: account.providerAccountId };
  const outcome = await refreshOnce(config, provider, refreshToken, subject, async (result) => {
    const update = adapter.updateAccount;
    // Compare-and-set on the refresh token that was redeemed: a newer one (a sign-in meanwhile)
    // is never overwritten.
    if (result.ok) await update({ ...identity, ...tokenFields(result.tokens) }, { refresh_token: refreshToken });
    else if (result.revoked)
      await update(
        { ...identity, access_token: null, refresh_token: null, expires_at: null },
        { refresh_token: refreshToken },
      );
  });
  if (outcome.ok) return answer(tokenFields(outcome.tokens), true, []);
  if (outcome.revoked) throw revoked(provider.id, "invalid_grant", outcome.message);
  throw transient(provider.id, outcome);
}
