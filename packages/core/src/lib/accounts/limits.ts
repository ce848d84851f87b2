/**
 * The rate limits of password accounts: e-mails sent (sign-up, reset) and submissions (codes,
 * reset forms, current passwords) per address, per client address and per pair, counted in the
 * configuration's rate-limit store (`rateLimit.store`, shared by every instance when it is Redis).
 */
import { hash, toBase64url } from "#platform";
import { RateLimited } from "../../errors.js";
import type { RateLimit, RateLimitHit } from "../../rate-limit.js";
import { clientKey } from "../attempts.js";
import type { ResolvedConfig } from "../config-types.js";
import { errorOf } from "../error-of.js";
import { foldIdentifier } from "../fold-identifier.js";

/** The limits of password accounts (each `{ max, windowSeconds }`). */
export interface AccountLimits {
  /** Account e-mails (verification, reset, "already taken") per address. @default 5 per hour */
  mailPerAddress: RateLimit;
  /** Account e-mails per client address. @default 20 per hour */
  mailPerClient: RateLimit;
  /** Passwords given with a verification link (per address) and current passwords (per user). @default 10 per 15 minutes */
  submitPerAddress: RateLimit;
  /** Codes, reset forms and current passwords submitted per client address. @default 50 per 15 minutes */
  submitPerClient: RateLimit;
}

export const defaultAccountLimits: AccountLimits = {
  mailPerAddress: { max: 5, windowSeconds: 3600 },
  mailPerClient: { max: 20, windowSeconds: 3600 },
  submitPerAddress: { max: 10, windowSeconds: 900 },
  submitPerClient: { max: 50, windowSeconds: 900 },
};

function digest(value: string): string {
  return toBase64url(hash("sha256", foldIdentifier(value))).slice(0, 32);
}

/**
 * Counts one event against the address's (`subject`; null: none) and the client's limit, or throws `RateLimited` (with
 * `retryAfter`) and takes back what it counted. A failing store is logged and lets the event
 * through: an outage of the limiter must not stop every sign-up.
 */
export async function countAccountEvent(
  config: ResolvedConfig,
  limits: AccountLimits,
  kind: "mail" | "submit",
  subject: string | null,
  clientAddress: string | undefined,
): Promise<void> {
  const store = config.rateLimit?.store;
  if (!store) return;
  const client = clientKey(clientAddress);
  const counters: Array<{ key: string; limit: RateLimit }> = [];
  if (subject !== null) {
    counters.push({
      key: `accounts:${kind}:id:${digest(subject)}`,
      limit: kind === "mail" ? limits.mailPerAddress : limits.submitPerAddress,
    });
  }
  if (client) {
    counters.push({
      key: `accounts:${kind}:ip:${client}`,
      limit: kind === "mail" ? limits.mailPerClient : limits.submitPerClient,
    });
  }
  let hits: RateLimitHit[];
  try {
    hits = await Promise.all(counters.map((c) => store.increment(c.key, c.limit.windowSeconds * 1000)));
  } catch (e) {
    config.logger.error(
      new RateLimited("The rate-limit store failed; the account event was let through", { err: errorOf(e) }),
    );
    return;
  }
  const over = counters.findIndex((c, i) => (hits[i]?.count ?? 0) > c.limit.max);
  const hit = hits[over];
  if (!hit) return;
  await Promise.all(counters.map((c) => store.decrement(c.key))).catch(() => {});
  const error = new RateLimited(kind === "mail" ? "Too many account e-mails" : "Too many attempts");
  error.retryAfter = Math.max(1, Math.ceil((hit.resetAt - Date.now()) / 1000));
  throw error;
}
