/**
 * The message of anything thrown: an error's own message (or any object's string `message`),
 * else the value as text.
 *
 * @example
 * ```ts
 * messageOf(new Error("boom")) // "boom"
 * messageOf("boom") // "boom"
 * ```
 */
export function messageOf(thrown: unknown): string {
  if (typeof thrown === "object" && thrown !== null && "message" in thrown && typeof thrown.message === "string")
    return thrown.message;
  try {
    return String(thrown);
  } catch {
    return "(a value that cannot be shown)";
  }
}

/**
 * Anything thrown, as an `Error` for the `err` of an error's cause: an error as it is, any other
 * value (a string, an error of another realm) wrapped, with the value itself as the `cause`.
 *
 * @example
 * ```ts
 * throw new AdapterError("Adapter method `getUser` failed", { err: errorOf(e) })
 * ```
 */
export function errorOf(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(messageOf(thrown), { cause: thrown });
}
