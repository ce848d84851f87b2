/**
 * The rules of the URIs a client registers and presents (OAuth 2.1 §2.3.1 and §7.5; RFC 9700
 * §4.1; RFC 8252 §7 and §8.3): redirect URIs are matched exactly, as strings, except the port of
 * a loopback one; what may be registered at all is narrow.
 */

const MAX_URI_LENGTH = 2000;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const UNSAFE_CHARACTERS = /[\s\u0000-\u001f\u007f\\]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f]/;
/** Schemes that run code or read local data wherever a browser follows them. */
const DANGEROUS_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:", "filesystem:"]);
const LOOPBACK = /^http:\/\/(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost)(:\d{1,5})?(?=[/?]|$)/;
/** A private-use scheme in reverse-domain form (RFC 8252 §7.1): at least one dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:/;

/** True for a host name of this machine's loopback interface. */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * Why `uri` cannot be registered as a redirect URI (`what` names the field in the message), or
 * undefined when it can.
 *
 * @example
 * ```ts
 * redirectUriProblem("javascript:alert(1)", "redirectUris") // "redirectUris: ... javascript: ..."
 * ```
 */
export function redirectUriProblem(uri: unknown, what: string): string | undefined {
  if (typeof uri !== "string" || uri === "") return `${what}: each must be a non-empty string`;
  if (uri.length > MAX_URI_LENGTH)
    return `${what}: ${JSON.stringify(uri.slice(0, 60))}… is longer than ${MAX_URI_LENGTH} characters`;
  // Browsers strip tabs and newlines and read "\" as "/": a URI holding them is not the one it shows.
  if (UNSAFE_CHARACTERS.test(uri))
    return `${what}: ${JSON.stringify(uri)} holds whitespace, control characters or a backslash`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${what}: ${JSON.stringify(uri)} is not an absolute URI`;
  }
  if (DANGEROUS_SCHEMES.has(url.protocol)) return `${what}: ${url.protocol} URIs run in the browser; use https:`;
  if (uri.includes("#"))
    return `${what}: ${JSON.stringify(uri)} has a fragment, which a redirect URI may not (OAuth 2.1 §2.3.1)`;
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?]*@/i.test(uri))
    return `${what}: ${JSON.stringify(uri)} carries user info ("user@host"), which hides the real host`;
  if (url.protocol === "https:") return url.hostname ? undefined : `${what}: ${JSON.stringify(uri)} names no host`;
  if (url.protocol === "http:") {
    return isLoopbackHostname(url.hostname)
      ? undefined
      : `${what}: ${JSON.stringify(uri)} is plain http on a host other than loopback; use https (http only for 127.0.0.1, [::1] or localhost, RFC 8252 §7.3)`;
  }
  if (PRIVATE_USE_SCHEME.test(uri)) return undefined;
  return `${what}: ${JSON.stringify(uri)} has the scheme ${url.protocol}; use https:, loopback http:, or a native app's reverse-domain scheme (com.example.app:/callback)`;
}

/** `uri` without the port of a loopback http URI (RFC 8252 §7.3: the port is chosen at run time). */
function withoutLoopbackPort(uri: string): string {
  return uri.replace(LOOPBACK, (_whole, host: string) => `http://${host}`);
}

/**
 * The redirect URI of an authorization request: `presented` when it is exactly one of
 * `registered` (or differs from a loopback one only in its port), the only registered one when
 * none is presented; undefined otherwise. Compared as strings: no normalisation, no prefix.
 *
 * @example
 * ```ts
 * matchRedirectUri(["http://127.0.0.1/cb"], "http://127.0.0.1:53121/cb") // "http://127.0.0.1:53121/cb"
 * matchRedirectUri(["https://app.example/cb"], "https://app.example/cb/../x") // undefined
 * ```
 */
export function matchRedirectUri(registered: readonly string[], presented: string | undefined): string | undefined {
  if (presented === undefined) return registered.length === 1 ? registered[0] : undefined;
  if (registered.includes(presented)) return presented;
  if (!LOOPBACK.test(presented)) return undefined;
  const bare = withoutLoopbackPort(presented);
  return registered.some((uri) => LOOPBACK.test(uri) && withoutLoopbackPort(uri) === bare) ? presented : undefined;
}

/**
 * Why `issuer` cannot be an issuer identifier (RFC 8414 §2: https, no query or fragment; http
 * only on a loopback host, for development), or undefined.
 */
export function issuerProblem(issuer: unknown): string | undefined {
  if (typeof issuer !== "string" || !issuer) return "`issuer` is required: the exact URL tokens and metadata will name";
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return `\`issuer\` ${JSON.stringify(issuer)} is not an absolute URL`;
  }
  if (url.search || url.hash || issuer.includes("?") || issuer.includes("#"))
    return `\`issuer\` ${JSON.stringify(issuer)} may have no query or fragment (RFC 8414 §2)`;
  if (url.username || url.password) return `\`issuer\` ${JSON.stringify(issuer)} may carry no user info`;
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && isLoopbackHostname(url.hostname)) return undefined;
  return `\`issuer\` ${JSON.stringify(issuer)} must be https:// (http:// only on a loopback host, for development)`;
}

/**
 * Why `uri` cannot be a resource indicator (RFC 8707 §2: an absolute URI without a fragment), or
 * undefined.
 */
export function resourceProblem(uri: unknown): string | undefined {
  if (typeof uri !== "string" || uri.length > MAX_URI_LENGTH || CONTROL_OR_SPACE.test(uri))
    return "a resource must be an absolute URI";
  try {
    new URL(uri);
  } catch {
    return `the resource ${JSON.stringify(uri)} is not an absolute URI`;
  }
  return uri.includes("#") ? `the resource ${JSON.stringify(uri)} has a fragment (RFC 8707 §2)` : undefined;
}
