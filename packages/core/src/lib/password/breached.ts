import { hash, toHex } from "#platform";
import { readCapped } from "../http/read-capped.js";

/** Options of {@link checkBreachedPassword}. */
export interface BreachedPasswordOptions {
  /**
   * Base URL of a Pwned Passwords range API (`GET {endpoint}/range/{5 hex}`).
   * @default "https://api.pwnedpasswords.com"
   */
  endpoint?: string;
  /**
   * How long to wait for the whole answer, in milliseconds.
   * @default 3000
   */
  timeoutMs?: number;
  /**
   * What an unanswered check means: `"fail-open"` lets the password through (`breached: false`,
   * reason logged), `"fail-closed"` treats it as breached. Fail-open by default: an outage of a
   * third-party service should not stop every sign-up, and the password still passed the policy.
   * @default "fail-open"
   */
  onUnavailable?: "fail-open" | "fail-closed";
  /** The `fetch` used (a proxy agent, a test server, ...). @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * Where an unanswered check is reported.
   * @default console.warn with a `[latchkey][password]` prefix
   */
  log?: (message: string) => void;
}

/** The verdict of {@link checkBreachedPassword}. */
export type BreachedPasswordResult =
  /** The password is in the corpus `count` times. */
  | { status: "found"; breached: true; count: number }
  | { status: "not-found"; breached: false; count: 0 }
  /** No usable answer; `breached` follows `onUnavailable`. `reason` is for logs, not users. */
  | { status: "unknown"; breached: boolean; count: 0; reason: string };

const DEFAULT_ENDPOINT = "https://api.pwnedpasswords.com";
// A real answer is about 30 to 40 kB (800 to 1,000 lines with padding); anything far larger is
// not this API, and is not read into memory.
const MAX_BODY = 1024 * 1024;
const LINE = /^([0-9A-Fa-f]{35}):([0-9]{1,10})$/;

/**
 * Looks a password up in Have I Been Pwned's Pwned Passwords with the k-anonymity range API: only
 * the first 5 hexadecimal characters of its SHA-1 leave the process, and padding is requested
 * (`Add-Padding: true`) so the size of the answer does not tell the prefix either. Padding
 * entries (count 0) are ignored. Use it on sign-up and password change, next to
 * {@link checkPasswordPolicy}.
 *
 * Never throws for a network failure, a timeout, an error status or an unreadable answer: those
 * give `status: "unknown"`, logged, with `breached` as `onUnavailable` says.
 *
 * @example
 * ```ts
 * import { checkBreachedPassword } from "@latchkey/core/password"
 * const { breached } = await checkBreachedPassword(password, { timeoutMs: 2000 })
 * if (breached) return res.status(400).json({ error: "breached-password" })
 * ```
 */
export async function checkBreachedPassword(
  password: string,
  options: BreachedPasswordOptions = {},
): Promise<BreachedPasswordResult> {
  const {
    endpoint = DEFAULT_ENDPOINT,
    timeoutMs = 3000,
    onUnavailable = "fail-open",
    fetch: fetchImpl = globalThis.fetch,
    log = (message: string) => console.warn(`[latchkey][password] ${message}`),
  } = options;
  if (typeof password !== "string") throw new TypeError("checkBreachedPassword: the password must be a string");
  if (onUnavailable !== "fail-open" && onUnavailable !== "fail-closed") {
    throw new TypeError('checkBreachedPassword: `onUnavailable` must be "fail-open" or "fail-closed"');
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError("checkBreachedPassword: `timeoutMs` must be a positive number");
  }
  const digest = toHex(hash("sha1", password)).toUpperCase();
  const prefix = digest.slice(0, 5);
  const suffix = digest.slice(5);
  const url = `${endpoint.replace(/\/+$/, "")}/range/${prefix}`;

  const unknown = (reason: string): BreachedPasswordResult => {
    const breached = onUnavailable === "fail-closed";
    log(
      `breached-password check unavailable (${reason}); treated as ${breached ? "breached (fail-closed)" : "not breached (fail-open)"}`,
    );
    return { status: "unknown", breached, count: 0, reason };
  };

  let body: string | null;
  try {
    const response = await fetchImpl(url, {
      headers: { "add-padding": "true", "user-agent": "latchkey" },
      // One deadline for the headers and the body: a server that trickles its answer times out too.
      // in whole milliseconds, as `AbortSignal.timeout` takes them (250.5 waits 251 ms).
      signal: AbortSignal.timeout(Math.ceil(timeoutMs)),
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      return unknown(`HTTP ${response.status} from ${endpoint}`);
    }
    body = await readCapped(response.body, MAX_BODY);
  } catch (error) {
    const name = error instanceof Error ? error.name : "Error";
    if (name === "TimeoutError" || name === "AbortError")
      return unknown(`no answer from ${endpoint} in ${timeoutMs} ms`);
    return unknown(`${endpoint} unreachable: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (body === null) return unknown(`the answer from ${endpoint} is over ${MAX_BODY} bytes`);

  let count = 0;
  let lines = 0;
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const match = LINE.exec(line);
    if (!match) return unknown(`the answer from ${endpoint} is not a range list (line ${lines + 1})`);
    lines++;
    if ((match[1] as string).toUpperCase() === suffix) count = Math.max(count, Number(match[2]));
  }
  if (lines === 0) return unknown(`the answer from ${endpoint} is empty`);
  // A count of 0 is a padding entry: not a breach, even when it carries the suffix.
  return count > 0 ? { status: "found", breached: true, count } : { status: "not-found", breached: false, count: 0 };
}

/**
 * `true` when {@link checkBreachedPassword} says the password is breached (or, with
 * `onUnavailable: "fail-closed"`, when no answer came).
 *
 * @example
 * ```ts
 * if (await isBreachedPassword(password)) return res.status(400).json({ error: "breached-password" })
 * ```
 */
export async function isBreachedPassword(password: string, options?: BreachedPasswordOptions): Promise<boolean> {
  return (await checkBreachedPassword(password, options)).breached;
}
