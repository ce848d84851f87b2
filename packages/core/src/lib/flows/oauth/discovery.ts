/**
 * The authorization server of a provider: discovered from its `issuer` (OpenID Connect
 * Discovery), or built from its configured endpoints. Explicit endpoints always win over
 * discovered ones. Discovery results are cached per resolved provider object (the configuration
 * itself stays frozen); a failed lookup is not cached, so the next request tries again.
 */
import * as o from "oauth4webapi";
import type { OAuthConfigInternal } from "../../../providers/oauth.js";
import type { Profile } from "../../../shapes/data.js";
import { customFetch } from "../../base/symbols.js";
import { readCapped } from "../../http/read-capped.js";

/** A resolved OAuth 2 or OpenID Connect provider. */
export type OAuthProvider = OAuthConfigInternal<Profile> & {
  signinPath: string;
  callbackPath: string;
  /** OpenID Connect only: read the user from the id_token (default) or, when false, from userinfo. */
  idToken?: boolean;
};

/** How long discovered metadata is reused before it is fetched again. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** No provider request may hang a sign-in forever. */
const REQUEST_TIMEOUT_MS = 15_000;
/**
 * The most a provider's answer may hold. Metadata, key sets, tokens and profiles are a few KiB; a
 * broken or hostile endpoint streaming more must not fill the memory (nor, through a refresh, the
 * shared store and the session cookie).
 */
export const MAX_PROVIDER_ANSWER_BYTES = 1024 * 1024;

/** The answer with its body read (at most {@link MAX_PROVIDER_ANSWER_BYTES}); throws when longer. */
async function capped(response: Response): Promise<Response> {
  const text = await readCapped(response.body, MAX_PROVIDER_ANSWER_BYTES);
  if (text === null) {
    throw new Error(
      `the provider's answer is longer than ${MAX_PROVIDER_ANSWER_BYTES} bytes (HTTP ${response.status})`,
    );
  }
  const { status, statusText, headers } = response;
  return new Response(text === "" ? null : text, { status, statusText, headers });
}

interface CacheEntry {
  metadata: Promise<o.AuthorizationServer>;
  expires: number;
}

const discovered = new WeakMap<object, CacheEntry>();

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True for `http://localhost`, `http://127.0.0.1` and `http://[::1]` (any port). */
function isLoopback(url: string | URL): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The `fetch` every request to this provider goes through: its `customFetch`, or the global one. */
export function providerFetch(provider: OAuthProvider): typeof fetch {
  return provider[customFetch] ?? fetch;
}

/**
 * Transport options for one oauth4webapi call to `url`: the provider's `customFetch`, a timeout
 * (or the caller's `deadline` when it comes first), an answer of at most
 * {@link MAX_PROVIDER_ANSWER_BYTES}, and plain `http://` allowed for loopback hosts only (local
 * development and tests), never for anything else.
 */
export function httpOptions<Method extends string = "GET" | "POST", Body = URLSearchParams | undefined>(
  provider: OAuthProvider,
  url: string | URL | undefined,
  deadline?: AbortSignal,
): o.HttpRequestOptions<Method, Body> {
  const fetchImpl = providerFetch(provider);
  const options: o.HttpRequestOptions<Method, Body> = {
    signal: () =>
      deadline
        ? AbortSignal.any([AbortSignal.timeout(REQUEST_TIMEOUT_MS), deadline])
        : AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    [o.customFetch]: async (input, init) => capped(await fetchImpl(input, init as RequestInit)),
  };
  if (url !== undefined && isLoopback(url)) options[o.allowInsecureRequests] = true;
  return options;
}

/** Which endpoints the current step needs. */
export interface EndpointNeeds {
  authorization?: boolean;
  token?: boolean;
  userinfo?: boolean;
}

/** The endpoints the provider's configuration names itself (as strings, with their query). */
function configuredEndpoints(provider: OAuthProvider): Partial<o.AuthorizationServer> {
  const out: Record<string, string> = {};
  if (provider.authorization?.url) out.authorization_endpoint = provider.authorization.url.href;
  if (provider.token?.url) out.token_endpoint = provider.token.url;
  if (provider.userinfo?.url) out.userinfo_endpoint = withParams(provider.userinfo.url, provider.userinfo.params);
  return out;
}

/** `url` with `params` added to its query (undefined values skipped). */
function withParams(url: string, params: Record<string, unknown> | undefined): string {
  if (!params) return url;
  const out = new URL(url);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) out.searchParams.set(key, String(value));
  }
  return out.href;
}

// Microsoft Entra's multi-tenant endpoints (common, organizations, consumers) publish a templated
// issuer, ".../{tenantid}/v2.0": discovery must expect the template, and each id_token is then
// checked against the template filled with the tenant it names (see issuerForIdToken).
const ENTRA_MULTI_TENANT = /^https:\/\/login\.microsoftonline\.com\/(?:common|organizations|consumers)\/v2\.0\/?$/;
export const TENANT_PLACEHOLDER = "{tenantid}";

/** The issuer the discovery document must name for a configured `issuer`. */
function expectedIssuer(issuer: URL): URL {
  return ENTRA_MULTI_TENANT.test(issuer.href)
    ? new URL(`https://login.microsoftonline.com/${TENANT_PLACEHOLDER}/v2.0`)
    : issuer;
}

