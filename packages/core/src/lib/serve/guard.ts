import type { ResponseInternal, Session } from "../../shapes/data.js";
import { held, slot } from "../base/application.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import type { Env } from "../config/types.js";
import { withQuery } from "../http/url.js";
import { activeOrganizationOf, organizationsOf } from "../organizations/active.js";
import type { Permission } from "../organizations/roles.js";
import { sessionReadOf } from "../session/request-read.js";
import type { SessionRequest } from "./pipeline.js";

/** What a route guard demands: where to sign in, and how many (or which) methods the user signed in with. */
export interface GuardOptions {
  /** The sign-in page a browser is sent to (default `${basePath}/signin`). */
  signInPage?: string;
  /** Distinct sign-in methods the session must have recorded (default 1; 2 demands a second factor). */
  factors?: number;
  /** Sign-in methods (`amr`) the session must each have recorded. */
  amr?: string[];
  /** Where a browser whose session lacks a factor is sent (else it gets 403 JSON). */
  factorPage?: string;
  /**
   * Demand an active organization (`session.activeOrganization`, its membership read from the
   * store on this request): without one, `403 {"error":"OrganizationRequired"}`. Implied by
   * `role` and `permission`. Needs `organizations` in the configuration.
   */
  organization?: boolean;
  /** The role (or one of the roles) the user must hold in the active organization; else `403 {"error":"Forbidden"}`. */
  role?: string | readonly string[];
  /** A permission the user's role in the active organization must grant (`roles.can`); else `403 {"error":"Forbidden"}`. */
  permission?: Permission;
}

/** A request as a guard reads it: where it arrived, its cookies, its `Accept` header and its URL. */
export interface GuardRequest extends SessionRequest {
  accept: string | null | undefined;
  /** The path and query the request asked for, the `callbackUrl` of a redirect. */
  url: string;
  /**
   * Where the framework found the handler mounted: the sign-in page is under it unless the
   * configuration sets `basePath` (as the handler itself decides its base path).
   */
  mountPath?: string;
}

/**
 * Where an application's handlers served, kept with the application (`lib/base/application.ts`)
 * so that every copy of this module finds it (a bundler makes one per server layer, an application
 * may install a framework package and core twice): the mount of each configuration object that served.
 */
const mounts = slot("handler-mounts", () => new WeakMap<AuthConfig, string>());

/** The mounts of `config`'s application; undefined when the configuration cannot be resolved (its requests say why). */
function mountsOf(config: AuthConfig) {
  try {
    return held(resolveConfig(config).application, mounts);
  } catch {
    return undefined;
  }
}

/**
 * Remembers where a framework's handler of `config` served a request (the mount it arrived
 * under), for the `requireAuth` of the same application: its sign-in page is there when the
 * configuration names no `basePath`. Every framework that decides the mount (Express, Hono) notes it.
 *
 * @example
 * ```ts
 * noteMount(config, incoming.mountPath) // in the handler
 * guard(config)({ ...request, mountPath: mountNoted(config) })
 * ```
 */
export function noteMount(config: AuthConfig, mountPath: string | undefined): void {
  if (mountPath === undefined) return;
  const noted = mountsOf(config);
  if (!noted) return;
  if (noted.get(config) !== mountPath) noted.set(config, mountPath);
}

/** The mount the handler of `config` last served a request under, in any copy of this module (see {@link noteMount}). */
export function mountNoted(config: AuthConfig): string | undefined {
  return mountsOf(config)?.get(config);
}

/**
 * The decision of `requireAuth` for any framework: the session when the request is signed in
 * with what `options` demand; otherwise the answer to send. A browser (one that accepts HTML) is
 * redirected to sign in (or to `factorPage` when a factor is missing) with its URL as
 * `callbackUrl`; another client gets `401 {"error":"SessionRequired"}` or
 * `403 {"error":"SecondFactorRequired"}`. The options are checked when the guard is made.
 *
 * @example
 * ```ts
 * const check = guard(config, { factors: 2 })
 * const result = await check({ protocol, host, cookieHeader, accept: req.headers.accept, url: req.url }, { env: process.env })
 * if ("response" in result) writeNodeResponse(res, result.response)
 * ```
 */
