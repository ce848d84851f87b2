import type { Cookie, CookieOption, CookieSerializeOptions, CookiesOptions } from "../../shapes/data.js";
import type { CookieTooLarge } from "../base/errors.js";

/** The cookies Latchkey sets, by their role. */
export type CookieRole = keyof CookiesOptions;

const baseNames: Record<CookieRole, string> = {
  sessionToken: "authjs.session-token",
  callbackUrl: "authjs.callback-url",
  csrfToken: "authjs.csrf-token",
  pkceCodeVerifier: "authjs.pkce.code_verifier",
  state: "authjs.state",
  nonce: "authjs.nonce",
  webauthnChallenge: "authjs.challenge",
};

/** Check cookies of a flow in progress live 15 minutes. */
const FLOW_COOKIE_MAX_AGE = 15 * 60;

/**
 * Roles whose cookie is `__Host-` on https: host-only, `Path=/`, `Secure`, so no sibling
 * sub-domain can set one (RFC 6265bis §4.1.3.2). The CSRF cookie (as in Auth.js) and the check
 * cookies of a flow in progress, which need no `Domain` and live minutes; the session and
 * callback-URL cookies keep Auth.js's `__Secure-` names, so sessions carry over.
 */
const HOST_ONLY: ReadonlySet<CookieRole> = new Set([
  "csrfToken",
  "pkceCodeVerifier",
  "state",
  "nonce",
  "webauthnChallenge",
]);

/**
 * The default cookie name of a role on http (`secure = false`, no prefix) or https: `__Host-`
 * for the CSRF and check cookies, `__Secure-` (Auth.js's names) for the others.
 *
 * @example
 * ```ts
 * defaultCookieName("sessionToken", true) // "__Secure-authjs.session-token"
 * defaultCookieName("state", true)        // "__Host-authjs.state"
 * ```
 */
export function defaultCookieName(role: CookieRole, secure: boolean): string {
  if (!secure) return baseNames[role];
  return `${HOST_ONLY.has(role) ? "__Host-" : "__Secure-"}${baseNames[role]}`;
}

/** Default names and options of every cookie, for http (`secure = false`) or https. */
export function defaultCookies(secure: boolean): Record<CookieRole, CookieOption> {
  const out = {} as Record<CookieRole, CookieOption>;
  for (const role of Object.keys(baseNames) as CookieRole[]) {
    const options: CookieSerializeOptions = { httpOnly: true, sameSite: "lax", path: "/", secure };
    if (role === "pkceCodeVerifier" || role === "state" || role === "nonce" || role === "webauthnChallenge") {
      options.maxAge = FLOW_COOKIE_MAX_AGE;
    }
    out[role] = { name: defaultCookieName(role, secure), options };
  }
  return out;
}

/** `text` without the SP and HTAB around it; other white space (NBSP, U+FEFF, line breaks) stays. */
function trimOws(text: string): string {
  let from = 0;
  let to = text.length;
  while (from < to && (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)) from++;
  while (to > from && (text.charCodeAt(to - 1) === 32 || text.charCodeAt(to - 1) === 9)) to--;
  return text.slice(from, to);
}

/** A cookie value as sent: OWS dropped, unquoted, percent-decoded when it can be. */
function cookieValue(raw: string): string {
  let value = trimOws(raw);
  if (value.length > 1 && value.charCodeAt(0) === 34 && value.charCodeAt(value.length - 1) === 34) {
    value = value.slice(1, -1);
  }
  if (value.includes("%")) {
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep the raw value: a malformed cookie must not break the request
    }
  }
  return value;
}

/**
 * Every value a `Cookie` header carries for `name`, in the order sent: what `parseCookieHeader`
 * leaves out when the name is repeated. Only for a step that must act on each copy (a sign-out
 * ends every session the browser holds, its own among them), never to pick one.
 *
 * @example
 * ```ts
 * cookieValues("a=1; b=2; a=3", "a") // ["1", "3"]
 * ```
 */
export function cookieValues(header: string | null | undefined, name: string): string[] {
  const values: string[] = [];
  if (!header) return values;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && trimOws(part.slice(0, eq)) === name) values.push(cookieValue(part.slice(eq + 1)));
  }
  return values;
}

/**
 * Parses a `Cookie` header into a record. Values are percent-decoded when they can be; a value
 * that is not valid percent-encoding is kept as it is.
 *
 * A name the header carries more than once is left out: the browser holds two cookies of that
 * name (another `Domain` or `Path`, such as one a sibling sub-domain planted with a longer path,
 * which the browser sends first), and nothing says which is ours. Latchkey reads only its own
 * names, so an ambiguous session, CSRF, check or pending cookie reads as absent: no session, no
 * check, nothing attached to anyone (docs/security.md, "Duplicate cookies"). `duplicates`, when
 * given, receives each such name once.
 *
 * Only SP and HTAB around a name or value are dropped (RFC 6265bis §5.6, its OWS), never other
 * Unicode white space: a browser keeps a sibling's cookie named "\u00a0__Host-…" (its name has no
 * prefix, so nothing stops it), and trimming it into "__Host-…" would let any sibling plant what
 * the prefix promises it cannot (Cookie Crumbles, Squarcina et al., USENIX Security 2023).
 *
 * @example
 * ```ts
 * parseCookieHeader("a=1; b=2; a=3") // { b: "2" }
 * ```
 */
