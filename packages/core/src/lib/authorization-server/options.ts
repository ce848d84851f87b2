/**
 * The public shapes of the authorization server: its options, a client as registered, and what
 * the claims callback and a consent page of the application's own receive.
 */
import type { AdapterUser } from "../../shapes/adapters.js";
import type { Awaitable } from "../../shapes/data.js";
import type { RevocationStore } from "../../shapes/revocation.js";
import type { AuthConfig } from "../config/options.js";
import type { AuthorizationStore } from "./store.js";

/** The grants a client may use. */
export type GrantType =
  | "authorization_code"
  | "refresh_token"
  | "client_credentials"
  | "urn:ietf:params:oauth:grant-type:device_code";

/**
 * How a client proves who it is at the token, revocation and introspection endpoints: `none` for
 * a public client (a browser or native app, which cannot keep a secret), a shared secret
 * (`client_secret_basic`, `client_secret_post`) or a signed assertion (`private_key_jwt`, RFC 7523).
 */
export type ClientAuthMethod = "none" | "client_secret_basic" | "client_secret_post" | "private_key_jwt";

/** The signing algorithms of ID tokens, JWT access tokens and logout tokens. */
export type SigningAlgorithm = "RS256" | "ES256";

/** A public key of a client's, as a JWK (for `private_key_jwt`). */
export interface ClientJwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  [member: string]: unknown;
}

/**
 * What the admin API takes to register a client (`registerClient`), and what `updateClient`
 * changes.
 *
 * @example
 * ```ts
 * await registerClient(server, {
 *   name: "Reports",
 *   redirectUris: ["https://reports.example/callback"],
 *   tokenEndpointAuthMethod: "client_secret_basic",
 *   scopes: ["openid", "profile", "email", "offline_access"],
 * })
 * ```
 */
export interface ClientRegistration {
  /** Shown to the user on the consent page. */
  name: string;
  /**
   * Where authorization responses may go, each matched exactly: `https:` URLs; `http:` only on a
   * loopback host (`127.0.0.1`, `[::1]`, `localhost`), whose port may then differ (RFC 8252 §7.3);
   * or a native app's private-use scheme in reverse-domain form (`com.example.app:/cb`, RFC 8252
   * §7.1). Never a fragment, user info, `javascript:` or `data:`.
   */
  redirectUris?: string[];
  /** Where RP-initiated logout may send the browser back (the same rules). */
  postLogoutRedirectUris?: string[];
  /** @default "client_secret_basic" when `jwks` is not given, else "private_key_jwt" */
  tokenEndpointAuthMethod?: ClientAuthMethod;
  /** The public keys of a `private_key_jwt` client (`{ keys: [...] }`). */
  jwks?: { keys: ClientJwk[] };
  /**
   * @default ["authorization_code", "refresh_token"], or ["client_credentials"] for a
   * confidential client without redirect URIs
   */
  grantTypes?: GrantType[];
  /** The scopes the client may ask for (and so be granted): its per-client limit. */
  scopes: string[];
  /**
   * The resource servers (RFC 8707 resource indicators, absolute URIs) the client may ask tokens
   * for; a token names them in `aud`. Without any, its tokens are for the issuer (UserInfo) only.
   */
  resources?: string[];
  /**
   * A first-party client the user is not asked to consent to (its scopes are granted at sign-in).
   * @default false
   */
  skipConsent?: boolean;
  /** OIDC Back-Channel Logout: where a logout token is posted when the user's session ends. */
  backchannelLogoutUri?: string;
  /** @default the server's first signing algorithm */
  idTokenSignedResponseAlg?: SigningAlgorithm;
}

/** A registered client, as the admin API answers it (never its secret, only whether it has one). */
export interface Client
  extends Required<Omit<ClientRegistration, "jwks" | "backchannelLogoutUri" | "idTokenSignedResponseAlg">> {
  clientId: string;
  /** True for a client that authenticates (a secret or `private_key_jwt`). */
  confidential: boolean;
  jwks?: { keys: ClientJwk[] };
  backchannelLogoutUri?: string;
  idTokenSignedResponseAlg?: SigningAlgorithm;
  /** Epoch milliseconds. */
  createdAt: number;
  /**
   * How the client came to be known when not through the admin API: `document` for a client
   * whose id is the URL of its metadata document, `registration` for one registered dynamically
   * (RFC 7591). Its name is then its own claim, and the consent page says so.
   */
  origin?: "document" | "registration";
}

