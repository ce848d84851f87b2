/**
 * The double-submit check of the functions that change something outside the pipeline (the
 * helpers of `@latchkey/core/sessions`, the password-account server actions): the request's CSRF
 * cookie, of the same set as its session cookie, against the token the form posted.
 */

import type { Cookie, CookieOption } from "../../shapes/data.js";
import { MissingCSRF } from "../base/errors.js";
import { skipCSRFCheck } from "../base/symbols.js";
import type { ResolvedConfig } from "../config/types.js";
import { createCsrfToken, csrfTokensMatch, readCsrfCookie } from "../crypto/csrf.js";

/** The CSRF cookie of the request's scheme: of the same set (`__Host-` on HTTPS) as its session cookie. */
function csrfCookieOf(config: ResolvedConfig, sessionCookie: CookieOption): CookieOption {
  return config.cookies.https.sessionToken === sessionCookie
    ? config.cookies.https.csrfToken
    : config.cookies.http.csrfToken;
}

/**
 * The CSRF token a form of the request's origin carries: the token of its signed CSRF cookie, or
 * a new one with that cookie to set (`cookie`) when it has none. An empty token when CSRF is off.
 *
 * @example
 * ```ts
 * const { token, cookie } = csrfTokenFor(resolved, sessionCookie, cookies)
 * ```
 */
export function csrfTokenFor(
  config: ResolvedConfig,
  sessionCookie: CookieOption,
  cookies: Record<string, string>,
): { token: string; cookie?: Cookie } {
  if (!config.csrf) return { token: "" };
  const option = csrfCookieOf(config, sessionCookie);
  const existing = readCsrfCookie(config.csrf, cookies[option.name]);
  if (existing) return { token: existing };
  const fresh = createCsrfToken(config.csrf);
  return { token: fresh.token, cookie: { name: option.name, value: fresh.cookieValue, options: option.options } };
}

/**
 * The double-submit check of a request that changes something: `submitted` must equal the token of
 * the request's CSRF cookie, whose HMAC must verify (so a sibling sub-domain, which cannot set a
 * `__Host-` cookie and cannot forge the HMAC, cannot make a pair). Throws `MissingCSRF` naming
 * `what` and the fix. Off only when the configuration turned CSRF off (`skipCSRFCheck`) or the
 * caller says its framework checked (`submitted === skipCSRFCheck`).
 */
export function requireCsrf(
  config: ResolvedConfig,
  sessionCookie: CookieOption | null,
  cookies: Record<string, string>,
  submitted: unknown,
  what: string,
): void {
  if (!config.csrf || submitted === skipCSRFCheck) return;
  const option = sessionCookie ? csrfCookieOf(config, sessionCookie) : null;
  const token = option ? readCsrfCookie(config.csrf, cookies[option.name]) : undefined;
  if (csrfTokensMatch(token, submitted)) return;
  throw new MissingCSRF(
    `\`${what}\` was called without a valid CSRF token, so nothing was changed: a form on another site (or a sibling sub-domain) can post to your route with the user's cookies. Put the token in the form (\`<input type="hidden" name="csrfToken">\`, from getCsrfToken or GET <basePath>/csrf) and pass it: \`{ csrfToken: body.csrfToken }\` (@latchkey/express reads req.body.csrfToken).`,
  );
}
