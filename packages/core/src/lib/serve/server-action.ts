/**
 * Sign-in, sign-out and session update called by the application on the server (a Next.js Server
 * Action, a SvelteKit form action): each is one POST through the pipeline on the application's
 * behalf, in raw mode, so a wrong password reaches the caller as `CredentialsSignin`. The
 * framework package gives the request's headers and where it arrived, delivers the answer's
 * cookies and redirects with its own function.
 *
 * CSRF: a form posting to `<basePath>/callback/credentials` proves itself with the double-submit
 * token. A server-side call has no such token; its proof is where it came from, checked here
 * whatever the framework's own check allows and wherever the call is made from: a request from
 * another origin or site (`Sec-Fetch-Site` `cross-site` or `same-site`, an `Origin` whose scheme,
 * host or port is not the application's, `Origin: null`) is refused with `MissingCSRF` before
 * anything is posted. Only a request that proved its origin (a matching `Origin`, or
 * `Sec-Fetch-Site: same-origin`) has the pipeline's token minted for the internal request, so the
 * pipeline's own check still runs, and passes only here. A request with neither header proves
 * nothing (every browser of the last years sends `Origin` on a POST): it must carry the pipeline's
 * token itself (`csrfToken` in the form or the options, with the CSRF cookie), as a form posted to
 * the pipeline's own routes does; without one it is refused with `MissingCSRF`.
 *
 * One exception: a credentials sign-in the application makes with no field of its own
 * (`signIn("guest")`: nothing but where to go next) may run for a request from anywhere, as
 * long as the browser holds no live session. Login CSRF needs the other site to choose the
 * account the browser ends up in; with no field, the provider alone decides who signs in (a new
 * guest), so a link from another site, a link preview or a monitor may start it. It never
 * replaces a live session (that would sign the user out from another site), and any field (a
 * password, an address) keeps the rule above.
 */

import type { ResponseInternal } from "../../shapes/data.js";
import { MissingCSRF } from "../base/errors.js";
import { escapeForLog } from "../base/logger.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { arrivalOf } from "../http/origin.js";
import { clientAddressFrom, formRecord, type HeaderReader } from "../http/request.js";
import { liveSessionOf, readSession } from "../session/read.js";
import { requireCsrf } from "./csrf-check.js";
import { type IncomingRequest, type SessionRequest, serve, sessionCookieOf } from "./pipeline.js";

type Cookie = NonNullable<ResponseInternal["cookies"]>[number];

/** Where a request arrived, as the framework described it. */
export interface Arrival {
  protocol: string;
  host: string | null;
  /** The framework applied its own proxy setting (`IncomingRequest.arrivalDecided`). */
  arrivalDecided?: boolean;
}

/** A server-side call: the configuration, its environment, the request and the cookie delivery. */
export interface ServerCall {
  config: AuthConfig;
  env: Env;
  /** The headers of the request the call runs for. */
  headers: Headers;
  where: Arrival;
  /** The client's address as the framework knows it, for per-client rate limits (`clientAddress` wins). */
  clientIp?: string;
  /** Delivers the cookies of the pipeline's answer (a framework's cookie store, its response). */
  deliver(cookies: Cookie[]): void;
  /**
   * Why the answer's cookies cannot be delivered, when the framework knows it before the call
   * (Next.js's read-only cookie store while a Server Component renders): the call is refused with
   * this message before the pipeline runs, so no session is created, no email sent and no attempt
   * counted. A store that turns read-only later is `deliver`'s to refuse.
   */
  undeliverable?: string;
}

/** A server-side call that passed `beginServerCall`'s checks. */
export interface CheckedServerCall extends ServerCall {
  /** The request proved it came from this origin (`Origin`, `Sec-Fetch-Site`). */
  proven: boolean;
  /**
   * Another site or origin made the request: why (the `MissingCSRF` every call but a fieldless
   * sign-in is refused with, before anything is posted).
   */
  crossSite?: string;
}

/** The headers of the request a call runs for, less those the internal request sets. */
const notForwarded = new Set(["cookie", "content-type", "content-length", "x-auth-return-redirect", "host"]);

