/**
 * The authorization server's one way in and out: a request's parameters read once, with the rules
 * of OAuth (a parameter sent twice is an error, RFC 6749 §3.1; an empty one is absent), and its
 * answers: JSON that no cache keeps (RFC 6749 §5.1), OAuth errors (§5.2), redirects and pages.
 */
import type { ResponseInternal } from "../../shapes/data.js";
import type { BadBody, HeaderReader } from "../http/request.js";
import type { IncomingRequest } from "../serve/pipeline.js";

/** An OAuth error answered as JSON: `{ error, error_description }` with its status. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

/** Names that may be repeated: resource indicators (RFC 8707 §2). */
const REPEATABLE = new Set(["resource"]);
/** The longest value a parameter may have: no OAuth parameter needs more. */
const MAX_VALUE = 4096;

/** A request's parameters (the query, or a form body), read by the rules of OAuth. */
export class Params {
  readonly #values: Map<string, string[]>;

  constructor(values: Map<string, string[]>) {
    this.#values = values;
  }

  static empty(): Params {
    return new Params(new Map());
  }

  static fromSearch(search: URLSearchParams): Params {
    const values = new Map<string, string[]>();
    for (const [name, value] of search) {
      // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
      if (value === "") continue;
      values.set(name, [...(values.get(name) ?? []), value]);
    }
    return new Params(values);
  }

  /** A body some parser already made (Express's `urlencoded`): strings, or lists of them for repeats. */
  static fromRecord(record: Record<string, unknown>): Params {
    const values = new Map<string, string[]>();
    for (const [name, value] of Object.entries(record)) {
      const list = Array.isArray(value) ? value : [value];
      if (!list.every((v) => typeof v === "string"))
        throw new OAuthError("invalid_request", `The parameter ${name} is not a string`);
      const present = list.filter((v) => v !== "");
      if (present.length) values.set(name, present);
    }
    return new Params(values);
  }

  /** The one value of `name`, or undefined; a repeated or oversized parameter is `invalid_request`. */
  one(name: string): string | undefined {
    const values = this.#values.get(name);
    if (!values) return undefined;
    if (values.length > 1) throw new OAuthError("invalid_request", `The parameter ${name} was sent more than once`);
    const [value = ""] = values;
    if (value.length > MAX_VALUE) throw new OAuthError("invalid_request", `The parameter ${name} is too long`);
    return value;
  }

  /** Every value of a repeatable parameter (`resource`). */
  all(name: string): string[] {
    if (!REPEATABLE.has(name)) {
      const value = this.one(name);
      return value === undefined ? [] : [value];
    }
    const values = this.#values.get(name) ?? [];
    if (values.length > 10) throw new OAuthError("invalid_request", `Too many ${name} parameters`);
    if (values.some((v) => v.length > MAX_VALUE))
      throw new OAuthError("invalid_request", `A ${name} parameter is too long`);
    return values;
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }
}

/** A request as the endpoints read it. */
export interface ServerRequest {
  method: string;
  url: URL;
  headers: HeaderReader;
  /** The query's parameters. */
  query: Params;
  /** A POST's form parameters (empty for other methods). */
  body: Params;
  /** The parameters of the request: the query for GET, the form for POST. */
  params: Params;
  cookieHeader: string | null;
  clientIp?: string;
}

/**
 * Reads `incoming` at `url`: its query, and for a POST its form body (another content type is
 * `invalid_request`; an unreadable or oversized body its 4xx).
 */
export async function readRequest(incoming: IncomingRequest, url: URL): Promise<ServerRequest> {
  const query = Params.fromSearch(url.searchParams);
  let body = Params.empty();
  if (incoming.method === "POST") {
    const read = await incoming.body();
    if (typeof read === "string") {
      const type = incoming.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
      if (read !== "" && type !== "application/x-www-form-urlencoded")
        throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded");
      body = Params.fromSearch(new URLSearchParams(read));
    } else if (read !== undefined) {
      body = Params.fromRecord(read);
    }
  }
  return {
    method: incoming.method,
    url,
    headers: incoming.headers,
    query,
    body,
    params: incoming.method === "POST" ? body : query,
    cookieHeader: incoming.headers.get("cookie"),
    clientIp: incoming.clientIp ?? undefined,
  };
}

/** Headers of every JSON answer: never stored by any cache (RFC 6749 §5.1). */
const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };

/** Cross-origin reads for browser clients (public clients call the token endpoint from their origin); never with credentials. */
export const corsHeaders = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, DPoP",
  "Access-Control-Allow-Methods": "GET, POST",
  "Access-Control-Max-Age": "600",
};

/** A JSON answer that no cache keeps. */
export function json(
  body: Record<string, unknown>,
  status = 200,
  headers: Record<string, string> = {},
): ResponseInternal {
  return { status, headers: { "Content-Type": "application/json", ...noStore, ...headers }, body };
}

/** The answer of an {@link OAuthError}. */
export function errorAnswer(error: OAuthError, headers: Record<string, string> = {}): ResponseInternal {
  return json({ error: error.error, error_description: error.description }, error.status, {
    ...headers,
    ...error.headers,
  });
}

/** The answer to a body that could not be read: its 4xx, as an OAuth error. */
export function badBodyAnswer(error: BadBody): ResponseInternal {
  return json({ error: "invalid_request", error_description: error.message }, error.status);
}

/**
 * A 302 to `url` (followed with GET, a POST's included), kept out of caches and sending no
 * `Referer`: an authorization response's code must not leak to the next page's requests.
 */
export function redirect(url: string, cookies?: ResponseInternal["cookies"]): ResponseInternal {
  return { redirect: url, headers: { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" }, cookies };
}

/** Space-delimited scope values (RFC 6749 §3.3), each once. */
export function scopesOf(value: string | undefined): string[] {
  if (value === undefined) return [];
  return [...new Set(value.split(" ").filter((s) => s !== ""))];
}
