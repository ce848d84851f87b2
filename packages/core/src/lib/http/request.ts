import type { AuthAction } from "../../shapes/data.js";
import { UnknownAction } from "../base/errors.js";
import type { AuthConfig } from "../config/options.js";
import { readCapped } from "./read-capped.js";

/** Reads request headers, whatever their source (a `Headers` object or Node's header record). */
export interface HeaderReader {
  get(name: string): string | null;
}

/** The one internal form of a request, built once at the boundary (ARCHITECTURE §2). */
export interface RequestInternal {
  /** The full URL of the request. */
  url: URL;
  method: "GET" | "POST";
  action: AuthAction;
  providerId?: string;
  /** The base path this request was served under (the configured one, or the framework's mount path). */
  basePath: string;
  query: Record<string, string>;
  body?: Record<string, unknown>;
  cookies: Record<string, string>;
  headers: HeaderReader;
  /** `X-Auth-Return-Redirect` was sent: answer a redirect with `200 {"url": ...}`. */
  returnRedirectAsJson: boolean;
  /** The client's IP address, when the framework knows it. */
  clientIp?: string;
  /** A Web `Request` for callbacks that receive one (`authorize`); built on demand. */
  toRequest(): Request;
}

const actions: ReadonlySet<string> = new Set<AuthAction>([
  "callback",
  "csrf",
  "error",
  "organization",
  "providers",
  "session",
  "signin",
  "signout",
  "verify-request",
  "webauthn-options",
]);

/**
 * True when `action` names one of the actions of spec §4.
 *
 * @example
 * ```ts
 * isAuthAction("signin") // true
 * isAuthAction("admin")  // false
 * ```
 */
export function isAuthAction(action: string): action is AuthAction {
  return actions.has(action);
}

const withProvider: ReadonlySet<string> = new Set(["signin", "callback", "webauthn-options"]);
const PROVIDER_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Splits `<basePath>/<action>[/<providerId>]`. Anything else (another prefix, an unknown action,
 * a provider id on an action that takes none, extra segments) is an `UnknownAction`.
 */
export function parseActionPath(pathname: string, basePath: string): { action: AuthAction; providerId?: string } {
  if (!pathname.startsWith(`${basePath}/`))
    throw new UnknownAction(`${pathname} is not under the base path ${basePath || "/"}`);
  // The sign-in page's WebAuthn script; a provider id can never contain the ".".
  if (pathname === `${basePath}/webauthn-script.js`)
    return { action: "webauthn-options", providerId: "webauthn-script.js" };
  const segments = pathname.slice(basePath.length + 1).split("/");
  if (segments.at(-1) === "") segments.pop();
  const [action, providerId, ...rest] = segments;
  if (!action || !isAuthAction(action) || rest.length > 0) throw new UnknownAction(`${pathname} names no action`);
  // `signIn()` of Auth.js's framework clients without a provider posts to `/signin/undefined`.
  if (action === "signin" && providerId === "undefined") return { action };
  if (providerId !== undefined) {
    if (!withProvider.has(action)) throw new UnknownAction(`The ${action} action takes no provider`);
    let decoded: string;
    try {
      decoded = decodeURIComponent(providerId);
    } catch {
      throw new UnknownAction("Malformed provider id");
    }
    if (!PROVIDER_ID.test(decoded)) throw new UnknownAction("Malformed provider id");
    return { action, providerId: decoded };
  }
  return { action };
}

/** Form and JSON bodies of auth requests are small; larger ones are refused unread. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A body that cannot be read: too large, or not the JSON / form it claims to be. */
export class BadBody extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 | 415 = 400,
  ) {
    super(message);
  }
}

/** Parses a request body by its content type into a flat record. */
export function parseBody(contentType: string | null, text: string): Record<string, unknown> | undefined {
  if (!text) return undefined;
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new BadBody("The JSON body could not be parsed");
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new BadBody("The JSON body must be an object");
    return parsed as Record<string, unknown>;
  }
  if (type === "application/x-www-form-urlencoded") return formRecord(new URLSearchParams(text));
  return undefined;
}

/**
 * The one rule for a field a form repeats, everywhere a form is read (the pipeline, server and
 * form actions, the account functions of every framework): the first value wins, and the later
 * ones are never seen. A form is text fields only: a file is not a field, nor Next.js's `$ACTION`
 * ones.
 *
 * @example
 * ```ts
 * formRecord(new URLSearchParams("csrfToken=a&csrfToken=b")) // { csrfToken: "a" }
 * formRecord(await request.formData())
 * ```
 */
