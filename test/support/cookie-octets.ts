/**
 * What a `Set-Cookie` value may hold (RFC 6265 §4.1.1 cookie-value: cookie-octets, no CTL, white
 * space, DQUOTE, comma, semicolon or backslash), for the tests of every shell that writes
 * Latchkey's cookies through a framework's own cookie API.
 */
import { expect } from "vitest";

export const COOKIE_OCTETS = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

/**
 * Asserts that each `Set-Cookie` line's value is cookie-octets, and returns the attributes and the
 * decoded value of the one named `name`.
 */
export function expectCookieOctets(lines: string[], name: string): { attributes: string[]; value: string } {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    const [pair = ""] = line.split(";");
    expect(pair.slice(pair.indexOf("=") + 1), line).toMatch(COOKIE_OCTETS);
  }
  const line = lines.find((l) => l.startsWith(`${name}=`));
  expect(line, `a ${name} cookie`).toBeDefined();
  const [pair = "", ...attributes] = (line as string).split(";").map((part) => part.trim());
  return { attributes, value: decodeURIComponent(pair.slice(pair.indexOf("=") + 1)) };
}
