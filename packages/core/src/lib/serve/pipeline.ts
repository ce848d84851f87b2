/**
 * The one request pipeline (ARCHITECTURE §1–2). Every entry point runs it: `Auth()` with a Web
 * `Request`, framework shells with a structural description of their own request. The order is
 * fixed: resolve the configuration, parse the action, decide the origin and whether its host is
 * trusted, read the body, dispatch, and turn every failure into its answer.
 */

import type { CookieOption, ResponseInternal } from "../../shapes/data.js";
import { recordPendingAudit } from "../audit/record.js";
import { UnknownAction, UntrustedHost } from "../base/errors.js";
import { warnOnce } from "../base/logger.js";
import type { AuthConfig } from "../config/options.js";
import { cookiesFor, resolveConfig } from "../config/resolve.js";
import type { Env, ResolvedConfig } from "../config/types.js";
import { parseCookieHeader } from "../http/cookies.js";
import { type ArrivalDescription, arrivalOf, linksMailable } from "../http/origin.js";
import { headerSafeUrl } from "../http/redirect.js";
import {
  BadBody,
  type HeaderReader,
  parseActionPath,
  parseBody,
  parsedForm,
  queryRecord,
  type RequestInternal,
  rebuildRequest,
} from "../http/request.js";
import {
  badRequest,
  configurationErrorResponse,
  handle,
  unparsableRequestResponse,
  unresolvedConfigResponse,
} from "./handler.js";

/**
 * What a framework knows about an incoming request, described structurally so that no Web
 * `Request` has to be built for it.
 */
export interface IncomingRequest {
  method: string;
  /** The path and query as received: `/auth/signin?callbackUrl=...`. */
  path: string;
  /** `http` or `https` (a trailing `:` is allowed). */
  protocol: string;
  /** The `Host` the request names (or a `X-Forwarded-Host` the framework trusts: `arrivalDecided`). */
  host: string | null | undefined;
  headers: HeaderReader;
  /**
   * Reads the body, at most `MAX_BODY_BYTES`: its text, or a record some body parser already
   * made. Called for POST requests only. Rejects with `BadBody` when it cannot be read.
   */
  body(): Promise<string | Record<string, unknown> | undefined>;
  /** The client's address, when the framework knows it (for per-client rate limits). */
  clientIp?: string | null;
  /**
   * The framework took `clientIp` from headers any client can write (Express with
   * `trust proxy: true`): warned about once per configuration.
   */
  clientIpForgeable?: boolean;
  /**
   * The request says `X-Forwarded-Proto: https` but arrived over http from a peer the framework
   * does not trust to say so (Express without `trust proxy`): warned about once per configuration.
   */
  forwardedProtoIgnored?: boolean;
  /** Where the handler is mounted, when the framework decides that (Express's `req.baseUrl`). */
  mountPath?: string;
  /**
   * The framework applied its own proxy setting to `protocol` and `host` (Express's `trust proxy`,
   * Fastify's `trustProxy`, SvelteKit's adapter): the configuration's `trustProxy` is not applied
   * again. Otherwise `protocol` and `host` are what the connection said (`Host`), and the proxy's
   * headers are read only when `trustProxy` names one.
   */
  arrivalDecided?: boolean;
  /** The request's headers as a Web `Headers`, built only if a callback asks for the `Request`. */
  webHeaders(): Headers;
}

/** How an entry point wants the pipeline run. */
export interface ServeOptions {
  /** Return the `ResponseInternal` as the actions made it, and throw client-safe errors (`raw`). */
  raw?: boolean;
  /** Fill unset options from this environment (`AUTH_URL`, `AUTH_SECRET`, ...), as shells do. */
  env?: Env;
}

const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;
const ORIGIN_CACHE_LIMIT = 256;

/** A `Host` that is not `host[:port]`. */
class MalformedHost extends Error {}

/**
 * The origin of a request and whether Latchkey may build URLs from it: the one place that decides
 * it. `AUTH_URL` wins (then the request's host is never read). Otherwise the host the framework
 * describes, or, behind a proxy the configuration names (`trustProxy`) and when the framework did
 * not apply its own proxy setting, the proxy's header (`lib/origin.ts`). The host must be
 * `host[:port]`; it is trusted for the answers to this request when the configuration says so
 * (`trustHost`, `AUTH_TRUST_HOST`), or its origin is one of `trustedOrigins`, or it is a loopback
 * name; a link mailed to someone is built from it only in the last two cases (`linksMailable`).
 * Validated origins are remembered per configuration (a bounded map) instead of parsed each time.
 */
