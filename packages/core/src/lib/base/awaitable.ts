import type { Awaitable } from "../../shapes/data.js";

/**
 * True when `value` is a promise or another thenable, to be awaited; false for a value at hand.
 * Lets a hot path go on synchronously when a callback or store answered at once, instead of paying
 * a promise and a turn of the microtask queue for an answer it already has.
 *
 * @example
 * ```ts
 * const verdict = config.callbacks.signIn(params)
 * const allowed = isThenable(verdict) ? await verdict : verdict
 * ```
 */
export function isThenable<T>(value: Awaitable<T>): value is PromiseLike<T> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    "then" in value &&
    typeof value.then === "function"
  );
}

/**
 * The values of `answers` when every one is at hand; undefined when one of them is a promise.
 *
 * @example
 * ```ts
 * const hits = atHand(counters.map((c) => store.increment(c))) ?? (await Promise.all(...))
 * ```
 */
export function atHand<T>(answers: readonly Awaitable<T>[]): T[] | undefined {
  const values: T[] = [];
  for (const answer of answers) {
    if (isThenable(answer)) return undefined;
    values.push(answer);
  }
  return values;
}
