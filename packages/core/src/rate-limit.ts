/**
 * Rate limiting (on by default) of what an anonymous client can make Latchkey do:
 *
 * - credentials sign-in: per (identifier, client address) tightly, per identifier loosely, per
 *   client address for any identifier; the identifier is the field the provider declares
 *   (`identifier`, else its first credentials field), never a field the client adds;
 * - sign-in e-mails: per (address, client address), per address, per client address;
 * - `GET /webauthn-options/<provider>` (it stores a challenge): per client address.
 *
 * An attempt is reserved (counted) before `authorize()` runs, so concurrent guesses cannot
 * overtake the limit; a credentials attempt that signs in gives its reservation back. A limited
 * request gets `429` with `Retry-After`, or for a browser's form post the sign-in page with
 * `?error=RateLimited`. The counters live in a store: in memory by default (one per application
 * configuration object, one process), or for several instances in Redis (`RedisRateLimitStore` of
 * `@latchkey/redis-adapter`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRateLimitStore } from "@latchkey/redis-adapter"
 * const config = { providers, rateLimit: { store: RedisRateLimitStore(new Redis(), { prefix: "myapp:rl:" }) } }
 * ```
 * @module rate-limit
 */

/** The state of one counter. */
export interface RateLimitHit {
  count: number;
  /** Epoch milliseconds when the window ends. */
  resetAt: number;
}

/**
 * Where counters live. `increment` and `decrement` must be atomic across the instances that share
 * the store: the limiter reserves an attempt with `increment` before it runs, so a read followed
 * by a write would let concurrent attempts through.
 */
export interface RateLimitStore {
  /** Adds one to `key` (starting a window of `windowMs` if none is open) and returns the state. */
  increment(key: string, windowMs: number): Promise<RateLimitHit>;
  /**
   * Takes one back from `key` (a reservation that turned out not to count). Never goes below zero,
   * never opens a window and never extends one.
   */
  decrement(key: string): Promise<void>;
  /** The state of `key` without changing it; null when no window is open. */
  get(key: string): Promise<RateLimitHit | null>;
}

/** A limit: at most `max` within `windowSeconds`. */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}

/**
 * The `rateLimit` option. Pass `false` to turn rate limiting off.
 *
 * "Client address" is `RequestInternal.clientIp` (Express: `req.ip`); IPv6 addresses are counted
 * per /64, the block one subscriber usually holds. Without a client address only the
 * per-identifier limits apply, and the tight `...PerIdentifierAndIp` limit is then applied to the
 * identifier alone: guessing stays as slow, at the price that anyone can make an identifier wait.
 *
 * @example
 * ```ts
 * rateLimit: { credentialsPerIdentifierAndIp: { max: 3, windowSeconds: 600 } }
 * ```
 */
export interface RateLimitOptions {
  /** @default a MemoryRateLimitStore kept for this configuration object */
  store?: RateLimitStore;
  /**
   * Failed credentials attempts per (identifier, client address): the limit a guesser meets.
   * @default 5 per 15 minutes
   */
  credentialsPerIdentifierAndIp?: RateLimit;
  /**
   * Failed credentials attempts per identifier from all clients together: bounds a distributed
   * guesser, loose enough that one client failing on purpose cannot lock the owner out.
   * @default 50 per 15 minutes
   */
  credentialsPerIdentifier?: RateLimit;
  /** Credentials attempts (any outcome, any identifier) per client address. @default 100 per 15 minutes */
  credentialsPerIp?: RateLimit;
  /** Sign-in e-mails per (address, client address). @default 5 per 15 minutes */
  emailPerIdentifierAndIp?: RateLimit;
  /** Sign-in e-mails per address from all clients together. @default 15 per 15 minutes */
  emailPerIdentifier?: RateLimit;
  /** Sign-in e-mails per client address. @default 30 per 15 minutes */
  emailPerIp?: RateLimit;
  /**
   * E-mail code submissions per (address, client address) that did not sign in.
   * @default 10 per 15 minutes
   */
  emailCodePerIdentifierAndIp?: RateLimit;
  /** E-mail code submissions per address from all clients together. @default 30 per 15 minutes */
  emailCodePerIdentifier?: RateLimit;
  /** E-mail code submissions (any outcome) per client address. @default 60 per 15 minutes */
  emailCodePerIp?: RateLimit;
  /** `GET /webauthn-options/<provider>` requests per client address. @default 300 per 15 minutes */
  webauthnOptionsPerIp?: RateLimit;
  /**
   * Second-factor codes tried with one pending sign-in (one first factor); the user must sign in
   * again after this many. @default 5 per 15 minutes
   */
  secondFactorPerPending?: RateLimit;
  /**
   * Failed second-factor codes per user, from all pending sign-ins together: bounds a guesser
   * who holds the first factor. @default 10 per 15 minutes
   */
  secondFactorPerUser?: RateLimit;
}