export function parseCookieHeader(header: string | null | undefined, duplicates?: Set<string>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!header) return out;
  let repeated: string[] | undefined;
  let start = 0;
  const length = header.length;
  while (start < length) {
    let end = header.indexOf(";", start);
    if (end === -1) end = length;
    const eq = header.indexOf("=", start);
    if (eq !== -1 && eq < end) {
      const name = trimOws(header.slice(start, eq));
      if (name && name in out) {
        repeated ??= [];
        repeated.push(name);
      } else if (name) {
        out[name] = cookieValue(header.slice(eq + 1, end));
      }
    }
    start = end + 1;
  }
  if (repeated) {
    for (const name of repeated) {
      delete out[name];
      duplicates?.add(name);
    }
  }
  return out;
}

// RFC 6265 token characters for names; values are percent-encoded where needed.
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// "%" is not safe: the parser percent-decodes, so a raw "%" would not read back as written.
const SAFE_VALUE = /^[!#$&'()*+\-./0-9:<=>?@A-Z[\]^_`a-z{}~]*$/;

// A UTF-16 surrogate without its other half: `encodeURIComponent` throws on it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// RFC 6265 §4.1.1: path-value is any CHAR except CTLs or ";"; a domain is a host name.
const SAFE_PATH = /^[\x21-\x3a\x3c-\x7e]*$/;
const DOMAIN = /^\.?[A-Za-z0-9.-]+$/;

function encodePath(path: string): string {
  let out = "";
  for (const char of path.replace(LONE_SURROGATE, "\uFFFD")) {
    const code = char.codePointAt(0) ?? 0; // a code point of the string: never undefined
    out += code > 0x20 && code < 0x7f && char !== ";" ? char : encodeURIComponent(char);
  }
  return out;
}

/**
 * A cookie value as it goes on the wire: unchanged when every character is a cookie-octet that
 * reads back as itself, else percent-encoded, so `;`, `,`, white space, quotes and controls never
 * reach a `Set-Cookie` header (a `;` would start attributes: `/x;Domain=parent.example`). The one
 * encoding of Latchkey's cookies, `serializeCookie`'s, and the `encode` a framework package gives
 * a cookie API that lets it choose (SvelteKit's `event.cookies.set`).
 *
 * @example
 * ```ts
 * encodeCookieValue("https://app.example/x;Domain=evil.example") // "https%3A%2F%2Fapp.example%2Fx%3BDomain%3Devil.example"
 * ```
 */
export function encodeCookieValue(value: string): string {
  // A lone surrogate (from a JSON body's "\ud800") is stored as U+FFFD rather than thrown on.
  return SAFE_VALUE.test(value) ? value : encodeURIComponent(value.replace(LONE_SURROGATE, "\uFFFD"));
}

/** Serialises one `Set-Cookie` header value. */
export function serializeCookie(name: string, value: string, options: CookieSerializeOptions = {}): string {
  if (!COOKIE_NAME.test(name)) throw new TypeError(`Invalid cookie name: ${JSON.stringify(name)}`);
  let out = `${name}=${encodeCookieValue(value)}`;
  if (options.maxAge !== undefined) out += `; Max-Age=${Math.floor(options.maxAge)}`;
  if (options.domain) {
    if (!DOMAIN.test(options.domain)) throw new TypeError(`Invalid cookie domain: ${JSON.stringify(options.domain)}`);
    out += `; Domain=${options.domain}`;
  }
  // A path may come from a request (a framework's mount path): ";" would start a new attribute
  // (`/x;Domain=parent.example`), so it and every character a header cannot carry are
  // percent-encoded, which keeps the path matching what the browser requests.
  if (options.path) out += `; Path=${SAFE_PATH.test(options.path) ? options.path : encodePath(options.path)}`;
  if (options.expires) out += `; Expires=${options.expires.toUTCString()}`;
  if (options.httpOnly) out += "; HttpOnly";
  if (options.secure) out += "; Secure";
  if (options.partitioned) out += "; Partitioned";
  if (options.priority) out += `; Priority=${options.priority[0]?.toUpperCase()}${options.priority.slice(1)}`;
  if (options.sameSite) {
    const sameSite = options.sameSite === true ? "Strict" : options.sameSite;
    out += `; SameSite=${sameSite === "Strict" ? "Strict" : sameSite[0]?.toUpperCase() + sameSite.slice(1)}`;
  }
  return out;
}

/**
 * The browser limit is 4096 bytes per cookie, name and attributes included; values are cut into
 * chunks that leave room for those (the same size Auth.js uses, so either can read the other).
 */
const CHUNK_SIZE = 4096 - 160;

/**
 * Reads a possibly chunked cookie: `name`, or `name.0`, `name.1`, ... joined in order. A request
 * carrying both (a sibling sub-domain adds the whole name beside this browser's chunks: it cannot
 * overwrite them, and the whole name used to win) is ambiguous, as a name sent twice: undefined.
 * So are chunks that are not one write of {@link writeChunkedCookie} (and of Auth.js, which cuts
 * at the same size): fewer than two, one before the last that is not a full chunk, or a chunk
 * past a missing number. A sibling that adds a chunk of the next number, or sends one twice
 * (which the parser leaves out), thus makes the cookie unread, never read as garbage (which
 * would clear the browser's own chunks).
 */
export function readChunkedCookie(cookies: Record<string, string>, name: string): string | undefined {
  const whole = cookies[name];
  if (whole) return cookies[`${name}.0`] === undefined ? whole : undefined;
  const chunks: string[] = [];
  for (let chunk = cookies[`${name}.0`]; chunk !== undefined; chunk = cookies[`${name}.${chunks.length}`])
    chunks.push(chunk);
  if (chunks.length < 2 || chunks.slice(0, -1).some((c) => c.length !== CHUNK_SIZE)) return undefined;
  return presentChunks(cookies, name).length === chunks.length ? chunks.join("") : undefined;
}

/** True when the request carries chunks of `name` that {@link readChunkedCookie} cannot put together. */
export function unreadableChunks(cookies: Record<string, string>, name: string): boolean {
  return cookies[name] === undefined && presentChunks(cookies, name).length > 0 && !readChunkedCookie(cookies, name);
}

/** The names of every chunk (and the unchunked cookie) of `name` the request carried. */
function presentChunks(cookies: Record<string, string>, name: string): string[] {
  const prefix = `${name}.`;
  return Object.keys(cookies).filter(
    (key) => key === name || (key.startsWith(prefix) && /^\d+$/.test(key.slice(prefix.length))),
  );
}

/**
 * How a chunked cookie is bounded: `maxBytes` of `name=value` pairs as the browser sends all its
 * chunks back, and the error to throw past it (naming the cookie and its fix).
 */
export interface CookieBound {
  maxBytes: number;
  tooLarge: (size: number, maxBytes: number) => CookieTooLarge;
}

/** The bytes `cookies` add to a request's `Cookie` header (`name=value; ` each; deletions add none). */
export function cookieHeaderBytes(cookies: readonly Cookie[]): number {
  return cookies.reduce((sum, c) => sum + (c.value ? c.name.length + c.value.length + 3 : 0), 0);
}

/**
 * The cookies that store `value` under `name`: one cookie, or chunks `name.0`, `name.1`, ...
 * when it is too large. Cookies of an earlier value that are no longer used (stale chunks, or
 * the unchunked cookie) are expired in the same response. Every chunked cookie is bounded: past
 * `bound.maxBytes` nothing is written and `bound.tooLarge` is thrown, so that no cookie Latchkey
 * writes can make the browser's requests larger than the server accepts (431).
 */
export function writeChunkedCookie(
  cookies: Record<string, string>,
  name: string,
  value: string,
  options: CookieSerializeOptions,
  bound: CookieBound,
): Cookie[] {
  const out: Cookie[] = [];
  const written = new Set<string>();
  if (value.length <= CHUNK_SIZE) {
    out.push({ name, value, options });
    written.add(name);
  } else {
    for (let i = 0, offset = 0; offset < value.length; i++, offset += CHUNK_SIZE) {
      const chunkName = `${name}.${i}`;
      out.push({ name: chunkName, value: value.slice(offset, offset + CHUNK_SIZE), options });
      written.add(chunkName);
    }
  }
  const size = cookieHeaderBytes(out);
  if (size > bound.maxBytes) throw bound.tooLarge(size, bound.maxBytes);
  for (const stale of presentChunks(cookies, name)) {
    if (!written.has(stale)) out.push(expiredCookie(stale, options));
  }
  return out;
}

/** Cookies that expire every part of a chunked cookie the request carried. */
export function clearChunkedCookie(
  cookies: Record<string, string>,
  name: string,
  options: CookieSerializeOptions,
): Cookie[] {
  return presentChunks(cookies, name).map((chunk) => expiredCookie(chunk, options));
}

/** A cookie that tells the browser to delete `name`. */
export function expiredCookie(name: string, options: CookieSerializeOptions): Cookie {
  const { expires: _expires, ...rest } = options;
  return { name, value: "", options: { ...rest, maxAge: 0 } };
}
