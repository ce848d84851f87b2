/**
 * The plain data shapes of Latchkey (spec §2): what flows through requests, sessions, cookies
 * and providers. The bottom layer of the package: this file imports nothing, and everything else
 * may import it. `@latchkey/core/types` re-exports every name, so applications never import it
 * from here.
 */
/** A value, or a promise of it. */
export type Awaitable<T> = T | PromiseLike<T>;

/** Provider types; `"totp"` (a second factor) is a Latchkey extension. */
export type ProviderType = "oauth" | "oidc" | "email" | "credentials" | "webauthn" | "totp";

/** The names of the actions served under `basePath` (spec §4; `organization` is Latchkey's: the active organization). */
export type AuthAction =
  | "callback"
  | "csrf"
  | "error"
  | "organization"
  | "providers"
  | "session"
  | "signin"
  | "signout"
  | "verify-request"
  | "webauthn-options";

/** The fields of a user that Latchkey fills: the base of `User`. */
export interface DefaultUser {
  id?: string;
  name?: string | null;
  email?: string | null;
  image?: string | null;
}

/**
 * A user as the application sees it (spec §2.2). Empty here and extended by `DefaultUser`, as in
 * Auth.js, so that module augmentation may redeclare a default field (`id: string`) or add its own.
 */
export interface User extends DefaultUser {}

/** The fields of a session that Latchkey fills: the base of `Session`. `expires` is an ISO 8601 date. */
export interface DefaultSession {
  user?: User;
  expires: string;
}

/**
 * The session sent to the client (spec §2.1). Empty here and extended by `DefaultSession`, as in
 * Auth.js, so that the documented augmentation compiles:
 *
 * @example
 * ```ts
 * declare module "@latchkey/next" {
 *   interface Session extends DefaultSession {
 *     user: { id: string } & DefaultSession["user"]
 *   }
 * }
 * ```
 */
export interface Session extends DefaultSession {}

/** RFC 9396 authorization details, kept on the account as the provider sent them. */
export interface AuthorizationDetails {
  type: string;
  [key: string]: unknown;
}

/** The token endpoint's response, as much of it as a provider sent. */
export interface TokenSet {
  access_token?: string;
  token_type?: string;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
  expires_in?: number;
  expires_at?: number;
  authorization_details?: AuthorizationDetails[];
  [key: string]: unknown;
}

/** A user's account at a provider (spec §2.3). */
export interface Account extends Partial<TokenSet> {
  provider: string;
  providerAccountId: string;
  type: ProviderType;
  userId?: string;
  /** Always lowercase. */
  token_type?: string;
  /** Absolute expiry in seconds since the epoch, computed from `expires_in`. */
  expires_at?: number;
}

/** A postal address claim of a profile. */
export interface ProfileAddress {
  country?: string | null;
  formatted?: string | null;
  locality?: string | null;
  postal_code?: string | null;
  region?: string | null;
  street_address?: string | null;
}

/** What an OAuth or OIDC provider says about a user (spec §2.4). */
export interface Profile {
  sub?: string | null;
  id?: string | null;
  name?: string | null;
  given_name?: string | null;
  family_name?: string | null;
  middle_name?: string | null;
  nickname?: string | null;
  preferred_username?: string | null;
  profile?: string | null;
  email?: string | null;
  email_verified?: boolean | null;
  gender?: string | null;
  birthdate?: string | null;
  locale?: string | null;
  phone_number?: string | null;
  picture?: unknown;
  website?: string | null;
  zoneinfo?: string | null;
  updated_at?: string | number | Date | null;
  address?: ProfileAddress | null;
  [claim: string]: unknown;
}

/** A passkey credential (spec §2.5). */
export interface Authenticator {
  /** Base64 credential id. */
  credentialID: string;
  /** Base64 public key. */
  credentialPublicKey: string;
  counter: number;
  credentialDeviceType: string;
  credentialBackedUp: boolean;
  /** Comma-separated transports. */
  transports?: string | null;
  providerAccountId: string;
  userId?: string;
}

/** An entry of `GET /auth/providers` (spec §2.6). */
export interface PublicProvider {
  id: string;
  name: string;
  type: string;
  signinUrl: string;
  callbackUrl: string;
}

/** The options a cookie is serialised with. */
export interface CookieSerializeOptions {
  domain?: string;
  expires?: Date;
  httpOnly?: boolean;
  maxAge?: number;
  path?: string;
  partitioned?: boolean;
  priority?: "low" | "medium" | "high";
  sameSite?: boolean | "lax" | "strict" | "none";
  secure?: boolean;
}

/** A cookie to set on the response. */
export interface Cookie {
  name: string;
  value: string;
  options?: CookieSerializeOptions;
}

/** A cookie's name and options (spec §2.8). */
export interface CookieOption {
  name: string;
  options: CookieSerializeOptions;
}

/** Overrides for the cookies Latchkey sets (spec §2.8). */
export interface CookiesOptions {
  sessionToken: Partial<CookieOption>;
  callbackUrl: Partial<CookieOption>;
  csrfToken: Partial<CookieOption>;
  pkceCodeVerifier: Partial<CookieOption>;
  state: Partial<CookieOption>;
  nonce: Partial<CookieOption>;
  webauthnChallenge: Partial<CookieOption>;
}

/** What every action returns before it becomes a `Response` (spec §2.7). */
export interface ResponseInternal<
  Body extends string | Record<string, unknown> | unknown[] | null =
    | string
    | Record<string, unknown>
    | unknown[]
    | null,
> {
  status?: number;
  headers?: Record<string, string>;
  body?: Body;
  redirect?: string;
  cookies?: Cookie[];
}

/** The look of the built-in pages (spec §2.9). */
export interface Theme {
  colorScheme?: "auto" | "dark" | "light";
  logo?: string;
  brandColor?: string;
  buttonText?: string;
}

/** Paths of the application's own pages, used instead of the built-in ones (spec §2.10). */
export interface PagesOptions {
  signIn: string;
  signOut: string;
  error: string;
  verifyRequest: string;
  newUser: string;
  /**
   * Latchkey extension: the application's page asking for the second factor's code (see
   * `@latchkey/core/providers/totp`). It receives `?callbackUrl=` (and `?error=` after a refused
   * code) and posts `code` and `csrfToken` to `<basePath>/callback/<provider id>`.
   */
  secondFactor: string;
}

/** What `logger.error`, `logger.warn` and `logger.debug` receive. */
export interface LoggerInstance {
  error: (error: Error) => void;
  /** `detail` (a Latchkey extension) says more when the code alone does not (which option, ...). */
  warn: (code: string, detail?: string) => void;
  debug: (message: string, metadata?: unknown) => void;
}

/** Why a session was revoked: Latchkey's own reasons, or one the application gave. */
export type SessionEndReason = "revoked" | "revoked-others" | "revoked-all" | "session-limit" | (string & {});
