import { InvalidConfiguration, MissingSecret } from "../base/errors.js";
import { isPlainObject } from "../base/merge.js";
import type { Secrets } from "../crypto/jwe.js";
import { secretName } from "./advice.js";
import type { AuthConfig } from "./options.js";

const BASE_PATH = /^\/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]+\/?)*$/;

export function assertBasePath(value: string): string {
  const trimmed = value.length > 1 ? value.replace(/\/+$/, "") : value;
  if (!BASE_PATH.test(trimmed) || trimmed.includes("//") || /(^|\/)\.\.?(\/|$)/.test(trimmed)) {
    throw new InvalidConfiguration(
      `\`basePath\` must be a path such as "/auth" (a leading slash, no query, fragment, "//" or dot segments); received ${JSON.stringify(value)}`,
    );
  }
  return trimmed === "/" ? "" : trimmed;
}

export function assertSecrets(secret: AuthConfig["secret"], fromEnv?: readonly string[]): Secrets {
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

export function positiveSeconds(name: string, value: unknown, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new InvalidConfiguration(
      `\`${name}\` must be a ${allowZero ? "non-negative" : "positive"} number of seconds; received ${String(value)}`,
    );
  }
  return value;
}

/**
 * A deep copy of the plain objects and arrays of `value`, each frozen. Functions and class
 * instances (adapters, stores, URLs, Maps) are kept as they are, and so are the top-level fields
 * in `keep`: the application's own objects are never frozen, only Latchkey's copies of them.
 */
export function frozenCopy<T>(value: T, keep: ReadonlySet<PropertyKey> = new Set()): T {
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
export function functionsOf<T extends object>(option: string, value: T | undefined): Partial<T> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new InvalidConfiguration(`\`${option}\` must be an object of functions.`);
  for (const [name, fn] of Object.entries(value)) {
    if (fn !== undefined && typeof fn !== "function")
      throw new InvalidConfiguration(`\`${option}.${name}\` must be a function; received ${typeof fn}.`);
  }
  return value;
}

/** `trustedOrigins` as origins, each checked to be one (`https://app.example`, no path). */
export function trustedOriginsOf(value: AuthConfig["trustedOrigins"]): string[] {
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
export function trustProxyOf(value: AuthConfig["trustProxy"]): false | true | "forwarded" {
  if (value === undefined || value === false) return false;
  if (value === true || value === "forwarded") return value;
  throw new InvalidConfiguration(
    `\`trustProxy\` must be true (X-Forwarded-Host and X-Forwarded-Proto), "forwarded" (the Forwarded header) or false; received ${JSON.stringify(value)}.`,
  );
}
