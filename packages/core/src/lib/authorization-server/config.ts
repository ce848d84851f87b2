/**
 * The authorization server's options, checked once when it is created (a mistake fails there,
 * naming the option and the fix) and resolved into the frozen state every endpoint reads.
 */
import { InvalidConfiguration } from "../base/errors.js";
import { createLogger } from "../base/logger.js";
import { fieldOf } from "../base/merge.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import type { ResolvedConfig } from "../config/types.js";
import { type ResolvedRevocation, resolveRevocation } from "../session/revocation-list.js";
import { type DynamicPolicy, type ResolvedDocuments, resolveDocuments, resolvePolicy } from "./client-metadata.js";
import { KeyRing } from "./keys.js";
import type { AuthorizationServerOptions, ClaimsParams, SigningAlgorithm } from "./options.js";
import type { AuthorizationStore } from "./store.js";
import { issuerProblem } from "./uris.js";

/** The URL of each endpoint. */
export interface Endpoints {
  authorization: string;
  token: string;
  revocation: string;
  introspection: string;
  userinfo: string;
  jwks: string;
  deviceAuthorization: string;
  device: string;
  endSession: string;
  consent: string;
  /** Served only with `dynamicRegistration`. */
  registration: string;
}

/** Dynamic client registration, resolved. */
export interface ResolvedRegistration extends DynamicPolicy {
  initialAccessToken: string | undefined;
  perIp: { max: number; windowSeconds: number };
  unusedSeconds: number;
  maxClients: number;
}

/** The resolved server: what every endpoint reads. Frozen. */
export interface ServerState {
  readonly issuer: string;
  /** The issuer's origin: every URL the server builds is on it, whatever `Host` a request names. */
  readonly origin: string;
  readonly endpoints: Readonly<Endpoints>;
  /** Path → endpoint name, for dispatch. */
  readonly routes: ReadonlyMap<string, keyof Endpoints>;
  /** The paths of the metadata documents (RFC 8414 §3 and OIDC Discovery §4). */
  readonly metadataPaths: ReadonlySet<string>;
  readonly auth: AuthConfig;
  readonly store: AuthorizationStore;
  readonly scopes: ReadonlySet<string>;
  readonly ttl: Readonly<{
    authorizationCode: number;
    accessToken: number;
    idToken: number;
    refreshToken: number;
    deviceCode: number;
    interaction: number;
  }>;
  readonly accessTokenFormat: "jwt" | "opaque";
  readonly algorithms: readonly [SigningAlgorithm, ...SigningAlgorithm[]];
  readonly keys: KeyRing;
  readonly claims: (params: ClaimsParams) => Promise<Record<string, unknown>>;
  readonly consentPage: string | undefined;
  /** Clients known by their metadata document's URL, when `clientMetadataDocuments` is set. */
  readonly documents: ResolvedDocuments | null;
  /** Dynamic client registration, when `dynamicRegistration` is set. */
  readonly registration: ResolvedRegistration | null;
  /** The revocation list of JWT access tokens, when `revocation` is set. */
  readonly revocation: ResolvedRevocation | null;
  readonly fetch: typeof fetch;
  /** Ends every Latchkey session of a user (RP-initiated logout): `revokeUserSessions`. */
  readonly endSessions: (userId: string) => Promise<unknown>;
  /** The application's configuration, resolved (cached by Latchkey; a secret change resolves it again). */
  latchkey(): ResolvedConfig;
}

const DEFAULT_SCOPES = ["openid", "profile", "email", "offline_access"];
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const STORE_METHODS = ["set", "add", "get", "take", "swap", "delete", "find", "deleteWhere"] as const;

function positiveSeconds(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    throw new InvalidConfiguration(
      `\`${name}\` must be a whole number of seconds, at least 1; received ${String(value)}`,
    );
  return value;
}

/** The default claims: the user record's `name` and `image` (`profile`), `email` and `emailVerified` (`email`). */
async function defaultClaims({ user, scopes }: ClaimsParams): Promise<Record<string, unknown>> {
  const claims: Record<string, unknown> = {};
  if (scopes.includes("profile")) {
    if (user.name) claims.name = user.name;
    if (user.image) claims.picture = user.image;
  }
  if (scopes.includes("email") && user.email) {
    claims.email = user.email;
    claims.email_verified = !!user.emailVerified;
  }
  return claims;
}

