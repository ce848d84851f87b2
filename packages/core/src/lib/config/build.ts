import type { RefreshStore } from "../../shapes/refresh.js";
import { resolveAudit, withAuditedEvents } from "../audit/record.js";
import { type Application, applicationOf, held, separateProcessesLikely, slot } from "../base/application.js";
import { InvalidConfiguration, MissingAdapter, MissingAdapterMethods } from "../base/errors.js";
import { createLogger, warnOnce } from "../base/logger.js";
import { fieldOf, isPlainObject, merge } from "../base/merge.js";
import { skipCSRFCheck } from "../base/symbols.js";
import { deriveCsrfKeys } from "../crypto/csrf.js";
import { randomHexFromPool } from "../crypto/random-pool.js";
import { assertConditionalUI } from "../flows/webauthn/config.js";
import { defaultCookies } from "../http/cookies.js";
import { defaultRateLimitStore, resolveRateLimit } from "../limits/rate-limits.js";
import { MemoryRefreshStore } from "../refresh/memory-store.js";
import { LOCK_TTL_MS } from "../refresh/single-flight.js";
import { resolveRevocation } from "../session/revocation-list.js";
import { announcingAdapter, carriesSessionCache, resolveSessionCache } from "../session/session-cache.js";
import { missingExtensions } from "./adapter-extensions.js";
import { warnUnknownOptions, warnUnknownProviderOptions } from "./advice.js";
import {
  assertBasePath,
  assertSecrets,
  frozenCopy,
  functionsOf,
  positiveSeconds,
  trustedOriginsOf,
  trustProxyOf,
} from "./checks.js";
import { secretSources, withEnvDefaults } from "./env.js";
import type { AuthConfig, CallbacksOptions, SessionOptions } from "./options.js";
import { resolveProviders } from "./providers.js";
import { defaultCallbackSet, guardAdapter, guardEvents, requiredAdapterMethods } from "./runtime.js";
import type { Env, ResolvedConfig } from "./types.js";

const DAY = 24 * 60 * 60;

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

/** The session strategy `config` asks for: its `session.strategy`, else "database" with an adapter, else "jwt" (not validated). */
export function sessionStrategyOf(config: AuthConfig): SessionOptions["strategy"] {
  return config.session?.strategy ?? (config.adapter ? "database" : "jwt");
}

/** Builds the resolved configuration. Throws a typed error naming the option and the fix. */
export function buildConfig(source: AuthConfig, env: Env | undefined): ResolvedConfig {
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
    // Off on such a platform (lib/session/session-cache.ts), and named: it is not what it was asked to be.
    strategy === "database" &&
      config.session?.cache &&
      !fieldOf(config.session.cache, "channel") &&
      "the session cache",
  ].filter((part): part is string => typeof part === "string");
  const platform = inMemory.length ? separateProcessesLikely() : undefined;
  if (platform) {
    warnOnce(
      startup,
      "memory-state-isolated",
      `${platform} may run this application in several processes or globals, each with its own memory, and ${inMemory.join(", ")} are kept in memory: they then hold per process only (a limit multiplied, a sign-out or revocation unseen elsewhere; with revocations in memory, sessions are served here but never re-issued, and a session cache in memory is off). Give each a shared store: \`rateLimit: { store: new RedisRateLimitStore(redis) }\`, \`session.revocation: { store: new RedisRevocationStore(...) }\` (or a \`SqlRevocationStore\`), \`session.cache: { channel: ... }\` (the same stores).`,
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
