/**
 * One identifier, one spelling: what the rate limiter counts attempts on and what the audit trail
 * records and looks up. Compatibility forms (full-width letters), case and surrounding spaces do
 * not make another identifier.
 */
export function foldIdentifier(identifier: string): string {
  return identifier.normalize("NFKC").trim().toLowerCase();
}
