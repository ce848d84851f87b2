/**
 * The authorization request: the URL the user is sent to at the provider, and the check cookies
 * that go with it.
 */

import type { Cookie } from "../../../shapes/data.js";
import { InvalidConfiguration } from "../../base/errors.js";
import type { Context } from "../../serve/context.js";
import { checkCookie, createNonce, createPkce, createState, type FlowClaims } from "./checks.js";
import type { OAuthProvider } from "./discovery.js";

/**
 * Query parameters of the sign-in request that never reach the provider: Latchkey's own, and
 * those that carry the protocol's security (the flow sets them itself).
 */
const RESERVED_PARAMS = new Set([
  "callbackUrl",
  "csrfToken",
  "client_id",
  "client_secret",
  "redirect_uri",
  "response_type",
  "response_mode",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "request",
  "request_uri",
]);

/** Where the provider sends the user back, and, behind a redirect proxy, where the proxy forwards to. */
export interface RedirectTarget {
  /** The `redirect_uri` of the authorization and token requests. */
  redirectUri: string;
  /** Set when a redirect proxy receives the callback: this deployment's own callback URL. */
  forwardTo?: string;
}

/** The origin of a redirect proxy URL; a bad URL is a configuration mistake. */
export function proxyOrigin(provider: OAuthProvider): string | undefined {
  const proxy = provider.redirectProxyUrl;
  if (!proxy) return undefined;
  try {
    return new URL(proxy).origin;
  } catch {
    throw new InvalidConfiguration(
      `\`redirectProxyUrl\` of provider "${provider.id}" must be an absolute URL up to the base path, such as "https://auth.example.com/auth"; received ${JSON.stringify(proxy)}`,
    );
  }
}

/**
 * The `redirect_uri` for `provider` on this request (spec §5.7): `<origin><basePath>/callback/<id>`,
 * or `<redirectProxyUrl>/callback/<id>` when a redirect proxy is configured and this deployment is
 * not the proxy itself.
 */
export function redirectTarget(ctx: Context, provider: OAuthProvider): RedirectTarget {
  const own = `${ctx.authUrl}/callback/${provider.id}`;
  const origin = proxyOrigin(provider);
  const proxy = provider.redirectProxyUrl?.replace(/\/+$/, "");
  // proxyOrigin gives an origin only when redirectProxyUrl is set.
  if (!origin || origin === ctx.origin || proxy === undefined) return { redirectUri: own };
  return { redirectUri: `${proxy}/callback/${encodeURIComponent(provider.id)}`, forwardTo: own };
}

/**
 * Builds the authorization URL and its check cookies, each sealing `flow` (the browser binding and,
 * for a connect flow, the session it began under). Parameters, from weakest to strongest:
 * `response_type=code` and `client_id`; the provider's `authorization.params`; the query of the
 * endpoint URL; the caller's query (`login_hint`, `prompt`, ... except reserved names); then
 * `redirect_uri`, `state`, `nonce` and the PKCE challenge, which nothing can override. OpenID
 * Connect providers ask for `openid profile email` unless a scope is given.
 *
 * @example
 * ```ts
 * const { url, cookies } = await authorizationRequest(ctx, provider, new URL(as.authorization_endpoint), req.query, { bind: bindFlow(req, ctx) })
 * ```
 */
export async function authorizationRequest(
  ctx: Context,
  provider: OAuthProvider,
  endpoint: URL,
  query: Record<string, string>,
  flow: FlowClaims,
): Promise<{ url: URL; cookies: Cookie[] }> {
  const url = new URL(endpoint);
  const params = new URLSearchParams({ response_type: "code" });
  if (provider.clientId !== undefined) params.set("client_id", provider.clientId);
  for (const [key, value] of Object.entries(provider.authorization?.params ?? {})) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  for (const [key, value] of url.searchParams) params.set(key, value);
  for (const [key, value] of Object.entries(query)) {
    if (!RESERVED_PARAMS.has(key)) params.set(key, value);
  }
  if (provider.type === "oidc" && !params.get("scope")) params.set("scope", "openid profile email");

  const { redirectUri, forwardTo } = redirectTarget(ctx, provider);
  params.set("redirect_uri", redirectUri);

  // With form_post the provider's page POSTs to the callback: a cross-site request that carries
  // only SameSite=None cookies.
  const crossSite = params.get("response_mode") === "form_post";
  const cookies: Cookie[] = [];
  const checks = provider.checks;
  if (checks.includes("state")) {
    const state = await createState(ctx, forwardTo);
    params.set("state", state);
    cookies.push(await checkCookie(ctx, "state", provider.id, state, flow, crossSite));
  }
  if (checks.includes("pkce")) {
    const { verifier, challenge } = await createPkce();
    params.set("code_challenge", challenge);
    params.set("code_challenge_method", "S256");
    cookies.push(await checkCookie(ctx, "pkceCodeVerifier", provider.id, verifier, flow, crossSite));
  }
  if (checks.includes("nonce")) {
    const nonce = createNonce();
    params.set("nonce", nonce);
    cookies.push(await checkCookie(ctx, "nonce", provider.id, nonce, flow, crossSite));
  }
  url.search = params.toString();
  return { url, cookies };
}
