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

/** The first value of a list header (`X-Forwarded-Host: a, b` → `a`). */
function first(value: string | null | undefined): string | undefined {
  return value?.split(",")[0]?.trim() || undefined;
}

/**
 * Where a request arrived: its scheme from `X-Forwarded-Proto` (which Next.js itself sets, and
 * uses for the request's URL) and its host from `Host`, or from `X-Forwarded-Host` only when the
 * configuration trusts the proxy (`trustHost`, `AUTH_TRUST_HOST`). With `AUTH_URL` set, the core
 * takes the origin from it and reads neither.
 */
export function arrival(
  headers: HeaderReader,
  config: AuthConfig,
  fallback: { protocol?: string; host?: string | null } = {},
): { protocol: string; host: string | null } {
  const host = (config.trustHost ? first(headers.get("x-forwarded-host")) : undefined) ?? headers.get("host");
  const protocol = first(headers.get("x-forwarded-proto")) ?? fallback.protocol ?? "http";
  return { protocol, host: host ?? fallback.host ?? null };
}

/** A route handler's request as the pipeline reads it, arrived where `arrival` says. */
export function routeIncoming(request: Request, config: AuthConfig): IncomingRequest {
  const url = new URL(request.url);
  return webIncoming(request, config, {
    where: arrival(request.headers, config, { protocol: url.protocol, host: url.host }),
    url,
  });
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
  where: { protocol: string; host: string | null },
  cookieHeader: string | null | undefined,
): SessionRead | Promise<SessionRead> {
  return sessionReadOf({ protocol: where.protocol, host: where.host, cookieHeader }, config, { env: nextEnv });
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
