/**
 * Where a request arrived and what may be built from it: the one reading of a proxy's headers
 * (`trustProxy`), and the origins a link mailed to someone may have (`AUTH_URL`, `trustedOrigins`,
 * a loopback name). `pipeline.ts`'s `originOf` decides every request's origin with these.
 */
import { UntrustedHost } from "../base/errors.js";
import type { HeaderReader } from "./request.js";

/** Where a request arrived, as its framework described it. */
export interface Arrival {
  protocol: string;
  host: string | null | undefined;
}

/** A loopback name: a request that names one cannot send our links to anyone else's machine. */
function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    hostname === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/** The last entry of a list header (`a, b` → `b`): the one the proxy nearest to us wrote. */
function lastEntry(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const entries = value.split(",");
  return entries[entries.length - 1]?.trim() || undefined;
}

/**
 * The elements of a `Forwarded` header (RFC 7239 §4), each a record of its lower-cased parameter
 * names: commas and semicolons inside quoted strings are kept, quotes and escapes removed.
 */
function forwardedElements(value: string): Array<Record<string, string>> {
  const elements: Array<Record<string, string>> = [];
  let element: Record<string, string> = {};
  let pair = "";
  let quoted = false;
  const endPair = () => {
    const at = pair.indexOf("=");
    if (at > 0) element[pair.slice(0, at).trim().toLowerCase()] = pair.slice(at + 1).trim();
    pair = "";
  };
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (quoted) {
      if (char === "\\" && i + 1 < value.length) pair += value[++i];
      else if (char === '"') quoted = false;
      else pair += char;
    } else if (char === '"') quoted = true;
    else if (char === ";") endPair();
    else if (char === ",") {
      endPair();
      elements.push(element);
      element = {};
    } else pair += char;
  }
  endPair();
  elements.push(element);
  return elements;
}

/**
 * Where a request arrived behind a proxy the application said it runs behind (`trustProxy`): the
 * host and scheme of the last `X-Forwarded-Host` / `X-Forwarded-Proto` entries (`true`), or of the
 * last `Forwarded` element (`"forwarded"`); what the framework said where the proxy's header says
 * nothing. Only the one kind of header configured is read, so a client's header of the other kind
 * (which the proxy passes through) decides nothing.
 *
 * @example
 * ```ts
 * proxiedArrival(headers, true, { protocol: "http", host: "127.0.0.1:3000" })
 * // X-Forwarded-Host: app.example, X-Forwarded-Proto: https → { protocol: "https", host: "app.example" }
 * ```
 */
export function proxiedArrival(headers: HeaderReader, trustProxy: true | "forwarded", framework: Arrival): Arrival {
  if (trustProxy === "forwarded") {
    const forwarded = headers.get("forwarded");
    if (!forwarded) return framework;
    const elements = forwardedElements(forwarded);
    const last = elements[elements.length - 1] ?? {};
    return { protocol: last.proto || framework.protocol, host: last.host || framework.host };
  }
  return {
    protocol: lastEntry(headers.get("x-forwarded-proto")) ?? framework.protocol,
    host: lastEntry(headers.get("x-forwarded-host")) ?? framework.host,
  };
}

/** Where a request arrived as a shell describes it, with what `arrivalOf` may read. */
export interface ArrivalDescription extends Arrival {
  /** Read for the proxy's headers when `trustProxy` is on and the framework did not decide. */
  headers?: HeaderReader | null;
  /** The framework applied its own proxy setting (Express, Fastify, SvelteKit's adapter). */
  arrivalDecided?: boolean;
}

/**
 * Where a request arrived, as Latchkey reads it: the proxy's header (`proxiedArrival`) when the
 * configuration names a proxy (`trustProxy`) and the framework did not apply its own setting
 * (`arrivalDecided`); otherwise what the framework described (the connection's `Host`).
 *
 * @example
 * ```ts
 * arrivalOf(config, { protocol: "http", host: "127.0.0.1:3000", headers })
 * ```
 */
export function arrivalOf(config: { trustProxy: false | true | "forwarded" }, request: ArrivalDescription): Arrival {
  if (!config.trustProxy || request.arrivalDecided || !request.headers) return request;
  return proxiedArrival(request.headers, config.trustProxy, request);
}

/**
 * True when a link e-mailed to someone may be built from `url`'s origin: `AUTH_URL` is set (the
 * pipeline then gives its origin whatever the request says), the origin is one of
 * `trustedOrigins`, or its host is a loopback name (a link there reaches only its reader's own
 * machine). `trustHost` plays no part: it lets a request's host decide the answers that go back to
 * that request's sender, never a message that goes to someone else.
 *
 * @example
 * ```ts
 * linksMailable(config, new URL("https://evil.example/auth")) // false unless configured
 * ```
 */
export function linksMailable(config: { url?: URL; trustedOrigins: readonly string[] }, url: URL): boolean {
  if (config.url) return url.origin === config.url.origin;
  return config.trustedOrigins.includes(url.origin) || isLoopbackHost(url.hostname);
}

/**
 * The error logged when a message is not mailed because its links would be built from a host the
 * request named, naming the fix. The client is answered as if it had gone.
 */
export function unmailableOrigin(origin: string, what: string): UntrustedHost {
  return new UntrustedHost(
    `${what} was not sent: its link would point to ${origin}, a host the request named, which is neither AUTH_URL nor one of \`trustedOrigins\`. Set AUTH_URL to the application's URL, or list every origin it is served at in \`trustedOrigins\` (AUTH_TRUSTED_ORIGINS=https://app.example,https://www.app.example). The client was answered as if it had been sent.`,
  );
}
