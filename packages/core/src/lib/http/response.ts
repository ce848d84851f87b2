import type { ResponseInternal } from "../../shapes/data.js";
import { serializeCookie } from "./cookies.js";
import { headerSafeUrl } from "./redirect.js";

/** Headers of answers that must never be cached (sessions, CSRF tokens). */
export const noStore = {
  "Cache-Control": "private, no-cache, no-store",
  Expires: "0",
  Pragma: "no-cache",
} as const;

/** A header writer: `Headers#set`, Node's `res.setHeader`, a record's assignment. */
export type HeaderSetter = (name: string, value: string) => void;

/**
 * Forbids every cache, shared or not, to keep a response: `Cache-Control: private, no-cache,
 * no-store` (with `Pragma` and `Expires` for HTTP/1.0 caches). Called wherever Latchkey adds a
 * cookie to a response, its own or the application's (a session re-issued by a proxy in front of a
 * statically generated page, a refreshed access token): a CDN that honoured the page's
 * `s-maxage` would otherwise store one user's `Set-Cookie` and hand it to the next visitor.
 * `Vary` is left as the application set it: nothing is stored, so nothing varies.
 *
 * @example
 * ```ts
 * if (cookies.length) forbidCaching((name, value) => response.headers.set(name, value))
 * ```
 */
export function forbidCaching(set: HeaderSetter): void {
  for (const [name, value] of Object.entries(noStore)) set(name, value);
}

/**
 * The status, headers and body that a `ResponseInternal` becomes. Shared by the Web conversion
 * and the framework shells, so every exit writes the same bytes.
 */
export function finalizeResponse(res: ResponseInternal): {
  status: number;
  headers: Array<[string, string]>;
  body: string | null;
} {
  const headers: Array<[string, string]> = [];
  let contentType: string | undefined;
  let cacheControl = false;
  for (const [name, value] of Object.entries(res.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === "content-type") contentType = value;
    else headers.push([name, value]);
    if (lower === "cache-control") cacheControl = true;
  }
  const cookies = res.cookies ?? [];
  for (const cookie of cookies)
    headers.push(["Set-Cookie", serializeCookie(cookie.name, cookie.value, cookie.options)]);
  // An answer that sets a cookie is never stored (a redirect of a sign-in included), unless the
  // action said how it may be (none does with a cookie today).
  if (cookies.length && !cacheControl) forbidCaching((name, value) => headers.push([name, value]));
  if (res.redirect) {
    // The one exit of every redirect (callbackUrl, the redirect callback's answer, pages.*): a
    // target with characters a header cannot carry is percent-encoded here, never a throw.
    headers.push(["Location", headerSafeUrl(res.redirect)]);
    return { status: 302, headers, body: null };
  }
  let body: string | null = null;
  if (res.body !== undefined) {
    if (typeof res.body === "string" && contentType && contentType !== "application/json") body = res.body;
    else {
      contentType ??= "application/json";
      body = JSON.stringify(res.body);
    }
  }
  if (contentType) headers.push(["Content-Type", contentType]);
  return { status: res.status ?? 200, headers, body };
}

/**
 * Turns a `ResponseInternal` into a Web `Response` (one `Set-Cookie` header per cookie). Headers
 * go to the constructor as a record, which workerd converts in one step: a `Headers` filled a
 * call at a time, or a list of pairs (converted through the iterator protocol), cost a session
 * read on workerd several times the conversion of a record (`bench/workerd-profile.mjs`). A name
 * given twice is joined with ", " as `Headers#append` joins it; only cookies are appended one by
 * one, since `Set-Cookie` is never joined.
 */
export function toResponse(res: ResponseInternal): Response {
  const { status, headers, body } = finalizeResponse(res);
  // No prototype: a header name is only ever a key here.
  const record: Record<string, string> = Object.create(null);
  const cookies: string[] = [];
  for (const [name, value] of headers) {
    if (name === "Set-Cookie") cookies.push(value);
    else record[name] = Object.hasOwn(record, name) ? `${record[name]}, ${value}` : value;
  }
  if (!cookies.length) return new Response(body, { status, headers: record });
  const withCookies = new Headers(record);
  for (const cookie of cookies) withCookies.append("Set-Cookie", cookie);
  return new Response(body, { status, headers: withCookies });
}