/** What the `claims` option receives: the user's record and what the token or response is for. */
export interface ClaimsParams {
  user: AdapterUser;
  /** The scopes granted (OIDC: `profile`, `email`, ... decide which claims to give). */
  scopes: string[];
  clientId: string;
}

/**
 * Clients that are not registered beforehand but name the URL of their metadata document as
 * their `client_id` (OAuth Client ID Metadata Documents, the MCP authorization specification's
 * first choice). The document is fetched when the client first shows up (only from public
 * addresses, without following redirects, within `maxBytes` and `timeoutMs`), kept for
 * `cacheSeconds` (or its `Cache-Control: max-age`, within 60 s to a day), and must name exactly
 * the URL it was fetched from as its `client_id`. Such a client is public (`none`) or signs with
 * its `jwks` (`private_key_jwt`); the user always consents to it.
 */
export interface ClientMetadataDocumentOptions {
  /** The scopes such a client may ask for (its document's `scope` does not change them: a client steps up within them). */
  scopes: string[];
  /** The resource servers (RFC 8707, your MCP servers) such clients may ask tokens for. */
  resources?: string[];
  /** How long a document is kept when its `Cache-Control` says nothing. @default 300 */
  cacheSeconds?: number;
  /** The largest document taken, in bytes. @default 5120 */
  maxBytes?: number;
  /** The deadline of one fetch, in milliseconds. @default 5000 */
  timeoutMs?: number;
  /**
   * Fetch documents from loopback and private addresses too. For tests on one machine only:
   * in production it lets anyone make the server fetch from its own network (SSRF).
   * @default false
   */
  allowPrivateNetwork?: boolean;
  /** Certificates (PEM) trusted beside the system's roots when fetching documents (Node.js only). */
  ca?: string[];
}

/**
 * Dynamic client registration (RFC 7591) at `<path>/register`: off unless given. Registered
 * clients use the authorization code grant (with refresh tokens), public or with a secret; never
 * client credentials. The user always consents to them.
 */
export interface DynamicRegistrationOptions {
  /** The scopes a registered client may ask for, whatever its registration's `scope` says (the answer names them). */
  scopes: string[];
  /** The resource servers (RFC 8707) registered clients may ask tokens for. */
  resources?: string[];
  /**
   * When set, a registration must carry `Authorization: Bearer <initialAccessToken>` (RFC 7591
   * §3): registration for those the application gave the token to. Without it, registration is
   * open, as MCP clients expect.
   */
  initialAccessToken?: string;
  /**
   * Registrations from one client address (an IPv6 /64), counted in the application's rate-limit
   * store. Where the address is unknown (`server.fetch` without the application's `clientAddress`
   * option), all such registrations share this one budget. Open registration (no
   * `initialAccessToken`) needs the application's rate limits: with `rateLimit: false` the server
   * is refused when made. @default { max: 20, windowSeconds: 3600 }
   */
  perIp?: { max: number; windowSeconds: number };
  /**
   * How long a registered client is kept while no user has granted it anything: a registration
   * nobody signs in with is gone after this many seconds, so what strangers register does not
   * stay. The first grant a user makes to the client keeps it for good. @default 86400 (one day)
   */
  unusedSeconds?: number;
  /**
   * The most dynamically registered clients the store keeps at once (unused ones included until
   * they expire). Past it a registration is refused with 503 `temporarily_unavailable` (a
   * `Retry-After` when an unused one will expire) and a warning in the log naming this option.
   * Several instances registering at the same moment may each add one past it. @default 10000
   */
  maxClients?: number;
}

/**
 * What a consent page of the application's own (`pages.consent`) needs to show and post:
 * `consentDetails(server, request, interaction)` answers it.
 */
