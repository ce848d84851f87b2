/** True for `{}`-style objects: not arrays, dates, URLs, class instances or functions. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The property `key` of `value` when it is an object (own or inherited), else undefined: a field
 * of something whose shape is not known yet (an application's option, a thrown value).
 *
 * @example
 * ```ts
 * fieldOf({ type: "oauth" }, "type") // "oauth"
 * fieldOf("text", "type") // undefined
 * ```
 */
export function fieldOf(value: unknown, key: PropertyKey): unknown {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  const field: unknown = Reflect.get(value, key);
  return field;
}

/**
 * `value` when it is a string, else undefined (a field read with {@link fieldOf}, as text).
 *
 * @example
 * ```ts
 * textOf(fieldOf(error, "code")) // "ECONNREFUSED", or undefined
 * ```
 */
export function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Deep-merges plain objects from left to right into a new object. Arrays, functions and class
 * instances are replaced, not merged; `undefined` never overwrites a value. Symbol keys (such as
 * `customFetch`) are carried over too. Inputs are never mutated.
 */
export function merge<T extends object>(target: T, ...sources: Array<object | undefined | null>): T {
  const out: Record<PropertyKey, unknown> = { ...(target as Record<PropertyKey, unknown>) };
  for (const source of sources) {
    if (!source) continue;
    for (const key of Reflect.ownKeys(source)) {
      const value = fieldOf(source, key);
      if (value === undefined) continue;
      const current = out[key];
      out[key] = isPlainObject(current) && isPlainObject(value) ? merge(current, value) : value;
    }
  }
  return out as T;
}
