/**
 * The applications of this process, each with its in-memory safety state (rate-limit counters,
 * the revocations of `revocation: true`, the session cache of `cache: true` and its channel, the
 * audit trail's counters, refreshes and unlinks in flight, warnings already logged).
 *
 * An application is identified by the secrets that seal its sessions, not by a configuration
 * object: a token sealed under one configuration opens under every other with the same secret, so
 * its revocation, its limits and its cache must hold there too. Frameworks make many objects of
 * one application (a configuration per request, a copy per mount, the module loaded once per
 * bundler layer), and each of them finds the same entry here. A secret rotation keeps the entry:
 * a configuration is looked up by each of its secrets, and the secrets not known yet are recorded
 * for the entry found (`[NEW, OLD]` finds the entry of `OLD`; `[NEW]` then finds it by `NEW`).
 *
 * The base path is not part of the key: an application that serves Latchkey at two paths is one
 * application (the same cookies open at both), and a limit must not double with the mounts.
 *
 * The registry lives on `globalThis` under a `Symbol.for` key, so two copies of this module (a
 * bundler makes one per server layer) share it; its `version` names the shape of what it holds,
 * and a copy that finds another version keeps a registry of its own and says so once.
 */
import { hmac, toBase64url } from "#platform";
import type { LoggerInstance } from "../../shapes/data.js";
import type { AuthConfig } from "../config/options.js";
import { derivedOnce } from "./key-cache.js";
import { fieldOf } from "./merge.js";

/** The shape of the registry and of each application's slots; raised when either changes. */
const VERSION = 1;
const KEY = Symbol.for("latchkey.applications");

/**
 * Past this many applications in one process, a warning (once): an application has a handful of
 * secrets at most, so this many means a configuration that makes a new secret per request (no
 * session would survive it) or per tenant without bound.
 */
export const MANY_APPLICATIONS = 1000;

/** One application: its state, made on first use by the module that owns each part (see {@link Slot}). */
export interface Application {
  /** Counts the applications of this registry (1, 2, ...): a name for logs and tests. */
  readonly id: number;
  readonly slots: Map<string, unknown>;
}

interface Registry {
  readonly version: number;
  /** Secret fingerprint → its application. */
  readonly applications: Map<string, Application>;
  /** State kept per process rather than per application (the mirror of each shared store). */
  readonly slots: Map<string, unknown>;
  count: number;
  warnedMany: boolean;
}

/**
 * A part of an application's (or the process's) state: its name, unique in this registry version,
 * and how it is made the first time it is asked for.
 */
export interface Slot<T> {
  readonly name: string;
  readonly make: () => T;
}

/**
 * Declares a part of the state. The name is what two copies of this module agree on: a slot of
 * one name holds one shape within a {@link VERSION}.
 *
 * @example
 * ```ts
 * const defaultStore = slot("rate-limit-store", () => new MemoryRateLimitStore())
 * const store = held(config.application, defaultStore)
 * ```
 */
export function slot<T>(name: string, make: () => T): Slot<T> {
  return { name, make };
}

function take<T>(slots: Map<string, unknown>, part: Slot<T>): T {
  if (slots.has(part.name)) {
    // Written below by this slot's `make` only (a slot name holds one shape per VERSION).
    return slots.get(part.name) as T;
  }
  const made = part.make();
  slots.set(part.name, made);
  return made;
}

/** The part `part` of `application`'s state, made on first use. */
export function held<T>(application: Application, part: Slot<T>): T {
  return take(application.slots, part);
}

/** The part `part` of this process's state (shared by every application and copy of this module), made on first use. */
export function processWide<T>(part: Slot<T>): T {
  return take(registry().slots, part);
}

function freshRegistry(): Registry {
  return { version: VERSION, applications: new Map(), slots: new Map(), count: 0, warnedMany: false };
}

/** This copy's own registry when `globalThis` holds one of another version (see {@link registry}). */
let own: Registry | undefined;
/** The version found on `globalThis` that this copy could not share, until a logger has heard of it. */
let foreignVersion: unknown;

function isRegistry(value: unknown): value is Registry {
  return typeof value === "object" && value !== null && "version" in value;
}

function registry(): Registry {
  if (own) return own;
  const found: unknown = Reflect.get(globalThis, KEY);
  if (found === undefined) {
    const fresh = freshRegistry();
    try {
      Object.defineProperty(globalThis, KEY, { value: fresh, enumerable: false, configurable: false, writable: false });
    } catch {
      // A frozen global (a hardened realm): this copy keeps its registry to itself.
      own = fresh;
    }
    return fresh;
  }
  if (isRegistry(found) && found.version === VERSION) return found;
  foreignVersion = isRegistry(found) ? found.version : typeof found;
  own = freshRegistry();
  return own;
}

/**
 * The fingerprint of a secret: an HMAC under the secret of a fixed label, base64url. It cannot be
 * turned back into the secret (the registry on `globalThis` holds these, never a secret); the
 * audit trail records its first 12 characters. Computed once per secret and process: a
 * configuration made per request resolves without cryptography.
 */