export interface ConsentDetails {
  /** The client's name, as registered. */
  clientName: string;
  clientId: string;
  /**
   * For a client known by its metadata document or registered dynamically: the host that vouches
   * for it (its document's host, else its redirect URI's). Show it beside the name, which is the
   * client's own claim.
   */
  clientHost?: string;
  /** The host the browser will be sent back to: shown, so a user sees where the code goes. */
  redirectHost: string;
  /** The scopes asked for that the user has not granted yet. */
  scopes: string[];
  /** The resource servers the tokens will be for. */
  resources: string[];
  /** Where the form posts (`POST`, form-encoded): the fields below and `decision=allow|deny`. */
  action: string;
  /** Post back as `interaction`. */
  interaction: string;
  /** Post back as `csrfToken`. */
  csrfToken: string;
  /** Set these cookies on the page's response (the CSRF cookie, when the browser had none). */
  setCookie: string[];
}

/**
 * The options of `AuthorizationServer`. The server is off unless the application creates one; it
 * serves its endpoints under `issuer` and reads who is signed in from `auth`.
 *
 * @example
 * ```ts
 * const server = AuthorizationServer({
 *   issuer: "https://app.example",
 *   auth: config,                                  // the application's Latchkey configuration
 *   store: new MemoryAuthorizationStore(),         // or SqlAuthorizationStore / RedisAuthorizationStore
 *   scopes: ["openid", "profile", "email", "offline_access", "reports:read"],
 * })
 * ```
 */
export interface AuthorizationServerOptions {
  /**
   * The issuer identifier, exactly as tokens and metadata name it: `https://` (or `http://` on a
   * loopback host), no query or fragment. Its origin must be the application's, where `auth`'s
   * session cookie is sent.
   */
  issuer: string;
  /** The application's Latchkey configuration: its users (adapter), sessions, second factor and revocation. */
  auth: AuthConfig;
  /** Where clients, grants, codes, tokens and keys are kept. */
  store: AuthorizationStore;
  /**
   * Where the endpoints are served: `<path>/authorize`, `/token`, `/revoke`, `/introspect`,
   * `/userinfo`, `/jwks`, `/device_authorization`, `/device`, `/logout`, `/consent`.
   * @default the issuer's path + "/oauth"
   */
  path?: string;
  /** The scopes the server knows; a client's `scopes` must be among them. @default ["openid", "profile", "email", "offline_access"] */
  scopes?: string[];
  /** Lifetimes in seconds. */
  ttl?: {
    /** @default 60 */
    authorizationCode?: number;
    /** @default 600 */
    accessToken?: number;
    /** @default 600 */
    idToken?: number;
    /** A refresh-token family's whole life, from the grant. @default 2592000 (30 days) */
    refreshToken?: number;
    /** @default 600 */
    deviceCode?: number;
    /** A sign-in or consent in progress. @default 900 */
    interaction?: number;
  };
  /**
   * `jwt` (RFC 9068, verifiable by any resource server from the JWKS) or `opaque` (a random
   * string a resource server asks about at the introspection endpoint). @default "jwt"
   */
  accessTokenFormat?: "jwt" | "opaque";
  /**
   * The signing keys: generated and kept in `store`, the first algorithm's signs access tokens.
   * A key signs for `rotateAfter` seconds, then a new one takes over; the old one stays in the
   * JWKS until every token it signed has expired.
   */
  signing?: { algorithms?: SigningAlgorithm[]; rotateAfter?: number };
  /**
   * The claims of the user for `scopes` (UserInfo, and the ID token's when asked). The default
   * gives `name`, `picture` (`profile`), `email`, `email_verified` (`email`).
   */
  claims?: (params: ClaimsParams) => Awaitable<Record<string, unknown>>;
  /** A consent page of the application's own, given `?interaction=`; see {@link ConsentDetails}. */
  pages?: { consent?: string };
  /**
   * Instant revocation of JWT access tokens for resource servers that verify them with
   * `verifyAccessToken` and the same store: a revoked grant, refresh family, client or token is
   * refused at once. The stores of `session.revocation` serve (`RedisRevocationStore`, ...).
   */
  revocation?: RevocationStore;
  /** The `fetch` of back-channel logout requests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Clients known by the URL of their metadata document (MCP clients); off unless given. */
  clientMetadataDocuments?: ClientMetadataDocumentOptions;
  /** Dynamic client registration (RFC 7591); off unless given. */
  dynamicRegistration?: DynamicRegistrationOptions;
}
