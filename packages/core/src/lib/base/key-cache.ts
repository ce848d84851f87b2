/**
 * Keys derived from a secret, once per process: a configuration resolved again (a new object per
 * request, a module loaded twice, a secret rotated back) finds its keys already made, and no key
 * is derived before its first use. Bounded: an application has a handful of secrets and salts; a
 * caller that makes up new ones cannot grow memory without end (the oldest entry goes first).
 *
 * @example
 * ```ts
 * const csrfKey = derivedOnce((secret) => macOf("sha256", hkdf(secret, "", "Latchkey CSRF token key", 32)))
 * csrfKey(secret) // derived on the first call, the same object afterwards
 * ```
 */
export function derivedOnce<A extends [string, ...string[]], T>(
  derive: (...args: A) => T,
  limit = 256,
): (...args: A) => T {
  const cache = new Map<string, T>();
  return (...args) => {
    // Each part prefixed by its length: no two lists of strings give the same id.
    const id = args.length === 1 ? args[0] : args.map((part) => `${part.length}:${part}`).join("");
    let value = cache.get(id);
    if (value !== undefined) return value;
    value = derive(...args);
    if (cache.size >= limit) {
      const [oldest] = cache.keys();
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(id, value);
    return value;
  };
}