export const secretFingerprint = derivedOnce((secret: string) =>
  toBase64url(hmac("sha256", secret, "latchkey audit secret fingerprint")),
);

/**
 * The application whose sessions `secrets` seal (every secret of the configuration, the one that
 * seals first): the entry of the first of them already known, else a new one; the others are
 * recorded for it. Resolution calls this once per configuration object; it does no I/O.
 *
 * @example
 * ```ts
 * const application = applicationOf([...jwtSecrets, ...secrets], logger) // in resolution
 * ```
 */
export function applicationOf(secrets: readonly string[], logger: LoggerInstance): Application {
  const known = registry();
  if (foreignVersion !== undefined) {
    logger.warn(
      "application-registry-foreign",
      `Another copy of @latchkey/core (registry version ${String(foreignVersion)}, this one ${VERSION}) runs in this process: the two keep their rate limits, revocations and session caches apart. Install one version of @latchkey/core (npm ls @latchkey/core).`,
    );
    foreignVersion = undefined;
  }
  const prints = [...new Set(secrets)].map(secretFingerprint);
  let found: Application | undefined;
  for (const print of prints) {
    found = known.applications.get(print);
    if (found) break;
  }
  if (!found) {
    known.count++;
    found = { id: known.count, slots: new Map() };
    if (known.count > MANY_APPLICATIONS && !known.warnedMany) {
      known.warnedMany = true;
      logger.warn("applications-many");
    }
  }
  for (const print of prints) if (!known.applications.has(print)) known.applications.set(print, found);
  return found;
}

/**
 * The platform, when this one may run the application in several processes or JavaScript globals
 * at once, so that memory is not one per application: an Edge runtime (Next.js middleware on the
 * Edge runtime is a global of its own beside the Node.js server), Cloudflare Workers, and the
 * serverless platforms that start an instance per concurrent request. Undefined elsewhere (a
 * server process, which may still be one of several instances: see the README).
 */
export function separateProcessesLikely(): string | undefined {
  if (typeof Reflect.get(globalThis, "EdgeRuntime") === "string") return "The Edge runtime";
  if (fieldOf(Reflect.get(globalThis, "navigator"), "userAgent") === "Cloudflare-Workers") return "Cloudflare Workers";
  const env = fieldOf(Reflect.get(globalThis, "process"), "env");
  const set = (name: string) => !!fieldOf(env, name);
  if (set("AWS_LAMBDA_FUNCTION_NAME")) return "AWS Lambda";
  if (set("VERCEL")) return "Vercel";
  if (set("NETLIFY")) return "Netlify";
  if (set("DENO_DEPLOYMENT_ID")) return "Deno Deploy";
  if (set("K_SERVICE") || set("FUNCTION_TARGET")) return "Google Cloud Run / Cloud Functions";
  return undefined;
}

const shellCopies = new WeakMap<AuthConfig, AuthConfig>();

/**
 * A base path without its trailing slashes, as the core resolves it (`"/"` stays: the
 * configuration check turns it into the root).
 *
 * @example
 * trimBasePath("/api/auth/") // "/api/auth"
 */
export function trimBasePath(path: string): string {
  return path.replace(/(?<=.)\/+$/, "");
}

/**
 * The configuration a framework package hands to the core, the same way in every shell: the
 * application's own object when it sets everything the framework fills in (`basePath`, `logger`),
 * else one copy of it per object with those filled (made once, so a configuration's copy is
 * always the same object). The copy is the same application as the object it was made from (the
 * registry above finds it by its secrets): a `revokeUserSessions(config, ...)` or a password reset
 * given the application's own object ends what the framework serves. The application's object is
 * never written to.
 *
 * @example
 * ```ts
 * const config = shellConfig(given, { basePath: "/auth" }) // SvelteKit's default base path
 * ```
 */
export function shellConfig(config: AuthConfig, fill: Partial<Pick<AuthConfig, "basePath" | "logger">>): AuthConfig {
  // A base path given with its trailing slash ("/api/auth/") is the one the core resolves
  // without it: the paths a shell builds from it (internal requests, sign-in redirects) must be
  // the ones the pipeline parses, so the copy holds it trimmed.
  const own = config.basePath;
  const trimmed = typeof own === "string" ? trimBasePath(own) : own;
  const filling = trimmed === own ? fill : { ...fill, basePath: trimmed };
  const missing = (Object.keys(filling) as Array<keyof typeof filling>).filter(
    (key) => filling[key] !== undefined && (config[key] === undefined || (key === "basePath" && trimmed !== own)),
  );
  if (!missing.length) return config;
  const known = shellCopies.get(config);
  if (known) return known;
  const copy: AuthConfig = { ...config };
  for (const key of missing) Object.assign(copy, { [key]: filling[key] });
  shellCopies.set(config, copy);
  return copy;
}
