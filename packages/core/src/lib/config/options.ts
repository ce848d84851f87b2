// The application's configuration, AuthConfig and its options (spec §6): declarations only, read
// by every wing that takes the configuration (the public face is types.ts). The resolved
// configuration's shapes are lib/config/types.ts.
import type { Provider } from "../../providers/index.js";
import type { Adapter, AdapterAccount, AdapterSession, AdapterUser } from "../../shapes/adapters.js";
import type { AdminConfig } from "../../shapes/admin.js";
import type { AuditEvent, AuditOptions } from "../../shapes/audit.js";
import type {
  Account,
  Awaitable,
  CookiesOptions,
  DefaultSession,
  LoggerInstance,
  PagesOptions,
  Profile,
  Session,
  SessionEndReason,
  Theme,
  User,
} from "../../shapes/data.js";
import type { JWT, JWTOptions } from "../../shapes/jwt.js";
import type { OrganizationsConfig } from "../../shapes/organizations.js";
import type { RateLimitOptions } from "../../shapes/rate-limit.js";
import type { RefreshStore } from "../../shapes/refresh.js";
import type { RevocationOptions, SessionCacheOptions } from "../../shapes/revocation.js";
import type { raw, skipCSRFCheck } from "../base/symbols.js";

/** The callbacks that decide what happens in a flow (spec §6). */
export interface CallbacksOptions {
  /**
   * Decides whether a user may sign in: `true` continues, `false` (or a throw) ends on the error
   * page as `AccessDenied`, a string redirects there.
   */
  signIn: (params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    email?: { verificationRequest?: boolean };
    credentials?: Record<string, unknown>;
  }) => Awaitable<boolean | string>;
  /** Decides where a redirect may go. The default keeps every redirect on the application's origin. */
  redirect: (params: { url: string; baseUrl: string }) => Awaitable<string>;
  /**
   * Shapes the session sent to the client. The parameters are typed as Auth.js types them (one
   * shape for both strategies): under JWT sessions `user` is undefined and `session.user` holds
   * the token's `name`, `email` and `image`; under database sessions `token` is undefined.
   */
  session: (params: {
    /**
     * Database sessions: the stored record (`userId`, metadata) with the user, but never its
     * `sessionToken`, the HttpOnly cookie's value: what this callback returns reaches
     * `GET /session`, and so any script on the page. `expires` is the ISO 8601 string the client
     * gets, under either strategy (the stored record's `Date` is converted).
     */
    session: Session & { user: AdapterUser } & Omit<AdapterSession, "sessionToken" | "expires">;
    token: JWT;
    user: AdapterUser;
    /** With `trigger: "update"`: the data `update(data)` sent from the client, as it sent it. */
    // biome-ignore lint/suspicious/noExplicitAny: Auth.js's type: the client's data, whatever its shape
    newSession: any;
    trigger?: "update";
  }) => Awaitable<Session | DefaultSession | Record<string, unknown>>;
  /** Shapes the JWT stored in the session cookie; `null` ends the session. */
  jwt: (params: {
    token: JWT;
    user: User | AdapterUser;
    account?: Account | null;
    profile?: Profile;
    trigger?: "signIn" | "signUp" | "update";
    /** @deprecated use `trigger === "signUp"` */
    isNewUser?: boolean;
    /**
     * With `trigger: "update"`: the data `update(data)` (or `unstable_update`) sent, as it sent
     * it. Typed `any` as in Auth.js, so `token.name = session.user.name` compiles: check it
     * before you trust it.
     */
    // biome-ignore lint/suspicious/noExplicitAny: Auth.js's type: the client's data, whatever its shape
    session?: any;
  }) => Awaitable<JWT | null>;
}

