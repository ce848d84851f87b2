/**
 * The resource server's side: `verifyAccessToken(request, options)` checks the Bearer token of a
 * request for one resource server (RFC 6750 §2.1, RFC 9068 §4): a JWT access token offline,
 * against the issuer's JWKS (its signature, `typ: at+jwt`, issuer, audience, expiry), then the
 * scopes the route needs, then Latchkey's revocation list when one is shared with the
 * authorization server (a revoked grant, refresh family, client or token refused at once); an
 * opaque token through introspection (RFC 7662). Every refusal carries its
 * `WWW-Authenticate: Bearer` challenge (RFC 6750 §3), with `resource_metadata` (RFC 9728 §5.1) and
 * the scope needed, for clients that discover the authorization server from it (MCP).
 *
 * What is derived from the options (the JWKS, the discovered metadata, the revocation list) is
 * made once per options object and kept with it, so a route passes the same object each time.
 */
import type { JWTPayload } from "jose";
import type { RevocationStore } from "../../shapes/revocation.js";
import { InvalidConfiguration } from "../base/errors.js";
import { createLogger } from "../base/logger.js";
import { fieldOf, isPlainObject } from "../base/merge.js";
import { type ResolvedRevocation, resolveRevocation } from "../session/revocation-list.js";
import { isStrings } from "./records.js";
import { accessTokenVerdict } from "./tokens.js";
import { issuerProblem } from "./uris.js";
import { ImportedKeys, type KeySource, remoteKeys, verifyJwt } from "./verify-jwt.js";

/** What a server made by `AuthorizationServer` lends a resource server in the same process. */
export interface LocalIssuer {
  issuer: string;
  /** The server's published keys. */
  keys: KeySource;
  /** Its keys as imported for checking signatures: one set per server, however many options objects name it. */
  imported: ImportedKeys;
  revocation: ResolvedRevocation | null;
  /** The claims of a live opaque token, or null. */
  opaque(token: string): Promise<Record<string, unknown> | null>;
  algorithms: readonly string[];
}

/** The key of a server's {@link LocalIssuer}. */
export const localIssuer: unique symbol = Symbol("latchkey.authorizationServer.localIssuer");

/** A server made by `AuthorizationServer`, as a resource server in its process sees it. */
export interface LocalServer {
  readonly [localIssuer]: LocalIssuer;
}

/**
 * The options of {@link verifyAccessToken}: which tokens this resource server accepts. Pass the
 * same object on every call (what it derives is kept with it).
 *
 * @example
 * ```ts
 * const api = { issuer: "https://app.example", audience: "https://api.example", revocation: RedisRevocationStore(redis, sub) }
 * const check = await verifyAccessToken(request, { ...api, scopes: ["reports:read"] }) // a new object per call: derived again
 * ```
 */
export interface AccessTokenOptions {
  /** The authorization server: its issuer URL (its metadata and JWKS are fetched), or the server itself in this process. */
  issuer: string | LocalServer;
  /** This resource server's identifier, as clients ask for it (`resource`, RFC 8707): the token's `aud` must name it. */
  audience: string;
  /** The scopes every request must carry (all of them); a route may ask for more with `verifyAccessToken`'s third argument. */
  scopes?: string[];
  /**
   * The revocation store the authorization server writes to (its `revocation` option): with it,
   * a revoked grant, refresh family, client or token is refused at once. Without it a JWT access
   * token is good until it expires.
   */
  revocation?: RevocationStore;
  /** The URL of this resource's metadata (RFC 9728), named in every challenge. */
  resourceMetadata?: string;
  /** For opaque access tokens: the resource server's own client credentials at the introspection endpoint. */
  introspection?: { clientId: string; clientSecret: string };
  /** The `fetch` of discovery, JWKS and introspection requests. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** The claims of an accepted access token (RFC 9068 §2.2). */
export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  client_id: string;
  scope: string;
  /** The scopes, split. */
  scopes: string[];
  aud: string | string[];
}

