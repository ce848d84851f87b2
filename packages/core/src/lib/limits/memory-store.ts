// MemoryRateLimitStore: the counters of one process, the default store of the `rateLimit` option.
import type { RateLimitHit, RateLimitStore } from "../../shapes/rate-limit.js";

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