/** The origin URLs are built from: `AUTH_URL`'s, else the request's. */
export function originOf(where: Arrival, env: Env): string {
  if (env.AUTH_URL) return new URL(env.AUTH_URL).origin;
  const scheme = where.protocol.endsWith(":") ? where.protocol : `${where.protocol}:`;
  return `${scheme}//${where.host ?? "localhost"}`;
}

/** The serialised origin of a URL, or undefined for none (`null`, garbage). */
function parsedOrigin(value: string): string | undefined {
  try {
    const { origin } = new URL(value);
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * The CSRF check of a server-side call (see the module's comment). A request another site made
 * is refused: `Sec-Fetch-Site` `cross-site` or `same-site` (a sibling subdomain is another
 * origin), or an `Origin` that is not this application's whole origin (scheme, host and port;
 * `AUTH_URL`'s when it is set, else the one the request arrived at). Returns whether the request
 * proved it came from this origin: a request with neither header (a non-browser client, a browser
 * too old to send them) proves nothing and must carry the pipeline's CSRF token itself.
 */
function sameOrigin(h: HeaderReader, where: Arrival, env: Env): Pick<CheckedServerCall, "proven" | "crossSite"> {
  const site = h.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none")
    return {
      proven: false,
      crossSite: `A server-side call (sign-in, sign-out, session update, password account) came from a ${site} request`,
    };
  const origin = h.get("origin");
  if (origin === null) return { proven: site !== null };
  const expected = parsedOrigin(originOf(where, env));
  if (expected === undefined || parsedOrigin(origin) !== expected)
    return {
      proven: false,
      crossSite: `A server-side call (sign-in, sign-out, session update, password account) came from the origin ${escapeForLog(origin)}`,
    };
  return { proven: true };
}

/**
 * Checks a server-side call before anything runs: a configuration that resolves (its error, such
 * as `MissingSecret`, is thrown), a trusted host (`UntrustedHost`), a request another site did not
 * make (`MissingCSRF`). Returns the call, marked with whether the request proved its origin.
 *
 * @example
 * ```ts
 * const call = beginServerCall({ config, env, headers: request.headers, where, deliver: (c) => write(c) })
 * ```
 */
export function beginServerCall(call: ServerCall): CheckedServerCall {
  const { headers } = call;
  const { resolved } = sessionCookieOf({ ...call.where, headers, cookieHeader: null }, call.config, { env: call.env });
  // Decided once, as the pipeline decides it (a proxy's header under `trustProxy`): the internal
  // requests, the origin check and the account functions all read this arrival, never again the headers.
  const arrived = arrivalOf(resolved, { ...call.where, headers });
  const where: Arrival = { protocol: arrived.protocol, host: arrived.host ?? null, arrivalDecided: true };
  return { ...call, where, ...sameOrigin(headers, where, call.env) };
}

/** Headers given as a record, readable by the pipeline and as a Web `Headers`. */
function readerOf(entries: Record<string, string | undefined>): HeaderReader & { toHeaders(): Headers } {
  return {
    get: (name) => entries[name.toLowerCase()] ?? null,
    toHeaders: () => {
      const h = new Headers();
      for (const [name, value] of Object.entries(entries)) if (value !== undefined) h.set(name, value);
      return h;
    },
  };
}

/**
 * A request the application makes of the pipeline itself (its session, a server action's
 * sign-in): `path` under the base path, with only the headers given.
 *
 * @example
 * ```ts
 * await serve(internalRequest(config, where, "GET", "/session", { cookie }), config, { env })
 * ```
 */
export function internalRequest(
  config: AuthConfig,
  where: Arrival,
  method: "GET" | "POST",
  path: string,
  headers: Record<string, string | undefined>,
  body?: Record<string, unknown>,
): IncomingRequest {
  const reader = readerOf(headers);
  return {
    method,
    path: `${config.basePath}${path}`,
    protocol: where.protocol,
    host: where.host,
    arrivalDecided: where.arrivalDecided,
    headers: reader,
    body: async () => body,
    webHeaders: () => reader.toHeaders(),
  };
}

/** The `name=value` parts of a `Cookie` header, less every one named `name`. */
function without(header: string | null, name: string): string[] {
  if (!header) return [];
  return header.split(";").filter((part) => {
    const eq = part.indexOf("=");
    return (eq === -1 ? part : part.slice(0, eq)).replace(/^[ \t]+|[ \t]+$/g, "") !== name;
  });
}

/**
 * The CSRF proof of a server-side call, checked before anything runs: a request that proved its
 * origin gets a token minted for it (and the `Cookie` header it verifies against); one that did
 * not must have submitted a token (the pipeline, or `checkCsrf`, then checks it against the
 * browser's CSRF cookie), else `MissingCSRF`. A call whose cookies cannot be delivered is refused.
 */
async function csrfOfCall(
  call: CheckedServerCall,
  submitted: unknown,
  fromAnywhere = false,
): Promise<{ cookie: string | null; csrfToken: unknown }> {
  const { config, where, env } = call;
  if (call.undeliverable) throw new Error(call.undeliverable);
  if (call.crossSite && !fromAnywhere) throw new MissingCSRF(call.crossSite);
  const cookieHeader = call.headers.get("cookie");
  if (!call.proven && !fromAnywhere) {
    if (typeof submitted !== "string" || !submitted) {
      throw new MissingCSRF(
        "A server-side call (sign-in, sign-out, session update, password account) came with neither Origin nor Sec-Fetch-Site, and without the CSRF token (csrfToken) that would stand in for them",
      );
    }
    return { cookie: cookieHeader, csrfToken: submitted };
  }
  const csrf = await serve(
    internalRequest(config, where, "GET", "/csrf", { cookie: cookieHeader ?? undefined }),
    config,
    { env },
  );
  const csrfToken = (csrf.body as { csrfToken?: string } | null)?.csrfToken;
  const minted = csrf.cookies?.[0];
  // The minted cookie replaces the browser's own (one that no longer verifies, which is why one
  // was minted): the pipeline reads a name sent twice as no cookie at all.
  const cookie = minted
    ? [`${minted.name}=${minted.value}`, ...without(cookieHeader, minted.name)].join("; ")
    : cookieHeader;
  return { cookie, csrfToken };
}

/** The client's address: the application's `clientAddress` wins (a Request is built for it only when set). */
function clientAddressOfCall(call: CheckedServerCall, path: string): string | undefined {
  const { config, where, env } = call;
  const url = `${originOf(where, env)}${config.basePath}${path}`;
  const given = config.clientAddress
    ? clientAddressFrom(config, new Request(url, { headers: call.headers }))
    : undefined;
  return given ?? call.clientIp;
}

/** A password-account call of a server action, checked (see {@link accountsServerCall}). */
export interface AccountsServerCall {
  /** What the functions of `@latchkey/core/accounts` take: where it arrived and its cookies. */
  request: SessionRequest;
  /** The CSRF token to give `changePassword` (minted for a request that proved its origin). */
  csrfToken: unknown;
  /** The client's address, for the accounts' per-client limits. */
  clientAddress: string | undefined;
  /** Delivers a result's cookies (`result.cookies`). */
  deliver(cookies: Cookie[]): void;
}

/**
 * Checks a password-account call of a server action (sign-up, verification, reset request, reset,
 * change) with the rule of every server-side call (see the module's comment): refused with
 * `MissingCSRF` when another site or origin made it, and, when the request proved nothing
 * (neither `Origin` nor `Sec-Fetch-Site`), unless it submitted the pipeline's CSRF token with its
 * cookie. Returns what the functions of `@latchkey/core/accounts` take.
 *
 * @example
 * ```ts
 * const a = await accountsServerCall(beginServerCall(call), form.get("csrfToken"))
 * const result = await signUp(a.request, config, accounts, { email, password, clientAddress: a.clientAddress })
 * if (result.ok) a.deliver(result.cookies)
 * ```
 */
export async function accountsServerCall(call: CheckedServerCall, submitted: unknown): Promise<AccountsServerCall> {
  const { cookie, csrfToken } = await csrfOfCall(call, submitted);
  const request: SessionRequest = { ...call.where, cookieHeader: cookie };
  // Unproven: the submitted token must match the browser's CSRF cookie, whatever the function
  // called (changePassword checks it again; the others take no token of their own).
  if (!call.proven) {
    const { resolved, cookie, cookies } = sessionCookieOf(request, call.config, { env: call.env });
    requireCsrf(resolved, cookie, cookies, csrfToken, "A password-account server action");
  }
  return {
    request,
    csrfToken,
    clientAddress: clientAddressOfCall(call, "/accounts"),
    deliver: (cookies) => {
      if (cookies.length) call.deliver(cookies);
    },
  };
}

/**
 * Posts `body` to `path` through the pipeline in raw mode, and delivers the cookies of the answer.
 * A request that proved its origin is given a CSRF token minted for this one request; one that did
 * not must have submitted the pipeline's own (`submitted`), checked by the pipeline against the
 * browser's CSRF cookie, else `MissingCSRF` is thrown. A call whose cookies cannot be delivered
 * (`undeliverable`) is refused first.
 *
 * @example
 * ```ts
 * const res = await postServerCall(call, "/session", { data }, "application/json")
 * ```
 */
export async function postServerCall(
  call: CheckedServerCall,
  path: string,
  body: Record<string, unknown>,
  contentType: string,
  submitted?: unknown,
  fromAnywhere = false,
): Promise<ResponseInternal> {
  const { config, where, env } = call;
  const { cookie, csrfToken } = await csrfOfCall(call, submitted, fromAnywhere);
  const forwarded: Record<string, string | undefined> = {};
  call.headers.forEach((value, name) => {
    if (!notForwarded.has(name)) forwarded[name] = value;
  });
  const incoming = internalRequest(
    config,
    where,
    "POST",
    path,
    { ...forwarded, host: where.host ?? undefined, cookie: cookie ?? undefined, "content-type": contentType },
    { ...body, csrfToken },
  );
  incoming.clientIp = clientAddressOfCall(call, path);
  const res = await serve(incoming, config, { env, raw: true });
  if (res.cookies?.length) call.deliver(res.cookies);
  return res;
}

/**
 * The fields of a form a server or form action receives, by the one rule of every form read
 * (`formRecord`): the first of a repeated field wins; files are not sign-in fields, nor Next.js's
 * `$ACTION` fields.
 *
 * @example
 * ```ts
 * const { providerId, ...rest } = formFields(await request.formData())
 * ```
 */
export function formFields(form: FormData): Record<string, unknown> {
  return formRecord(form as unknown as Iterable<[string, unknown]>);
}

/** The id and type of a configured provider, as the resolved configuration has it. */
function providerOf(config: AuthConfig, id: string): { id: string; type: string } | undefined {
  for (const p of config.providers) {
    const instance = (typeof p === "function" ? (p as () => unknown)() : p) as {
      id: string;
      type: string;
      options?: { id?: string; type?: string };
    };
    const pid = instance.options?.id ?? instance.id;
    if (pid === id) return { id: pid, type: instance.options?.type ?? instance.type };
  }
  return undefined;
}

/** Whether the browser of a call holds a session that reads live (a store that fails reads as one: nothing is replaced). */
async function holdsLiveSession(call: CheckedServerCall): Promise<boolean> {
  const request = { ...call.where, cookieHeader: call.headers.get("cookie") };
  const { resolved, cookie, cookies } = sessionCookieOf(request, call.config, { env: call.env });
  if (!cookie) return true;
  const read = readSession(resolved, { cookies, cookie, reissue: false });
  const found = read instanceof Promise ? await read : read;
  return found.failed === true || liveSessionOf(resolved, found) !== null;
}

export type SignInAuthorizationParams = string[][] | Record<string, string> | string | URLSearchParams;

/**
 * Signs in on the server: the URL to go to next. Without a known provider, that is the sign-in
 * page (nothing is posted); else the provider's sign-in (or, for credentials, its callback) is
 * posted with the remaining options as fields. A wrong password throws `CredentialsSignin`.
 *
 * @example
 * ```ts
 * redirect(303, await serverSignIn(call, "credentials", { email, password, redirectTo: "/" }))
 * ```
 */
export async function serverSignIn(
  call: CheckedServerCall,
  provider: string | undefined,
  options: Record<string, unknown>,
  authorizationParams?: SignInAuthorizationParams,
): Promise<string> {
  const { config, where, env } = call;
  const { redirect: _redirect, redirectTo, ...rest } = options;
  const callbackUrl = String(redirectTo ?? call.headers.get("referer") ?? "/");
  const found = provider ? providerOf(config, provider) : undefined;
  if (!found) return `${originOf(where, env)}${config.basePath}/signin?${new URLSearchParams({ callbackUrl })}`;
  const query = new URLSearchParams(authorizationParams).toString();
  const path = `/${found.type === "credentials" ? "callback" : "signin"}/${encodeURIComponent(found.id)}${query ? `?${query}` : ""}`;
  const fieldless = found.type === "credentials" && !query && Object.keys(rest).every((key) => key === "csrfToken");
  const fromAnywhere = !call.proven && fieldless && !(await holdsLiveSession(call));
  const res = await postServerCall(
    call,
    path,
    { ...rest, callbackUrl },
    "application/x-www-form-urlencoded",
    rest.csrfToken,
    fromAnywhere,
  );
  return res.redirect ?? `${originOf(where, env)}${config.basePath}${path}`;
}

/**
 * Signs out on the server: the URL to go to next (`redirectTo`, else the page the call came from).
 * `csrfToken` is the pipeline's token the request submitted, needed only by a request that did not
 * prove its origin.
 *
 * @example
 * ```ts
 * redirect(303, await serverSignOut(call, "/"))
 * ```
 */
export async function serverSignOut(
  call: CheckedServerCall,
  redirectTo?: unknown,
  csrfToken?: unknown,
): Promise<string> {
  const callbackUrl = String(redirectTo ?? call.headers.get("referer") ?? "/");
  const res = await postServerCall(call, "/signout", { callbackUrl }, "application/x-www-form-urlencoded", csrfToken);
  return res.redirect ?? callbackUrl;
}

/** What switching the active organization on the server answered: the organization chosen (null: cleared), or why not. */
export type SwitchedOrganization =
  | { ok: true; activeOrganization: { id: string; role: string } | null }
  | {
      ok: false;
      /** 400 not one id, 401 signed out, 404 not an organization of the user's (or none at all). */
      status: number;
      error: "InvalidOrganization" | "SessionRequired" | "OrganizationNotFound";
      message: string;
    };

/**
 * Makes `organizationId` the active organization of the call's signed-in user (`POST
 * <basePath>/organization`, its membership confirmed by the store; empty or null clears it),
 * the cookie delivered through the call. A refusal the user can act on is answered; anything else
 * (the store failing) throws, as the pipeline's other failures do. `csrfToken` as for `serverSignOut`.
 *
 * @example
 * ```ts
 * const switched = await serverSwitchOrganization(call, form.organizationId, form.csrfToken)
 * if (!switched.ok) return fail(switched.status, switched)
 * ```
 */
export async function serverSwitchOrganization(
  call: CheckedServerCall,
  organizationId: unknown,
  csrfToken?: unknown,
): Promise<SwitchedOrganization> {
  const res = await postServerCall(
    call,
    "/organization",
    { organizationId: organizationId ?? "" },
    "application/x-www-form-urlencoded",
    csrfToken,
  );
  const body = (res.body ?? {}) as {
    activeOrganization?: { id: string; role: string } | null;
    error?: unknown;
    message?: unknown;
  };
  const status = res.status ?? 200;
  if (status === 200) return { ok: true, activeOrganization: body.activeOrganization ?? null };
  if (status < 500 && typeof body.error === "string")
    return { ok: false, status, error: body.error as "SessionRequired", message: String(body.message ?? "") };
  throw new Error(`Switching the active organization failed (${status}): ${String(body.message ?? "")}`);
}
