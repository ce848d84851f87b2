import { randomBytes } from "node:crypto";
import type { Adapter } from "../adapters.js";
import { adapterMethods } from "../adapters.js";
import {
  AdapterError,
  EventError,
  ExperimentalFeatureNotEnabled,
  InvalidConfiguration,
  InvalidEndpoints,
  InvalidProvider,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingSecret,
  UnsupportedStrategy,
} from "../errors.js";
import type { JWT, JWTOptions } from "../jwt.js";
import type { CredentialsConfig } from "../providers/credentials.js";
import type { EmailConfig } from "../providers/email.js";
import type { OAuthCheck, OAuthConfig, OAuthConfigInternal } from "../providers/oauth.js";
import type {
  AuthConfig,
  CallbacksOptions,
  CookieOption,
  EventCallbacks,
  LoggerInstance,
  PagesOptions,
  Profile,
  SessionOptions,
  Theme,
} from "../types.js";
import { type CookieRole, defaultCookies } from "./cookies.js";
import { type CsrfKeys, deriveCsrfKeys } from "./csrf.js";
import {
  assertConditionalUI,
  resolveWebAuthnProvider,
  type WebAuthnProviderInternal,
  webauthnAdapterMethods,
} from "./flows/webauthn.js";
import { createLogger } from "./logger.js";
import { merge } from "./merge.js";
import { applyProviderOptions } from "./providers.js";
import { type ResolvedRateLimit, resolveRateLimit } from "./rate-limiter.js";
import { defaultRedirect } from "./redirect.js";
import { skipCSRFCheck } from "./symbols.js";

/** A provider after resolution: defaults merged, endpoints normalised, paths computed. */
export type InternalProvider =
  | (OAuthConfigInternal<Profile> & { signinPath: string; callbackPath: string })
  | (CredentialsConfig & { signinPath: string; callbackPath: string })
  | (Required<Pick<EmailConfig, "maxAge">> & EmailConfig & { signinPath: string; callbackPath: string })
  | WebAuthnProviderInternal;

/** The configuration after validation: defaults filled in, keys derived, frozen. */
export interface ResolvedConfig {
  readonly source: AuthConfig;
  readonly secrets: readonly string[];
  readonly basePath: string;
  readonly providers: readonly InternalProvider[];
  readonly providersById: ReadonlyMap<string, InternalProvider>;
  readonly session: Readonly<SessionOptions>;
  readonly jwt: Readonly<{
    maxAge: number;
    secrets: readonly string[];
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
  readonly redirectProxyUrl?: string;
  readonly experimental: Readonly<{ enableWebAuthn: boolean }>;
  readonly debug: boolean;
  /** Null when rate limiting is off. */
  readonly rateLimit: ResolvedRateLimit | null;
}

const DAY = 24 * 60 * 60;

const defaultCallbackSet: CallbacksOptions = {
  signIn: () => true,
  redirect: defaultRedirect,
  session: ({ session }) => ({
    user: { name: session.user?.name, email: session.user?.email, image: session.user?.image },
    // database sessions carry a Date; the client always gets an ISO string
    expires:
      (session.expires as unknown) instanceof Date
        ? (session.expires as unknown as Date).toISOString()
        : session.expires,
  }),
  jwt: ({ token }: { token: JWT }) => token,
};

const BASE_PATH = /^\/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]+\/?)*$/;

function assertBasePath(value: string): string {
  const trimmed = value.length > 1 ? value.replace(/\/+$/, "") : value;
  if (!BASE_PATH.test(trimmed) || trimmed.includes("//") || /(^|\/)\.\.?(\/|$)/.test(trimmed)) {
    throw new InvalidConfiguration(
      `\`basePath\` must be a path such as "/auth" (a leading slash, no query, fragment, "//" or dot segments); received ${JSON.stringify(value)}`,
    );
  }
  return trimmed === "/" ? "" : trimmed;
}

function assertSecrets(secret: AuthConfig["secret"]): string[] {
  const list = Array.isArray(secret) ? secret : secret ? [secret] : [];
  if (list.length === 0) {
    throw new MissingSecret(
      "No `secret` is configured. Set the AUTH_SECRET environment variable or the `secret` option to at least 32 random characters; `npx latchkey secret` prints one.",
    );
  }
  list.forEach((s, i) => {
    if (typeof s !== "string" || s.length < 32) {
      const where = Array.isArray(secret) ? `\`secret[${i}]\`` : "`secret`";
      throw new InvalidConfiguration(
        `${where} must be at least 32 characters long (it is ${typeof s === "string" ? s.length : typeof s}); \`npx latchkey secret\` prints a suitable one.`,
      );
    }
  });
  return [...list];
}

