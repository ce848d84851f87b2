/**
 * A description of a device that its user would recognise ("Firefox on macOS"), from a
 * `User-Agent` header. The answer is made only of the names in the tables below, never of text
 * from the header, so a hostile header cannot put markup, control characters or a long string
 * into a session record or a page that lists sessions. Only the first {@link SCANNED} characters
 * are read, so a huge header costs no more than a normal one.
 */

/** How much of the header is read. Real user agents are shorter; the rest is ignored. */
const SCANNED = 512;

// Order matters: many browsers also say "Chrome" and "Safari", and Android says "Linux".
const browsers: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\b(?:OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bVivaldi\//, "Vivaldi"],
  [/\bYaBrowser\//, "Yandex Browser"],
  [/\b(?:Firefox|FxiOS)\//, "Firefox"],
  [/\b(?:Chrome|Chromium|CriOS)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/\bcurl\//, "curl"],
  [/\bWget\//, "Wget"],
  [/\b(?:node-fetch|undici|Node\.js)\b/, "Node.js"],
  [/\bpython-requests\//, "Python"],
];

const systems: readonly [RegExp, string][] = [
  [/\biPhone\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bUbuntu\b/, "Ubuntu"],
  [/\bLinux\b/, "Linux"],
];

/**
 * A short description of the device a request came from, such as "Firefox on macOS", "Safari on
 * iPhone" or "Chrome": the browser and system names Latchkey knows, nothing copied from the header.
 * "Unknown device" when it recognises neither (or there is no header).
 *
 * @example
 * ```ts
 * describeUserAgent("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0")
 * // "Firefox on macOS"
 * ```
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  if (typeof userAgent !== "string" || userAgent === "") return "Unknown device";
  // Control characters never appear in a real user agent; dropping them keeps the patterns simple.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  const text = userAgent.slice(0, SCANNED).replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
  const browser = browsers.find(([pattern]) => pattern.test(text))?.[1];
  const system = systems.find(([pattern]) => pattern.test(text))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `Browser on ${system}` : "Unknown device");
}
