/**
 * The environment as `next-auth` v5 reads it, and the configuration it gives. `NEXTAUTH_URL` and
 * `NEXTAUTH_SECRET` stand in for `AUTH_URL` and `AUTH_SECRET` when those are unset; the base path
 * is `AUTH_URL`'s path when it has one, else `/api/auth`. Everything else (`AUTH_TRUST_HOST`,
 * `AUTH_<PROVIDER>_ID/SECRET`, rotated secrets) is the core's own `withEnvDefaults`.
 */
import type { AuthConfig } from "@latchkey/core";
import { withEnvDefaults } from "@latchkey/core/internal";

type Env = Record<string, string | undefined>;

const fallbacks: Record<string, string> = { AUTH_URL: "NEXTAUTH_URL", AUTH_SECRET: "NEXTAUTH_SECRET" };

/**
 * `process.env`, read at each access (Next.js fills it before the first request), with the
 * `NEXTAUTH_*` names of `next-auth` standing in for unset `AUTH_*` ones.
 */
export const nextEnv: Env = new Proxy({} as Env, {
  get(_target, key) {
    if (typeof key !== "string") return undefined;
    const value = process.env[key];
    if (value) return value;
    const fallback = fallbacks[key];
    return (fallback && process.env[fallback]) || value;
  },
});

/** The path of `AUTH_URL` (or `NEXTAUTH_URL`) without its trailing slash; "" for none or `/`. */
function envBasePath(): string {
  const url = nextEnv.AUTH_URL;
  if (!url) return "";
  try {
    return new URL(url).pathname.replace(/\/+$/, "");
  } catch {
    return ""; // an unparsable AUTH_URL is named by the core when it resolves the configuration
  }
}

interface Derived {
  config: AuthConfig;
  secret: AuthConfig["secret"];
  jwtSecret: AuthConfig["secret"];
}

const derived = new WeakMap<AuthConfig, Derived>();

/**
 * The configuration the core is given for an application's one: a copy with the base path and
 * the environment's defaults filled, made once per object (and again when the application
 * reassigns a secret, so that rotation works as with the core). The application's object is
 * never written to.
 *
 * @example
 * ```ts
 * const config = nextConfig({ providers: [GitHub] }) // basePath "/api/auth", secret from AUTH_SECRET
 * ```
 */
export function nextConfig(config: AuthConfig): AuthConfig {
  const hit = derived.get(config);
  if (hit && hit.secret === config.secret && hit.jwtSecret === config.jwt?.secret) return hit.config;
  const basePath = config.basePath || envBasePath() || "/api/auth";
  const copy = withEnvDefaults(nextEnv, { ...config, basePath });
  derived.set(config, { config: copy, secret: config.secret, jwtSecret: config.jwt?.secret });
  return copy;
}
