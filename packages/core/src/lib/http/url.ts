/**
 * `path` with `query` appended: after `?`, or after `&` when the path already has a query.
 *
 * @example
 * ```ts
 * withQuery("/login?tab=1", new URLSearchParams({ error: "AccessDenied" })) // "/login?tab=1&error=AccessDenied"
 * ```
 */
export function withQuery(path: string, query: URLSearchParams | string): string {
  const text = String(query);
  if (!text) return path;
  return `${path}${path.includes("?") ? "&" : "?"}${text}`;
}
