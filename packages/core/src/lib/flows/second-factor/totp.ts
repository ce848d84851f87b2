/**
 * One-time passwords: HOTP (RFC 4226) and TOTP (RFC 6238) with HMAC-SHA1, six digits and 30-second
 * steps — what every authenticator app reads from an `otpauth://` URI by default — plus the
 * base32 (RFC 4648, no padding) encoding those URIs carry the key in. Internal.
 */
import { hmac, timingSafeEqual, utf8 } from "#platform";

/** Seconds per time step (RFC 6238 §4.1, X = 30). */
export const TOTP_PERIOD = 30;
/** Digits of a code. */
export const TOTP_DIGITS = 6;

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** Base32 without padding, as `otpauth://` URIs carry secrets. */
export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (case, spaces and padding ignored); null for any other character. */
export function base32Decode(text: string): Uint8Array | null {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of clean) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return null;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

/** The HOTP value of `counter` (RFC 4226 §5.3: dynamic truncation), as `digits` decimal digits. */
export function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  const message = new Uint8Array(8);
  new DataView(message.buffer).setBigUint64(0, BigInt(counter));
  const mac = hmac("sha1", key, message);
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const binary = new DataView(mac.buffer, mac.byteOffset, mac.byteLength).getUint32(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The time step of a moment (RFC 6238 §4.2: T = floor((now - T0) / X), T0 = 0). */
export function timeStep(nowMs = Date.now()): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD);
}

/**
 * The step among `current - 1 .. current + 1` whose code is `code` (one step of drift either
 * way, RFC 6238 §5.2), or null. Every candidate is computed and compared in constant time, so the
 * time taken says nothing about which step (if any) matched.
 */
export function matchTotp(key: Uint8Array, code: string, current = timeStep()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const given = utf8(code);
  let matched: number | null = null;
  for (const step of [current - 1, current, current + 1]) {
    if (timingSafeEqual(utf8(hotp(key, step)), given) && matched === null) matched = step;
  }
  return matched;
}
