import type { ProviderConfig } from "../../providers/index.js";
import type { AuthAction } from "../../shapes/data.js";
import { createLogger } from "../base/logger.js";
import { proxiedArrival } from "../http/origin.js";
import type { AuthConfig } from "./options.js";

/** An environment: `process.env` or any record of the same shape. */
export type Env = Record<string, string | undefined>;

function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  return !["0", "false", "no", "off"].includes(value.trim().toLowerCase());
}

/**
 * Fills unset options from the environment: `AUTH_SECRET` (and `AUTH_SECRET_1..3`, newest
 * first, for rotation), `AUTH_URL` (its path becomes `basePath`), `AUTH_TRUST_HOST`,
 * `AUTH_TRUST_PROXY`, `AUTH_TRUSTED_ORIGINS` (and Vercel's own domains), `AUTH_REDIRECT_PROXY_URL`, and `AUTH_<PROVIDER>_ID`, `_SECRET`, `_ISSUER`, `_KEY` for each
 * provider. Options already set are kept. This is the one function that writes to a
 * configuration; call it before the first request.
 *
 * @example
 * ```ts
 * setEnvDefaults(process.env, config)
 * ```
 */
export function setEnvDefaults(envObject: Env, config: AuthConfig, suppressBasePathWarning = false): void {
  applyEnvDefaults(envObject, config, { warnOnBasePathMismatch: !suppressBasePathWarning });
}

/** `setEnvDefaults` with its option named (the spec's signature keeps a positional boolean). */
function applyEnvDefaults(envObject: Env, config: AuthConfig, options: { warnOnBasePathMismatch: boolean }): void {
  const url = envObject.AUTH_URL;
  if (url) {
    try {
      const pathname = new URL(url).pathname.replace(/\/+$/, "");
      if (config.basePath) {
        if (pathname && pathname !== config.basePath && options.warnOnBasePathMismatch) {
          createLogger(config.logger, !!config.debug).warn("env-url-basepath-mismatch");
        }
      } else if (pathname) {
        config.basePath = pathname;
      }
    } catch {
      // an unparsable AUTH_URL is reported where it is used (createActionURL)
    }
  }
  config.basePath ??= "/auth";

  if (!hasSecret(config.secret)) {
    // Always an array, as Auth.js sets it: `config.secret[0]` is the newest secret.
    const secrets = envSecretNames(envObject).map((name) => envObject[name] as string);
    if (secrets.length) config.secret = secrets;
  }

  config.redirectProxyUrl ??= envObject.AUTH_REDIRECT_PROXY_URL || undefined;
  // Only what the operator said: AUTH_TRUST_HOST, or AUTH_URL (the application's URL is known).
  // Never NODE_ENV: unset in many containers, it would trust any Host header (loopback hosts are
  // trusted by the request pipeline itself, so local development needs nothing).
  config.trustHost ??= envFlag(envObject.AUTH_TRUST_HOST) ?? !!envObject.AUTH_URL;
  // The proxy's headers only when the operator names the proxy: AUTH_TRUST_PROXY, or Vercel's
  // (VERCEL=1), which sets X-Forwarded-Host and X-Forwarded-Proto on every request it passes on.
  config.trustProxy ??= envTrustProxy(envObject.AUTH_TRUST_PROXY) ?? (envObject.VERCEL ? true : undefined);
  config.trustedOrigins ??= envTrustedOrigins(envObject);

  config.providers = config.providers.map((provider) => {
    const instance = (typeof provider === "function" ? provider() : provider) as ProviderConfig &
      Record<string, unknown>;
    const ID = instance.id.toUpperCase().replace(/-/g, "_");
    const fromEnv = {
      clientId: envObject[`AUTH_${ID}_ID`],
      clientSecret: envObject[`AUTH_${ID}_SECRET`],
      issuer: envObject[`AUTH_${ID}_ISSUER`],
      apiKey: envObject[`AUTH_${ID}_KEY`],
    };
    const options = (instance.options ?? {}) as Record<string, unknown>;
    const fill: Record<string, string> = {};
    const keys =
      instance.type === "oauth" || instance.type === "oidc"
        ? (["clientId", "clientSecret", "issuer"] as const)
        : instance.type === "email"
          ? (["apiKey"] as const)
          : [];
    for (const key of keys) {
      const value = fromEnv[key];
      if (value && options[key] === undefined && instance[key] === undefined) fill[key] = value;
    }
    if (Object.keys(fill).length === 0) return instance;
    // A factory given as is (`providers: [GitHub]`) is called again with the values, so defaults
    // it derives from them (TikTok's client_key, ...) see them too.
    if (typeof provider === "function") return (provider as unknown as (o: object) => ProviderConfig)(fill);
    return { ...instance, options: { ...options, ...fill } } as ProviderConfig;
  });
}

