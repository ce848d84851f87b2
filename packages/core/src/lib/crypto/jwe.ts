/**
 * The session-token format itself: JWE `dir` + `A256CBC-HS512` under a key derived with HKDF from
 * a secret and a salt (the cookie name), as Auth.js writes it. Internal: the public `encode`,
 * `decode` and `getToken` (`@latchkey/core/jwt`) and the flows that seal their own cookies (OAuth
 * checks, WebAuthn challenges, JWT sessions) call it; applications never do.
 */
import {
  type CbcCipher,
  cbcCipher,
  fromBase64url,
  fromUtf8,
  hash,
  hkdf,
  type Mac,
  macOf,
  randomUUID,
  timingSafeEqual,
  toBase64url,
  utf8,
} from "#platform";
import type { JWT } from "../../shapes/jwt.js";
import { isThenable } from "../base/awaitable.js";
import { derivedOnce } from "../base/key-cache.js";
import { JWT_CLOCK_TOLERANCE, jwtExpired } from "../session/expiry.js";
import { randomBytesFromPool } from "./random-pool.js";

/** Seconds of clock difference tolerated on `nbf`, as on `exp` (`lib/session/expiry.ts`). */
const CLOCK_TOLERANCE = JWT_CLOCK_TOLERANCE;
/** A session token is at most a few KB; anything far larger is refused before any work. */
const MAX_TOKEN_LENGTH = 64 * 1024;

interface DerivedKey {
  /** HMAC-SHA-512 under the first half of the key, prepared once. */
  mac: Mac;
  /** AES-256-CBC under the second half (on a Web runtime, imported into Web Crypto on first use). */
  cipher: CbcCipher;
  kid: string;
  /** base64url of the protected header, ready to prefix a token. */
  header: string;
  /** The AAD length block of `header` (what every token this key seals authenticates). */
  headerLength: Uint8Array;
}