export function guard(config: AuthConfig, options: GuardOptions = {}) {
  const factors = options.factors ?? 1;
  const required = options.amr ?? [];
  if (!Number.isInteger(factors) || factors < 1)
    throw new TypeError("requireAuth: `factors` must be an integer >= 1 (2 demands a second factor).");
  const inOrganization = organizationDemand(config, options);
  return async function check(
    request: GuardRequest,
    env: { env?: Env } = {},
  ): Promise<{ session: Session; response?: undefined } | { session?: undefined; response: ResponseInternal }> {
    // The one read (never throws): a cookie that is not a live session comes back as its deletion.
    const { session, amr = [], cookies } = await sessionReadOf(request, config, { env: env.env, reissue: false });
    // The configured base path, else the mount, else AUTH_URL's path or "/auth" (as served).
    const basePath =
      config.basePath !== undefined || request.mountPath === undefined
        ? configuredBasePath(config, env.env)
        : request.mountPath.replace(/\/+$/, "");
    const signInPage = options.signInPage ?? `${basePath}/signin`;
    const browser = /\btext\/html\b/.test(request.accept ?? "");
    const callbackUrl = new URLSearchParams({ callbackUrl: request.url });
    if (!session?.user) {
      const clear = cookies.length ? { cookies } : {};
      if (browser) return { response: { redirect: withQuery(signInPage, callbackUrl), ...clear } };
      const body = { error: "SessionRequired", message: "Sign in to use this resource." };
      return { response: { status: 401, body, ...clear } };
    }
    // One factor is what every session has, recorded or not; more must be recorded.
    if (!((factors === 1 || new Set(amr).size >= factors) && required.every((m) => amr.includes(m)))) {
      if (browser && options.factorPage) return { response: { redirect: withQuery(options.factorPage, callbackUrl) } };
      const body = { error: "SecondFactorRequired", message: "Sign in with a second factor to use this resource." };
      return { response: { status: 403, body } };
    }
    if (!inOrganization) return { session };
    const refusal = inOrganization(activeOrganizationOf(session));
    return refusal ? { response: { status: 403, body: refusal } } : { session };
  };
}

/**
 * What `organization`, `role` and `permission` demand of the session's active organization (read
 * from the store by the session read): a check that answers the refusal's body, or nothing to
 * check. Throws a `TypeError` naming the fix when the configuration has no `organizations`, or a
 * role named is not declared.
 */
function organizationDemand(
  config: AuthConfig,
  options: GuardOptions,
): ((active: { id: string; role: string } | null) => { error: string; message: string } | null) | null {
  const { organization, role, permission } = options;
  if (!organization && role === undefined && permission === undefined) return null;
  const organizations = organizationsOf(config);
  if (!organizations) {
    throw new TypeError(
      "requireAuth: `organization`, `role` and `permission` need `organizations: { store, roles }` in the configuration (the store and roles given to `Organizations`).",
    );
  }
  const { roles } = organizations;
  const allowed = role === undefined ? null : typeof role === "string" ? [role] : [...role];
  for (const name of allowed ?? []) {
    if (!roles.has(name))
      throw new TypeError(`requireAuth: the role ${JSON.stringify(name)} is not declared by defineRoles`);
  }
  if (permission !== undefined && (typeof permission !== "string" || !permission.includes(":"))) {
    throw new TypeError('requireAuth: `permission` is "resource:action", e.g. "project:delete"');
  }
  return (active) => {
    if (!active) {
      return {
        error: "OrganizationRequired",
        message: "Choose an organization you are a member of to use this resource.",
      };
    }
    if (
      (allowed && !allowed.includes(active.role)) ||
      (permission !== undefined && !roles.can(active.role, permission))
    ) {
      return { error: "Forbidden", message: "Your role in this organization does not allow this." };
    }
    return null;
  };
}

/** The base path the handler serves under; a configuration that cannot be resolved (logged by the read) has its own or "/auth". */
function configuredBasePath(config: AuthConfig, env: Env | undefined): string {
  try {
    return resolveConfig(config, env).basePath;
  } catch {
    return config.basePath ?? "/auth";
  }
}