function normalizeEndpoint(
  providerId: string,
  name: "authorization" | "token" | "userinfo",
  value: unknown,
): { url?: string; params?: Record<string, unknown>; request?: unknown; conform?: unknown } | undefined {
  if (value === undefined) return undefined;
  const endpoint = typeof value === "string" ? { url: value } : (value as { url?: string });
  if (endpoint.url !== undefined) {
    try {
      new URL(endpoint.url);
    } catch {
      throw new InvalidEndpoints(
        `Provider "${providerId}": \`${name}\` must be an absolute URL; received ${JSON.stringify(endpoint.url)}`,
      );
    }
  }
  return endpoint;
}

function resolveOAuth(config: OAuthConfig, basePath: string): InternalProvider {
  const p = config as OAuthConfig & { type: "oauth" | "oidc" };
  if (p.issuer !== undefined) {
    try {
      new URL(p.issuer);
    } catch {
      throw new InvalidEndpoints(
        `Provider "${p.id}": \`issuer\` must be an absolute URL; received ${JSON.stringify(p.issuer)}`,
      );
    }
  }
  const authorization = normalizeEndpoint(p.id, "authorization", p.authorization);
  const token = normalizeEndpoint(p.id, "token", p.token);
  const userinfo = normalizeEndpoint(p.id, "userinfo", p.userinfo);
  if (!p.issuer && (!authorization?.url || (!token?.url && !token?.request))) {
    throw new InvalidEndpoints(
      `Provider "${p.id}" needs an \`issuer\` (for discovery) or both \`authorization\` and \`token\` endpoints.`,
    );
  }
  if (p.type === "oauth" && !p.issuer && !userinfo?.url && !userinfo?.request) {
    throw new InvalidEndpoints(
      `Provider "${p.id}" needs a \`userinfo\` endpoint (or an \`issuer\`) to read the user's profile.`,
    );
  }
  const checks: Array<OAuthCheck | "nonce"> = p.checks
    ? [...p.checks]
    : p.type === "oidc"
      ? ["pkce", "nonce"]
      : ["pkce"];
  const redirectProxyUrl = p.redirectProxyUrl;
  if (redirectProxyUrl && !checks.includes("state")) checks.push("state");
  return {
    ...p,
    authorization: authorization
      ? {
          url: authorization.url ? new URL(authorization.url) : undefined,
          params: (authorization.params ?? {}) as Record<string, string>,
        }
      : undefined,
    token: token as OAuthConfigInternal<Profile>["token"],
    userinfo: userinfo as OAuthConfigInternal<Profile>["userinfo"],
    checks,
    signinUrl: "",
    callbackUrl: "",
    signinPath: `${basePath}/signin/${p.id}`,
    callbackPath: `${basePath}/callback/${p.id}`,
  } as InternalProvider;
}

function resolveProviders(
  config: AuthConfig,
  basePath: string,
  strategy: SessionOptions["strategy"],
): InternalProvider[] {
  const seen = new Set<string>();
  return (config.providers ?? []).map((entry, index) => {
    const provider = applyProviderOptions(entry) as ReturnType<typeof applyProviderOptions> & {
      redirectProxyUrl?: string;
    };
    if (!provider || typeof provider.id !== "string" || !/^[A-Za-z0-9_-]+$/.test(provider.id)) {
      throw new InvalidProvider(`\`providers[${index}]\` needs an \`id\` made of letters, digits, "-" or "_".`);
    }
    if (seen.has(provider.id))
      throw new InvalidProvider(`Two providers have the id "${provider.id}"; give one of them another \`id\`.`);
    seen.add(provider.id);
    const paths = {
      signinPath: `${basePath}/signin/${provider.id}`,
      callbackPath: `${basePath}/callback/${provider.id}`,
    };
    switch (provider.type) {
      case "credentials":
        if (typeof provider.authorize !== "function") {
          throw new MissingAuthorize(`Credentials provider "${provider.id}" needs an \`authorize\` function.`);
        }
        if (strategy === "database") {
          throw new UnsupportedStrategy(
            `Credentials provider "${provider.id}" only works with JWT sessions; set \`session: { strategy: "jwt" }\` (an adapter makes "database" the default).`,
          );
        }
        if (
          provider.identifier !== undefined &&
          typeof provider.identifier !== "function" &&
          (typeof provider.identifier !== "string" || provider.identifier === "")
        ) {
          throw new InvalidProvider(
            `Credentials provider "${provider.id}": \`identifier\` must be the name of a credentials field or a function of the credentials.`,
          );
        }
        return { ...provider, credentials: provider.credentials ?? {}, ...paths };
      case "email":
        if (!config.adapter) {
          throw new MissingAdapter(
            `E-mail provider "${provider.id}" needs an \`adapter\` to store its verification tokens.`,
          );
        }
        if (typeof provider.sendVerificationRequest !== "function") {
          throw new InvalidProvider(`E-mail provider "${provider.id}" needs a \`sendVerificationRequest\` function.`);
        }
        return { ...provider, maxAge: provider.maxAge ?? 10 * 60, ...paths };
      case "oauth":
      case "oidc":
        return resolveOAuth(
          { ...provider, redirectProxyUrl: provider.redirectProxyUrl ?? config.redirectProxyUrl } as OAuthConfig,
          basePath,
        );
      case "webauthn":
        return resolveWebAuthnProvider(provider, paths, config);
      default: {
        const type = (provider as { type?: unknown }).type;
        if (type === "webauthn" && !config.experimental?.enableWebAuthn) {
          throw new ExperimentalFeatureNotEnabled(
            `Provider "${(provider as { id: string }).id}" is a WebAuthn provider; turn it on with \`experimental: { enableWebAuthn: true }\`.`,
          );
        }
        throw new InvalidProvider(
          `Provider "${(provider as { id: string }).id}" has the unknown type ${JSON.stringify(type)}; use "oauth", "oidc", "email" or "credentials".`,
        );
      }
    }
  });
}