/** The `dynamicRegistration` option checked and resolved. */
function resolveRegistration(
  option: NonNullable<AuthorizationServerOptions["dynamicRegistration"]>,
  serverScopes: ReadonlySet<string>,
): ResolvedRegistration {
  if (typeof option !== "object" || option === null)
    throw new InvalidConfiguration("`dynamicRegistration` must be an object: `{ scopes, resources }`");
  const token = option.initialAccessToken;
  if (token !== undefined && (typeof token !== "string" || token.length < 32))
    throw new InvalidConfiguration(
      "`dynamicRegistration.initialAccessToken` must be a random string of at least 32 characters",
    );
  const perIp = option.perIp ?? { max: 20, windowSeconds: 3600 };
  if (
    typeof perIp !== "object" ||
    !Number.isSafeInteger(perIp.max) ||
    perIp.max < 1 ||
    !Number.isSafeInteger(perIp.windowSeconds) ||
    perIp.windowSeconds < 1
  )
    throw new InvalidConfiguration(
      "`dynamicRegistration.perIp` must be `{ max, windowSeconds }`, whole numbers of at least 1",
    );
  const whole = (value: unknown, name: string, fallback: number) => {
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
      throw new InvalidConfiguration(
        `\`dynamicRegistration.${name}\` must be a whole number of at least 1; received ${JSON.stringify(value)}`,
      );
    return value;
  };
  return {
    ...resolvePolicy(option, "dynamicRegistration", serverScopes),
    initialAccessToken: token,
    perIp: { max: perIp.max, windowSeconds: perIp.windowSeconds },
    unusedSeconds: whole(option.unusedSeconds, "unusedSeconds", 86_400),
    maxClients: whole(option.maxClients, "maxClients", 10_000),
  };
}

/** The endpoints' path: `path`, else the issuer's path + `/oauth`. */
function basePathOf(issuer: URL, path: unknown): string {
  if (path === undefined) return `${issuer.pathname.replace(/\/+$/, "")}/oauth`;
  if (typeof path !== "string" || !/^\/[A-Za-z0-9._~\-/]*$/.test(path) || path.includes("//"))
    throw new InvalidConfiguration(
      `\`path\` must be an absolute path such as "/oauth"; received ${JSON.stringify(path)}`,
    );
  return path.replace(/\/+$/, "");
}

/**
 * Checks `options` and resolves them. `endSessions` is the sessions API's `revokeUserSessions`
 * (the public module passes it in: lib/ imports no entry module).
 */