// Azure AD B2C serves a user flow's metadata under the flow's authority,
// https://<host>/<tenant>/<B2C_1_flow>/v2.0, and names in it the issuer of the flow's tokens,
// https://<host>/<tenant-id>/v2.0/ (or https://<host>/tfp/<tenant-id>/<B2C_1_flow>/v2.0/): the
// user flow is in the one and not in the other, so the issuer cannot be compared with the URL.
// User flows are named B2C_1_..., custom policies B2C_1A_...
const B2C_AUTHORITY = /^\/[^/]+\/(b2c_1a?_[^/]+)\/v2\.0\/?$/i;

/**
 * The issuer a B2C user flow's metadata may name for `authority`: on the same origin, the tenant's
 * issuer, or the `tfp` form for the same user flow. Undefined when `authority` is not a B2C user
 * flow's.
 */
function b2cIssuerCheck(authority: URL): ((named: string) => boolean) | undefined {
  const flow = B2C_AUTHORITY.exec(authority.pathname)?.[1]?.toLowerCase();
  if (!flow) return undefined;
  return (named) => {
    let url: URL;
    try {
      url = new URL(named);
    } catch {
      return false;
    }
    if (url.origin !== authority.origin || url.search || url.hash) return false;
    const tenant = /^\/[^/]+\/v2\.0\/?$/.test(url.pathname);
    const tfp = /^\/tfp\/[^/]+\/([^/]+)\/v2\.0\/?$/i.exec(url.pathname)?.[1]?.toLowerCase() === flow;
    return tenant || tfp;
  };
}

async function discover(provider: OAuthProvider): Promise<o.AuthorizationServer> {
  const issuer = provider.issuer ? new URL(provider.issuer) : undefined;
  if (provider.wellKnown) {
    const response = await capped(
      await providerFetch(provider)(provider.wellKnown, {
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }),
    );
    if (issuer) return o.processDiscoveryResponse(expectedIssuer(issuer), response);
    if (response.status !== 200) throw new Error(`The discovery document answered with status ${response.status}`);
    const metadata = (await response.json()) as o.AuthorizationServer;
    if (typeof metadata?.issuer !== "string") throw new Error("The discovery document has no `issuer`");
    return metadata;
  }
  if (!issuer) throw new Error("The provider has neither `issuer` nor `wellKnown` to discover its endpoints from");
  const response = await o.discoveryRequest(issuer, {
    ...httpOptions<"GET", undefined>(provider, issuer),
    algorithm: "oidc",
  });
  const b2c = b2cIssuerCheck(issuer);
  if (b2c && response.status === 200) {
    const named = (
      (await response
        .clone()
        .json()
        .catch(() => null)) as { issuer?: unknown } | null
    )?.issuer;
    // The document is the one asked for, at the user flow's URL; its issuer is then what the
    // flow's id_tokens must name, on the same host.
    if (typeof named === "string" && b2c(named)) return o.processDiscoveryResponse(new URL(named), response);
  }
  return o.processDiscoveryResponse(expectedIssuer(issuer), response);
}

/** The discovered metadata of a provider, from the cache when it is fresh. */
function cachedDiscovery(provider: OAuthProvider): Promise<o.AuthorizationServer> {
  const hit = discovered.get(provider);
  if (hit && hit.expires > Date.now()) return hit.metadata;
  const metadata = discover(provider);
  const entry = { metadata, expires: Date.now() + DISCOVERY_TTL_MS };
  discovered.set(provider, entry);
  // A failed lookup must not stick: the next request discovers again.
  metadata.catch(() => {
    if (discovered.get(provider) === entry) discovered.delete(provider);
  });
  return metadata;
}

/**
 * The authorization server metadata for `provider`, with the provider's explicit endpoints over
 * the discovered ones. Discovery runs only when a needed endpoint is not configured, or for an
 * OpenID Connect provider (whose id_token checks need the issuer's metadata).
 *
 * @example
 * ```ts
 * const as = await authorizationServer(provider, { token: true })
 * as.token_endpoint // "https://op.example/token"
 * ```
 */
export async function authorizationServer(
  provider: OAuthProvider,
  needs: EndpointNeeds,
): Promise<o.AuthorizationServer> {
  const configured = configuredEndpoints(provider);
  const missing =
    (needs.authorization && !configured.authorization_endpoint) ||
    (needs.token && !configured.token_endpoint) ||
    (needs.userinfo && !configured.userinfo_endpoint);
  const canDiscover = !!(provider.issuer || provider.wellKnown);
  if (canDiscover && (missing || (provider.type === "oidc" && (needs.token || needs.userinfo)))) {
    return { ...(await cachedDiscovery(provider)), ...configured };
  }
  // Without discovery oauth4webapi still wants an issuer: the configured one, or the token
  // endpoint's origin (only ever compared with the `iss` of an id_token, which then fails).
  const issuer =
    provider.issuer ??
    new URL(configured.token_endpoint ?? configured.authorization_endpoint ?? "https://invalid.invalid").origin;
  return { issuer, ...configured };
}

/**
 * The `jwks_uri` of a provider whose explicit endpoints skipped discovery: discovered from its
 * `issuer` (or `wellKnown`) now, when it has one; undefined when it has neither or the provider
 * publishes no keys.
 *
 * @example
 * ```ts
 * const jwksUri = as.jwks_uri ?? (await discoveredJwksUri(provider))
 * ```
 */
export async function discoveredJwksUri(provider: OAuthProvider): Promise<string | undefined> {
  if (!provider.issuer && !provider.wellKnown) return undefined;
  return (await cachedDiscovery(provider)).jwks_uri;
}

/** Forgets the cached metadata of a provider (after a failure that stale metadata may explain). */
export function forgetDiscovery(provider: OAuthProvider): void {
  discovered.delete(provider);
}