/** The adapter methods each feature needs. */
function requiredAdapterMethods(strategy: SessionOptions["strategy"], providers: InternalProvider[]): string[] {
  const needed = new Set<string>();
  if (strategy === "database")
    for (const m of ["createSession", "getSessionAndUser", "updateSession", "deleteSession"]) needed.add(m);
  for (const p of providers) {
    if (p.type === "oauth" || p.type === "oidc" || p.type === "email") {
      for (const m of ["createUser", "getUser", "getUserByAccount", "getUserByEmail", "linkAccount", "updateUser"])
        needed.add(m);
    }
    if (p.type === "email") for (const m of ["createVerificationToken", "useVerificationToken"]) needed.add(m);
    if (p.type === "webauthn") for (const m of webauthnAdapterMethods) needed.add(m);
  }
  return [...needed];
}

/**
 * Wraps every adapter method so a failure becomes an `AdapterError` naming the method, and so a
 * store that stops answering (packets dropped, a client queueing commands while it reconnects)
 * fails after `timeoutMs` instead of holding the request forever.
 */
function guardAdapter(adapter: Adapter, timeoutMs: number): Adapter {
  const guarded: Record<string, unknown> = {};
  for (const name of adapterMethods) {
    const method = adapter[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof method !== "function") continue;
    guarded[name] = async (...args: unknown[]) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return await Promise.race([method.apply(adapter, args), timeout]);
      } catch (e) {
        if (e instanceof AdapterError) throw e;
        throw new AdapterError(`Adapter method \`${name}\` failed`, { err: e as Error, method: name });
      } finally {
        clearTimeout(timer);
      }
    };
  }
  if (typeof adapter.transaction === "function") {
    const transaction = adapter.transaction.bind(adapter);
    guarded.transaction = <T>(work: (tx: Adapter) => Promise<T>) =>
      transaction((tx) => work(guardAdapter(tx, timeoutMs)));
  }
  return guarded as Adapter;
}

function guardEvents(events: Partial<EventCallbacks> | undefined, logger: LoggerInstance): Partial<EventCallbacks> {
  const out: Record<string, (message: unknown) => Promise<void>> = {};
  for (const [name, handler] of Object.entries(events ?? {})) {
    if (typeof handler !== "function") continue;
    out[name] = async (message: unknown) => {
      try {
        await (handler as (m: unknown) => unknown)(message);
      } catch (e) {
        logger.error(new EventError(`The \`${name}\` event handler threw`, { err: e as Error }));
      }
    };
  }
  return out as Partial<EventCallbacks>;
}

function positiveSeconds(name: string, value: unknown, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new InvalidConfiguration(
      `\`${name}\` must be a ${allowZero ? "non-negative" : "positive"} number of seconds; received ${String(value)}`,
    );
  }
  return value;
}

