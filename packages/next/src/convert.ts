/**
 * The conversions between Next.js's requests and the core pipeline's: a route handler's Web
 * `Request`, the headers of `next/headers`, a Pages Router `IncomingMessage`; and back, the
 * pipeline's answer as a `Response` or as cookies for Next.js's cookie store.
 */
import type { AuthConfig } from "@latchkey/core";
import {
  finalizeResponse,
  type HeaderReader,
  type IncomingRequest,
  type SessionReadAnswer,
  type serve,
  sessionReadOf,
  webIncoming,
} from "@latchkey/core/internal";
import { nextEnv } from "./env.js";

type Cookie = NonNullable<Awaited<ReturnType<typeof serve>>["cookies"]>[number];

/**
 * Where a request arrived: `Host`, over http (`next start` serves plain HTTP; https only where the
 * socket is TLS, `encrypted`). Not the scheme of Next.js's request URL, nor `X-Forwarded-Proto`,
 * `X-Forwarded-Host` or `Forwarded`: `next start` passes on the ones a client sent (and builds its
 * URL's scheme from `X-Forwarded-Proto`). The core reads them, from `headers`, only behind a
 * proxy the configuration names (`trustProxy`, `AUTH_TRUST_PROXY`, or Vercel's); `trustHost`
 * never reads them. With `AUTH_URL` set, the core takes the origin from it and reads none.
 */
export function arrival(
  headers: HeaderReader,
  fallback: { host?: string | null; encrypted?: boolean } = {},
): { protocol: string; host: string | null; headers: HeaderReader } {
  return {
    protocol: fallback.encrypted ? "https" : "http",
    host: headers.get("host") ?? fallback.host ?? null,
    headers,
  };
}

/** A route handler's request as the pipeline reads it, arrived where `arrival` says. */
export function routeIncoming(request: Request, config: AuthConfig): IncomingRequest {
  const url = new URL(request.url);
  return webIncoming(request, config, { where: arrival(request.headers, { host: url.host }), url });
}

/** The session of a request and the cookies its read re-issued (a JWT's new expiry, `updateAge`). */
export type SessionRead = SessionReadAnswer;

/**
 * Reads the session of a request as `GET <basePath>/session` answers it (the core's
 * `sessionReadOf`), keeping the cookies it re-issues for the caller to deliver; without a promise
 * when the read needs none. Any answer but a session is "no session" (fail closed).
 */
export function readSession(
  config: AuthConfig,
  where: { protocol: string; host: string | null; headers?: HeaderReader },
  cookieHeader: string | null | undefined,
): SessionRead | Promise<SessionRead> {
  return sessionReadOf({ ...where, cookieHeader }, config, { env: nextEnv });
}

/** The `Set-Cookie` header values of cookies. */
export function setCookieHeaders(cookies: Cookie[]): string[] {
  if (!cookies.length) return [];
  return finalizeResponse({ cookies })
    .headers.filter(([name]) => name === "Set-Cookie")
    .map(([, value]) => value);
}

/** A cookie store with Next.js's `cookies()` `set` signature. */
export interface CookieWriter {
  set(name: string, value: string, options?: Record<string, unknown>): unknown;
}

/**
 * Puts cookies in Next.js's cookie store. Where Next.js forbids writes (a Server Component), the
 * first write throws and the rest are not tried: false is returned, and the browser keeps the
 * cookies it has (which stay valid; only their renewal waits for the next request that can carry it).
 */
export function writeCookies(store: CookieWriter, cookies: Cookie[]): boolean {
  for (const cookie of cookies) {
    try {
      store.set(cookie.name, cookie.value, { ...cookie.options });
    } catch {
      return false;
    }
  }
  return true;
}