/**
 * Counters in this process's memory, in fixed windows. Right for a single instance; several
 * instances each count on their own (use `RedisRateLimitStore` of `@latchkey/redis-adapter`). Expired windows are swept as
 * the map is used, and the store never holds more than `maxKeys` counters.
 *
 * Bounded without letting a flood reset anyone's counter: a counter starts on probation (half of
 * `maxKeys`), and one that counts a second attempt in its window moves to the protected half.
 * A new counter only ever pushes out the oldest counter on probation, so a flood of fresh keys
 * (made-up identifiers, new addresses: one attempt each) never evicts a counter that has
 * counted twice, such as a guesser's own counter for the account he attacks; the protected half
 * loses its oldest only to other counters promoted past it (two counted attempts each).
 *
 * @example
 * ```ts
 * const store = new MemoryRateLimitStore({ maxKeys: 50_000 })
 * await store.increment("credentials:ip:203.0.113.7", 15 * 60 * 1000) // { count: 1, resetAt }
 * ```
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #probation = new Map<string, RateLimitHit>();
  readonly #protected = new Map<string, RateLimitHit>();
  readonly #maxProbation: number;
  readonly #maxProtected: number;
  #lastSweep = 0;

  constructor(options: { maxKeys?: number } = {}) {
    const maxKeys = Math.max(2, options.maxKeys ?? 100_000);
    this.#maxProbation = Math.ceil(maxKeys / 2);
    this.#maxProtected = maxKeys - this.#maxProbation;
  }

  async increment(key: string, windowMs: number): Promise<RateLimitHit> {
    return this.incrementNow(key, windowMs);
  }

  async decrement(key: string): Promise<void> {
    this.decrementNow(key);
  }

  /**
   * {@link increment}, answered at once: the counters are in this process's memory. Latchkey's own
   * limiters call it (sparing a promise per counter) unless a subclass replaces `increment`.
   *
   * @example
   * ```ts
   * store.incrementNow("credentials:ip:203.0.113.7", 15 * 60 * 1000) // { count: 1, resetAt }
   * ```
   */
  incrementNow(key: string, windowMs: number): RateLimitHit {
    const now = Date.now();
    this.#sweep(now);
    let hit = this.#protected.get(key) ?? this.#probation.get(key);
    if (hit && hit.resetAt <= now) {
      this.#protected.delete(key);
      this.#probation.delete(key);
      hit = undefined;
    }
    if (!hit) {
      hit = { count: 0, resetAt: now + windowMs };
      if (this.#probation.size >= this.#maxProbation) this.#dropOldest(this.#probation, now);
      this.#probation.set(key, hit);
    }
    hit.count++;
    if (hit.count >= 2 && this.#probation.delete(key)) {
      if (this.#protected.size >= this.#maxProtected) this.#dropOldest(this.#protected, now);
      this.#protected.set(key, hit);
    }
    return { ...hit };
  }

  /**
   * {@link decrement}, done at once (see {@link incrementNow}).
   *
   * @example
   * ```ts
   * store.decrementNow("credentials:idc:credentials:…") // the reservation of a sign-in that succeeded
   * ```
   */
  decrementNow(key: string): void {
    const hit = this.#protected.get(key) ?? this.#probation.get(key);
    if (hit && hit.resetAt > Date.now() && hit.count > 0) hit.count--;
  }

  async get(key: string): Promise<RateLimitHit | null> {
    const hit = this.#protected.get(key) ?? this.#probation.get(key);
    return hit && hit.resetAt > Date.now() ? { ...hit } : null;
  }

  /**
   * Makes room in a full half: expired windows first (swept at most once a second, so a flood
   * never makes each request walk the whole store), else its oldest counter.
   */
  #dropOldest(half: Map<string, RateLimitHit>, now: number): void {
    this.#sweep(now, 1000);
    if (half.size >= (half === this.#probation ? this.#maxProbation : this.#maxProtected)) {
      const oldest = half.keys().next();
      if (!oldest.done) half.delete(oldest.value);
    }
  }

  #sweep(now: number, interval = 60_000): void {
    if (now - this.#lastSweep < interval) return;
    this.#lastSweep = now;
    for (const half of [this.#probation, this.#protected]) {
      for (const [key, hit] of half) if (hit.resetAt <= now) half.delete(key);
    }
  }
}
