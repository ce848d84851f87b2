import type { Adapter } from "../adapters.js";
import { adapterMethods, secondFactorMethods } from "../adapters.js";
import {
  AdapterError,
  EventError,
  InvalidConfiguration,
  InvalidEndpoints,
  InvalidProvider,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingSecret,
  UnsupportedStrategy,
} from "../errors.js";
import type { OAuthCheck, OAuthConfig } from "../providers/oauth.js";
import { MemoryRefreshStore, type RefreshStore } from "../refresh-store.js";
import type { CookieOption, LoggerInstance } from "../shapes/data.js";
import type { JWT } from "../shapes/jwt.js";
import type { AuthConfig, CallbacksOptions, EventCallbacks, SessionOptions } from "../types.js";
import { missingExtensions } from "./adapter-extensions.js";
import { type Application, applicationOf, held, separateProcessesLikely, slot } from "./application.js";
import { noteSecretRotation, resolveAudit, withAuditedEvents } from "./audit/record.js";
import {
  assertClientId,
  missingSchemaAdvice,
  secretName,
  warnUnknownOptions,
  warnUnknownProviderOptions,
} from "./config-advice.js";
import type { Env, InternalProvider, OAuthProviderInternal, ResolvedConfig } from "./config-types.js";
import { type CookieRole, defaultCookies } from "./cookies.js";
import { deriveCsrfKeys } from "./csrf.js";
import { secretSources, withEnvDefaults } from "./env.js";
import { errorOf } from "./error-of.js";
import { emailCodeOptions } from "./flows/email/code.js";
import { assertConditionalUI, resolveWebAuthnProvider, webauthnAdapterMethods } from "./flows/webauthn/config.js";
import type { Secrets } from "./jwe.js";
import { createLogger, warnOnce } from "./logger.js";
import { fieldOf, isPlainObject, merge } from "./merge.js";
import { applyProviderOptions } from "./provider-options.js";
import { randomHexFromPool } from "./random-pool.js";
import { defaultRateLimitStore, isSecretOrControlField, resolveRateLimit } from "./rate-limits.js";
import { defaultRedirect } from "./redirect.js";
import { LOCK_TTL_MS } from "./refresh/single-flight.js";
import { resolveRevocation } from "./session/revocation-list.js";
import { announcingAdapter, carriesSessionCache, resolveSessionCache } from "./session/session-cache.js";
import { skipCSRFCheck } from "./symbols.js";

const DAY = 24 * 60 * 60;

/** A date as the client gets it: an ISO string (a database session's `expires` is a Date). */
function isoDate(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : value;
}