/** Builds the resolved configuration. Throws a typed error naming the option and the fix. */
function buildConfig(config: AuthConfig): ResolvedConfig {
  const debug = !!config.debug;
  const logger = createLogger(config.logger, debug);
  if (!config || !Array.isArray(config.providers)) {
    throw new InvalidConfiguration("`providers` must be an array of providers (it may be empty).");
  }
  const secrets = assertSecrets(config.secret);
  const basePath = assertBasePath(config.basePath ?? "/auth");
  const strategy = config.session?.strategy ?? (config.adapter ? "database" : "jwt");
  if (strategy !== "jwt" && strategy !== "database") {
    throw new InvalidConfiguration(
      `\`session.strategy\` must be "jwt" or "database"; received ${JSON.stringify(strategy)}`,
    );
  }
  if (strategy === "database" && !config.adapter) {
    throw new MissingAdapter('`session.strategy: "database"` needs an `adapter`; add one or use "jwt".');
  }
  const maxAge = positiveSeconds("session.maxAge", config.session?.maxAge, 30 * DAY);
  const session: SessionOptions = {
    strategy,
    maxAge,
    updateAge: positiveSeconds("session.updateAge", config.session?.updateAge, DAY, true),
    // 256 random bits: a session token is a bearer credential.
    generateSessionToken: config.session?.generateSessionToken ?? (() => randomBytes(32).toString("hex")),
  };
  const providers = resolveProviders(config, basePath, strategy);
  assertConditionalUI(providers);
  if (config.adapter) {
    const missing = requiredAdapterMethods(strategy, providers).filter(
      (m) => typeof (config.adapter as Record<string, unknown>)[m] !== "function",
    );
    if (missing.length) {
      throw new MissingAdapterMethods(`The adapter lacks methods this configuration needs: ${missing.join(", ")}.`);
    }
  }
  const jwtSecrets = config.jwt?.secret !== undefined ? assertSecrets(config.jwt.secret) : secrets;
  const callbacks = { ...defaultCallbackSet, ...config.callbacks } as CallbacksOptions;
  if (debug) logger.warn("debug-enabled");
  if (config.experimental?.enableWebAuthn) logger.warn("experimental-webauthn");
  if (config.skipCSRFCheck === skipCSRFCheck) logger.warn("csrf-disabled");

  const resolved: ResolvedConfig = {
    source: config,
    secrets,
    basePath,
    providers,
    providersById: new Map(providers.map((p) => [p.id, p])),
    session,
    jwt: {
      maxAge: positiveSeconds("jwt.maxAge", config.jwt?.maxAge, maxAge),
      secrets: jwtSecrets,
      encode: config.jwt?.encode,
      decode: config.jwt?.decode,
    },
    callbacks,
    defaultCallbacks: { jwt: !config.callbacks?.jwt, session: !config.callbacks?.session },
    events: guardEvents(config.events, logger),
    adapter: config.adapter
      ? guardAdapter(config.adapter, positiveSeconds("adapterTimeout", config.adapterTimeout, 5000))
      : undefined,
    pages: { ...config.pages },
    theme: { colorScheme: "auto", logo: "", brandColor: "", buttonText: "", ...config.theme },
    logger,
    cookies: {
      http: merge(defaultCookies(false), config.cookies as object),
      https: merge(defaultCookies(true), config.cookies as object),
    },
    useSecureCookies: config.useSecureCookies,
    csrf: config.skipCSRFCheck === skipCSRFCheck ? null : deriveCsrfKeys(secrets),
    trustHost: !!config.trustHost,
    redirectProxyUrl: config.redirectProxyUrl,
    experimental: { enableWebAuthn: !!config.experimental?.enableWebAuthn },
    debug,
    rateLimit: resolveRateLimit(config),
  };
  return Object.freeze(resolved);
}

/**
 * The cookie names and options for a request on `origin`: the `__Secure-` / `__Host-` set on
 * https (or whenever `useSecureCookies` says so), the plain set otherwise.
 */
export function cookiesFor(config: ResolvedConfig, origin: string): Record<CookieRole, CookieOption> {
  return (config.useSecureCookies ?? origin.startsWith("https:")) ? config.cookies.https : config.cookies.http;
}

interface CacheEntry {
  resolved: ResolvedConfig;
  /** The secrets as they were when resolved: a changed array means keys must be derived again. */
  secretSnapshot: readonly string[] | string | undefined;
}

const cache = new WeakMap<AuthConfig, CacheEntry>();

function secretsUnchanged(current: AuthConfig["secret"], snapshot: CacheEntry["secretSnapshot"]): boolean {
  if (!Array.isArray(current) || !Array.isArray(snapshot)) return current === snapshot;
  if (current.length !== snapshot.length) return false;
  for (let i = 0; i < current.length; i++) if (current[i] !== snapshot[i]) return false;
  return true;
}

/**
 * Resolves a configuration once and returns the cached result afterwards (keyed by the object).
 * A secret array changed in place (a rotation at run time) is noticed and resolved again.
 */
export function resolveConfig(config: AuthConfig): ResolvedConfig {
  const hit = cache.get(config);
  if (hit && secretsUnchanged(config.secret, hit.secretSnapshot)) return hit.resolved;
  const resolved = buildConfig(config);
  cache.set(config, {
    resolved,
    secretSnapshot: Array.isArray(config.secret) ? [...config.secret] : config.secret,
  });
  return resolved;
}
