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

// Everything a header value may carry as is: printable ASCII without the space.
const HEADER_SAFE = /^[\x21-\x7e]*$/;

/**
 * A redirect target as it may be written into a `Location` header (and the JSON `{ url }` answer):
 * spaces, control characters and non-ASCII characters are percent-encoded as UTF-8, a lone UTF-16
 * surrogate becomes U+FFFD. What is already printable ASCII (including existing `%XX` escapes) is
 * kept, so a valid URL is returned unchanged. Without this, `callbackUrl=/€` or a redirect
 * callback's `"/a\r\nb"` makes the Web `Headers` (or Node's `setHeader`) throw: a 500 instead of a
 * redirect.
 *
 * @example
 * ```ts
 * headerSafeUrl("https://app.example/€?q=a b") // "https://app.example/%E2%82%AC?q=a%20b"
 * headerSafeUrl("https://app.example/a%20b")   // unchanged
 * ```
 */
export function headerSafeUrl(url: string): string {
  if (HEADER_SAFE.test(url)) return url;
  let out = "";
  // for...of walks code points: a surrogate pair arrives whole, a lone surrogate alone.
  for (const char of url) {
    const code = char.codePointAt(0) ?? 0; // a code point of the string: never undefined
    if (code > 0x20 && code < 0x7f) out += char;
    else if (code >= 0xd800 && code <= 0xdfff) out += "%EF%BF%BD";
    else out += encodeURIComponent(char);
  }
  return out;
}
