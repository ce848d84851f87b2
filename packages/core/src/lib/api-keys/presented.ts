/**
 * The key a request presents: `Authorization: Bearer <key>` or `X-API-Key: <key>`, read from a
 * Web `Request`, a `Headers`, a Node.js request (`{ headers }`), or a header value the caller
 * already took out. Two different keys in one request, or a header sent twice, is a malformed
 * request, never "the first wins": a proxy and the client must not disagree about which key counted.
 * A header sent twice shows as a list (a header record), as one value joined with ", " (a Web
 * `Headers`, Node.js's `X-API-Key`), or only in `rawHeaders` (Node.js keeps the first
 * `Authorization` of a request in `headers` and drops the others).
 */
import { MAX_KEY_LENGTH } from "./format.js";

/** Where a key may come from. */
export type ApiKeyInput =
  | Request
  | Headers
  | { headers: Headers | Record<string, string | string[] | undefined> }
  | string
  | null
  | undefined;

/** The presented key, none, or a request that cannot be read as presenting one key. */
export type Presented = { key: string } | { none: true } | { malformed: true };

const BEARER = /^Bearer +(\S+) *$/i;
const BEARER_SCHEME = /^\s*bearer(\s|$)/i;

function headerOf(input: Exclude<ApiKeyInput, string | null | undefined>, name: string): string | string[] | undefined {
  const headers = input instanceof Headers ? input : input.headers;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  if (typeof headers !== "object" || headers === null) return undefined;
  return headers[name];
}

/**
 * The key of an `Authorization` value: its token under the Bearer scheme; null for another scheme;
 * undefined for a Bearer value that is not one token (two joined, a space inside): malformed.
 */
function bearerOf(value: string): string | undefined | null {
  const match = BEARER.exec(value);
  if (match) return match[1] as string;
  return BEARER_SCHEME.test(value) ? undefined : null;
}

/** Whether a Node.js request's `rawHeaders` name `name` more than once (Node.js keeps one `Authorization` in `headers`). */
function repeatedRaw(input: object, name: string): boolean {
  const raw = (input as { rawHeaders?: unknown }).rawHeaders;
  if (!Array.isArray(raw)) return false;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (typeof raw[i] === "string" && (raw[i] as string).toLowerCase() === name && ++seen > 1) return true;
  }
  return false;
}

/** The key `input` presents. */
export function presentedKey(input: ApiKeyInput): Presented {
  if (input === null || input === undefined) return { none: true };
  let authorization: string | string[] | undefined;
  let apiKey: string | string[] | undefined;
  if (typeof input === "string") {
    authorization = /^bearer /i.test(input) ? input : undefined;
    apiKey = authorization === undefined ? input : undefined;
  } else if (typeof input === "object") {
    if (repeatedRaw(input, "authorization") || repeatedRaw(input, "x-api-key")) return { malformed: true };
    authorization = headerOf(input, "authorization");
    apiKey = headerOf(input, "x-api-key");
  } else {
    return { malformed: true };
  }
  if (Array.isArray(authorization) || Array.isArray(apiKey)) return { malformed: true };
  const fromAuthorization = authorization === undefined ? null : bearerOf(authorization);
  if (fromAuthorization === undefined) return { malformed: true };
  // Another scheme (Basic, a session's Bearer JWT is still Bearer) is not an API key: no key.
  const fromHeader = apiKey === undefined || apiKey === "" ? undefined : apiKey.trim();
  // Two values joined into one (a Web `Headers`, Node.js's join of a repeated header): no key has a comma.
  if (fromHeader?.includes(",")) return { malformed: true };
  const keys = [fromAuthorization, fromHeader].filter((k): k is string => typeof k === "string");
  if (keys.length === 0) return { none: true };
  if (keys.length === 2 && keys[0] !== keys[1]) return { malformed: true };
  const key = keys[0] as string;
  if (key.length > MAX_KEY_LENGTH) return { malformed: true };
  return { key };
}
