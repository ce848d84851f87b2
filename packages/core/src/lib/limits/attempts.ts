import { hash, isIP, toBase64url } from "#platform";
import type { Awaitable } from "../../shapes/data.js";
import type { RateLimit, RateLimitHit, RateLimitStore } from "../../shapes/rate-limit.js";
import { admitAnonymous, admitRecord, recordAudit } from "../audit/record.js";
import { atHand, isThenable } from "../base/awaitable.js";
import { errorOf } from "../base/error-of.js";
import { AuthError, RateLimited } from "../base/errors.js";
import { foldIdentifier } from "../base/fold-identifier.js";
import type { RequestInternal } from "../http/request.js";
import type { Context } from "../serve/context.js";
import { MemoryRateLimitStore } from "./memory-store.js";
import type { ResolvedRateLimit } from "./rate-limits.js";

/**
 * The counter key of a client address: IPv4-mapped IPv6 as IPv4, IPv6 by its /64 (one subscriber
 * usually holds a whole /64, so counting single addresses would give them 2^64 counters).
 */
export function clientKey(address: string | null | undefined): string | undefined {
  if (typeof address !== "string") return undefined;
  const value = address.trim().toLowerCase();
  if (!value) return undefined;
  if (value.startsWith("::ffff:") && isIP(value.slice(7)) === 4) return value.slice(7);
  const [bare = ""] = value.split("%");
  if (isIP(bare) !== 6) return value.slice(0, 100);
  const [head = "", tail] = bare.split("::");
  const first = head ? head.split(":") : [];
  let groups = first;
  if (tail !== undefined) {
    const last = tail ? tail.split(":") : [];
    const lastCount = last.length + (last.at(-1)?.includes(".") ? 1 : 0);
    groups = [...first, ...Array<string>(Math.max(0, 8 - first.length - lastCount)).fill("0"), ...last];
  }
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/**
 * Identifiers are normalised (NFKC, trimmed, lower case) so that `Ada`, ` ada ` and `ａｄａ` share
 * one counter, then hashed: a shared store never holds e-mail addresses or user names in clear.
 */
function identifierDigest(identifier: string): string {
  return toBase64url(hash("sha256", foldIdentifier(identifier))).slice(0, 32);
}

interface Counter {
  key: string;
  /** The limit's name in the `rateLimit` option (what the audit trail records as the reason). */
  name: keyof Omit<ResolvedRateLimit, "store">;
  limit: RateLimit;
  /** Completes "Too many ..." in the logged error. */
  what: string;
}

/**
 * The limits that count an identifier (or a user) across every client: when one is reached, the
 * owner cannot sign in that way either until the window ends. The audit trail calls that
 * "locked out" (`signin.locked-out`); any other limit is `signin.rate-limited`.
 */
const lockingLimits = new Set<Counter["name"]>([
  "credentialsPerIdentifier",
  "emailPerIdentifier",
  "emailCodePerIdentifier",
  "secondFactorPerUser",
]);

/** What the audit trail records of a refused attempt, besides the limit. */
interface Attempt {
  provider?: string;
  identifier?: string;
  userId?: string;
  clientAddress?: string;
}

/**
 * Records a refused attempt in the audit trail, once per counter and window: the first refusal
 * is recorded, the others of the window (an attacker's flood) are not, so a limited request
 * never writes a row of its own. A flood of made-up identifiers makes a fresh counter each, so
 * these records also count against the client's budget of anonymous records (admitAnonymous).
 */
async function auditLimited(
  ctx: Pick<Context, "config">,
  counter: Counter,
  hit: RateLimitHit,
  attempt: Attempt,
): Promise<void> {
  if (!ctx.config.audit) return;
  const windowSeconds = Math.max(1, (hit.resetAt - Date.now()) / 1000);
  if (!(await admitRecord(ctx.config, `limited:${counter.key}`, { max: 1, windowSeconds }))) return;
  if (!(await admitAnonymous(ctx.config, clientKey(attempt.clientAddress), "limited"))) return;
  await recordAudit(ctx.config, {
    type: lockingLimits.has(counter.name) ? "signin.locked-out" : "signin.rate-limited",
    at: new Date(),
    reason: counter.name,
    ...attempt,
  });
}

/** The counter behind each refusal, for the flows that answer some refusals otherwise. */
const refusedBy = new WeakMap<RateLimited, Counter>();

function limited(hit: RateLimitHit, counter: Counter): RateLimited {
  const error = new RateLimited(`Too many ${counter.what}`);
  error.retryAfter = Math.max(1, Math.ceil((hit.resetAt - Date.now()) / 1000));
  refusedBy.set(error, counter);
  return error;
}

/**
 * The store's `increment`, answered at once by the in-memory store (no promise), unless a subclass
 * replaced its `increment`; any other store's promise.
 */
function incrementOn(store: RateLimitStore, key: string, windowMs: number): Awaitable<RateLimitHit> {
  return store instanceof MemoryRateLimitStore && store.increment === MemoryRateLimitStore.prototype.increment
    ? store.incrementNow(key, windowMs)
    : store.increment(key, windowMs);
}

/** The store's `decrement`, done at once by the in-memory store (see {@link incrementOn}). */
function decrementOn(store: RateLimitStore, key: string): Awaitable<void> {
  return store instanceof MemoryRateLimitStore && store.decrement === MemoryRateLimitStore.prototype.decrement
    ? store.decrementNow(key)
    : store.decrement(key);
}

/** The first counter of a stage that its increment took over the limit. */
function overLimit(
  stage: Counter[],
  hits: readonly RateLimitHit[],
): { counter: Counter; hit: RateLimitHit } | undefined {
  for (const [i, counter] of stage.entries()) {
    const hit = hits[i];
    if (hit !== undefined && hit.count > counter.limit.max) return { counter, hit };
  }
  return undefined;
}

/** A failure while reserving: a refusal (an `AuthError`) goes on; a store failure is logged and lets the attempt through. */
function storeFailed(ctx: Pick<Context, "config">, e: unknown): null {
  if (e instanceof AuthError) throw e;
  ctx.config.logger.error(
    new AuthError("The rate-limit store failed; the attempt was let through", { err: errorOf(e) }),
  );
  return null;
}

/**
 * Reserves one attempt on every counter, stage by stage (the counters of a stage in parallel).
 * The reservation is the increment itself, so concurrent attempts can never all read "below the
 * limit". A refused attempt gives back everything it reserved: it did not happen, and it must not
 * use up an honest client's budget (the tight counter of the pair before the loose one).
 * Returns the keys reserved, or null when the store failed (logged; the attempt goes through: an
 * outage of the limiter must not lock every user out). Synchronous while the store answers at once
 * (the in-memory store); a promise from the first stage a store answers with one.
 */
function reserve(
  ctx: Pick<Context, "config">,
  store: RateLimitStore,
  stages: Counter[][],
  attempt: Attempt,
): Awaitable<string[] | null> {
  const reserved: string[] = [];
  for (const [i, stage] of stages.entries()) {
    if (stage.length === 0) continue;
    let answers: Awaitable<RateLimitHit>[];
    try {
      answers = stage.map((c) => incrementOn(store, c.key, c.limit.windowSeconds * 1000));
    } catch (e) {
      return storeFailed(ctx, e);
    }
    const hits = atHand(answers);
    if (!hits) return reserveFrom(ctx, store, stages, attempt, { stage: i, answers, reserved });
    for (const c of stage) reserved.push(c.key);
    const over = overLimit(stage, hits);
    if (over) return refuse(ctx, store, reserved, over, attempt);
  }
  return reserved;
}

/** {@link reserve} from the stage whose store answered with a promise on. */
async function reserveFrom(
  ctx: Pick<Context, "config">,
  store: RateLimitStore,
  stages: Counter[][],
  attempt: Attempt,
  started: { stage: number; answers: Awaitable<RateLimitHit>[]; reserved: string[] },
): Promise<string[] | null> {
  const { reserved } = started;
  try {
    for (const [i, stage] of stages.entries()) {
      if (i < started.stage || stage.length === 0) continue;
      const hits = await Promise.all(
        i === started.stage
          ? started.answers
          : stage.map((c) => incrementOn(store, c.key, c.limit.windowSeconds * 1000)),
      );
      for (const c of stage) reserved.push(c.key);
      const over = overLimit(stage, hits);
      if (over) return await refuse(ctx, store, reserved, over, attempt);
    }
    return reserved;
  } catch (e) {
    return storeFailed(ctx, e);
  }
}

/** A counter went over its limit: everything reserved goes back, the refusal is audited, and `RateLimited` thrown. */
async function refuse(
  ctx: Pick<Context, "config">,
  store: RateLimitStore,
  reserved: string[],
  over: { counter: Counter; hit: RateLimitHit },
  attempt: Attempt,
): Promise<null> {
  try {
    await giveBack(ctx, store, reserved);
    await auditLimited(ctx, over.counter, over.hit, attempt);
  } catch (e) {
    return storeFailed(ctx, e);
  }
  throw limited(over.hit, over.counter);
}

/** Gives back reserved keys; a store failure is logged, never thrown. Synchronous on the in-memory store. */
function giveBack(ctx: Pick<Context, "config">, store: RateLimitStore, keys: string[]): Awaitable<void> {
  const failed = (e: unknown) =>
    ctx.config.logger.error(
      new AuthError("The rate-limit store failed to give back a reservation", { err: errorOf(e) }),
    );
  let answers: Awaitable<void>[];
  try {
    answers = keys.map((key) => decrementOn(store, key));
  } catch (e) {
    return failed(e);
  }
  if (answers.some(isThenable)) return Promise.all(answers).then(() => undefined, failed);
}

/** What a credentials attempt holds until its outcome is known. */
export interface CredentialsReservation {
  /** `authorize()` returned a user: the attempt was not a guess, its reservation is given back. */
  succeeded(): Awaitable<void>;
}

const nothingReserved: CredentialsReservation = { succeeded: () => {} };

/**
 * Reserves a credentials attempt before `authorize()` runs, or throws `RateLimited`.
 *
 * Counters: per client address (any identifier), per (identifier, client address) (tight: the
 * limit a guesser meets), per identifier alone (loose: only many clients together reach it, so
 * one client failing on purpose cannot lock the owner out). Without a client address the tight
 * limit applies to the identifier alone. `identifier` undefined (a provider whose fields name no
 * one, such as a PIN alone) counts the provider as one identifier: a guess can never bring a
 * fresh counter.
 *
 * Every attempt counts unless `authorize()` returns a user (then the caller gives it back with
 * `succeeded()`): a `null`, a thrown `CredentialsSignin` and any other error alike, so that no
 * outcome an attacker can provoke is free.
 */
export function reserveCredentialsAttempt(
  req: RequestInternal,
  ctx: Context,
  providerId: string,
  identifier: string | undefined,
): Awaitable<CredentialsReservation> {
  const limits = ctx.config.rateLimit;
  if (!limits) return nothingReserved;
  const client = clientKey(req.clientIp);
  const digest = identifier === undefined ? "-" : identifierDigest(identifier);
  const pair: Counter = {
    key: `credentials:idc:${providerId}:${digest}:${client ?? "-"}`,
    name: "credentialsPerIdentifierAndIp",
    limit: limits.credentialsPerIdentifierAndIp,
    what: client ? "failed attempts for this identifier from this address" : "failed attempts for this identifier",
  };
  const stages: Counter[][] = client
    ? [
        [
          {
            key: `credentials:ip:${client}`,
            name: "credentialsPerIp",
            limit: limits.credentialsPerIp,
            what: "attempts from this address",
          },
          pair,
        ],
        [
          {
            key: `credentials:id:${providerId}:${digest}`,
            name: "credentialsPerIdentifier",
            limit: limits.credentialsPerIdentifier,
            what: "failed attempts for this identifier",
          },
        ],
      ]
    : [[pair]];
  const reserved = reserve(ctx, limits.store, stages, {
    provider: providerId,
    identifier,
    clientAddress: req.clientIp,
  });
  const reservation = (keys: string[] | null): CredentialsReservation => {
    if (!keys) return nothingReserved;
    // The per-address counter counts attempts of any outcome; only the identifier's counters are
    // given back on success.
    const identifierKeys = keys.filter((key) => !key.startsWith("credentials:ip:"));
    return { succeeded: () => giveBack(ctx, limits.store, identifierKeys) };
  };
  return isThenable(reserved) ? reserved.then(reservation) : reservation(reserved);
}

/**
 * Reserves the sending of one sign-in e-mail to `address` (already normalised), or throws
 * `RateLimited`. Counters as for credentials (per client, per (address, client), per address);
 * every send counts. Past the address's own limit (across all clients: `emailPerIdentifier`, or
 * the pair's without a client address), when the e-mail holds a link (`linkLifeSeconds`, null
 * when it holds only a code bound to the browser that asked), the first request of each link life
 * is still sent and the others answer `"sent"`: nothing goes out and the browser is told to check
 * its e-mail, where a link that works is. Whoever spent the budget, its owner can sign in.
 */
export async function reserveEmailSend(
  req: RequestInternal,
  ctx: Context,
  providerId: string,
  address: string,
  linkLifeSeconds: number | null,
): Promise<"send" | "sent"> {
  const limits = ctx.config.rateLimit;
  if (!limits) return "send";
  const client = clientKey(req.clientIp);
  const digest = identifierDigest(address);
  const pair: Counter = {
    key: `email:idc:${providerId}:${digest}:${client ?? "-"}`,
    name: "emailPerIdentifierAndIp",
    limit: limits.emailPerIdentifierAndIp,
    what: client ? "sign-in e-mails for this address from this client" : "sign-in e-mails for this address",
  };
  const perAddress: Counter = client
    ? {
        key: `email:id:${providerId}:${digest}`,
        name: "emailPerIdentifier",
        limit: limits.emailPerIdentifier,
        what: "sign-in e-mails for this address",
      }
    : pair;
  try {
    await reserve(
      ctx,
      limits.store,
      client
        ? [
            [
              {
                key: `email:ip:${client}`,
                name: "emailPerIp",
                limit: limits.emailPerIp,
                what: "sign-in e-mails from this client",
              },
              pair,
            ],
            [perAddress],
          ]
        : [[pair]],
      { provider: providerId, identifier: address, clientAddress: req.clientIp },
    );
    return "send";
  } catch (e) {
    if (linkLifeSeconds === null || !(e instanceof RateLimited) || refusedBy.get(e) !== perAddress) throw e;
    return (await firstOfLife(ctx, limits.store, `email:fresh:${providerId}:${digest}`, linkLifeSeconds))
      ? "send"
      : "sent";
  }
}

/**
 * True for the first call of each `lifeSeconds` on `key`: past an address's limit, the one e-mail
 * of a link's life that still goes out. A failing store lets it through, as every limit does.
 */
async function firstOfLife(
  ctx: Pick<Context, "config">,
  store: RateLimitStore,
  key: string,
  lifeSeconds: number,
): Promise<boolean> {
  try {
    return (await incrementOn(store, key, lifeSeconds * 1000)).count === 1;
  } catch (e) {
    storeFailed(ctx, e);
    return true;
  }
}

/**
 * Reserves one submission of an e-mail code for `address` (taken from the sealed cookie), or
 * throws `RateLimited`. Counters as for credentials: per client, per (address, client) (tight),
 * per address (loose, so that one client cannot lock the owner out). Every submission counts
 * until it signs in (then the address's counters are given back with `succeeded()`). These
 * bound guessing across e-mails; within one e-mail the attempt records already do.
 */
export async function reserveEmailCodeAttempt(
  req: RequestInternal,
  ctx: Context,
  providerId: string,
  address: string,
): Promise<CredentialsReservation> {
  const limits = ctx.config.rateLimit;
  if (!limits) return nothingReserved;
  const client = clientKey(req.clientIp);
  const digest = identifierDigest(address);
  const pair: Counter = {
    key: `email-code:idc:${providerId}:${digest}:${client ?? "-"}`,
    name: "emailCodePerIdentifierAndIp",
    limit: limits.emailCodePerIdentifierAndIp,
    what: client ? "e-mail codes for this address from this client" : "e-mail codes for this address",
  };
  const stages: Counter[][] = client
    ? [
        [
          {
            key: `email-code:ip:${client}`,
            name: "emailCodePerIp",
            limit: limits.emailCodePerIp,
            what: "e-mail codes from this client",
          },
          pair,
        ],
        [
          {
            key: `email-code:id:${providerId}:${digest}`,
            name: "emailCodePerIdentifier",
            limit: limits.emailCodePerIdentifier,
            what: "e-mail codes for this address",
          },
        ],
      ]
    : [[pair]];
  const reserved = await reserve(ctx, limits.store, stages, {
    provider: providerId,
    identifier: address,
    clientAddress: req.clientIp,
  });
  if (!reserved) return nothingReserved;
  const addressKeys = reserved.filter((key) => !key.startsWith("email-code:ip:"));
  return { succeeded: () => giveBack(ctx, limits.store, addressKeys) };
}

/**
 * Reserves one `GET /webauthn-options/<provider>` (each stores a challenge) per client address,
 * or throws `RateLimited`. Without a client address nothing is counted: one counter for every
 * client would let anyone block passkeys for everybody.
 */
export async function reserveWebAuthnOptions(req: RequestInternal, ctx: Context): Promise<void> {
  const limits = ctx.config.rateLimit;
  const client = clientKey(req.clientIp);
  if (!limits || !client) return;
  await reserve(
    ctx,
    limits.store,
    [
      [
        {
          key: `webauthn-options:ip:${client}`,
          name: "webauthnOptionsPerIp",
          limit: limits.webauthnOptionsPerIp,
          what: "WebAuthn options requests from this address",
        },
      ],
    ],
    { provider: ctx.provider?.id, clientAddress: req.clientIp },
  );
}

/**
 * Reserves one second-factor code attempt, or throws `RateLimited`. Counters: per pending sign-in
 * (`pendingId`, the sealed cookie's id: a cookie is worth a few guesses, then the first factor
 * must be given again) and per user (all pending sign-ins together: a guesser who holds the
 * password cannot mint fresh budgets). Both are keyed on what the server sealed, never on a
 * field of the request. A right code gives the per-user reservation back. The account page's
 * functions (a signed-in user, no pending sign-in) pass `null` and count per user only: any
 * fixed key there would be one budget shared by every user.
 */
export async function reserveSecondFactorAttempt(
  ctx: Pick<Context, "config" | "provider">,
  userId: string,
  pendingId: string | null,
): Promise<CredentialsReservation> {
  const limits = ctx.config.rateLimit;
  if (!limits) return nothingReserved;
  const user = identifierDigest(userId);
  const perUser: Counter = {
    key: `second-factor:user:${user}`,
    name: "secondFactorPerUser",
    limit: limits.secondFactorPerUser,
    what: "failed codes for this user",
  };
  const perPending: Counter[] =
    pendingId === null
      ? []
      : [
          {
            key: `second-factor:pending:${pendingId}`,
            name: "secondFactorPerPending",
            limit: limits.secondFactorPerPending,
            what: "codes for this sign-in",
          },
        ];
  const reserved = await reserve(ctx, limits.store, [[...perPending, perUser]], {
    provider: ctx.provider?.id,
    userId,
  });
  if (!reserved) return nothingReserved;
  return { succeeded: () => giveBack(ctx, limits.store, [`second-factor:user:${user}`]) };
}
