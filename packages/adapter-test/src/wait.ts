/**
 * Waiting on an event a store shows only when asked (an expiry, a reconnection): ask back to
 * back until it shows, within a deadline. Never a guessed delay.
 * @module wait
 */

/**
 * Retries `attempt` back to back until it gives true; throws when `deadlineMs` passes first.
 *
 * @example
 * ```ts
 * await untilTrue(async () => (await store.get(key)) === null)
 * ```
 */
export async function untilTrue(attempt: () => Promise<boolean>, deadlineMs = 5_000): Promise<void> {
  const started = performance.now();
  while (!(await attempt())) {
    if (performance.now() - started > deadlineMs) throw new Error(`still false after ${deadlineMs} ms`);
    // Let timers and sockets run between attempts of a store that answers synchronously.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const HUNG = Symbol("hung");

/**
 * Settles `promise` within `deadlineMs`: its value, or what it rejected with, or a rejection
 * saying it never answered (a store that hangs is reported as hanging, not as having answered).
 *
 * @example
 * ```ts
 * const outcome = await settled(store.add(entry), 10_000)
 * expect(outcome.ok).toBe(false)
 * ```
 */
export async function settled<T>(
  promise: PromiseLike<T>,
  deadlineMs: number,
): Promise<{ ok: true; value: T } | { ok: false; error: Error; hung: boolean }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<typeof HUNG>((resolve) => {
    timer = setTimeout(() => resolve(HUNG), deadlineMs);
  });
  try {
    const value = await Promise.race([Promise.resolve(promise), hung]);
    if (value === HUNG) return { ok: false, error: new Error(`no answer within ${deadlineMs} ms`), hung: true };
    return { ok: true, value: value as T };
  } catch (e) {
    return { ok: false, error: e as Error, hung: false };
  } finally {
    clearTimeout(timer);
  }
}
