/**
 * The shapes of a resolved configuration: what `lib/config/resolve.ts` builds and every request reads.
 * A leaf of `lib/` (it imports only types, from the layers below and from modules that import
 * nothing back), so the flows and `config.ts` need not import each other: `config.ts` calls the
 * flows' checks, the flows read these shapes.
 */

import type { CredentialsConfig } from "../../providers/credentials.js";
import type { OAuthConfigInternal } from "../../providers/oauth.js";
import type { TOTPConfig } from "../../providers/totp.js";
import type { RelyingPartyOptions, WebAuthnConfig } from "../../providers/webauthn.js";
import type { Adapter } from "../../shapes/adapters.js";
import type { CookieOption, LoggerInstance, PagesOptions, Profile, Theme, TokenSet } from "../../shapes/data.js";
import type { EmailConfig } from "../../shapes/email.js";
import type { JWTOptions } from "../../shapes/jwt.js";
import type { RefreshStore } from "../../shapes/refresh.js";
import type { ResolvedAudit } from "../audit/record.js";
import type { Application } from "../base/application.js";
import type { CsrfKeys } from "../crypto/csrf.js";
import type { Secrets } from "../crypto/jwe.js";
import type { CookieRole } from "../http/cookies.js";
import type { ResolvedRateLimit } from "../limits/rate-limits.js";
import type { ResolvedRevocation } from "../session/revocation-list.js";
import type { SessionCache } from "../session/session-cache.js";
import type { Env } from "./env.js";
import type { AuthConfig, CallbacksOptions, EventCallbacks, SessionOptions } from "./options.js";

export type { Env };

/** The paths every resolved provider gets: where its sign-in starts and where it calls back. */
export interface ProviderPaths {
  signinPath: string;
  callbackPath: string;
}

/** An OAuth or OIDC provider after resolution: endpoints normalised, checks chosen. */
export type OAuthProviderInternal = OAuthConfigInternal<Profile> & ProviderPaths;
/** A credentials provider after resolution (`credentials` always an object). */
export type CredentialsProviderInternal = CredentialsConfig & ProviderPaths;
/** An e-mail provider after resolution (`maxAge` always set). */
export type EmailProviderInternal = Required<Pick<EmailConfig, "maxAge">> & EmailConfig & ProviderPaths;
/** A TOTP provider after resolution. */
export type TOTPProviderInternal = TOTPConfig & ProviderPaths;
/** A WebAuthn provider after resolution: options merged, relying party normalised, paths computed. */
export type WebAuthnProviderInternal = Omit<WebAuthnConfig, "relayingParty" | "options"> & {
  relyingParty: { id: string[]; name: string[]; origin: string[] };
  /** The relying party as configured (both spellings merged): what an application's `getRelayingParty` reads. */
  configuredRelyingParty: RelyingPartyOptions;
} & ProviderPaths;

/** A provider after resolution: defaults merged, endpoints normalised, paths computed. */
export type InternalProvider =
  | OAuthProviderInternal
  | CredentialsProviderInternal
  | EmailProviderInternal
  | WebAuthnProviderInternal
  | TOTPProviderInternal;

/** What an id_token failed, for the typed error of its caller (sign-in or refresh). */
export type IdTokenRefusalReason = "claims" | "signature" | "iat" | "sub" | "iss";

/** What a refresh attempt ended with. */
export type RefreshOutcome =
  | { ok: true; tokens: TokenSet }
  /** The grant is gone for good (`invalid_grant`): only the user can get a new one. */
  | { ok: false; revoked: true; message: string }
  /**
   * Anything else: unreachable provider, another error answer, a malformed response; with
   * `idToken`, an answer refused for its id_token (nothing of it is kept).
   */
  | { ok: false; revoked: false; message: string; idToken?: IdTokenRefusalReason };

/**
 * Per-configuration memory that requests fill, to save work: bounded, never shared between
 * configurations, and dropped with the configuration (a secret rotation resolves a new one and so
 * starts empty). Nothing here is safety state: that belongs to the application
 * (`ResolvedConfig.application`), whatever objects it makes.
 */
export interface ConfigCaches {
  /** `scheme://host` → its validated origin and whether the host is trusted (256 at most). */
  readonly origins: Map<string, { origin: string; trusted: boolean }>;
  /** Session tokens opened recently → their claims as JSON (see session/jwt-strategy.ts). */
  readonly openedTokens: Map<string, { json: string; exp: number | undefined }>;
}

/** The configuration after validation: defaults filled in, keys derived, deeply frozen. */
export interface ResolvedConfig {
  /** The application's own configuration object, as given (never changed by Latchkey). */
  readonly source: AuthConfig;
  /** The application's URL from `AUTH_URL`, read once when the environment is consulted. */
  readonly url?: URL;
  /** True when the application set `basePath` itself (a framework's mount path does not override it). */
  readonly basePathConfigured: boolean;
  readonly secrets: Secrets;
  readonly basePath: string;
  readonly providers: readonly InternalProvider[];
  readonly providersById: ReadonlyMap<string, InternalProvider>;
  readonly session: Readonly<SessionOptions>;
  readonly jwt: Readonly<{
    maxAge: number;
    secrets: Secrets;
    encode?: JWTOptions["encode"];
    decode?: JWTOptions["decode"];
  }>;
  readonly callbacks: Readonly<CallbacksOptions>;
  /** True where the callback is Latchkey's own, so the session read can skip calling it. */
  readonly defaultCallbacks: Readonly<{ jwt: boolean; session: boolean }>;
  readonly events: Readonly<Partial<EventCallbacks>>;
  readonly adapter?: Adapter;
  readonly pages: Readonly<Partial<PagesOptions>>;
  readonly theme: Readonly<Theme>;
  readonly logger: LoggerInstance;
  /** Cookie names and options for http and for https origins. */
  readonly cookies: Readonly<{ http: Record<CookieRole, CookieOption>; https: Record<CookieRole, CookieOption> }>;
  readonly useSecureCookies?: boolean;
  /** Null when the CSRF check is off. */
  readonly csrf: CsrfKeys | null;
  readonly trustHost: boolean;
  /** `trustedOrigins`, each an origin (`https://app.example`). */
  readonly trustedOrigins: readonly string[];
  /** Which proxy header says where a request arrived, or false (none is read). */
  readonly trustProxy: false | true | "forwarded";
  readonly redirectProxyUrl?: string;
  readonly experimental: Readonly<{ enableWebAuthn: boolean }>;
  readonly debug: boolean;
  /** Null when rate limiting is off. */
  readonly rateLimit: ResolvedRateLimit | null;
  /** How `getAccessToken` keeps provider tokens fresh. */
  readonly accessTokens: Readonly<{
    jwt: boolean;
    skewSeconds: number;
    store: RefreshStore;
    reuseWindowSeconds: number;
    /** How long a refresh lock lives (internal: tests shorten it; the refresh is bounded below it). */
    lockTtlMs: number;
  }>;
  /** Null unless `session.revocation` is set (JWT sessions only). */
  readonly revocation: ResolvedRevocation | null;
  /** Null unless `session.cache` is set (database sessions only); the adapter then announces its writes to it. */
  readonly sessionCache: SessionCache | null;
  /** Null when nothing receives audit events (no `events.audit`, no `audit.store`). */
  readonly audit: ResolvedAudit | null;
  /**
   * The application this configuration belongs to (found by its secrets, `lib/base/application.ts`):
   * its in-memory safety state, shared by every configuration object and copy of it.
   */
  readonly application: Application;
  /** Mutable per-configuration memory (with `application`, the parts that are not frozen). */
  readonly caches: ConfigCaches;
}
