/**
 * Latchkey for Express 4 and 5: mount the actions with `ExpressAuth`, read the session of any
 * request with `getSession`.
 *
 * @example
 * ```ts
 * import express from "express"
 * import { ExpressAuth, getSession } from "@latchkey/express"
 * import GitHub from "@latchkey/express/providers/github"
 *
 * const config = { providers: [GitHub] }          // AUTH_SECRET, AUTH_GITHUB_ID/SECRET from the environment
 * const app = express()
 * app.set("trust proxy", true)                    // only behind a proxy you control
 * app.use("/auth", ExpressAuth(config))
 * app.get("/me", async (req, res) => res.json(await getSession(req, config)))
 * ```
 * @module @latchkey/express
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type AuthConfig, type Session, setEnvDefaults } from "@latchkey/core";
import { UntrustedHost } from "@latchkey/core/errors";
import {
  badRequest,
  cookiesFor,
  handle,
  parseCookieHeader,
  readSession,
  resolveConfig,
  shareRateLimitState,
  unparsableRequestResponse,
  unresolvedConfigResponse,
} from "@latchkey/core/internal";
import { toInternalRequest, writeResponse } from "./convert.js";

export { customFetch, skipCSRFCheck } from "@latchkey/core";
export * from "@latchkey/core/errors";
export type * from "@latchkey/core/types";
export { toInternalRequest, writeResponse } from "./convert.js";

/** The parts of an Express request Latchkey reads (Express 4 and 5 both provide them). */
export interface ExpressRequestLike extends IncomingMessage {
  baseUrl: string;
  originalUrl: string;
  protocol: string;
  body?: unknown;
  params?: Record<string, unknown>;
  app?: { get(setting: string): unknown };
  ip?: string;
}

/** The parts of an Express response Latchkey writes. */
export interface ExpressResponseLike extends ServerResponse {}

type Next = (error?: unknown) => void;

// Configurations as ExpressAuth and getSession use them: a copy of the caller's object with the
// environment's defaults and the mount path applied, made once per (config, base path). The
// copy shares the `secret` array, so a rotation in place is still noticed.
const derived = new WeakMap<AuthConfig, Map<string, AuthConfig>>();

function configFor(config: AuthConfig, basePath: string | undefined): AuthConfig {
  let byBase = derived.get(config);
  if (!byBase) {
    byBase = new Map();
    derived.set(config, byBase);
  }
  // getSession has no mount path: it reuses the copy ExpressAuth made (reading a session does not
  // depend on the base path), so the configuration is resolved, and warns, once.
  if (basePath === undefined && byBase.size > 0) return byBase.values().next().value as AuthConfig;
  const key = basePath ?? "";
  let copy = byBase.get(key);
  if (!copy) {
    copy = { ...config };
    if (basePath !== undefined && config.basePath === undefined) copy.basePath = basePath;
    setEnvDefaults(process.env, copy, true);
    shareRateLimitState(copy, config); // every mount spelling counts against the caller's limits
    byBase.set(key, copy);
  }
  return copy;
}

/** The base path of the mount: `req.baseUrl`, less a wildcard segment of `/auth/*` mounts. */
function mountPath(req: ExpressRequestLike): string {
  const params = req.params ?? {};
  const wildcard = params[0] ?? params.splat;
  const rest = Array.isArray(wildcard) ? wildcard.join("/") : typeof wildcard === "string" ? wildcard : "";
  if (rest && req.baseUrl.endsWith(`/${rest}`)) return req.baseUrl.slice(0, -(rest.length + 1));
  return req.baseUrl;
}

/**
 * `scheme://host` of a request. `AUTH_URL` wins; otherwise the protocol and host come from the
 * request, with `X-Forwarded-Host` / `X-Forwarded-Proto` honoured only when Express's
 * `trust proxy` setting trusts the peer.
 */