/** What {@link verifyAccessToken} answers: the token's claims, or the refusal to send back. */
export type AccessTokenCheck =
  | { ok: true; token: AccessTokenClaims }
  | {
      ok: false;
      status: 400 | 401 | 403 | 503;
      /** Absent when the request carried no token (RFC 6750 §3.1). */
      error?: "invalid_request" | "invalid_token" | "insufficient_scope" | "temporarily_unavailable";
      /** `WWW-Authenticate`, and `Cache-Control: no-store`. */
      headers: Record<string, string>;
      body: { error: string; error_description: string } | null;
    };

interface Verifier {
  issuer: string;
  keys: KeySource;
  /** The keys imported for signatures, once each. */
  imported: ImportedKeys;
  opaque(token: string): Promise<Record<string, unknown> | null>;
  revocation: ResolvedRevocation | null;
  algorithms: string[];
}

const verifiers = new WeakMap<AccessTokenOptions, Verifier>();
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const OPAQUE_SHAPE = /^[A-Za-z0-9_-]{16,512}$/;
/** The algorithms a Latchkey server signs with; others (and `none`, and HS*) are refused. */
const ALGORITHMS = ["RS256", "ES256"];

/** The metadata document's URL of an issuer (RFC 8414 §3: the well-known part before the issuer's path). */
function metadataUrl(issuer: string): URL {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return new URL(`/.well-known/oauth-authorization-server${path}`, url.origin);
}