const defaultCallbackSet: CallbacksOptions = {
  signIn: () => true,
  redirect: defaultRedirect,
  session: ({ session }) => ({
    user: { name: session.user?.name, email: session.user?.email, image: session.user?.image },
    // database sessions carry a Date; the client always gets an ISO string
    expires: isoDate(session.expires),
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

function assertSecrets(secret: AuthConfig["secret"], fromEnv?: readonly string[]): Secrets {
  const list = Array.isArray(secret) ? secret : secret ? [secret] : [];
  const [first, ...rest] = list;
  if (first === undefined) {
    throw new MissingSecret(
      "No `secret` is configured. Set the AUTH_SECRET environment variable or the `secret` option to at least 32 random characters; `npx @latchkey/cli secret` prints one.",
    );
  }
  list.forEach((s, i) => {
    if (typeof s !== "string" || s.length < 32) {
      const where = secretName(i, Array.isArray(secret), fromEnv);
      throw new InvalidConfiguration(
        `${where} must be at least 32 characters long (it is ${typeof s === "string" ? s.length : typeof s}); \`npx @latchkey/cli secret\` prints a suitable one.`,
      );
    }
  });
  return [first, ...rest];
}

/** An endpoint given as a URL alone, as its handler object. */
interface UrlEndpoint {
  url: string;
  params?: undefined;
  request?: undefined;
}

function normalizeEndpoint<E extends { url?: string }>(
  providerId: string,
  name: "authorization" | "token" | "userinfo",
  value: string | E | undefined,
): E | UrlEndpoint | undefined {
  if (value === undefined) return undefined;
  const endpoint = typeof value === "string" ? { url: value } : value;
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

function resolveOAuth(p: OAuthConfig, basePath: string): OAuthProviderInternal {
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
  assertClientId(p);
  const authMethod = p.client?.token_endpoint_auth_method ?? "client_secret_basic";
  if (authMethod !== "none" && !p.clientSecret && !token?.request) {
    // Found now, not at the callback: there the user would already have consented at the provider.
    throw new InvalidProvider(
      `Provider "${p.id}" has no \`clientSecret\` (AUTH_${p.id.toUpperCase().replace(/-/g, "_")}_SECRET); set it, or \`client: { token_endpoint_auth_method: "none" }\` for a public client.`,
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
          params: authorization.params ?? {},
        }
      : undefined,
    token,
    userinfo,
    checks,
    signinUrl: "",
    callbackUrl: "",
    signinPath: `${basePath}/signin/${p.id}`,
    callbackPath: `${basePath}/callback/${p.id}`,
  };
}

function resolveProviders(
  config: AuthConfig,
  basePath: string,
  strategy: SessionOptions["strategy"],
): InternalProvider[] {
  const seen = new Set<string>();
  return (config.providers ?? []).map((entry, index) => {
    const provider = applyProviderOptions(entry);
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
        if (provider.databaseSessions !== undefined && typeof provider.databaseSessions !== "boolean") {
          throw new InvalidProvider(
            `Credentials provider "${provider.id}": \`databaseSessions\` must be true or false.`,
          );
        }
        // Auth.js's answer stays the default; database sessions for credentials are an opt-in.
        if (strategy === "database" && provider.databaseSessions !== true) {
          throw new UnsupportedStrategy(
            `Credentials provider "${provider.id}" only works with JWT sessions unless it opts in: set \`databaseSessions: true\` on the provider (its users and "credentials" accounts are then stored through the adapter), or \`session: { strategy: "jwt" }\` (an adapter makes "database" the default).`,
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
        if (typeof provider.identifier === "string" && isSecretOrControlField(provider, provider.identifier)) {
          const type = String(fieldOf(provider.credentials?.[provider.identifier], "type"));
          // Counting attempts on a value each guess changes would give every guess a fresh counter.
          throw new InvalidProvider(
            `Credentials provider "${provider.id}": \`identifier\` names the field "${provider.identifier}" of type "${type}", whose value changes with each guess, so attempts could not be limited. Name the field that says whose account it is (a user name, an e-mail address), or leave \`identifier\` out to count a provider without one (a PIN alone) as a whole.`,
          );
        }
        return {
          ...provider,
          credentials: provider.credentials ?? {},
          ...paths,
        };
      case "email":
        if (!config.adapter) {
          throw new MissingAdapter(
            `E-mail provider "${provider.id}" needs an \`adapter\` to store its verification tokens.`,
          );
        }
        if (typeof provider.sendVerificationRequest !== "function") {
          throw new InvalidProvider(`E-mail provider "${provider.id}" needs a \`sendVerificationRequest\` function.`);
        }
        emailCodeOptions(provider);
        return { ...provider, maxAge: provider.maxAge ?? 10 * 60, ...paths };
      case "oauth":
      case "oidc":
        return resolveOAuth(
          { ...provider, redirectProxyUrl: provider.redirectProxyUrl ?? config.redirectProxyUrl },
          basePath,
        );
      case "webauthn":
        return resolveWebAuthnProvider(provider, paths, config);
      case "totp": {
        // One second factor at most: the pending cookie and the code page name one provider.
        if (index !== (config.providers ?? []).findIndex((p) => applyProviderOptions(p).type === "totp")) {
          throw new InvalidProvider("Only one TOTP provider may be configured.");
        }
        if (!config.adapter) {
          throw new MissingAdapter(
            `TOTP provider "${provider.id}" needs an \`adapter\` with the second-factor methods (getSecondFactor, setSecondFactor, deleteSecondFactor, useSecondFactorStep, useBackupCode).`,
          );
        }
        const pendingMaxAge = positiveSeconds(`providers.${provider.id}.pendingMaxAge`, provider.pendingMaxAge, 300);
        return { ...provider, pendingMaxAge, issuer: String(provider.issuer || "Latchkey"), ...paths };
      }
      default: {
        const entry: unknown = provider;
        const type = fieldOf(entry, "type");
        throw new InvalidProvider(
          `Provider "${String(fieldOf(entry, "id"))}" has the unknown type ${JSON.stringify(type)}; use "oauth", "oidc", "email", "credentials", "webauthn" or "totp".`,
        );
      }
    }
  });
}

// What each feature asks of an adapter, as Auth.js asks it (an adapter that works with Auth.js
// resolves here too): database sessions need the user, account and session methods; e-mail
// sign-in only its tokens and the lookup by address; WebAuthn its authenticators. A method a
// particular sign-in needs beyond these (creating the user of a new address under JWT
// sessions) is checked when that sign-in runs, with the same error.
const databaseSessionMethods = [
  "createUser",
  "getUser",
  "getUserByEmail",
  "getUserByAccount",
  "updateUser",
  "linkAccount",
  "createSession",
  "getSessionAndUser",
  "updateSession",
  "deleteSession",
];
const emailMethods = ["createVerificationToken", "useVerificationToken", "getUserByEmail"];
const accountMethods = ["createUser", "getUser", "getUserByAccount", "getUserByEmail", "linkAccount"];

/** The adapter methods the chosen strategy and providers need. */
function requiredAdapterMethods(strategy: SessionOptions["strategy"], providers: InternalProvider[]): string[] {
  const needed = new Set<string>(strategy === "database" ? databaseSessionMethods : []);
  for (const p of providers) {
    const methods =
      p.type === "email"
        ? emailMethods
        : p.type === "webauthn"
          ? webauthnAdapterMethods
          : p.type === "totp"
            ? secondFactorMethods
            : p.type === "oauth" || p.type === "oidc" || (p.type === "credentials" && strategy === "database")
              ? accountMethods
              : [];
    for (const m of methods) needed.add(m);
  }
  return [...needed];
}

/**
 * Lookups by a key, with what they answer for "no such record". Their keys often come from the
 * client (a session cookie) and a store may not hold every string: PostgreSQL refuses U+0000 in
 * text, failing the query. A key with U+0000 names no record in any store, so these answer
 * "none" without asking it: no error, no 5xx, the same on every store.
 */
const lookups: Partial<Record<(typeof adapterMethods)[number], null | undefined>> = {
  getUser: null,
  getUserByEmail: null,
  getUserByAccount: null,
  getAccount: null,
  getSessionAndUser: null,
  getAuthenticator: null,
  deleteAuthenticator: null,
  useVerificationToken: null,
  deleteSession: undefined,
  unlinkAccount: undefined,
};

/** True when a lookup's arguments (strings, or strings one level inside a key object) hold U+0000. */
function unstorableKey(args: unknown[]): boolean {
  const holdsNul = (v: unknown) => typeof v === "string" && v.includes("\u0000");
  return args.some((a) => holdsNul(a) || (typeof a === "object" && a !== null && Object.values(a).some(holdsNul)));
}

/**
 * Wraps every adapter method so a failure becomes an `AdapterError` naming the method, and so a
 * store that stops answering (packets dropped, a client queueing commands while it reconnects)
 * fails after `timeoutMs` instead of holding the request forever. A lookup by a key no store can
 * hold answers "none" at once (see `lookups`).
 */
function guardAdapter(adapter: Adapter, timeoutMs: number): Adapter {
  const guarded: Record<string, unknown> = {};
  for (const name of adapterMethods) {
    const method = adapter[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof method !== "function") continue;
    const none = Object.hasOwn(lookups, name) ? { answer: lookups[name] } : undefined;
    guarded[name] = async (...args: unknown[]) => {
      if (none && unstorableKey(args)) return none.answer;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return await Promise.race([method.apply(adapter, args), timeout]);
      } catch (e) {
        if (e instanceof AdapterError) throw e;
        const advice = missingSchemaAdvice(e);
        const message = `Adapter method \`${name}\` failed${advice ? `: ${advice}` : ""}`;
        throw new AdapterError(message, { err: errorOf(e), method: name });
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
        logger.error(new EventError(`The \`${name}\` event handler threw`, { err: errorOf(e) }));
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

/** The application's refresh coordination when `accessTokens.store` names none: in memory, one process. */
const defaultRefreshStore = slot("refresh-store", () => new MemoryRefreshStore());

function resolveAccessTokens(
  options: AuthConfig["accessTokens"],
  application: Application,
): ResolvedConfig["accessTokens"] {
  const given = options; // as typed: the check below narrows `options` to a bare record
  if (options !== undefined && !isPlainObject(options))
    throw new InvalidConfiguration("`accessTokens` must be an object such as `{ jwt: true }`.");
  const store: RefreshStore = given?.store ?? held(application, defaultRefreshStore);
  for (const method of ["acquire", "release", "put", "get"] as const) {
    if (typeof fieldOf(store, method) !== "function")
      throw new InvalidConfiguration(
        `\`accessTokens.store\` must have an \`${method}\` method (a RefreshStore such as RedisRefreshStore).`,
      );
  }
  return Object.freeze({
    jwt: !!options?.jwt,
    skewSeconds: positiveSeconds("accessTokens.skewSeconds", options?.skewSeconds, 60, true),
    store,
    reuseWindowSeconds: positiveSeconds("accessTokens.reuseWindowSeconds", options?.reuseWindowSeconds, 30),
    // Not part of the public options: only tests set it, to prove the bound in a second.
    lockTtlMs: positiveSeconds("accessTokens.lockTtlMs", fieldOf(options, "lockTtlMs"), LOCK_TTL_MS),
  });
}

/** Builds the resolved configuration. Throws a typed error naming the option and the fix. */
/** The session strategy `config` asks for: its `session.strategy`, else "database" with an adapter, else "jwt" (not validated). */
export function sessionStrategyOf(config: AuthConfig): SessionOptions["strategy"] {
  return config.session?.strategy ?? (config.adapter ? "database" : "jwt");
}

/** `trustedOrigins` as origins, each checked to be one (`https://app.example`, no path). */
function trustedOriginsOf(value: AuthConfig["trustedOrigins"]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new InvalidConfiguration(
      '`trustedOrigins` must be an array of origins, such as ["https://app.example"] (AUTH_TRUSTED_ORIGINS: comma-separated).',
    );
  return value.map((entry) => {
    let url: URL | undefined;
    try {
      url = typeof entry === "string" ? new URL(entry) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || entry.replace(/\/$/, "") !== url.origin)
      throw new InvalidConfiguration(
        `Each of \`trustedOrigins\` must be an origin: a scheme and a host (and port), such as "https://app.example"; received ${JSON.stringify(entry)}.`,
      );
    return url.origin;
  });
}

/** `trustProxy` checked: true (X-Forwarded-*), "forwarded" (RFC 7239) or off. */
function trustProxyOf(value: AuthConfig["trustProxy"]): ResolvedConfig["trustProxy"] {
  if (value === undefined || value === false) return false;
  if (value === true || value === "forwarded") return value;
  throw new InvalidConfiguration(
    `\`trustProxy\` must be true (X-Forwarded-Host and X-Forwarded-Proto), "forwarded" (the Forwarded header) or false; received ${JSON.stringify(value)}.`,
  );
}

function buildConfig(source: AuthConfig, env: Env | undefined): ResolvedConfig {
  if (!source || typeof source !== "object" || !Array.isArray(source.providers)) {
    throw new InvalidConfiguration("`providers` must be an array of providers (it may be empty).");
  }
  const config = env ? withEnvDefaults(env, source) : source;
  const debug = !!config.debug;
  const logger = createLogger(config.logger, debug);
  warnUnknownOptions(source, logger);
  for (const provider of source.providers) warnUnknownProviderOptions(provider, logger);
  let url: URL | undefined;
  if (env?.AUTH_URL) {
    try {
      url = new URL(env.AUTH_URL);
    } catch {
      throw new InvalidConfiguration(
        `AUTH_URL must be the application's absolute URL, such as "https://app.example/auth"; received ${JSON.stringify(env.AUTH_URL)}`,
      );
    }
  }
  const secrets = assertSecrets(config.secret, env && secretSources(env, source));
  const basePath = assertBasePath(config.basePath ?? "/auth");
  const strategy = sessionStrategyOf(config);
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
    generateSessionToken: config.session?.generateSessionToken ?? (() => randomHexFromPool(32)),
    recordClientAddress: config.session?.recordClientAddress === true,
    maxPerUser: config.session?.maxPerUser ?? 100,
  };
  if (!Number.isSafeInteger(session.maxPerUser) || session.maxPerUser < 1) {
    throw new InvalidConfiguration(
      `\`session.maxPerUser\` must be a positive whole number; received ${String(config.session?.maxPerUser)}`,
    );
  }
  const providers = frozenCopy(resolveProviders(config, basePath, strategy));
  assertConditionalUI(providers);
  if (config.adapter) {
    const missing = requiredAdapterMethods(strategy, providers).filter(
      (m) => typeof fieldOf(config.adapter, m) !== "function",
    );
    if (missing.length) {
      throw new MissingAdapterMethods(`The adapter lacks methods this configuration needs: ${missing.join(", ")}.`);
    }
  }
  const jwtSecrets = config.jwt?.secret !== undefined ? assertSecrets(config.jwt.secret) : secrets;
  // Every configuration object sealing sessions with these secrets is this application.
  const application = applicationOf([...jwtSecrets, ...secrets], logger);
  const callbacks: CallbacksOptions = { ...defaultCallbackSet, ...functionsOf("callbacks", config.callbacks) };
  const events = guardEvents(functionsOf("events", config.events), logger);
  const sessionCache = resolveSessionCache(config.session?.cache, strategy, application, logger);
  const revocationOption = config.session?.revocation;
  const revocationStore = typeof revocationOption === "object" ? revocationOption?.store : undefined;
  if (revocationStore && carriesSessionCache(revocationStore)) {
    throw new InvalidConfiguration(
      "`session.revocation.store` carries a `session.cache` channel in this process: a store carries one of them. Give the revocation list its own store (another RedisRevocationStore on its own subscriber connection, or another SqlRevocationStore).",
    );
  }
  const guarded = config.adapter
    ? guardAdapter(config.adapter, positiveSeconds("adapterTimeout", config.adapterTimeout, 5000))
    : undefined;
  const adapter = guarded && sessionCache ? announcingAdapter(guarded, sessionCache) : guarded;
  const rateLimit = resolveRateLimit(config.rateLimit, application);
  const audit = resolveAudit(config.audit, {
    adapter,
    handler: typeof events.audit === "function",
    rateLimitStore: rateLimit?.store,
    defaultRateLimitStore: held(application, defaultRateLimitStore),
    application,
  });
  const revocation = resolveRevocation(config.session?.revocation, strategy, application, logger);
  const accessTokens = resolveAccessTokens(config.accessTokens, application);
  // Once per application and log, however many objects it makes (one per request, say).
  const startup = { application, logger, source };
  if (debug) warnOnce(startup, "debug-enabled");
  if (config.experimental?.enableWebAuthn) warnOnce(startup, "experimental-webauthn");
  if (config.skipCSRFCheck === skipCSRFCheck) warnOnce(startup, "csrf-disabled");
  const extensionsMissing = config.adapter && missingExtensions(config.adapter);
  if (extensionsMissing) warnOnce(startup, "adapter-extensions-missing", extensionsMissing);
  const inMemory = [
    rateLimit && rateLimit.store === held(application, defaultRateLimitStore) && "rate limits",
    revocationOption && !revocationStore && "session revocations",
    sessionCache && !fieldOf(config.session?.cache, "channel") && "the session cache",
  ].filter((part): part is string => typeof part === "string");
  const platform = inMemory.length ? separateProcessesLikely() : undefined;
  if (platform) {
    warnOnce(
      startup,
      "memory-state-isolated",
      `${platform} may run this application in several processes or globals, each with its own memory, and ${inMemory.join(", ")} are kept in memory: they then hold per process only (a limit multiplied, a sign-out or revocation unseen elsewhere). Give each a shared store: \`rateLimit: { store: new RedisRateLimitStore(redis) }\`, \`session.revocation: { store: new RedisRevocationStore(...) }\` (or a \`SqlRevocationStore\`), \`session.cache: { channel: ... }\` (the same stores).`,
    );
  }

  const resolved: ResolvedConfig = {
    source,
    url,
    basePathConfigured: source.basePath !== undefined,
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
    events: audit ? withAuditedEvents(events, () => final) : events,
    adapter,
    pages: { ...config.pages },
    theme: { colorScheme: "auto", logo: "", brandColor: "", buttonText: "", ...config.theme },
    logger,
    cookies: {
      http: merge(defaultCookies(false), config.cookies),
      https: merge(defaultCookies(true), config.cookies),
    },
    useSecureCookies: config.useSecureCookies,
    csrf: config.skipCSRFCheck === skipCSRFCheck ? null : deriveCsrfKeys(secrets),
    trustHost: !!config.trustHost,
    trustedOrigins: trustedOriginsOf(config.trustedOrigins),
    trustProxy: trustProxyOf(config.trustProxy),
    redirectProxyUrl: config.redirectProxyUrl,
    experimental: { enableWebAuthn: !!config.experimental?.enableWebAuthn },
    debug,
    rateLimit,
    accessTokens,
    revocation,
    sessionCache,
    audit,
    application,
    caches: { origins: new Map(), openedTokens: new Map() },
  };
  // `audit` holds the application's store and a counter store: kept as they are, like the adapter.
  const final = frozenCopy(
    resolved,
    new Set(["source", "caches", "application", "adapter", "accessTokens", "audit", "sessionCache"]),
  );
  return final;
}

/**
 * A deep copy of the plain objects and arrays of `value`, each frozen. Functions and class
 * instances (adapters, stores, URLs, Maps) are kept as they are, and so are the top-level fields
 * in `keep`: the application's own objects are never frozen, only Latchkey's copies of them.
 */
function frozenCopy<T>(value: T, keep: ReadonlySet<PropertyKey> = new Set()): T {
  if (Object.isFrozen(value)) return value;
  if (Array.isArray(value)) return Object.freeze(value.map((item) => frozenCopy(item))) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<PropertyKey, unknown> = Object.create(Object.getPrototypeOf(value));
  for (const key of Reflect.ownKeys(value)) {
    const item = (value as Record<PropertyKey, unknown>)[key];
    out[key] = keep.has(key) ? item : frozenCopy(item);
  }
  return Object.freeze(out) as T;
}

/** Callbacks and events must be functions: anything else is a mistake worth stopping for. */
function functionsOf<T extends object>(option: string, value: T | undefined): Partial<T> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new InvalidConfiguration(`\`${option}\` must be an object of functions.`);
  for (const [name, fn] of Object.entries(value)) {
    if (fn !== undefined && typeof fn !== "function")
      throw new InvalidConfiguration(`\`${option}.${name}\` must be a function; received ${typeof fn}.`);
  }
  return value;
}

/**
 * The cookie names and options for a request on `origin`: the `__Secure-` / `__Host-` set on
 * https (or whenever `useSecureCookies` says so), the plain set otherwise.
 */
export function cookiesFor(config: ResolvedConfig, origin: string): Record<CookieRole, CookieOption> {
  return (config.useSecureCookies ?? origin.startsWith("https:")) ? config.cookies.https : config.cookies.http;
}

/** `process.env` where there is one (Node, Bun, Deno), else undefined (an edge runtime). */
const processEnv = (): Env | undefined => (globalThis as { process?: { env?: Env } }).process?.env;

interface CacheEntry {
  resolved: ResolvedConfig;
  /** The secrets as they were when resolved: changed ones mean keys must be derived again. */
  secret: AuthConfig["secret"];
  jwtSecret: AuthConfig["secret"];
}

// Keyed by the application's object: one resolution per configuration (and one more when a
// framework shell asks for the environment's defaults), whatever the requests look like.
const cache = new WeakMap<AuthConfig, { plain?: CacheEntry; env?: CacheEntry }>();

function snapshot(secret: AuthConfig["secret"]): AuthConfig["secret"] {
  return Array.isArray(secret) ? [...secret] : secret;
}

function sameSecret(current: AuthConfig["secret"], snapshot: AuthConfig["secret"]): boolean {
  if (!Array.isArray(current) || !Array.isArray(snapshot)) return current === snapshot;
  if (current.length !== snapshot.length) return false;
  for (let i = 0; i < current.length; i++) if (current[i] !== snapshot[i]) return false;
  return true;
}

/**
 * Resolves a configuration once and returns the cached result afterwards (keyed by the object).
 * Unset options are first filled from `env` (`process.env` unless given; none on a runtime
 * without one) on a copy (`AUTH_SECRET`, `AUTH_URL`, ...): the application's object is never
 * written to, and every entry point (`Auth()`, the helpers taking a configuration, the framework
 * packages) reads the environment alike, whichever of them is called first. A secret (`secret` or `jwt.secret`) reassigned
 * or changed in place is noticed on the next call and the configuration resolved again, so a
 * retired secret stops opening sessions at once, in every entry point.
 *
 * @example
 * ```ts
 * const resolved = resolveConfig(config, process.env)
 * ```
 */
export function resolveConfig(config: AuthConfig, env: Env | undefined = processEnv()): ResolvedConfig {
  let entries = cache.get(config);
  // Without an environment, a resolution a framework shell made with one is the one to use: a
  // server-side helper (`secondFactorStatus(config, ...)`, the sessions API) called with the
  // application's object then sees the same providers and secrets as its requests do.
  const hit = env ? entries?.env : (entries?.plain ?? entries?.env);
  if (hit && sameSecret(config.secret, hit.secret) && sameSecret(config.jwt?.secret, hit.jwtSecret))
    return hit.resolved;
  const resolved = buildConfig(config, env);
  noteSecretRotation(resolved);
  if (!entries) {
    entries = {};
    cache.set(config, entries);
  }
  entries[env ? "env" : "plain"] = {
    resolved,
    secret: snapshot(config.secret),
    jwtSecret: snapshot(config.jwt?.secret),
  };
  return resolved;
}