/** Audit notifications (spec §6). Their errors are logged, never thrown. */
export interface EventCallbacks {
  signIn: (message: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }) => Awaitable<void>;
  /**
   * A session ended. `reason` is a Latchkey extension, set when the application revoked the
   * session through `@latchkey/core/sessions` rather than the user signing out with it:
   * `"revoked"` (one session), `"revoked-others"` (all but the current), `"revoked-all"` (all of a
   * user's), `"session-limit"` (ended by a sign-in past `session.maxPerUser`), or the reason the
   * application gave to `revokeUserSessions`.
   */
  signOut: (message: {
    session?: AdapterSession | null | undefined;
    token?: JWT | null;
    reason?: SessionEndReason;
  }) => Awaitable<void>;
  /**
   * Latchkey extension (Auth.js has no such event): the application unlinked one of the user's
   * accounts with `unlinkAccount` of `@latchkey/core/sessions`. `account` carries no tokens.
   *
   * @example
   * ```ts
   * events: { unlinkAccount: ({ user, account }) => audit.info("unlinked", { user: user.id, provider: account.provider }) }
   * ```
   */
  unlinkAccount: (message: {
    user: AdapterUser;
    account: Pick<AdapterAccount, "provider" | "providerAccountId" | "type" | "userId">;
  }) => Awaitable<void>;
  createUser: (message: { user: User }) => Awaitable<void>;
  updateUser: (message: { user: User }) => Awaitable<void>;
  linkAccount: (message: {
    user: User | AdapterUser;
    account: Account;
    profile: User | AdapterUser;
  }) => Awaitable<void>;
  /** The session a read answered (what the `session` callback returned); `token` under JWT sessions. */
  session: (message: { session: Session; token: JWT }) => Awaitable<void>;
  /**
   * Latchkey extension (Auth.js has no such event). Someone proved control of `email` (a magic
   * link, or a provider that verified it) while `previousUser` held that address without ever
   * having proved it (a passkey sign-up, an unverified OAuth profile: a possible account
   * pre-hijacking). The address was taken off `previousUser` (now `email: null`, its accounts,
   * passkeys and sessions untouched) and given to `user`, a fresh user with `emailVerified` set, so
   * nothing attached before the proof opens the prover's account. `provider` is the proving one.
   *
   * @example
   * ```ts
   * events: {
   *   unverifiedEmailReleased: ({ email, previousUser, user }) =>
   *     audit.warn("pre-hijacking suspected", { email, from: previousUser.id, to: user.id }),
   * }
   * ```
   */
  /**
   * Latchkey extension (Auth.js has no such event): one security event of the audit trail (a
   * sign-in that succeeded, failed with its internal reason, or was limited; a session revoked;
   * an account linked or unlinked; a password changed; the secrets rotated). See
   * `@latchkey/core/audit`. Reasons are for the operator: never show them to the client.
   *
   * @example
   * ```ts
   * events: { audit: (event) => logger.info({ audit: event }) }
   * ```
   */
  audit: (event: AuditEvent) => Awaitable<void>;
  unverifiedEmailReleased: (message: {
    email: string;
    provider: string;
    previousUser: AdapterUser;
    user: AdapterUser;
  }) => Awaitable<void>;
}

/** Session options (spec §5.3, §8). */
export interface SessionOptions {
  /** @default "jwt" without an adapter, "database" with one */
  strategy: "jwt" | "database";
  /** Seconds until an idle session expires. @default 2592000 (30 days) */
  maxAge: number;
  /** Seconds between refreshes of the session's expiry; 0 refreshes on every access. @default 86400 */
  updateAge: number;
  /** Makes the token of a database session. @default a random UUID */
  generateSessionToken: () => string;
  /**
   * Latchkey extension: database sessions one user may have. A sign-in past it ends the user's
   * oldest sessions (each with a `signOut` event, `reason: "session-limit"`), so signing in over
   * and over cannot grow the sessions store. Applies with an adapter that has `listSessions`
   * (Latchkey's SQL, Redis and memory adapters); an Auth.js adapter is left as it is.
   * @default 100
   */
  maxPerUser: number;
  /**
   * Latchkey extension: instant revocation of JWT sessions (`revokeJwtSession`,
   * `revokeUserSessions` and sign-out, from `@latchkey/core/revocation`), on every instance that
   * shares the store. `true` keeps the list in this process's memory.
   * @default off
   */
  revocation?: RevocationOptions | boolean;
  /**
   * Latchkey extension (database sessions): a per-instance cache of session reads, dropped on
   * every instance when a session or its user changes (through Latchkey, or on PostgreSQL by any
   * SQL once `latchkey migrate` installed its triggers), trusted only while its channel is up.
   * `true` keeps the channel in this process's memory (one process). Off unless set: see the
   * guarantee in docs/security.md.
   * @default off
   */
  cache?: SessionCacheOptions | boolean;
  /**
   * Latchkey extension: store the client's address with each database session (shown by
   * `listSessions` of `@latchkey/core/sessions`). The address is personal data: off unless the
   * application turns it on. It is the address the framework trusts (Express's `req.ip`, or the
   * `clientAddress` option of `Auth()`).
   * @default false
   */
  recordClientAddress?: boolean;
}

