// The code of @latchkey/core's public module src/jwt.ts (which documents it and re-exports it).

import type { LoggerInstance } from "../../shapes/data.js";
import type { JWT, JWTDecodeParams, JWTEncodeParams, JWTOptions } from "../../shapes/jwt.js";
import { MissingSecret } from "../base/errors.js";
import { fieldOf } from "../base/merge.js";
import type { AuthConfig } from "../config/options.js";
import { defaultCookieName, parseCookieHeader, readChunkedCookie } from "../http/cookies.js";
import { openToken, type Secrets, sealToken } from "./jwe.js";

const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60;

function secretList(secret: string | string[] | undefined): Secrets {
  const [first, ...rest] = Array.isArray(secret) ? secret : secret ? [secret] : [];
  if (first === undefined || [first, ...rest].some((s) => typeof s !== "string" || s.length === 0)) {
    throw new MissingSecret("A secret is required to encode or decode a session token");
  }
  return [first, ...rest];
}

/**
 * Issues an encrypted session token, with `iat`, `exp` (now + `maxAge`) and a random `jti`.
 *
 * @example
 * ```ts
 * const jwe = await encode({ token: { sub: "42", name: "Ada" }, secret: process.env.AUTH_SECRET!, salt: "authjs.session-token" })
 * ```
 */
export async function encode(params: JWTEncodeParams): Promise<string> {
  const { token = {}, secret, salt, maxAge = DEFAULT_MAX_AGE } = params;
  return sealToken(token, secretList(secret), salt, maxAge);
}

/**
 * Decodes a session token made by Latchkey or Auth.js; null when it is missing, forged,
 * expired or encrypted under no secret in the list.
 *
 * @example
 * ```ts
 * const claims = await decode({ token: jwe, secret: [newSecret, oldSecret], salt: "authjs.session-token" })
 * ```
 */
export async function decode(params: JWTDecodeParams): Promise<JWT | null> {
  const { token, secret, salt } = params;
  if (!token) return null;
  return openToken(token, secretList(secret), salt);
}

/** What `getToken` takes; `R` is the type of `raw`. */
export interface GetTokenParams<R extends boolean = false> {
  /** Anything with `headers` (a `Request`, or an object with a headers record). */
  req: { headers: Headers | Record<string, string | string[] | undefined> };
  /**
   * The secret (an array rotates: any element may decrypt). Needed to decode a token unless
   * `config` is given; `process.env.AUTH_SECRET` may be passed as it is, and a token read
   * without any secret throws `MissingSecret`.
   */
  secret?: string | string[];
  /** Read the `__Secure-` cookie. @default false */
  secureCookie?: boolean;
  /** @default "authjs.session-token", with `__Secure-` when `secureCookie` */
  cookieName?: string;
  /** @default cookieName */
  salt?: string;
  /** `true`: return the token as it was sent (its string) instead of its claims. */
  raw?: R;
  decode?: JWTOptions["decode"];
  /** Accepted as Auth.js accepts it; reading a token logs nothing. */
  logger?: Partial<LoggerInstance> | Console;
  /**
   * Latchkey extension: the application's configuration. With it, the token is read as the
   * session read reads it: null when its session was revoked (`session.revocation`) or the `jwt`
   * callback ends it, and the callback's token otherwise. Without it only the seal is checked, so
   * an API route of an application that revokes sessions must pass it (or use `getSession`).
   */
  config?: AuthConfig;
}

/** True for headers read with `get` (a fetch `Headers`, or one of another realm or framework). */
function hasGet(headers: GetTokenParams["req"]["headers"]): headers is Headers {
  return typeof fieldOf(headers, "get") === "function";
}

function headerValue(headers: GetTokenParams["req"]["headers"], name: string): string | null {
  if (hasGet(headers)) return headers.get(name);
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : (value ?? null);
}

/**
 * Reads the session token of a request (its cookie, chunked or not, or an
 * `Authorization: Bearer` header) and decodes it. Null when absent or invalid. With `raw: true`
 * the token's string is returned undecoded; its type is `string`, as in Auth.js, though a request
 * without a token still gives null.
 *
 * @example
 * ```ts
 * const token = await getToken({ req: request, secret: process.env.AUTH_SECRET })
 * if (token?.sub) ...
 * const jwe = await getToken({ req: request, raw: true }) // the cookie's value, for an API of your own
 * ```
 */
export async function getToken<R extends boolean = false>(
  params: GetTokenParams<R>,
): Promise<R extends true ? string : JWT | null>;
export async function getToken(params: GetTokenParams<boolean>): Promise<JWT | string | null> {
  const { req, secret, secureCookie = false, raw = false } = params;
  const cookieName = params.cookieName ?? defaultCookieName("sessionToken", secureCookie);
  const salt = params.salt ?? cookieName;
  let token = readChunkedCookie(parseCookieHeader(headerValue(req.headers, "cookie")), cookieName);
  if (!token) {
    const authorization = headerValue(req.headers, "authorization");
    const [scheme, value] = authorization?.split(" ") ?? [];
    if (scheme === "Bearer" && value) {
      try {
        token = decodeURIComponent(value);
      } catch {
        return null;
      }
    }
  }
  if (!token) return null;
  if (params.config) {
    // Loaded only here: reading a cookie without a configuration stays a small, pure function.
    const { resolveConfig } = await import("../config/resolve.js");
    const { openJwtSession } = await import("../session/jwt-strategy.js");
    const opened = await openJwtSession(resolveConfig(params.config), token, salt);
    if (!opened) return null;
    return raw ? token : opened.token;
  }
  if (raw) return token;
  // As in Auth.js, a token with no secret to read it is the application's mistake, not a signed-out user.
  if (secret === undefined || secret === "" || (Array.isArray(secret) && secret.length === 0))
    throw new MissingSecret(
      "getToken() needs `secret` to decode the session token: pass `secret: process.env.AUTH_SECRET` with AUTH_SECRET set (`npx latchkey secret` makes one), or pass `config`.",
    );
  try {
    return await (params.decode ?? decode)({ token, secret, salt });
  } catch {
    return null;
  }
}
