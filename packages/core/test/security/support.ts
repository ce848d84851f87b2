/**
 * Shared by the security tests: the open-redirect payloads, a check that a URL stays on the
 * application's origin, and an independent implementation of the JWE format (`dir` +
 * `A256CBC-HS512`, key from HKDF-SHA256) so a test can seal tokens with any header Latchkey's
 * own code would never write (zip, crit, another enc) under the right key.
 */
import { createCipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { expect } from "vitest";

/** Where the application lives in the in-process tests (the same origin as ../helpers.ts). */
export const APP_ORIGIN = "http://localhost:3000";

/**
 * Callback URLs an attacker would try, each meant to leave the application's origin or to run
 * script: protocol-relative, backslash, userinfo, other scheme, other port, script schemes, and
 * their encoded and whitespace-obfuscated forms.
 */
export const EVIL_CALLBACK_URLS: readonly string[] = [
  "//evil.example/steal",
  "///evil.example/steal",
  "/\\evil.example/steal",
  "\\\\evil.example/steal",
  "/\t/evil.example/steal",
  "/\n/evil.example",
  " //evil.example",
  "http://evil.example/",
  "https://evil.example/",
  "http://localhost:3000@evil.example/",
  "http://localhost:3000%40evil.example/",
  "http://user:pass@localhost:3000/",
  "http://localhost:3000.evil.example/",
  "http://evil.example\\@localhost:3000/",
  "https://localhost:3000/",
  "http://localhost:3001/",
  "http://localhost/",
  "http:evil.example",
  "http:/\\evil.example",
  "javascript:alert(document.cookie)",
  "JaVaScRiPt:alert(1)",
  "java\tscript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "%2F%2Fevil.example",
  "%2f%2fevil.example",
  "/%09/evil.example",
  "/%5Cevil.example",
  "http%3A%2F%2Fevil.example",
  "\u3002evil.example",
  "//evil%E3%80%82example",
  "//\u0000evil.example",
];

/** True when `url` is an absolute URL on `origin` with no user info. */
export function isOnOrigin(url: string, origin = APP_ORIGIN): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.origin === origin && parsed.username === "" && parsed.password === "";
}

/** Asserts that a redirect target stays on the application's origin. */
export function expectOnOrigin(url: string | null | undefined, origin = APP_ORIGIN): void {
  expect(url, "a redirect was expected").toBeTruthy();
  expect(isOnOrigin(url as string, origin), `${url} leaves ${origin}`).toBe(true);
}

/** The value of a `Set-Cookie` of `name` in a response (undefined when it sets none). */
export function setCookieValue(response: Response, name: string): string | undefined {
  const line = response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  if (line === undefined) return undefined;
  const raw = line.slice(name.length + 1).split(";")[0] as string;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Names of the cookies a response sets with a value (not deletions). */
export function cookiesSet(response: Response): string[] {
  return response.headers
    .getSetCookie()
    .filter((c) => !/;\s*max-age=0/i.test(c))
    .map((c) => c.slice(0, c.indexOf("=")));
}

/** The 64-byte session key Auth.js and Latchkey derive from a secret and a cookie name. */
export function sessionKey(secret: string, salt: string, length = 64): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, length));
}

/**
 * Seals `payload` as a JWE under `key` with an arbitrary protected header, using AES-CBC +
 * HMAC-SHA2 as RFC 7518 §5.2 describes (A128CBC-HS256 for a 32-byte key, A256CBC-HS512 for 64).
 * The token is authentic: only its header makes it something Latchkey must refuse.
 */
export function sealRaw(header: Record<string, unknown>, payload: Buffer, key: Buffer): string {
  const half = key.length / 2;
  const macKey = key.subarray(0, half);
  const encKey = key.subarray(half);
  const protectedHeader = Buffer.from(JSON.stringify(header)).toString("base64url");
  const iv = randomBytes(16);
  const cipher = createCipheriv(half === 32 ? "aes-256-cbc" : "aes-128-cbc", encKey, iv);
  const ciphertext = Buffer.concat([cipher.update(payload), cipher.final()]);
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(protectedHeader.length * 8));
  const tag = createHmac(half === 32 ? "sha512" : "sha256", macKey)
    .update(protectedHeader)
    .update(iv)
    .update(ciphertext)
    .update(al)
    .digest()
    .subarray(0, half);
  return `${protectedHeader}..${iv.toString("base64url")}.${ciphertext.toString("base64url")}.${tag.toString("base64url")}`;
}

/** Claims of a valid session for user "ada", with `iat`/`exp` around now. */
export function adaClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    name: "Ada Lovelace",
    email: "ada@example.com",
    sub: "u1",
    iat: now,
    exp: now + 3600,
    jti: "00000000-0000-4000-8000-000000000000",
    ...overrides,
  };
}