/**
 * Latchkey extension: how `getAccessToken` keeps provider access tokens fresh.
 *
 * @example
 * ```ts
 * accessTokens: { jwt: true, skewSeconds: 120, store: RedisRefreshStore(redis) } // from @latchkey/redis-adapter
 * ```
 */
export interface AccessTokensOptions {
  /**
   * JWT sessions: keep the provider's tokens (access, refresh, expiry) in the session token at
   * sign-in, under `token.providerTokens[providerId]`, sealed like the rest of the token. They
   * never reach the client unless a `session` callback copies them there.
   * @default false
   */
  jwt?: boolean;
  /** A token expiring within this many seconds is refreshed first. @default 60 */
  skewSeconds?: number;
  /**
   * Where instances coordinate refreshes (one provider call per refresh token). Share one store
   * between instances: `RedisRefreshStore` (`@latchkey/redis-adapter`) or `SqlRefreshStore`
   * (`@latchkey/sql-adapter`).
   * @default a MemoryRefreshStore for this configuration (one process)
   */
  store?: RefreshStore;
  /**
   * How long the outcome of a refresh stays available to requests that still carry the refresh
   * token it replaced. @default 30
   */
  reuseWindowSeconds?: number;
}

/** The configuration of Latchkey (spec §5, §8, §9). */
export interface AuthConfig {
  /** The sign-in methods. */
  providers: Provider[];
  /** At least 32 random characters; an array rotates secrets (the first signs, all verify). */
  secret?: string | string[];
  session?: Partial<SessionOptions>;
  jwt?: Partial<JWTOptions>;
  pages?: Partial<PagesOptions>;
  theme?: Theme;
  callbacks?: Partial<CallbacksOptions>;
  events?: Partial<EventCallbacks>;
  adapter?: Adapter;
  /** Logs debug messages. @default false */
  debug?: boolean;
  logger?: Partial<LoggerInstance>;
  /** @default true for https:// URLs */
  useSecureCookies?: boolean;
  cookies?: Partial<CookiesOptions>;
  /**
   * Answer a request with redirects and pages built from the host it arrived at (`Host`, or the
   * proxy's header under `trustProxy` or the framework's own proxy setting). Never the origin of
   * a link mailed to someone: that is `AUTH_URL`'s, or one of `trustedOrigins`. Loopback hosts
   * (`localhost`, `127.0.0.1`, `[::1]`) are always trusted.
   * @default false unless AUTH_TRUST_HOST or AUTH_URL is set
   */
  trustHost?: boolean;
  /**
   * The origins the application is served at (`["https://app.example", "https://www.app.example"]`)
   * when `AUTH_URL` names none: a request arriving at one of them is trusted, and the links
   * e-mailed from it (magic links, password resets, address verification, account notes) are
   * built from its origin. A request arriving at any other host mails nothing (a logged
   * `UntrustedHost` names the fix; the client is answered as if it had gone).
   * @default AUTH_TRUSTED_ORIGINS (comma-separated), and on Vercel its own domains
   */
  trustedOrigins?: string[];
  /**
   * The application runs behind a proxy that overwrites the headers naming where a request
   * arrived: `true` reads the last `X-Forwarded-Host` and `X-Forwarded-Proto` entries,
   * `"forwarded"` the last element of `Forwarded` (RFC 7239), and nothing else. Off, no such
   * header is read. Express and Fastify apply their own `trust proxy` / `trustProxy` instead, and
   * SvelteKit its adapter's (`ORIGIN`, `HOST_HEADER`); this is for Next.js, Hono and `Auth()`.
   * @default AUTH_TRUST_PROXY ("true" or "forwarded"); true on Vercel (VERCEL=1), whose proxy sets them
   */
  trustProxy?: boolean | "forwarded";
  /** Turns the CSRF check off (pass the `skipCSRFCheck` symbol). */
  skipCSRFCheck?: typeof skipCSRFCheck;
  /** Makes `Auth` return the `ResponseInternal` (pass the `raw` symbol). */
  raw?: typeof raw;
  /** Where the actions are served. @default "/auth" */
  basePath?: string;
  /** The `redirect_uri` of OAuth requests, for preview deployments. @default AUTH_REDIRECT_PROXY_URL */
  redirectProxyUrl?: string;
  experimental?: { enableWebAuthn?: boolean };
  /**
   * Latchkey extension: milliseconds an adapter call may take before it fails as `AdapterError`
   * (the request then gets a bounded error instead of waiting on a store that stopped answering).
   * @default 5000
   */
  adapterTimeout?: number;
  /** Limits on sign-in attempts per client IP and per identifier; `false` turns them off. @default on */
  rateLimit?: RateLimitOptions | false;
  /**
   * Latchkey extension: the audit trail. Events go to `events.audit` whenever it is set; with
   * `store` they are also written to the adapter (or another store), kept for `retention`.
   * @example
   * ```ts
   * audit: { store: true, retention: 30 * 24 * 60 * 60 }
   * ```
   */
  audit?: AuditOptions;
  /**
   * Latchkey extension: the client's address of a request, for per-client rate limits. Only the
   * application knows which proxies it trusts, so `Auth()` reads no header by itself. One rule in
   * every framework: this option wins when it is set and answers (a throw or an empty answer
   * counts as none); otherwise the peer the framework names (Express's and Fastify's `request.ip`
   * under their `trust proxy`, SvelteKit's `getClientAddress()`, the socket under Hono on Node.js,
   * Bun and Deno); otherwise none, and only per-identifier limits apply (`Auth()`, Next.js).
   *
   * @example
   * ```ts
   * clientAddress: (request) => request.headers.get("fly-client-ip") // one trusted proxy sets it
   * ```
   */
  clientAddress?: (request: Request) => string | null | undefined;
  /** Latchkey extension: provider access tokens kept fresh by `getAccessToken`. */
  accessTokens?: AccessTokensOptions;
  /**
   * Latchkey extension: the organizations store and roles (the ones given to `Organizations`), for
   * the active organization (`POST <basePath>/organization`, `session.activeOrganization`, read
   * from the store on every read) and `requireAuth`'s `organization`, `role` and `permission`.
   *
   * @example
   * ```ts
   * organizations: { store: SqlOrganizationStore(db), roles }
   * ```
   */
  organizations?: OrganizationsConfig;
  /**
   * Latchkey extension: the admin store (the one given to `Admin` of `@latchkey/core/admin`), so
   * that every sign-in, on every instance, refuses a banned user (`AccessDenied`).
   *
   * @example
   * ```ts
   * admin: { store: SqlAdminStore(db) }
   * ```
   */
  admin?: AdminConfig;
}

/**
 * The session an application's configuration produces: what its `session` callback returns, or
 * `Session` (which module augmentation of `@latchkey/core/types` can extend, as with Auth.js).
 * What the framework packages' `getSession` and `requireAuth` give.
 *
 * @example
 * ```ts
 * const config = { providers, callbacks: { session: ({ session }) => ({ ...session, role: "admin" as const }) } }
 * type AppSession = SessionOf<typeof config> // { ...; role: "admin" }
 * ```
 */
export type SessionOf<C> = AuthConfig extends C
  ? Session
  : C extends { callbacks?: { session?: (...args: never[]) => infer R } }
    ? unknown extends R
      ? Session
      : Awaited<R>
    : Session;