export function resolveServer(
  options: AuthorizationServerOptions,
  endSessions: (auth: AuthConfig, userId: string) => Promise<unknown>,
): ServerState {
  if (typeof options !== "object" || options === null)
    throw new InvalidConfiguration("AuthorizationServer needs its options: `{ issuer, auth, store }`");
  const problem = issuerProblem(options.issuer);
  if (problem) throw new InvalidConfiguration(problem);
  const issuer = options.issuer;
  const url = new URL(issuer);
  const auth = options.auth;
  if (typeof auth !== "object" || auth === null)
    throw new InvalidConfiguration(
      "`auth` must be the application's Latchkey configuration (the object given to ExpressAuth, NextAuth, ...)",
    );
  if (typeof auth.adapter?.getUser !== "function")
    throw new InvalidConfiguration(
      "The authorization server needs `auth.adapter` with `getUser`: tokens name stored users, and UserInfo reads them. Add an adapter (@latchkey/sql-adapter, @latchkey/redis-adapter or the MemoryAdapter).",
    );
  const store = options.store;
  for (const method of STORE_METHODS) {
    if (typeof fieldOf(store, method) !== "function")
      throw new InvalidConfiguration(
        `\`store\` needs a \`${method}\` method: use MemoryAuthorizationStore, SqlAuthorizationStore (@latchkey/sql-adapter) or RedisAuthorizationStore (@latchkey/redis-adapter).`,
      );
  }
  const scopes = options.scopes ?? DEFAULT_SCOPES;
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== "string" || !SCOPE_TOKEN.test(s)))
    throw new InvalidConfiguration(
      "`scopes` must be a list of scope names (printable ASCII without spaces, quotes or backslashes)",
    );
  const ttl = options.ttl ?? {};
  const resolvedTtl = Object.freeze({
    authorizationCode: positiveSeconds(ttl.authorizationCode, "ttl.authorizationCode", 60),
    accessToken: positiveSeconds(ttl.accessToken, "ttl.accessToken", 600),
    idToken: positiveSeconds(ttl.idToken, "ttl.idToken", 600),
    refreshToken: positiveSeconds(ttl.refreshToken, "ttl.refreshToken", 30 * 24 * 3600),
    deviceCode: positiveSeconds(ttl.deviceCode, "ttl.deviceCode", 600),
    interaction: positiveSeconds(ttl.interaction, "ttl.interaction", 900),
  });
  if (resolvedTtl.authorizationCode > 600)
    throw new InvalidConfiguration(
      "`ttl.authorizationCode` may be at most 600 seconds (OAuth 2.1 §4.1.2: codes are short-lived)",
    );
  const format = options.accessTokenFormat ?? "jwt";
  if (format !== "jwt" && format !== "opaque")
    throw new InvalidConfiguration(
      `\`accessTokenFormat\` must be "jwt" or "opaque"; received ${JSON.stringify(format)}`,
    );
  const algorithms = options.signing?.algorithms ?? ["RS256"];
  if (!Array.isArray(algorithms) || algorithms.length === 0 || algorithms.some((a) => a !== "RS256" && a !== "ES256"))
    throw new InvalidConfiguration(
      '`signing.algorithms` must list "RS256" and/or "ES256" (the first signs access tokens)',
    );
  const [firstAlgorithm, ...moreAlgorithms] = algorithms;
  if (!firstAlgorithm) throw new InvalidConfiguration("`signing.algorithms` must not be empty");
  const rotateAfter = positiveSeconds(options.signing?.rotateAfter, "signing.rotateAfter", 30 * 24 * 3600);
  const longest = Math.max(resolvedTtl.accessToken, resolvedTtl.idToken);
  if (rotateAfter < 2 * longest)
    throw new InvalidConfiguration(
      `\`signing.rotateAfter\` (${rotateAfter} s) must be at least twice the longest token lifetime (${longest} s)`,
    );
  const consentPage = options.pages?.consent;
  if (
    consentPage !== undefined &&
    (typeof consentPage !== "string" || !consentPage.startsWith("/") || consentPage.startsWith("//"))
  )
    throw new InvalidConfiguration('`pages.consent` must be a path on the issuer\'s origin, such as "/consent"');
  if (options.claims !== undefined && typeof options.claims !== "function")
    throw new InvalidConfiguration("`claims` must be a function ({ user, scopes, clientId }) => claims");
  const logger = createLogger(auth.logger, !!auth.debug);
  const revocation = options.revocation
    ? resolveRevocation({ store: options.revocation, onUnavailable: "refuse" }, "jwt", null, logger)
    : null;

  const base = basePathOf(url, options.path);
  const origin = url.origin;
  const issuerPath = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  const endpoints: Endpoints = {
    authorization: `${origin}${base}/authorize`,
    token: `${origin}${base}/token`,
    revocation: `${origin}${base}/revoke`,
    introspection: `${origin}${base}/introspect`,
    userinfo: `${origin}${base}/userinfo`,
    jwks: `${origin}${base}/jwks`,
    deviceAuthorization: `${origin}${base}/device_authorization`,
    device: `${origin}${base}/device`,
    endSession: `${origin}${base}/logout`,
    consent: `${origin}${base}/consent`,
    registration: `${origin}${base}/register`,
  };
  const serverScopes = new Set(scopes);
  const documents = options.clientMetadataDocuments
    ? resolveDocuments(options.clientMetadataDocuments, serverScopes)
    : null;
  const registration = options.dynamicRegistration
    ? resolveRegistration(options.dynamicRegistration, serverScopes)
    : null;
  // Open registration is counted in the application's rate-limit store: without it, anyone could
  // grow the client store without bound.
  if (registration && registration.initialAccessToken === undefined && auth.rateLimit === false)
    throw new InvalidConfiguration(
      "`dynamicRegistration` is open to anyone, but the application has `rateLimit: false`, so `perIp` counts nothing and anyone could register clients without bound: keep the application's rate limits (a shared `rateLimit.store` when it runs on several instances), or set `dynamicRegistration.initialAccessToken` to register only the clients you gave it to",
    );
  const routes = new Map<string, keyof Endpoints>();
  for (const [name, endpoint] of Object.entries(endpoints) as [keyof Endpoints, string][])
    if (name !== "registration" || registration) routes.set(new URL(endpoint).pathname, name);
  const metadataPaths = new Set([
    `/.well-known/oauth-authorization-server${issuerPath}`,
    `${issuerPath}/.well-known/openid-configuration`,
    `/.well-known/openid-configuration${issuerPath}`,
  ]);
  const claims = options.claims ?? defaultClaims;
  const latchkey = () => resolveConfig(auth);
  const keys = new KeyRing({
    store,
    algorithms,
    rotateAfter,
    keepAfter: longest + 60,
    secrets: () => latchkey().secrets,
  });
  return Object.freeze({
    issuer,
    origin,
    endpoints: Object.freeze(endpoints),
    routes,
    metadataPaths,
    auth,
    store,
    scopes: serverScopes,
    ttl: resolvedTtl,
    accessTokenFormat: format,
    algorithms: Object.freeze([firstAlgorithm, ...moreAlgorithms]) as readonly [
      SigningAlgorithm,
      ...SigningAlgorithm[],
    ],
    keys,
    claims: async (params: ClaimsParams) => {
      const value = await claims(params);
      return typeof value === "object" && value !== null ? value : {};
    },
    consentPage,
    documents,
    registration,
    revocation,
    fetch: options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args)),
    endSessions: (userId: string) => endSessions(auth, userId),
    latchkey,
  });
}
