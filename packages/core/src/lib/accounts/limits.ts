/**
 * The rate limits of password accounts: e-mails sent (sign-up, reset) and submissions (codes,
 * reset forms, current passwords) per address, per client address and per pair, counted in the
 * configuration's rate-limit store (`rateLimit.store`, shared by every instance when it is Redis).
 *
 * Sign-up and reset e-mails count apart per address: anyone may sign up with anyone's address, and
 * those sign-ups must not spend the owner's way back in (issue 34.3). Past the reset limit of an
 * address, one reset e-mail still goes out per `resetMaxAge` (the life of its link): the address
 * always holds a link that works, whoever spent its budget.
 */
import { hash, toBase64url } from "#platform";
import type { RateLimit, RateLimitHit } from "../../shapes/rate-limit.js";
import { errorOf } from "../base/error-of.js";
import { InvalidConfiguration, RateLimited } from "../base/errors.js";
import { foldIdentifier } from "../base/fold-identifier.js";
import type { ResolvedConfig } from "../config/types.js";
import { clientKey } from "../limits/attempts.js";

/** The limits of password accounts (each `{ max, windowSeconds }`). */
export interface AccountLimits {
  /** Sign-up e-mails (a verification, or an "already has an account" note) per address. @default 5 per hour */
  signUpMailPerAddress: RateLimit;
  /**
   * Reset e-mails (a link, or a "no account" note) per address. Past it, the first request of each
   * `resetMaxAge` is still mailed and the others are answered `{ ok: true }` with nothing sent: the
   * address always holds a link that works, so nobody's requests keep its owner from a reset.
   * @default 5 per hour
   */
  resetMailPerAddress: RateLimit;
  /** Account e-mails of either kind per client address. @default 20 per hour */
  mailPerClient: RateLimit;
  /** Passwords given with a verification link (per address) and current passwords (per user). @default 10 per 15 minutes */
  submitPerAddress: RateLimit;
  /** Codes, reset forms and current passwords submitted per client address. @default 50 per 15 minutes */
  submitPerClient: RateLimit;
}

/** What an account event counts against: a sign-up or reset e-mail, or a submission. */
export type AccountEvent = "sign-up" | "reset" | "submit";

/**
 * The limits of one call: `given` over the defaults. The limit `mailPerAddress` (sign-up and reset
 * e-mails together) is named with what replaced it.
 */
export function accountLimitsOf(given: Partial<AccountLimits> | undefined): AccountLimits {
  if (given && "mailPerAddress" in given) {
    throw new InvalidConfiguration(
      "`limits.mailPerAddress` is now two limits: `signUpMailPerAddress` (sign-up e-mails) and `resetMailPerAddress` (reset e-mails), so that a stranger's sign-ups with an address never spend its owner's resets.",
    );
  }
  return {
    signUpMailPerAddress: { max: 5, windowSeconds: 3600 },
    resetMailPerAddress: { max: 5, windowSeconds: 3600 },
    mailPerClient: { max: 20, windowSeconds: 3600 },
    submitPerAddress: { max: 10, windowSeconds: 900 },
    submitPerClient: { max: 50, windowSeconds: 900 },
    ...given,
  };
}

function digest(value: string): string {
  return toBase64url(hash("sha256", foldIdentifier(value))).slice(0, 32);
}

/** A refused event: which limit it met, and when to try again (seconds). */
export interface AccountLimited {
  over: "address" | "client";
  retryAfter: number;
}

/**
 * Counts one event against the address's (`subject`; null: none) and the client's limit. Returns
 * null when counted, or which limit refused it: the client's first (a client's flood is told so,
 * and nothing it counted stays), else the address's (the client's count stays: the client asked).
 * A failing store is logged and lets the event through: an outage of the limiter must not stop
 * every sign-up.
 */
export async function countAccountEvent(
  config: ResolvedConfig,
  limits: AccountLimits,
  event: AccountEvent,
  subject: string | null,
  clientAddress: string | undefined,
): Promise<AccountLimited | null> {
  const store = config.rateLimit?.store;
  if (!store) return null;
  const client = clientKey(clientAddress);
  const counters: Array<{ key: string; limit: RateLimit; over: AccountLimited["over"] }> = [];
  if (client) {
    counters.push(
      event === "submit"
        ? { key: `accounts:submit:ip:${client}`, limit: limits.submitPerClient, over: "client" }
        : { key: `accounts:mail:ip:${client}`, limit: limits.mailPerClient, over: "client" },
    );
  }
  if (subject !== null) {
    const limit = {
      "sign-up": limits.signUpMailPerAddress,
      reset: limits.resetMailPerAddress,
      submit: limits.submitPerAddress,
    }[event];
    counters.push({ key: `accounts:${event}:id:${digest(subject)}`, limit, over: "address" });
  }
  let hits: RateLimitHit[];
  try {
    hits = await Promise.all(counters.map((c) => store.increment(c.key, c.limit.windowSeconds * 1000)));
  } catch (e) {
    config.logger.error(
      new RateLimited("The rate-limit store failed; the account event was let through", { err: errorOf(e) }),
    );
    return null;
  }
  const over = counters.findIndex((c, i) => (hits[i]?.count ?? 0) > c.limit.max);
  const hit = hits[over];
  const counter = counters[over];
  if (!hit || !counter) return null;
  const back = counter.over === "client" ? counters : [counter];
  await Promise.all(back.map((c) => store.decrement(c.key))).catch(() => {});
  return { over: counter.over, retryAfter: Math.max(1, Math.ceil((hit.resetAt - Date.now()) / 1000)) };
}

/**
 * Past the reset limit of `address`: true for the first request of each `resetMaxAge`, whose
 * e-mail is still sent, so that the address always holds a link that works. A failing store lets
 * it through, as every limit does.
 */
export async function firstResetOfLinkLife(
  config: ResolvedConfig,
  address: string,
  resetMaxAge: number,
): Promise<boolean> {
  const store = config.rateLimit?.store;
  if (!store) return true;
  try {
    return (await store.increment(`accounts:reset-fresh:id:${digest(address)}`, resetMaxAge * 1000)).count === 1;
  } catch (e) {
    config.logger.error(
      new RateLimited("The rate-limit store failed; the reset e-mail was let through", { err: errorOf(e) }),
    );
    return true;
  }
}
