/**
 * Types of OAuth 2 and OpenID Connect providers. A provider is plain data returned by a typed
 * factory; the caller's options (kept under `options`) are merged over the defaults once, when the
 * configuration is resolved.
 *
 * @example
 * ```ts
 * import type { OAuthConfig, OAuthUserConfig } from "@latchkey/core/providers/oauth"
 * export default function Acme(options: OAuthUserConfig<AcmeProfile>): OAuthConfig<AcmeProfile> {
 *   return { id: "acme", name: "Acme", type: "oauth", authorization: "https://acme.test/authorize",
 *     token: "https://acme.test/token", userinfo: "https://acme.test/me",
 *     profile: (p) => ({ id: p.id, name: p.name, email: p.email, image: null }), options }
 * }
 * ```
 * @module providers/oauth
 */

import type { customFetch } from "../lib/base/symbols.js";
import type { Awaitable, Profile, TokenSet, User } from "../shapes/data.js";

/** Parameters added to an endpoint's URL or request. */
export type UrlParams = Record<string, string | number | boolean | undefined>;

/** What a custom token request receives. */
export interface TokenRequestContext {
  /** The parameters the provider sent to the callback (code, state, ...). */
  params: Record<string, string>;
  /** The verified check values. */
  checks: { code_verifier?: string; nonce?: string; state?: string };
  /** The resolved provider. */
  provider: OAuthConfigInternal<Profile>;
  /** The redirect_uri sent in the authorization request. */
  redirect_uri: string;
  /** The provider's `customFetch`, or the global `fetch`: use it for the request. */
  fetch: typeof fetch;
}

/** What a custom userinfo request receives. */
export interface UserinfoRequestContext {
  tokens: TokenSet;
  provider: OAuthConfigInternal<Profile>;
  /** The provider's `customFetch`, or the global `fetch`: use it for the request. */
  fetch: typeof fetch;
}

/** An endpoint: a URL, or an object with a URL, extra parameters and, where useful, a custom request. */
export interface EndpointHandler<Context = never, Result = never> {
  url?: string;
  params?: UrlParams;
  /** Replaces the standard request to this endpoint. */
  request?: [Context] extends [never] ? never : (context: Context) => Awaitable<Result>;
  /** Lets a provider fix a non-conforming token response before it is checked. */
  conform?: (response: Response) => Awaitable<Response | undefined>;
}

export type AuthorizationEndpointHandler = EndpointHandler;
export type TokenEndpointHandler = EndpointHandler<TokenRequestContext, { tokens: TokenSet }>;
export type UserinfoEndpointHandler = EndpointHandler<UserinfoRequestContext, Profile>;

/** Maps the provider's profile to a User. */
export type ProfileCallback<P> = (profile: P, tokens: TokenSet) => Awaitable<User>;
/** Picks what of the token response is stored on the account. */
// biome-ignore lint/suspicious/noConfusingVoidType: a callback that returns nothing keeps every token field
export type AccountCallback = (tokens: TokenSet) => TokenSet | undefined | void;

/** How the provider's button looks on the built-in sign-in page. */
export interface OAuthProviderButtonStyles {
  /** An absolute URL or a `data:` URL of the logo. */
  logo?: string;
  bg?: string;
  text?: string;
  brandColor?: string;
}

/** OAuth client settings passed to the token endpoint. */
export interface OAuthClientOptions {
  /** @default "client_secret_basic" */
  token_endpoint_auth_method?: "client_secret_basic" | "client_secret_post" | "none";
  /**
   * The algorithm the provider signs this client's id_tokens with. Unset, any asymmetric algorithm
   * the provider advertises is accepted (RS256 if it advertises none) and checked against its
   * published keys. `"HS256"` (or HS384/HS512) must be set explicitly for a provider that signs
   * with the client secret: such id_tokens are then verified with the secret, and refused when it
   * is not set, whatever the provider advertises.
   *
   * @example
   * ```ts
   * Keycloak({ client: { id_token_signed_response_alg: "HS256" } })
   * ```
   * @default undefined (asymmetric only)
   */
  id_token_signed_response_alg?: string;
  [key: string]: unknown;
}

/** The checks Latchkey makes on an OAuth callback. */
export type OAuthCheck = "pkce" | "state" | "none";

/** An OAuth 2 provider. */
export interface OAuth2Config<P> {
  id: string;
  name: string;
  type: "oauth";
  /** Discovery from `<issuer>/.well-known/openid-configuration` or RFC 8414 metadata. */
  issuer?: string;
  /** A discovery document URL other than the default. */
  wellKnown?: string;
  authorization?: string | AuthorizationEndpointHandler;
  token?: string | TokenEndpointHandler;
  userinfo?: string | UserinfoEndpointHandler;
  profile?: ProfileCallback<P>;
  account?: AccountCallback;
  /** @default ["pkce"] */
  checks?: OAuthCheck[];
  clientId?: string;
  clientSecret?: string;
  client?: OAuthClientOptions;
  style?: OAuthProviderButtonStyles;
  /**
   * Lets a user who signed in with another provider and the same e-mail be linked to this one.
   * Latchkey links only when this sign-in proved the address (`isEmailVerified`) and the stored
   * user proved it too (`emailVerified` set).
   */
  allowDangerousEmailAccountLinking?: boolean;
  /**
   * Whether this provider proved that the user controls the profile's e-mail address. A boolean
   * for providers that only hand out addresses they verified (or never do), or a function of the
   * profile. Default: proven only when the profile says `email_verified: true` (or `"true"`) for
   * the address the user was given. An unproven sign-in creates a user without `emailVerified`,
   * never links by e-mail, and loses the address to whoever proves it later (docs/security.md).
   *
   * @example
   * ```ts
   * // A single-tenant Entra ID whose directory assigns every address itself:
   * MicrosoftEntraID({ issuer: "https://login.microsoftonline.com/<tenant-id>/v2.0", isEmailVerified: true })
   * ```
   */
  isEmailVerified?: boolean | ((profile: P, tokens: TokenSet) => Awaitable<boolean>);
  redirectProxyUrl?: string;
  [customFetch]?: typeof fetch;
  /** The caller's options, merged over the defaults when the configuration is resolved. */
  options?: OAuthUserConfig<P>;
}

/** An OpenID Connect provider. */
export interface OIDCConfig<P> extends Omit<OAuth2Config<P>, "type" | "checks" | "options"> {
  type: "oidc";
  /** @default ["pkce", "nonce"] */
  checks?: Array<OAuthCheck | "nonce">;
  /** Read the user from the id_token instead of the userinfo endpoint. @default true */
  idToken?: boolean;
  options?: OIDCUserConfig<P>;
}

export type OAuthConfig<P = Profile> = OAuth2Config<P> | OIDCConfig<P>;

/** The options a caller passes to a provider factory. */
export type OAuthUserConfig<P> = Omit<Partial<OAuth2Config<P>>, "options" | "type">;
export type OIDCUserConfig<P> = Omit<Partial<OIDCConfig<P>>, "options" | "type">;

/** A provider after its options were merged and its endpoints normalised. */
export type OAuthConfigInternal<P> = Omit<OAuthConfig<P>, "authorization" | "token" | "userinfo" | "options"> & {
  authorization?: { url: URL | undefined; params: UrlParams };
  token?: TokenEndpointHandler;
  userinfo?: UserinfoEndpointHandler;
  checks: Array<OAuthCheck | "nonce">;
  signinUrl: string;
  callbackUrl: string;
};