export function formRecord(entries: Iterable<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries)
    if (typeof value === "string" && !key.startsWith("$ACTION") && !Object.hasOwn(out, key)) out[key] = value;
  return out;
}

/**
 * A form a framework's body parser already read, under the rule of {@link formRecord}: a field
 * the parser made a list of (`express.urlencoded()` does for a repeated name) is its first value.
 * A JSON body is its own and is kept as it is.
 *
 * @example
 * ```ts
 * parsedForm("application/x-www-form-urlencoded", { csrfToken: ["a", "b"] }) // { csrfToken: "a" }
 * ```
 */
export function parsedForm(contentType: string | null, parsed: Record<string, unknown>): Record<string, unknown> {
  if (contentType?.split(";")[0]?.trim().toLowerCase() !== "application/x-www-form-urlencoded") return parsed;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) out[key] = Array.isArray(value) ? value[0] : value;
  return out;
}

/** The query as a record; the first of repeated names wins. */
export function queryRecord(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  // No query (a session read, most requests): `searchParams` would be built for nothing.
  if (!url.search) return out;
  for (const [key, value] of url.searchParams) if (!Object.hasOwn(out, key)) out[key] = value;
  return out;
}

/**
 * Reads a Web `Request`'s body as text, refusing more than `MAX_BODY_BYTES` (by its declared
 * length first, then as it streams) with a 413 `BadBody`.
 */
export async function readWebBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > MAX_BODY_BYTES) throw new BadBody("The request body is too large", 413);
  const text = await readCapped(request.body, MAX_BODY_BYTES);
  if (text === null) throw new BadBody("The request body is too large", 413);
  return text;
}

/**
 * A `Request` that is built only when something reads it. `authorize(credentials, request)`
 * receives one on every sign-in, and most implementations never look at it; building it costs
 * more than the rest of the sign-in's parsing. It is still `instanceof Request`.
 */
export function lazyRequest(build: () => Request): Request {
  let real: Request | undefined;
  const target = () => {
    real ??= build();
    return real;
  };
  return new Proxy(Object.create(Request.prototype) as Request, {
    get(_shell, property) {
      const request = target();
      const value = Reflect.get(request, property, request);
      return typeof value === "function" ? value.bind(request) : value;
    },
    has: (_shell, property) => Reflect.has(target(), property),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_shell, property) => Reflect.getOwnPropertyDescriptor(target(), property),
  });
}

/** A `Request` equivalent to an internal one, for callbacks that want the Web object. */
export function rebuildRequest(
  url: URL,
  method: string,
  headers: Headers,
  body: Record<string, unknown> | undefined,
): Request {
  if (method !== "POST") return new Request(url, { method, headers });
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  h.delete("content-length");
  return new Request(url, { method, headers: h, body: JSON.stringify(body ?? {}) });
}

/**
 * The client address the application's `clientAddress` option gives for a Web `Request`; a throw
 * or an empty answer counts as unknown.
 *
 * @example
 * ```ts
 * clientAddressFrom({ ...config, clientAddress: (r) => r.headers.get("fly-client-ip") }, request) // "203.0.113.7"
 * ```
 */
export function clientAddressFrom(
  config: Pick<AuthConfig, "clientAddress">,
  request: Request | (() => Request),
): string | undefined {
  if (typeof config.clientAddress !== "function") return undefined;
  try {
    const address = config.clientAddress(typeof request === "function" ? request() : request);
    return typeof address === "string" && address ? address : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The client address of a request in every framework, by one rule: the application's
 * `clientAddress` option when it is set and answers (it knows its proxies), else the peer the
 * framework names (Express's and Fastify's `request.ip` after their `trust proxy`, SvelteKit's
 * `getClientAddress()`, the socket under Hono), else unknown. `request` is built only for the option.
 *
 * @example
 * ```ts
 * clientAddressOrPeer(config, () => new Request(url, { headers }), req.ip)
 * ```
 */
export function clientAddressOrPeer(
  config: Pick<AuthConfig, "clientAddress">,
  request: Request | (() => Request),
  peer: string | null | undefined,
): string | undefined {
  return clientAddressFrom(config, request) ?? (peer || undefined);
}