// Keys by (secret, salt), derived on first use (key-cache.ts).
const deriveKey = derivedOnce((secret: string, salt: string): DerivedKey => {
  const raw = hkdf(secret, salt, `Auth.js Generated Encryption Key (${salt})`, 64);
  // RFC 7638 thumbprint of the oct JWK {"k","kty"}, with SHA-512 as Auth.js uses for a 64-byte key.
  const kid = toBase64url(hash("sha512", `{"k":"${toBase64url(raw)}","kty":"oct"}`));
  const header = toBase64url(utf8(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", kid })));
  return {
    mac: macOf("sha512", raw.subarray(0, 32)),
    cipher: cbcCipher(raw.slice(32)),
    kid,
    header,
    headerLength: aadLength(header),
  };
});

/** AL of RFC 7516 B.3: the AAD's length in bits, as a 64-bit big-endian number. */
function aadLength(aad: string): Uint8Array {
  const al = new Uint8Array(8);
  new DataView(al.buffer).setBigUint64(0, BigInt(aad.length * 8));
  return al;
}

function tag(key: DerivedKey, aad: string, iv: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  const al = aad === key.header ? key.headerLength : aadLength(aad);
  return key.mac(aad, iv, ciphertext, al).subarray(0, 32);
}

const now = () => Math.floor(Date.now() / 1000);

/** Secrets, newest first: never empty (the first seals, every one opens). */
export type Secrets = readonly [string, ...string[]];

/**
 * Seals claims into a JWE with the first secret, adding `iat`, `exp` and `jti`. Synchronous on
 * Node.js; a promise where AES is Web Crypto's.
 */
export function sealToken(
  claims: Record<string, unknown>,
  secrets: Secrets,
  salt: string,
  maxAge: number,
): string | Promise<string> {
  const key = deriveKey(secrets[0], salt);
  const issuedAt = now();
  const payload = JSON.stringify({ ...claims, iat: issuedAt, exp: issuedAt + maxAge, jti: randomUUID() });
  const iv = randomBytesFromPool(16);
  const ciphertext = key.cipher.encrypt(iv, utf8(payload));
  return isThenable(ciphertext)
    ? Promise.resolve(ciphertext).then((bytes) => compact(key, iv, bytes))
    : compact(key, iv, ciphertext);
}

function compact(key: DerivedKey, iv: Uint8Array, ciphertext: Uint8Array): string {
  return `${key.header}..${toBase64url(iv)}.${toBase64url(ciphertext)}.${toBase64url(tag(key, key.header, iv, ciphertext))}`;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/** Why {@link openTokenWithReason} opened nothing. @internal */
export type OpenFailure =
  /** Not a JWE of ours at all: shape, header or encoding. */
  | "malformed"
  /** A well-formed token whose tag no configured secret verifies (a retired secret, or a forgery). */
  | "unknown-secret"
  /** Authentic, but its payload or time claims are unusable, or it expired. */
  | "invalid-claims";

/**
 * Opens a JWE made by `sealToken` or by Auth.js. Returns null for anything that is not a valid,
 * unexpired token under one of the secrets: a wrong header (only `dir` + `A256CBC-HS512`, no
 * `zip`, no `crit`), a bad tag, a bad payload. Never throws on input. Synchronous.
 * @internal
 */
export function openToken(token: string, secrets: readonly string[], salt: string): JWT | null | Promise<JWT | null> {
  const opened = openTokenWithReason(token, secrets, salt);
  return opened instanceof Promise ? opened.then(claimsOf) : claimsOf(opened);
}

const claimsOf = (opened: Opened): JWT | null => ("claims" in opened ? opened.claims : null);

/** What {@link openTokenWithReason} answers. @internal */
export type Opened = { claims: JWT } | { failure: OpenFailure };

/**
 * {@link openToken}, saying why nothing opened: an operator needs to know when well-formed
 * cookies stop opening (a secret retired too early) apart from garbage and expiry.
 * @internal
 */
export function openTokenWithReason(token: string, secrets: readonly string[], salt: string): Opened | Promise<Opened> {
  const malformed = { failure: "malformed" } as const;
  const invalid = { failure: "invalid-claims" } as const;
  if (token.length > MAX_TOKEN_LENGTH) return malformed;
  const parts = token.split(".");
  if (parts.length !== 5) return malformed;
  const [protectedHeader = "", encryptedKey, ivPart = "", ciphertextPart = "", tagPart = ""] = parts;
  if (encryptedKey !== "" || !protectedHeader || !ivPart || !ciphertextPart || !tagPart) return malformed;
  for (const part of parts) if (!B64URL.test(part)) return malformed;
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(fromUtf8(fromBase64url(protectedHeader)));
  } catch {
    return malformed;
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) return malformed;
  for (const name of Object.keys(header)) {
    if (name !== "alg" && name !== "enc" && name !== "kid") return malformed;
  }
  if (header.alg !== "dir" || header.enc !== "A256CBC-HS512") return malformed;
  if (header.kid !== undefined && typeof header.kid !== "string") return malformed;
  const iv = fromBase64url(ivPart);
  const ciphertext = fromBase64url(ciphertextPart);
  const received = fromBase64url(tagPart);
  if (iv.length !== 16 || received.length !== 32 || ciphertext.length === 0 || ciphertext.length % 16 !== 0)
    return malformed;

  for (const secret of secrets) {
    const key = deriveKey(secret, salt);
    if (header.kid !== undefined && header.kid !== key.kid) continue;
    if (!timingSafeEqual(tag(key, protectedHeader, iv, ciphertext), received)) continue;
    // Authentic: the padding is checked by the decryption, and only now (encrypt-then-MAC).
    let plaintext: Uint8Array | PromiseLike<Uint8Array>;
    try {
      plaintext = key.cipher.decrypt(iv, ciphertext);
    } catch {
      return invalid;
    }
    return isThenable(plaintext) ? Promise.resolve(plaintext).then(checkClaims, () => invalid) : checkClaims(plaintext);
  }
  return { failure: "unknown-secret" };
}

/** The payload of an authentic token, as claims that are usable now. */
function checkClaims(plaintext: Uint8Array): Opened {
  const invalid = { failure: "invalid-claims" } as const;
  let claims: unknown;
  try {
    claims = JSON.parse(fromUtf8(plaintext));
  } catch {
    return invalid;
  }
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) return invalid;
  const jwt = claims as JWT;
  for (const claim of ["exp", "iat", "nbf"] as const) {
    if (jwt[claim] !== undefined && (typeof jwt[claim] !== "number" || !Number.isFinite(jwt[claim]))) return invalid;
  }
  const t = now();
  if (typeof jwt.exp === "number" && jwtExpired(jwt.exp, t)) return invalid;
  if (typeof jwt.nbf === "number" && jwt.nbf > t + CLOCK_TOLERANCE) return invalid;
  return { claims: jwt };
}
