/**
 * The values organizations accept, checked before any store sees them: names a person reads,
 * slugs that go into URLs, and identifiers that go into lookups.
 */

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;
// Control characters (C0, DEL, C1) and the invisible formatting ones (bidi overrides, zero width).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

/** An organization's name: 1 to 100 characters once trimmed, none of them invisible. Throws a `TypeError` otherwise. */
export function organizationName(value: unknown): string {
  const name = typeof value === "string" ? value.normalize("NFC").trim() : "";
  if (name === "" || name.length > 100 || INVISIBLE.test(name)) {
    throw new TypeError("organizations: `name` must be 1 to 100 visible characters");
  }
  return name;
}

/**
 * A slug: 1 to 48 lower-case ASCII letters, digits and inner hyphens (`acme`, `acme-eu-2`), so
 * that no two organizations look alike in a URL. Throws a `TypeError` otherwise.
 */
export function organizationSlug(value: unknown): string {
  if (typeof value !== "string" || !SLUG.test(value)) {
    throw new TypeError(
      "organizations: `slug` must be 1 to 48 lower-case ASCII letters, digits and inner hyphens (e.g. `acme-eu`)",
    );
  }
  return value;
}

/** An identifier (a user's, an organization's): a non-empty string of at most 255 characters, none invisible. */
export function identifierOf(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "" || value.length > 255 || INVISIBLE.test(value)) {
    throw new TypeError(`organizations: \`${what}\` must be a non-empty string of at most 255 visible characters`);
  }
  return value;
}
