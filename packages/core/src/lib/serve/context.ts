import type { Awaitable, Cookie, CookieOption } from "../../shapes/data.js";
import { isThenable } from "../base/awaitable.js";
import { MissingCSRF } from "../base/errors.js";
import { cookiesFor } from "../config/resolve.js";
import type { InternalProvider, ResolvedConfig } from "../config/types.js";
import { createCsrfToken, csrfTokensMatch, readCsrfCookie } from "../crypto/csrf.js";
import type { CookieRole } from "../http/cookies.js";
import { linksMailable } from "../http/origin.js";
import type { RequestInternal } from "../http/request.js";

/**
 * What an action works with: the resolved configuration and what was derived from this request.
 * Costly parts (CSRF token, callback URL) are computed on first use, so actions pay only for what
 * they read (ARCHITECTURE §4).
 */
export interface Context {
  readonly config: ResolvedConfig;
  /** `scheme://host[:port]` of the application. */
  readonly origin: string;
  /** `origin` + the request's base path. */
  readonly authUrl: string;
  /**
   * A link e-mailed to someone may be built from `origin` (`AUTH_URL`, `trustedOrigins` or a
   * loopback name: `linksMailable`); otherwise nothing is mailed.
   */
  readonly linksMailable: boolean;
  /** Cookie names and options for this request's scheme. */
  readonly cookieOptions: Record<CookieRole, CookieOption>;
  /** Cookies the response will set. */
  readonly cookies: Cookie[];
  /** The provider named in the path, if any. */
  readonly provider?: InternalProvider;
  /** The CSRF token (a new one is minted, and its cookie queued, when the request has none). */
  csrf(): { token: string; verified: boolean };
  /**
   * The one CSRF guard of every state-changing POST: throws `MissingCSRF` (naming `what` was
   * posted) unless the body carries the token of a cookie we signed.
   */
  requireCsrf(what: string): void;
  /**
   * The validated callback URL (from the body, the query or its cookie); its cookie is queued when
   * it changes. At once unless the `redirect` callback answers with a promise.
   */
  callbackUrl(): Awaitable<string>;
  /**
   * The browser binding value minted on this request (`binding.ts`), when the browser had none:
   * every flow this request starts seals the same one.
   */
  mintedBinding?: string;
  /**
   * What this request tries to sign in as, noted by the flow that knows it (`noteSignInAttempt`)
   * and carried by the one record of the request's outcome (`lib/audit/sign-in.ts`).
   */
  signInAttempt?: { identifier?: string; userId?: string };
  /**
   * The code page a sign-in of this request was held for (a second factor is due): set by
   * `startSession`, read by `landing` (`flows/finish-sign-in.ts`).
   */
  heldForSecondFactor?: string;
}

export function createContext(req: RequestInternal, config: ResolvedConfig): Context {
  const origin = req.url.origin;
  const cookieOptions = cookiesFor(config, origin);
  const cookies: Cookie[] = [];
  let csrf: { token: string; verified: boolean } | undefined;
  let callbackUrl: string | Promise<string> | undefined;

  return {
    config,
    origin,
    authUrl: `${origin}${req.basePath}`,
    linksMailable: linksMailable(config, req.url),
    cookieOptions,
    cookies,
    provider: req.providerId ? config.providersById.get(req.providerId) : undefined,
    csrf() {
      if (csrf) return csrf;
      if (!config.csrf) {
        csrf = { token: "", verified: true };
        return csrf;
      }
      const option = cookieOptions.csrfToken;
      const existing = readCsrfCookie(config.csrf, req.cookies[option.name]);
      if (existing) {
        csrf = { token: existing, verified: req.method === "POST" && csrfTokensMatch(existing, req.body?.csrfToken) };
      } else {
        const fresh = createCsrfToken(config.csrf);
        cookies.push({ name: option.name, value: fresh.cookieValue, options: option.options });
        csrf = { token: fresh.token, verified: false };
      }
      return csrf;
    },
    requireCsrf(what) {
      if (!this.csrf().verified) throw new MissingCSRF(`${what} was posted without a valid CSRF token`);
    },
    callbackUrl() {
      if (callbackUrl !== undefined) return callbackUrl;
      const option = cookieOptions.callbackUrl;
      const fromCookie = req.cookies[option.name];
      const param = req.body?.callbackUrl ?? req.query.callbackUrl;
      const candidate = typeof param === "string" && param ? param : fromCookie;
      const settle = (url: string) => {
        if (url !== fromCookie) cookies.push({ name: option.name, value: url, options: option.options });
        return url;
      };
      if (!candidate) {
        callbackUrl = settle(origin);
        return callbackUrl;
      }
      try {
        const url = config.callbacks.redirect({ url: candidate, baseUrl: origin });
        callbackUrl = isThenable(url) ? Promise.resolve(url).then(settle) : settle(url);
      } catch (e) {
        // Remembered as the answer, as a rejected promise: every caller hears the same failure.
        callbackUrl = Promise.reject(e);
      }
      return callbackUrl;
    },
  };
}
