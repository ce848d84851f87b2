import type { CookieOption } from "../../shapes/data.js";
import { noteSecretRotation } from "../audit/record.js";
import type { CookieRole } from "../http/cookies.js";
import { buildConfig } from "./build.js";
import type { AuthConfig } from "./options.js";
import type { Env, ResolvedConfig } from "./types.js";

/**
 * The cookie names and options for a request on `origin`: the `__Secure-` / `__Host-` set on
 * https (or whenever `useSecureCookies` says so), the plain set otherwise.
 */
export function cookiesFor(config: ResolvedConfig, origin: string): Record<CookieRole, CookieOption> {
  return (config.useSecureCookies ?? origin.startsWith("https:")) ? config.cookies.https : config.cookies.http;
}

// Kept here for the modules that import it from this file.
export { sessionStrategyOf } from "./build.js";

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
