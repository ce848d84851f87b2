/**
 * The key a request presents: `Authorization: Bearer <key>` or `X-API-Key: <key>`, read from a
 * Web `Request`, a `Headers`, a Node.js request (`{ headers }`), or a header value the caller
 * already took out. Two different keys in one request, or a header sent twice, is a malformed
 * request, never "the first wins": a proxy and the client must not disagree about which key counted.
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

function headerOf(input: Exclude<ApiKeyInput, string | null | undefined>, name: string): string | string[] | undefined {
  const headers = input instanceof Headers ? input : input.headers;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  if (typeof headers !== "object" || headers === null) return undefined;
  return headers[name];
}

/** The key of an `Authorization` value (the Bearer scheme), undefined for another scheme. */
function bearerOf(value: string): string | undefined | null {
  const match = BEARER.exec(value);
  return match ? (match[1] as string) : null;
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
    authorization = headerOf(input, "authorization");
    apiKey = headerOf(input, "x-api-key");
  } else {
    return { malformed: true };
  }
  if (Array.isArray(authorization) || Array.isArray(apiKey)) return { malformed: true };
  const fromAuthorization = authorization === undefined ? undefined : bearerOf(authorization);
  // Another scheme (Basic, a session's Bearer JWT is still Bearer) is not an API key: no key.
  const fromHeader = apiKey === undefined || apiKey === "" ? undefined : apiKey.trim();
  const keys = [fromAuthorization, fromHeader].filter((k): k is string => typeof k === "string");
  if (keys.length === 0) return { none: true };
  if (keys.length === 2 && keys[0] !== keys[1]) return { malformed: true };
  const key = keys[0] as string;
  if (key.length > MAX_KEY_LENGTH) return { malformed: true };
  return { key };
}
