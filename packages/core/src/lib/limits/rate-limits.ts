/**
 * The `rateLimit` option resolved: its limits checked, the defaults filled in, and the default
 * in-memory store kept per application (`lib/base/application.ts`). `lib/config/resolve.ts` resolves it once;
 * `lib/limits/attempts.ts` spends the limits request by request.
 */

import type { RateLimit, RateLimitOptions, RateLimitStore } from "../../shapes/rate-limit.js";
import { type Application, held, slot } from "../base/application.js";
import { InvalidConfiguration } from "../base/errors.js";
import { fieldOf } from "../base/merge.js";
import { MemoryRateLimitStore } from "./memory-store.js";

const WINDOW = 15 * 60;

/** The rate limits of a resolved configuration. */
export interface ResolvedRateLimit {
  store: RateLimitStore;
  credentialsPerIdentifierAndIp: RateLimit;
  credentialsPerIdentifier: RateLimit;
  credentialsPerIp: RateLimit;
  emailPerIdentifierAndIp: RateLimit;
  emailPerIdentifier: RateLimit;
  emailPerIp: RateLimit;
  emailCodePerIdentifierAndIp: RateLimit;
  emailCodePerIdentifier: RateLimit;
  emailCodePerIp: RateLimit;
  webauthnOptionsPerIp: RateLimit;
  secondFactorPerPending: RateLimit;
  secondFactorPerUser: RateLimit;
}

const defaults: Omit<ResolvedRateLimit, "store"> = {
  credentialsPerIdentifierAndIp: { max: 5, windowSeconds: WINDOW },
  credentialsPerIdentifier: { max: 50, windowSeconds: WINDOW },
  credentialsPerIp: { max: 100, windowSeconds: WINDOW },
  emailPerIdentifierAndIp: { max: 5, windowSeconds: WINDOW },
  emailPerIdentifier: { max: 15, windowSeconds: WINDOW },
  emailPerIp: { max: 30, windowSeconds: WINDOW },
  emailCodePerIdentifierAndIp: { max: 10, windowSeconds: WINDOW },
  emailCodePerIdentifier: { max: 30, windowSeconds: WINDOW },
  emailCodePerIp: { max: 60, windowSeconds: WINDOW },
  webauthnOptionsPerIp: { max: 300, windowSeconds: WINDOW },
  secondFactorPerPending: { max: 5, windowSeconds: WINDOW },
  secondFactorPerUser: { max: 10, windowSeconds: WINDOW },
};

// The default store belongs to the application, not to a configuration object or a resolution of
// one: a secret rotation resolves the object again, a framework makes copies of it (per mount, per
// request, per server layer), and none of these may start the counters from zero.
export const defaultRateLimitStore = slot("rate-limit-store", () => new MemoryRateLimitStore());

function checkLimit(name: string, value: unknown): RateLimit {
  const max = fieldOf(value, "max");
  const windowSeconds = fieldOf(value, "windowSeconds");
  if (
    typeof value !== "object" ||
    value === null ||
    typeof max !== "number" ||
    !Number.isInteger(max) ||
    max < 1 ||
    typeof windowSeconds !== "number" ||
    !(windowSeconds > 0) ||
    !Number.isFinite(windowSeconds)
  ) {
    throw new InvalidConfiguration(
      `\`rateLimit.${name}\` must be { max: <integer >= 1>, windowSeconds: <number > 0> }; use \`rateLimit: false\` to turn limiting off.`,
    );
  }
  return { max, windowSeconds };
}

/** Validates the `rateLimit` option of `config` and fills in the defaults (and the default store). */
export function resolveRateLimit(
  options: RateLimitOptions | false | undefined,
  application: Application,
): ResolvedRateLimit | null {
  if (options === false) return null;
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new InvalidConfiguration("`rateLimit` must be an object of limits, or `false` to turn limiting off.");
  }
  let store = options?.store;
  if (store !== undefined) {
    for (const method of ["increment", "decrement", "get"] as const) {
      if (typeof store?.[method] !== "function") {
        throw new InvalidConfiguration(
          `\`rateLimit.store\` needs an atomic \`${method}\` method (see RateLimitStore in @latchkey/core/rate-limit).`,
        );
      }
    }
  } else {
    store = held(application, defaultRateLimitStore);
  }
  const resolved = { store } as ResolvedRateLimit;
  for (const name of Object.keys(defaults) as Array<keyof typeof defaults>) {
    const given = options?.[name];
    resolved[name] = given === undefined ? defaults[name] : checkLimit(name, given);
  }
  return resolved;
}

/**
 * Input types whose value does not name who signs in: a secret (each guess is a new value), or a
 * control whose value the client picks freely (a "remember me" box) while the guess stays the
 * same. Counting on such a field would give every guess a fresh counter. (A `hidden` field, such
 * as a tenant, may name the account: a made-up value names none, so it brings no fresh counter
 * for a real one.)
 */
const NOT_AN_IDENTIFIER = new Set(["password", "checkbox", "radio", "submit", "button", "reset", "range"]);

/** True when the provider declares `field` as one a client can vary at will (see NOT_AN_IDENTIFIER). */
export function isSecretOrControlField(provider: { credentials?: Record<string, unknown> }, field: string): boolean {
  const type = Object.hasOwn(provider.credentials ?? {}, field)
    ? fieldOf(provider.credentials?.[field], "type")
    : undefined;
  return typeof type === "string" && NOT_AN_IDENTIFIER.has(type.toLowerCase());
}
