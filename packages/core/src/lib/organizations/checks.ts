/**
 * The values organizations accept, checked before any store sees them: names a person reads,
 * slugs that go into URLs, and identifiers that go into lookups.
 */

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;
// Control characters (C0, DEL, C1) and the invisible formatting ones (bidi overrides, zero width).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

/** Text a person reads, trimmed (NFC): 1 to `max` characters, none of them invisible; undefined otherwise. */
export function visibleText(value: unknown, max: number): string | undefined {
  const text = typeof value === "string" ? value.normalize("NFC").trim() : "";
  return text === "" || text.length > max || INVISIBLE.test(text) ? undefined : text;
}

/** An organization's name, trimmed: 1 to 100 characters, none of them invisible; undefined otherwise. */
export function organizationName(value: unknown): string | undefined {
  return visibleText(value, 100);
}

/**
 * A slug: 1 to 48 lower-case ASCII letters, digits and inner hyphens (`acme`, `acme-eu-2`), so
 * that no two organizations look alike in a URL; undefined otherwise.
 */
export function organizationSlug(value: unknown): string | undefined {
  return typeof value === "string" && SLUG.test(value) ? value : undefined;
}

/** True for a value that can be an identifier: a non-empty string of at most 255 characters, none invisible. */
export function isIdentifier(value: unknown): value is string {
  return typeof value === "string" && value !== "" && value.length <= 255 && !INVISIBLE.test(value);
}

/**
 * The acting user's id, which the application takes from the session: anything else is a mistake
 * in the application's code, thrown as a `TypeError`.
 */
export function actorOf(value: unknown): string {
  if (!isIdentifier(value)) {
    throw new TypeError("organizations: the acting user's id must be the session user's id (a non-empty string)");
  }
  return value;
}