/** AUTH_TRUST_PROXY: "forwarded" (RFC 7239's header), else a flag (X-Forwarded-*). */
function envTrustProxy(value: string | undefined): boolean | "forwarded" | undefined {
  return value?.trim().toLowerCase() === "forwarded" ? "forwarded" : envFlag(value);
}

/**
 * AUTH_TRUSTED_ORIGINS (comma- or space-separated origins), and on Vercel the deployment's own
 * domains, which Vercel sets (VERCEL_PROJECT_PRODUCTION_URL, VERCEL_BRANCH_URL, VERCEL_URL: host
 * names, served over https); undefined when there are none.
 */
function envTrustedOrigins(envObject: Env): string[] | undefined {
  const origins = (envObject.AUTH_TRUSTED_ORIGINS ?? "").split(/[\s,]+/).filter(Boolean);
  if (envObject.VERCEL) {
    for (const name of ["VERCEL_PROJECT_PRODUCTION_URL", "VERCEL_BRANCH_URL", "VERCEL_URL"]) {
      const host = envObject[name]?.trim();
      if (host) origins.push(`https://${host}`);
    }
  }
  return origins.length ? origins : undefined;
}

function hasSecret(secret: AuthConfig["secret"]): boolean {
  return Array.isArray(secret) ? secret.length > 0 : !!secret;
}

/**
 * The names of the environment variables `secret` is read from, in the order of `config.secret`
 * (`AUTH_SECRET_3` ... `AUTH_SECRET_1`, then `AUTH_SECRET`), when the configuration sets no
 * secret itself; otherwise none. Messages about a secret name the variable the user set.
 *
 * @example
 * ```ts
 * secretSources({ AUTH_SECRET: "short" }, {}) // ["AUTH_SECRET"]
 * ```
 */
export function secretSources(envObject: Env, source: Pick<AuthConfig, "secret">): string[] {
  return hasSecret(source.secret) ? [] : envSecretNames(envObject);
}

function envSecretNames(envObject: Env): string[] {
  const names: string[] = [];
  if (envObject.AUTH_SECRET) names.push("AUTH_SECRET");
  for (const i of [1, 2, 3]) if (envObject[`AUTH_SECRET_${i}`]) names.unshift(`AUTH_SECRET_${i}`);
  return names;
}

/**
 * A copy of `config` with the environment's defaults applied (the framework shells' way: the
 * application's object is left as it is). The base path of `AUTH_URL` is taken silently.
 */
export function withEnvDefaults(envObject: Env, config: AuthConfig): AuthConfig {
  const copy = { ...config };
  applyEnvDefaults(envObject, copy, { warnOnBasePathMismatch: false });
  return copy;
}

/**
 * The URL of an action, from `AUTH_URL` when it is set (its path is the base path unless
 * `basePath` is given), otherwise from the request's `Host` and `protocol`; behind a proxy the
 * environment names (`AUTH_TRUST_PROXY`, Vercel's), from its `X-Forwarded-Host` and
 * `X-Forwarded-Proto` (or `Forwarded`) as the pipeline reads them (`lib/origin.ts`).
 *
 * @example
 * ```ts
 * createActionURL("signin", "https", request.headers, process.env, { basePath: "/auth" })
 * // → https://app.example/auth/signin
 * ```
 */
export function createActionURL(
  action: AuthAction,
  protocol: string,
  headers: Headers,
  envObject: Env,
  config: Pick<AuthConfig, "basePath" | "logger">,
): URL {
  const envUrl = envObject.AUTH_URL;
  const basePath = (config.basePath ?? "").replace(/^\/+|\/+$/g, "");
  let base: string;
  if (envUrl) {
    const url = new URL(envUrl);
    const path = url.pathname.replace(/\/+$/, "");
    // AUTH_URL's own path is the base path unless `basePath` says otherwise (then it wins).
    if (basePath && path && path !== `/${basePath}`)
      createLogger(config.logger, false).warn("env-url-basepath-mismatch");
    base = basePath ? `${url.origin}/${basePath}` : `${url.origin}${path}`;
  } else {
    // A proxy's headers only behind a proxy the environment names, as the pipeline reads them.
    const trust = envTrustProxy(envObject.AUTH_TRUST_PROXY) ?? (envObject.VERCEL ? true : undefined);
    const arrived = { protocol: protocol ?? "https", host: headers.get("host") };
    const { protocol: proto, host } = trust ? proxiedArrival(headers, trust, arrived) : arrived;
    const origin = new URL(`${proto.endsWith(":") ? proto : `${proto}:`}//${host}`).origin;
    base = basePath ? `${origin}/${basePath}` : origin;
  }
  return new URL(`${base}/${action}`);
}