/** The verifier of remote tokens: the issuer's metadata fetched once (again after a failure), then its JWKS (verify-jwt.ts). */
function remoteVerifier(issuer: string, options: AccessTokenOptions, revocation: ResolvedRevocation | null): Verifier {
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  let metadata: Promise<Record<string, unknown>> | undefined;
  const discover = () => {
    metadata ??= (async () => {
      const response = await doFetch(metadataUrl(issuer), { headers: { accept: "application/json" } });
      if (!response.ok) throw new Error(`The authorization server's metadata answered ${response.status}`);
      const document: unknown = await response.json();
      if (!isPlainObject(document) || document.issuer !== issuer)
        throw new Error("The authorization server's metadata names another issuer");
      return document;
    })().catch((e) => {
      metadata = undefined;
      throw e;
    });
    return metadata;
  };
  return {
    issuer,
    revocation,
    algorithms: ALGORITHMS,
    imported: new ImportedKeys(),
    keys: remoteKeys(async () => {
      const uri = fieldOf(await discover(), "jwks_uri");
      if (typeof uri !== "string") throw new Error("The authorization server's metadata has no jwks_uri");
      return uri;
    }, doFetch),
    async opaque(token) {
      const credentials = options.introspection;
      if (!credentials) return null;
      const endpoint = fieldOf(await discover(), "introspection_endpoint");
      if (typeof endpoint !== "string")
        throw new Error("The authorization server's metadata has no introspection_endpoint");
      const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
      const response = await doFetch(endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${btoa(`${encode(credentials.clientId)}:${encode(credentials.clientSecret)}`)}`,
        },
        body: new URLSearchParams({ token }).toString(),
      });
      if (!response.ok) throw new Error(`The introspection endpoint answered ${response.status}`);
      const answer: unknown = await response.json();
      return isPlainObject(answer) && answer.active === true ? { ...answer } : null;
    },
  };
}

/** The options checked once, and what they derive. */
function verifierOf(options: AccessTokenOptions): Verifier {
  const known = verifiers.get(options);
  if (known) return known;
  if (typeof options !== "object" || options === null)
    throw new InvalidConfiguration("verifyAccessToken needs its options: { issuer, audience }");
  if (typeof options.audience !== "string" || !options.audience)
    throw new InvalidConfiguration(
      "`audience` is required: this resource server's identifier, as clients ask for it (resource)",
    );
  if (options.scopes !== undefined && !isStrings(options.scopes))
    throw new InvalidConfiguration("`scopes` must be a list of scope names");
  const logger = createLogger(undefined, false);
  const revocation = options.revocation
    ? resolveRevocation({ store: options.revocation, onUnavailable: "refuse" }, "jwt", null, logger)
    : null;
  let verifier: Verifier;
  if (typeof options.issuer === "string") {
    const problem = issuerProblem(options.issuer);
    if (problem) throw new InvalidConfiguration(problem);
    verifier = remoteVerifier(options.issuer, options, revocation);
  } else {
    const local = options.issuer?.[localIssuer];
    if (!local)
      throw new InvalidConfiguration("`issuer` must be the issuer's URL, or a server made by AuthorizationServer");
    verifier = {
      issuer: local.issuer,
      keys: local.keys,
      imported: local.imported,
      opaque: (token) => local.opaque(token),
      revocation: revocation ?? local.revocation,
      algorithms: [...local.algorithms],
    };
  }
  verifiers.set(options, verifier);
  return verifier;
}

/** The quoted-string form of a challenge parameter's value (RFC 9110 §5.6.4). */
const quoted = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

function refusal(
  options: AccessTokenOptions,
  scopes: readonly string[],
  status: 400 | 401 | 403 | 503,
  error?: "invalid_request" | "invalid_token" | "insufficient_scope" | "temporarily_unavailable",
  description?: string,
): AccessTokenCheck {
  const parts: string[] = [];
  if (error && error !== "temporarily_unavailable") parts.push(`error=${quoted(error)}`);
  if (description && error !== "temporarily_unavailable") parts.push(`error_description=${quoted(description)}`);
  if (scopes.length) parts.push(`scope=${quoted(scopes.join(" "))}`);
  if (options.resourceMetadata) parts.push(`resource_metadata=${quoted(options.resourceMetadata)}`);
  const headers: Record<string, string> = {
    "WWW-Authenticate": parts.length ? `Bearer ${parts.join(", ")}` : "Bearer",
    "Cache-Control": "no-store",
  };
  if (status === 503) headers["Retry-After"] = "5";
  return {
    ok: false,
    status,
    ...(error && { error }),
    headers,
    body: error ? { error, error_description: description ?? "" } : null,
  };
}

/** The `Authorization: Bearer` token of a request; `undefined` when there is none, `null` when it is malformed. */
function bearerOf(request: { headers: { get(name: string): string | null } }): string | undefined | null {
  const header = request.headers.get("authorization");
  if (header === null) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match?.[1] ?? null;
}

/** The claims an RFC 9068 access token must carry (§2.2), and Latchkey's `client_id` is one. */
const REQUIRED_CLAIMS = ["sub", "client_id", "iat", "exp", "jti"];
/** Seconds of clock difference allowed between the authorization server and this one. */
const CLOCK_TOLERANCE = 15;

/**
 * The claims of a JWT access token for `options`, or null when it is not one (signature, type,
 * issuer, audience, expiry: verify-jwt.ts). Throws when the keys cannot be had (the caller answers 503).
 */
function jwtClaims(verifier: Verifier, options: AccessTokenOptions, token: string): Promise<JWTPayload | null> {
  return verifyJwt(token, verifier.keys, verifier.imported, {
    issuer: verifier.issuer,
    audience: options.audience,
    algorithms: verifier.algorithms,
    requiredClaims: REQUIRED_CLAIMS,
    clockTolerance: CLOCK_TOLERANCE,
  });
}

/**
 * Checks the Bearer token of `request` for this resource server. Answers the token's claims, or
 * the refusal to send back as it is (`status`, `headers` with the `WWW-Authenticate` challenge,
 * `body`): 401 without a token or with one that is invalid, expired, revoked or for another
 * audience; 403 when it lacks a scope (`scope` in the challenge says which: a client may step
 * up by asking for it); 400 for a malformed header; 503 when the issuer's keys or the revocation
 * list cannot be reached (it never accepts a token it could not check).
 *
 * @example
 * ```ts
 * const api = { issuer: "https://app.example", audience: "https://api.example", resourceMetadata: "https://api.example/.well-known/oauth-protected-resource" }
 * app.get("/reports", async (req, res) => {
 *   const check = await verifyAccessToken(new Request(url, { headers: req.headers }), api, ["reports:read"])
 *   if (!check.ok) return res.status(check.status).set(check.headers).json(check.body)
 *   res.json(await reportsOf(check.token.sub))
 * })
 * ```
 */
export async function verifyAccessToken(
  request: { headers: { get(name: string): string | null } },
  options: AccessTokenOptions,
  scopes: readonly string[] = [],
): Promise<AccessTokenCheck> {
  const verifier = verifierOf(options);
  const needed = [...new Set([...(options.scopes ?? []), ...scopes])];
  const token = bearerOf(request);
  if (token === undefined) return refusal(options, needed, 401);
  if (token === null)
    return refusal(options, needed, 400, "invalid_request", "The Authorization header is not a Bearer token");
  let claims: Record<string, unknown> | null;
  try {
    if (JWT_SHAPE.test(token)) claims = await jwtClaims(verifier, options, token);
    else if (OPAQUE_SHAPE.test(token)) {
      claims = await verifier.opaque(token);
      const aud = claims?.aud;
      const audiences = typeof aud === "string" ? [aud] : isStrings(aud) ? aud : [];
      if (claims && (claims.iss !== verifier.issuer || !audiences.includes(options.audience))) claims = null;
    } else claims = null;
    if (claims && verifier.revocation) {
      await verifier.revocation.list.start();
      const verdict = accessTokenVerdict(verifier.revocation.list, claims);
      if (verdict === "unavailable") return refusal(options, needed, 503, "temporarily_unavailable");
      if (verdict === "revoked") claims = null;
    }
  } catch {
    return refusal(options, needed, 503, "temporarily_unavailable");
  }
  if (!claims || typeof claims.sub !== "string" || typeof claims.client_id !== "string")
    return refusal(
      options,
      needed,
      401,
      "invalid_token",
      "The access token is invalid, expired, revoked or for another resource",
    );
  const granted = typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : [];
  const missing = needed.filter((s) => !granted.includes(s));
  if (missing.length)
    return refusal(options, needed, 403, "insufficient_scope", `The token lacks ${missing.join(" ")}`);
  const aud = claims.aud;
  return {
    ok: true,
    token: {
      ...claims,
      sub: claims.sub,
      client_id: claims.client_id,
      scope: granted.join(" "),
      scopes: granted,
      aud: typeof aud === "string" || isStrings(aud) ? aud : options.audience,
    },
  };
}

/**
 * This resource's metadata document (RFC 9728 §2) and the path it is served at (§3.1:
 * `/.well-known/oauth-protected-resource` before the resource's own path), for MCP clients and
 * any client that starts from a resource server's challenge.
 *
 * @example
 * ```ts
 * const { path, document } = protectedResourceMetadata({ resource: "https://api.example/mcp", authorizationServers: ["https://app.example"], scopes: ["reports:read"] })
 * app.get(path, (_req, res) => res.json(document))
 * ```
 */
export function protectedResourceMetadata(options: {
  resource: string;
  authorizationServers: string[];
  scopes?: string[];
  name?: string;
}): { path: string; document: Record<string, unknown> } {
  const url = new URL(options.resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return {
    path: `/.well-known/oauth-protected-resource${path}`,
    document: {
      resource: options.resource,
      authorization_servers: [...options.authorizationServers],
      bearer_methods_supported: ["header"],
      ...(options.scopes && { scopes_supported: [...options.scopes] }),
      ...(options.name && { resource_name: options.name }),
    },
  };
}
