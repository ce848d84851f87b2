/**
 * The default `redirect` callback: relative paths are resolved against the origin; absolute URLs
 * are kept only when they are on the same origin (scheme, host and port). Everything else,
 * including `//evil`, `/\evil`, `http://app@evil`, `javascript:` and unparsable input, falls
 * back to the origin.
 */
export function defaultRedirect({ url, baseUrl }: { url: string; baseUrl: string }): string {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  if (typeof url !== "string" || url.length === 0 || url.length > 4096) return base.origin;
  // Browsers ignore tabs and newlines inside URLs and read a backslash as a slash: normalise the
  // same way before deciding, so that "/\t/evil" cannot pass as a path.
  const cleaned = url.replace(/[\t\n\r]/g, "").replace(/\\/g, "/");
  let target: URL;
  try {
    target = new URL(cleaned, base.origin);
  } catch {
    return base.origin;
  }
  if (target.origin !== base.origin || target.username || target.password) return base.origin;
  if (cleaned.startsWith("/") && !cleaned.startsWith("//")) return `${base.origin}${cleaned}`;
  return target.href;
}
