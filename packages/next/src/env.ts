/**
 * The environment as `next-auth` v5 reads it, and the configuration it gives. `NEXTAUTH_URL` and
 * `NEXTAUTH_SECRET` stand in for `AUTH_URL` and `AUTH_SECRET` when those are unset; the base path
 * is `AUTH_URL`'s path when it has one, else `/api/auth`. Everything else (`AUTH_TRUST_HOST`,
 * `AUTH_<PROVIDER>_ID/SECRET`, rotated secrets) is the core's own `setEnvDefaults`.
 */
import type { AuthConfig } from "@latchkey/core";
import { setEnvDefaults } from "@latchkey/core";
import { shellConfig, trimBasePath } from "@latchkey/core/internal";

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

const prepared = new WeakSet<AuthConfig>();

function hasSecret(config: AuthConfig): boolean {
  return Array.isArray(config.secret) ? config.secret.length > 0 : !!config.secret;
}

/**
 * The configuration `NextAuth` hands to the core, the way every shell does (core's
 * `shellConfig`): the application's own object. It is first prepared as `next-auth` prepares it,
 * on the object itself: the base path (`AUTH_URL`'s path, else `/api/auth`) and the environment's
 * defaults (`setEnvDefaults`: the secret, `trustHost`, the providers' ids and secrets) are written
 * to it, once per object, so that the same object works with the core's server-side functions
 * (`secondFactorStatus(config, ...)`, the sessions API) as it does with `next-auth`. A frozen
 * object cannot be written to: `shellConfig` gives one copy of it with the base path filled, the
 * same application (its secret), whose environment the core reads at each use (`nextEnv`).
 *
 * @example
 * ```ts
 * const config = nextConfig({ providers: [GitHub] }) // basePath "/api/auth", secret from AUTH_SECRET
 * ```
 */
export function nextConfig(config: AuthConfig): AuthConfig {
  // Prepared again while it has no secret: NextAuth() prepares the object when the module loads,
  // and an environment filled after that (tests, a late dotenv) is read at the next use.
  if (prepared.has(config) && hasSecret(config)) return config;
  // Without its trailing slash ("/api/auth/" is "/api/auth"), as the core resolves it: the paths
  // built from it here (the internal requests of auth() and the server actions, the sign-in page,
  // the proxy's own actions) must be the ones the pipeline parses.
  const basePath = (config.basePath && trimBasePath(config.basePath)) || envBasePath() || "/api/auth";
  if (Object.isExtensible(config) && !Object.isFrozen(config)) {
    try {
      config.basePath = basePath;
      setEnvDefaults(nextEnv, config, true);
      prepared.add(config);
    } catch (e) {
      // a read-only property (a sealed object, a getter): handed over as a frozen one is
      if (!(e instanceof TypeError)) throw e;
    }
  }
  return shellConfig(config, { basePath });
}