function originOf(config: ResolvedConfig, request: ArrivalDescription) {
  if (config.url) return { origin: config.url.origin, trusted: true };
  const { protocol, host } = arrivalOf(config, request);
  const scheme = protocol.endsWith(":") ? protocol.slice(0, -1) : protocol;
  const candidate = host || "localhost";
  const key = `${scheme}://${candidate}`;
  const known = config.caches.origins.get(key);
  if (known) return known;
  if ((scheme !== "http" && scheme !== "https") || !HOST.test(candidate))
    throw new MalformedHost(`The Host header ${JSON.stringify(candidate)} is not host[:port]`);
  let url: URL;
  try {
    url = new URL(key);
  } catch {
    throw new MalformedHost(`The Host header ${JSON.stringify(candidate)} is not host[:port]`);
  }
  const entry = { origin: url.origin, trusted: config.trustHost || linksMailable(config, url) };
  const { origins } = config.caches;
  if (origins.size >= ORIGIN_CACHE_LIMIT) {
    const [oldest] = origins.keys();
    if (oldest !== undefined) origins.delete(oldest);
  }
  origins.set(key, entry);
  return entry;
}

/**
 * The request names, in a proxy's header, a host other than its `Host` (Next.js copies `Host`
 * there) or https when it arrived over http: what an unnamed proxy in front would say.
 */
function namesAnotherArrival(incoming: IncomingRequest): boolean {
  const forwardedHost = incoming.headers.get("x-forwarded-host");
  const https = /^\s*https\s*(,|$)/i.test(incoming.headers.get("x-forwarded-proto") ?? "");
  return (
    (!!forwardedHost && forwardedHost !== incoming.host) ||
    (https && !/^https:?$/.test(incoming.protocol)) ||
    incoming.headers.get("forwarded") !== null
  );
}

function untrustedHost(origin: string): UntrustedHost {
  return new UntrustedHost(
    `The host of ${origin} is not trusted, so no link or redirect is built from it. Set AUTH_URL to the application's URL, or list the origins it is served at in \`trustedOrigins\` (AUTH_TRUSTED_ORIGINS), or \`trustHost: true\` (AUTH_TRUST_HOST=true) when a proxy you control sets the Host header (its links are then not mailed).`,
  );
}

/**
 * Applies `X-Auth-Return-Redirect`: a redirect becomes `200 {"url": ...}` without `Location`,
 * its URL made header-safe as the `Location` would be.
 */
function redirectAsJson(res: ResponseInternal): ResponseInternal {
  if (!res.redirect) return res;
  const { redirect, ...rest } = res;
  return {
    ...rest,
    status: 200,
    headers: { ...rest.headers, "Content-Type": "application/json" },
    body: { url: headerSafeUrl(redirect) },
  };
}

/**
 * Runs one request through the pipeline and returns its answer. Every failure becomes a response:
 * an unresolvable configuration (500 or the error page), a request that names no action or has an
 * unreadable body (4xx), an untrusted host (the configuration error), and anything an action
 * throws (its redirect, page or JSON answer). Only with `raw` do client-safe errors reach the
 * caller as exceptions.
 *
 * @example
 * ```ts
 * const response = await serve({ method: "GET", path: "/auth/session", protocol: "https", host, headers, body, webHeaders }, config)
 * ```
 */
export async function serve(
  incoming: IncomingRequest,
  config: AuthConfig,
  options: ServeOptions = {},
): Promise<ResponseInternal> {
  const asJson = incoming.headers.get("x-auth-return-redirect") !== null;
  const finish = (res: ResponseInternal) => (asJson && !options.raw ? redirectAsJson(res) : res);

  let resolved: ResolvedConfig;
  try {
    resolved = resolveConfig(config, options.env);
  } catch (e) {
    const scheme = incoming.protocol.endsWith(":") ? incoming.protocol : `${incoming.protocol}:`;
    let origin = "http://localhost";
    try {
      if (incoming.host && HOST.test(incoming.host)) origin = new URL(`${scheme}//${incoming.host}`).origin;
    } catch {
      // keep the placeholder: the answer only needs an origin for the error page's links
    }
    const [pathname = "", ...query] = incoming.path.split("?");
    const callbackUrl = new URLSearchParams(query.join("?")).get("callbackUrl") ?? undefined;
    return finish(unresolvedConfigResponse(e, config, { method: incoming.method, pathname, origin, callbackUrl }));
  }

  recordPendingAudit(resolved);
  if (incoming.clientIpForgeable) warnOnce(resolved, "trust-proxy-all");
  if (incoming.forwardedProtoIgnored && !resolved.url) warnOnce(resolved, "forwarded-proto-untrusted");
  if (!resolved.url && !resolved.trustProxy && !incoming.arrivalDecided && namesAnotherArrival(incoming))
    warnOnce(resolved, "forwarded-host-ignored");
  let origin: { origin: string; trusted: boolean };
  try {
    origin = originOf(resolved, incoming);
  } catch (e) {
    if (e instanceof MalformedHost) return finish(badRequest(e.message));
    throw e;
  }

  let req: RequestInternal;
  try {
    // A GET is built on this turn; only a POST waits for its body.
    const built = buildRequest(incoming, resolved, origin.origin);
    req = built instanceof Promise ? await built : built;
  } catch (e) {
    const res = unparsableRequestResponse(e, resolved.logger);
    if (res) return finish(res);
    throw e;
  }
  if (!origin.trusted) return finish(configurationErrorResponse(untrustedHost(origin.origin), req, resolved));
  return finish(await handle(req, resolved, { raw: !!options.raw }));
}

