import { createHash } from "node:crypto";
import { AuthError, RateLimited } from "../errors.js";
import { MemoryRateLimitStore, type RateLimit, type RateLimitOptions, type RateLimitStore } from "../rate-limit.js";
import type { Context } from "./context.js";
import type { RequestInternal } from "./request.js";

const WINDOW = 15 * 60;

/** The rate limits of a resolved configuration. */
export interface ResolvedRateLimit {
  store: RateLimitStore;
  credentialsPerIdentifier: RateLimit;
  credentialsPerIp: RateLimit;
  emailPerIdentifier: RateLimit;
  emailPerIp: RateLimit;
}

export function resolveRateLimit(options: RateLimitOptions | false | undefined): ResolvedRateLimit | null {
  if (options === false) return null;
  return {
    store: options?.store ?? new MemoryRateLimitStore(),
    credentialsPerIdentifier: options?.credentialsPerIdentifier ?? { max: 5, windowSeconds: WINDOW },
    credentialsPerIp: options?.credentialsPerIp ?? { max: 100, windowSeconds: WINDOW },
    emailPerIdentifier: options?.emailPerIdentifier ?? { max: 5, windowSeconds: WINDOW },
    emailPerIp: options?.emailPerIp ?? { max: 30, windowSeconds: WINDOW },
  };
}

/** Identifiers are hashed into keys: a shared store never holds e-mail addresses in clear. */
function identifierKey(kind: string, providerId: string, identifier: string): string {
  const digest = createHash("sha256").update(identifier.trim().toLowerCase()).digest("base64url").slice(0, 32);
  return `${kind}:id:${providerId}:${digest}`;
}

function limited(hit: { resetAt: number }, what: string): RateLimited {
  const error = new RateLimited(`Too many ${what}`);
  error.retryAfter = Math.max(1, Math.ceil((hit.resetAt - Date.now()) / 1000));
  return error;
}

/** The identifier a credentials form names: `email`, `username`, or its first field. */
export function credentialsIdentifier(body: Record<string, unknown> | undefined, fields: string[]): string | undefined {
  for (const name of ["email", "username", ...fields]) {
    const value = body?.[name];
    if (typeof value === "string" && value.trim()) return value;
  }
  return undefined;
}

/**
 * Guards one sign-in attempt. Counts the attempt against the client IP (when known) and refuses
 * it when a limit is reached. For credentials, the identifier's counter counts failures only
 * (`failed()`); for e-mail, every send counts. A store that fails is logged and lets the attempt
 * through: an outage of the limiter must not lock every user out.
 */
export async function guardAttempt(
  req: RequestInternal,
  ctx: Context,
  kind: "credentials" | "email",
  providerId: string,
  identifier: string | undefined,
): Promise<{ failed(): Promise<void> }> {
  const limits = ctx.config.rateLimit;
  const none = { failed: async () => {} };
  if (!limits) return none;
  const perIp = kind === "credentials" ? limits.credentialsPerIp : limits.emailPerIp;
  const perIdentifier = kind === "credentials" ? limits.credentialsPerIdentifier : limits.emailPerIdentifier;
  const key = identifier ? identifierKey(kind, providerId, identifier) : undefined;
  try {
    if (req.clientIp) {
      const hit = await limits.store.increment(`${kind}:ip:${req.clientIp}`, perIp.windowSeconds * 1000);
      if (hit.count > perIp.max) throw limited(hit, "attempts from this address");
    }
    if (key && kind === "email") {
      const hit = await limits.store.increment(key, perIdentifier.windowSeconds * 1000);
      if (hit.count > perIdentifier.max) throw limited(hit, "sign-in e-mails for this address");
    }
    if (key && kind === "credentials") {
      const hit = await limits.store.get(key);
      if (hit && hit.count >= perIdentifier.max) throw limited(hit, "failed attempts for this identifier");
    }
  } catch (e) {
    if (e instanceof AuthError) throw e;
    ctx.config.logger.error(
      new AuthError("The rate-limit store failed; the attempt was let through", { err: e as Error }),
    );
    return none;
  }
  if (!key || kind !== "credentials") return none;
  return {
    async failed() {
      try {
        await limits.store.increment(key, perIdentifier.windowSeconds * 1000);
      } catch (e) {
        ctx.config.logger.error(
          new AuthError("The rate-limit store failed to count a failed attempt", { err: e as Error }),
        );
      }
    },
  };
}
