import type { ResponseInternal } from "../shapes/data.js";
import { serializeCookie } from "./cookies.js";
import { headerSafeUrl } from "./redirect.js";

/** Headers of answers that must never be cached (sessions, CSRF tokens). */
export const noStore = {
  "Cache-Control": "private, no-cache, no-store",
  Expires: "0",
  Pragma: "no-cache",
} as const;

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
  for (const [name, value] of Object.entries(res.headers ?? {})) {
    if (name.toLowerCase() === "content-type") contentType = value;
    else headers.push([name, value]);
  }
  for (const cookie of res.cookies ?? [])
    headers.push(["Set-Cookie", serializeCookie(cookie.name, cookie.value, cookie.options)]);
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

/** Turns a `ResponseInternal` into a Web `Response` (one `Set-Cookie` header per cookie). */
export function toResponse(res: ResponseInternal): Response {
  const { status, headers, body } = finalizeResponse(res);
  const h = new Headers();
  for (const [name, value] of headers) h.append(name, value);
  return new Response(body, { status, headers: h });
}