/** The base path of this request: the configured one, else the mount path, else `AUTH_URL`'s. */
function basePathOf(incoming: IncomingRequest, config: ResolvedConfig): string {
  if (config.source.basePath !== undefined || incoming.mountPath === undefined) return config.basePath;
  return incoming.mountPath.replace(/\/+$/, "");
}

/**
 * The one builder of the internal request: at hand for a GET, a promise for a POST (its body is
 * read first). Throws `UnknownAction` for methods and paths that are no action and `BadBody` for
 * bodies that cannot be read.
 */
function buildRequest(
  incoming: IncomingRequest,
  config: ResolvedConfig,
  origin: string,
): RequestInternal | Promise<RequestInternal> {
  const method = incoming.method;
  if (method !== "GET" && method !== "POST")
    throw new UnknownAction(`The method ${method} is not supported; use GET or POST`);
  // Joined as text, never resolved as a reference: a path such as `//evil.example/x` stays a path.
  if (!incoming.path.startsWith("/")) throw new UnknownAction("The request path must start with /");
  const url = new URL(`${origin}${incoming.path}`);
  const basePath = basePathOf(incoming, config);
  const { action, providerId } = parseActionPath(url.pathname, basePath);
  const parts = { url, method, action, providerId, basePath } as const;
  if (method === "GET") return internalRequest(incoming, parts, undefined);
  return incoming.body().then((read) => {
    const type = incoming.headers.get("content-type");
    if (
      read !== undefined &&
      typeof read !== "string" &&
      (typeof read !== "object" || read === null || Array.isArray(read))
    )
      throw new BadBody("The body must be a form or a JSON object");
    const body = typeof read === "string" ? parseBody(type, read) : read && parsedForm(type, read);
    return internalRequest(incoming, parts, body);
  });
}

/** The internal request of {@link buildRequest}, once its body (a POST's) is read. */
function internalRequest(
  incoming: IncomingRequest,
  parts: Pick<RequestInternal, "url" | "method" | "action" | "providerId" | "basePath">,
  body: Record<string, unknown> | undefined,
): RequestInternal {
  const { url, method } = parts;
  return {
    ...parts,
    query: queryRecord(url),
    body,
    cookies: parseCookieHeader(incoming.headers.get("cookie")),
    headers: incoming.headers,
    returnRedirectAsJson: incoming.headers.get("x-auth-return-redirect") !== null,
    clientIp: incoming.clientIp ?? undefined,
    toRequest: () => rebuildRequest(url, method, incoming.webHeaders(), body),
  };
}

/** What the session read needs of a request: where it arrived and its `Cookie` header. */
export interface SessionRequest {
  protocol: string;
  host: string | null | undefined;
  cookieHeader: string | null | undefined;
  /** The request's headers, read for a proxy's (`trustProxy`) unless `arrivalDecided`. */
  headers?: HeaderReader;
  /** As {@link IncomingRequest.arrivalDecided}. */
  arrivalDecided?: boolean;
}

/**
 * The {@link SessionRequest} of a fetch `Request` (where the runtime has them); the fields of one
 * as they are.
 *
 * @example
 * ```ts
 * sessionRequestOf(new Request("https://app.example/api", { headers: { cookie } }))
 * // { protocol: "https:", host: "app.example", cookieHeader: cookie }
 * ```
 */
export function sessionRequestOf(request: Request | SessionRequest): SessionRequest {
  if (isFetchRequest(request)) {
    const url = new URL(request.url);
    return {
      protocol: url.protocol,
      host: url.host,
      cookieHeader: request.headers.get("cookie"),
      headers: request.headers,
    };
  }
  return request;
}

/** True for a fetch `Request` (where the runtime has them), not the fields of one. */
function isFetchRequest(request: Request | SessionRequest): request is Request {
  return typeof Request !== "undefined" && request instanceof Request;
}

/**
 * The resolved configuration, the request's cookies, its origin (as `serve` decides it) and the
 * session cookie's name and options for that origin, as the session read
 * (`session/request-read.ts`) reads them (`cookie` and `origin` are null for a malformed host,
 * which has no session). An untrusted host throws `UntrustedHost`.
 *
 * @example
 * ```ts
 * const { resolved, cookie, cookies } = sessionCookieOf({ protocol, host, cookieHeader }, config)
 * const sessionToken = cookie ? cookies[cookie.name] : undefined
 * ```
 */
export function sessionCookieOf(
  request: SessionRequest,
  config: AuthConfig,
  options: Pick<ServeOptions, "env"> = {},
): { resolved: ResolvedConfig; cookie: CookieOption | null; cookies: Record<string, string>; origin: string | null } {
  const resolved = resolveConfig(config, options.env);
  recordPendingAudit(resolved);
  let origin: { origin: string; trusted: boolean };
  try {
    origin = originOf(resolved, request);
  } catch (e) {
    if (e instanceof MalformedHost) return { resolved, cookie: null, cookies: {}, origin: null };
    throw e;
  }
  if (!origin.trusted) throw untrustedHost(origin.origin);
  return {
    resolved,
    cookie: cookiesFor(resolved, origin.origin).sessionToken,
    cookies: parseCookieHeader(request.cookieHeader),
    origin: origin.origin,
  };
}
