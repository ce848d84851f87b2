import { utf8 } from "#platform";
import { MAX_PASSWORD_BYTES } from "./hash.js";

/** Why a password was refused by {@link checkPasswordPolicy}. */
export type PasswordPolicyReason =
  /** Not a string. */
  | "invalid"
  /** Fewer code points than `minLength`. */
  | "too-short"
  /** More code points than `maxLength`, or more than 1024 UTF-8 bytes. */
  | "too-long"
  /** Holds a control character (U+0000–U+001F, U+007F–U+009F): a paste gone wrong, never typed. */
  | "control-character"
  /** Is, or contains, one of the user's identifiers (the e-mail's local part included). */
  | "identifier"
  /** Is, or contains, one of the `context` words (the service's name, ...). */
  | "context-word";

/** Options of {@link checkPasswordPolicy}. */
export interface PasswordPolicyOptions {
  /**
   * Fewest code points. NIST SP 800-63B asks for at least 8, and 15 when the password is the
   * only factor.
   * @default 8
   */
  minLength?: number;
  /**
   * Most code points (NIST: allow at least 64). Never above what fits in 1024 UTF-8 bytes, which
   * is refused as `too-long` whatever this says.
   * @default 256
   */
  maxLength?: number;
  /**
   * The user's own identifiers: user name, e-mail address (its local part is checked too), ...
   * A password that is one of them, or contains one of 4 code points or more, is refused.
   */
  identifiers?: ReadonlyArray<string | null | undefined>;
  /** Words specific to the service (its name, its domain): checked like `identifiers`. */
  context?: ReadonlyArray<string>;
}

/** The verdict of {@link checkPasswordPolicy}. */
export interface PasswordPolicyResult {
  ok: boolean;
  /** Every reason that applies, empty when `ok`. */
  reasons: PasswordPolicyReason[];
  /** The length counted: Unicode code points after NFKC normalisation. */
  length: number;
}

// Shorter words are checked for equality only: "ann" should not forbid every password with "ann".
const MIN_CONTAINED = 4;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

function comparable(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

function words(values: ReadonlyArray<string | null | undefined>, withLocalPart: boolean): string[] {
  const out: string[] = [];
  for (const value of values) {
    if (typeof value !== "string" || value.trim() === "") continue;
    const word = comparable(value.trim());
    out.push(word);
    const at = word.lastIndexOf("@");
    if (withLocalPart && at > 0) out.push(word.slice(0, at));
  }
  return out;
}

function matches(password: string, list: string[]): boolean {
  return list.some((word) => password === word || ([...word].length >= MIN_CONTAINED && password.includes(word)));
}

/**
 * Checks a new password against the rules of NIST SP 800-63B §5.1.1.2: a minimum and maximum
 * length counted in Unicode code points after NFKC normalisation, no composition rules (no
 * "one digit, one symbol"), and not the user's own identifier or a word of the service. Returns
 * every reason as a code; it never throws for a weak password. Check breached passwords with
 * {@link checkBreachedPassword} too.
 *
 * @example
 * ```ts
 * import { checkPasswordPolicy } from "@latchkey/core/password"
 * const verdict = checkPasswordPolicy(password, { identifiers: [email], context: ["acme"], minLength: 15 })
 * if (!verdict.ok) return res.status(400).json({ error: "weak-password", reasons: verdict.reasons })
 * ```
 */
export function checkPasswordPolicy(password: unknown, options: PasswordPolicyOptions = {}): PasswordPolicyResult {
  const { minLength = 8, maxLength = 256, identifiers = [], context = [] } = options;
  if (!Number.isInteger(minLength) || minLength < 1) {
    throw new TypeError("checkPasswordPolicy: `minLength` must be a positive integer");
  }
  if (!Number.isInteger(maxLength) || maxLength < Math.max(minLength, 64)) {
    throw new TypeError("checkPasswordPolicy: `maxLength` must be an integer of at least 64 and at least `minLength`");
  }
  if (typeof password !== "string") return { ok: false, reasons: ["invalid"], length: 0 };
  // A megabyte is refused on its raw length, before it is normalised or scanned.
  if (password.length > 4 * MAX_PASSWORD_BYTES) return { ok: false, reasons: ["too-long"], length: password.length };
  const normalized = password.normalize("NFKC");
  const length = [...normalized].length;
  const reasons: PasswordPolicyReason[] = [];
  if (length < minLength) reasons.push("too-short");
  if (length > maxLength || utf8(normalized).length > MAX_PASSWORD_BYTES) reasons.push("too-long");
  if (CONTROL.test(normalized)) reasons.push("control-character");
  const lowered = normalized.toLowerCase();
  if (matches(lowered, words(identifiers, true))) reasons.push("identifier");
  if (matches(lowered, words(context, false))) reasons.push("context-word");
  return { ok: reasons.length === 0, reasons, length };
}