export function requestOrigin(req: ExpressRequestLike): string {
  const envUrl = process.env.AUTH_URL;
  if (envUrl) {
    if (envUrl !== envOrigin.url) envOrigin = { url: envUrl, origin: new URL(envUrl).origin };
    return envOrigin.origin;
  }
  const trust = req.app?.get("trust proxy fn") as ((addr: string | undefined, i: number) => boolean) | undefined;
  let host = req.headers.host;
  if (trust?.(req.socket?.remoteAddress, 0)) {
    const forwarded = req.headers["x-forwarded-host"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    if (first) host = first;
  }
  const protocol = req.protocol || ((req.socket as { encrypted?: boolean }).encrypted ? "https" : "http");
  // Only `host[:port]` is a host: anything else (spaces, paths, user info, a bad port) is refused
  // with a 400 before it can reach a URL the application builds.
  const candidate = host ?? "localhost";
  const key = `${protocol}://${candidate}`;
  const known = origins.get(key);
  if (known) return known;
  if (!HOST.test(candidate)) throw new MalformedHost(`The Host header ${JSON.stringify(candidate)} is not host[:port]`);
  let origin: string;
  try {
    origin = new URL(key).origin;
  } catch {
    throw new MalformedHost(`The Host header ${JSON.stringify(candidate)} is not host[:port]`);
  }
  if (origins.size >= 256) origins.delete(origins.keys().next().value as string);
  origins.set(key, origin);
  return origin;
}

// An application answers on a handful of hosts: their origins (URL-normalised) are remembered
// instead of parsing a URL on every request. Only hosts that passed the checks are kept.
const origins = new Map<string, string>();
let envOrigin = { url: "", origin: "" };

const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/** A Host (or trusted X-Forwarded-Host) header that is not `host[:port]`. */
class MalformedHost extends Error {}

/**
 * Serves Latchkey's actions. Mount it on the base path: `app.use("/auth", ExpressAuth(config))`
 * (Express 4 and 5). It reads the body itself, so no body parser is needed in front of it (one
 * that already ran is used as is).
 *
 * @example
 * ```ts
 * app.use("/auth", ExpressAuth({ providers: [Credentials({ ... })] }))
 * ```
 */
export function ExpressAuth(config: AuthConfig) {
  return async function latchkey(req: ExpressRequestLike, res: ExpressResponseLike, next: Next): Promise<void> {
    try {
      const effective = configFor(config, mountPath(req));
      let origin: string;
      try {
        origin = requestOrigin(req);
      } catch (e) {
        if (e instanceof MalformedHost) return writeResponse(res, badRequest(e.message), false);
        throw e;
      }
      let resolved: ReturnType<typeof resolveConfig>;
      try {
        resolved = resolveConfig(effective);
      } catch (e) {
        const pathname = req.originalUrl.split("?")[0] ?? "";
        return writeResponse(
          res,
          unresolvedConfigResponse(e, effective, { method: req.method ?? "GET", pathname, origin }),
          false,
        );
      }
      let internalRequest: Awaited<ReturnType<typeof toInternalRequest>>;
      try {
        internalRequest = await toInternalRequest(req, resolved.basePath, origin);
      } catch (e) {
        const response = unparsableRequestResponse(e, resolved.logger);
        if (response) return writeResponse(res, response, false);
        throw e;
      }
      writeResponse(res, await handle(internalRequest, resolved), internalRequest.returnRedirectAsJson);
    } catch (e) {
      next(e);
    }
  };
}

/**
 * The session of a request, or null. It runs the `jwt` and `session` callbacks like
 * `GET /auth/session` does, but sets no cookie (so it never re-seals a token it would throw
 * away). A failing session store is logged and gives null: the request is treated as signed out.
 *
 * @example
 * ```ts
 * app.get("/dashboard", async (req, res) => {
 *   const session = await getSession(req, config)
 *   if (!session?.user) return res.redirect("/auth/signin?callbackUrl=/dashboard")
 *   res.render("dashboard", { user: session.user })
 * })
 * ```
 */
export async function getSession(req: ExpressRequestLike, config: AuthConfig): Promise<Session | null> {
  const effective = configFor(config, undefined);
  let origin: string;
  try {
    origin = requestOrigin(req);
  } catch (e) {
    if (e instanceof MalformedHost) return null;
    throw e;
  }
  const resolved = resolveConfig(effective);
  if (!resolved.trustHost)
    throw new UntrustedHost(`The host of ${origin} is not trusted; set AUTH_URL or AUTH_TRUST_HOST`);
  const cookie = cookiesFor(resolved, origin).sessionToken;
  try {
    const { session } = await readSession(resolved, {
      cookies: parseCookieHeader(req.headers.cookie),
      cookie,
      reissue: false,
    });
    return session as Session | null;
  } catch (e) {
    resolved.logger.error(e instanceof Error ? e : new Error(String(e)));
    return null;
  }
}
