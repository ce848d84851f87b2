import { domainToUnicode } from "#platform";

/**
 * The longest e-mail address: RFC 5321 §4.5.3.1.3 limits a path to 256 octets with its angle
 * brackets. A longer address reaches no mailbox, and a store's key may not hold it (the SQL
 * adapter's keys are VARCHAR(255) on MySQL and MariaDB).
 */
export const MAX_ADDRESS_LENGTH = 254;

/**
 * Why an address was refused. The message is for logs only: it never reaches the user, who only
 * sees `error=EmailSignin`.
 */
export class InvalidEmailAddress extends Error {
  override name = "InvalidEmailAddress";
}

// The local part: a dot-atom of letters, digits and a few symbols. RFC 5322 allows more (quoted
// strings, "%", "!", "/", "|", "{", "}", "`", "?"), but those are how addresses are made to mean
// one thing to Latchkey and another to a mail server (source routes, bang paths, quoting), and
// real mailboxes do not need them.
const LOCAL_PART = /^[a-z0-9_+'=#$&*^~-]+(?:\.[a-z0-9_+'=#$&*^~-]+)*$/;
// One DNS label in ASCII (an IDN label in its "xn--" form counts).
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// Scripts a decoded IDN label may use, one at a time. Han, Hiragana and Katakana are written
// together in Japanese, so they count as one.
const SCRIPTS: ReadonlyArray<[string, RegExp]> = [
  ["Latin", /\p{Script=Latin}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Hebrew", /\p{Script=Hebrew}/u],
  ["Arabic", /\p{Script=Arabic}/u],
  ["CJK", /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ["Hangul", /[\p{Script=Hangul}\p{Script=Han}]/u],
  ["Thai", /\p{Script=Thai}/u],
  ["Devanagari", /\p{Script=Devanagari}/u],
];

function scriptsOf(label: string): Set<string> {
  const found = new Set<string>();
  for (const char of label) {
    if (/[\p{Script=Common}\p{Script=Inherited}]/u.test(char)) continue;
    const match = SCRIPTS.find(([, pattern]) => pattern.test(char));
    found.add(match ? match[0] : `other:${char}`);
  }
  return found;
}

/** True when the Unicode form of a label mixes scripts (a Latin "a" next to a Cyrillic U+0430). */
function mixesScripts(label: string): boolean {
  const scripts = scriptsOf(label);
  if (scripts.size <= 1) return false;
  // Japanese mixes Han with kana, Korean Han with Hangul: allowed as long as nothing else joins.
  if (scripts.size === 2 && scripts.has("CJK") && scripts.has("Hangul")) return false;
  return true;
}

/**
 * The strict normalisation of an e-mail address used as the identifier of a magic-link sign-in.
 *
 * The address is trimmed and lower-cased, then refused unless it is exactly one plain mailbox:
 * - at most 254 characters (RFC 5321 §4.5.3.1.3); exactly one `@`, a non-empty local part (at
 *   most 64 characters) and a domain of at least two labels (at most 253 characters);
 * - no list separators (`,` `;`), no spaces, quotes, angle brackets, parentheses, `%` or `!`
 *   (source routes, bang paths, quoted or commented parts), no control characters: a line break
 *   anywhere is refused, even at the ends, since it can only come from a crafted request;
 * - **only ASCII.** Every non-ASCII character is refused, in the local part and in the domain. This
 *   removes look-alike `@` signs (U+FF20, U+FE6B), full-width letters that some databases
 *   and mail servers fold into ASCII, and whole-script homoglyphs (a Cyrillic "apple.com") in one
 *   rule. An internationalised domain can still be used in its ASCII ("xn--") form; such a label
 *   must be valid Punycode (checked with the WHATWG URL parser) and its Unicode form must not mix
 *   scripts.
 *
 * @throws InvalidEmailAddress with the reason (for the log).
 * @example
 * ```ts
 * normalizeEmailIdentifier("  Ada@Example.COM ") // "ada@example.com"
 * normalizeEmailIdentifier("a@b.com, c@d.com")   // throws: a list
 * normalizeEmailIdentifier("ada\uFF20example.com") // throws: not ASCII
 * ```
 */
export function normalizeEmailIdentifier(input: string): string {
  if (typeof input !== "string") throw new InvalidEmailAddress("The address is not a string");
  if (input.length > 320) throw new InvalidEmailAddress("The address is too long");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (/[\u0000-\u001f\u007f]/.test(input))
    throw new InvalidEmailAddress("The address contains a control character or line break");
  const address = input.trim().toLowerCase();
  if (address === "") throw new InvalidEmailAddress("The address is empty");
  if (address.length > MAX_ADDRESS_LENGTH)
    throw new InvalidEmailAddress(`The address is longer than ${MAX_ADDRESS_LENGTH} characters`);
  if (/[^\u0020-\u007e]/.test(address)) throw new InvalidEmailAddress("The address contains a non-ASCII character");
  if (/[\s,;"<>()[\]\\:%!]/.test(address))
    throw new InvalidEmailAddress("The address contains a space, list separator, quote, bracket or routing character");
  const parts = address.split("@");
  if (parts.length !== 2) throw new InvalidEmailAddress(`The address has ${parts.length - 1} "@" signs, not one`);
  const [local, domain = ""] = parts;
  if (!local || local.length > 64 || !LOCAL_PART.test(local))
    throw new InvalidEmailAddress("The local part is not a plain dot-atom");
  if (domain.length > 253) throw new InvalidEmailAddress("The domain is too long");
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)))
    throw new InvalidEmailAddress("The domain is not a host name");
  if (/^[0-9]+$/.test(labels.at(-1) ?? "")) throw new InvalidEmailAddress("The domain is an IP address");
  if (labels.some((label) => label.startsWith("xn--"))) {
    let parsed: string;
    try {
      parsed = new URL(`http://${domain}/`).hostname;
    } catch {
      throw new InvalidEmailAddress("The domain has an invalid Punycode label");
    }
    if (parsed !== domain) throw new InvalidEmailAddress("The domain is not in its canonical ASCII form");
    const unicode = domainToUnicode(domain);
    if (!unicode || unicode.split(".").some(mixesScripts)) {
      throw new InvalidEmailAddress("The domain mixes scripts (a homoglyph of another domain)");
    }
  } else if (labels.some((label) => label.slice(2, 4) === "--")) {
    // "ab--c" is reserved for other ACE prefixes; nobody's mailbox lives there.
    throw new InvalidEmailAddress("The domain uses a reserved label form");
  }
  return address;
}

/**
 * The minimal check applied after a provider's own `normalizeIdentifier`: whatever it returns must
 * still name exactly one mailbox, so that the mail cannot go to several recipients or carry
 * injected headers.
 */
export function assertSingleMailbox(identifier: unknown): string {
  if (typeof identifier !== "string" || identifier === "")
    throw new InvalidEmailAddress("normalizeIdentifier returned no address");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (/[\u0000-\u001f\u007f\s,;"<>()]/.test(identifier)) {
    throw new InvalidEmailAddress(
      "normalizeIdentifier returned an address with a space, separator, quote or control character",
    );
  }
  if (identifier.split("@").length !== 2)
    throw new InvalidEmailAddress('normalizeIdentifier returned an address without exactly one "@"');
  return identifier;
}
