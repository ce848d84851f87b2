/**
 * The session-token format itself: JWE `dir` + `A256CBC-HS512` under a key derived with HKDF from
 * a secret and a salt (the cookie name), as Auth.js writes it. Internal: the public `encode`,
 * `decode` and `getToken` (`@latchkey/core/jwt`) and the flows that seal their own cookies (OAuth
 * checks, WebAuthn challenges, JWT sessions) call it; applications never do.
 */
import {
  type AwaitableMac,
  awaitableMacOf,
  type CbcCipher,
  cbcCipher,
  fromBase64url,
  fromUtf8,
  hash,
  hkdf,
  randomUUID,
  timingSafeEqual,
  toBase64url,
  utf8,
} from "#platform";
import type { Awaitable } from "../../shapes/data.js";
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
  /** HMAC-SHA-512 under the first half of the key, prepared once (on a Web runtime, Web Crypto's, imported on first use). */
  mac: AwaitableMac;
  /** AES-256-CBC under the second half (on a Web runtime, imported into Web Crypto on first use). */
  cipher: CbcCipher;
  kid: string;
  /** base64url of the protected header, ready to prefix a token. */
  header: string;
  /** `header`'s bytes, as the tag authenticates them. */
  headerBytes: Uint8Array;
  /** The AAD length block of `header` (what every token this key seals authenticates). */
  headerLength: Uint8Array;
}

// Keys by (secret, salt), derived on first use (key-cache.ts).
const deriveKey = derivedOnce((secret: string, salt: string): DerivedKey => {
  const raw = hkdf(secret, salt, `Auth.js Generated Encryption Key (${salt})`, 64);
  // RFC 7638 thumbprint of the oct JWK {"k","kty"}, with SHA-512 as Auth.js uses for a 64-byte key.
  const kid = toBase64url(hash("sha512", `{"k":"${toBase64url(raw)}","kty":"oct"}`));
  const header = toBase64url(utf8(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", kid })));
  noteWrittenHeader(header, kid);
  return {
    mac: awaitableMacOf("sha512", raw.slice(0, 32)),
    cipher: cbcCipher(raw.slice(32)),
    kid,
    header,
    headerBytes: utf8(header),
    headerLength: aadLength(header),
  };
});

/** AL of RFC 7516 B.3: the AAD's length in bits, as a 64-bit big-endian number. */
function aadLength(aad: string): Uint8Array {
  const al = new Uint8Array(8);
  new DataView(al.buffer).setBigUint64(0, BigInt(aad.length * 8));
  return al;
}

/**
 * The HMAC whose first half is the tag (RFC 7518 5.2.2.1): of the AAD, the IV, the ciphertext and
 * AL. The whole of it, at hand or promised: the caller takes the half (no turn spent on it).
 */
function fullMac(key: DerivedKey, aad: string, iv: Uint8Array, ciphertext: Uint8Array): Awaitable<Uint8Array> {
  const own = aad === key.header;
  return key.mac(own ? key.headerBytes : utf8(aad), iv, ciphertext, own ? key.headerLength : aadLength(aad));
}

const TAG_BYTES = 32;
const tagOf = (mac: Uint8Array): Uint8Array => mac.subarray(0, TAG_BYTES);

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

function compact(key: DerivedKey, iv: Uint8Array, ciphertext: Uint8Array): string | Promise<string> {
  const sealed = fullMac(key, key.header, iv, ciphertext);
  const text = (mac: Uint8Array) =>
    `${key.header}..${toBase64url(iv)}.${toBase64url(ciphertext)}.${toBase64url(tagOf(mac))}`;
  return isThenable(sealed) ? Promise.resolve(sealed).then(text) : text(sealed);
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
 * `zip`, no `crit`), a bad tag, a bad payload. Never throws on input. At hand on Node.js; a promise on a Web runtime.
 * @internal
 */
export function openToken(token: string, secrets: readonly string[], salt: string): JWT | null | Promise<JWT | null> {
  const opened = openTokenWithReason(token, secrets, salt);
  return opened instanceof Promise ? opened.then(claimsOf) : claimsOf(opened);
}

const claimsOf = (opened: Opened): JWT | null => ("claims" in opened ? opened.claims : null);

/**
 * What {@link openTokenWithReason} answers: the claims with the JSON text they were parsed from
 * (a cache of opened tokens keeps the text, and need not write it again), or why nothing opened.
 * @internal
 */
export type Opened = { claims: JWT; json: string } | { failure: OpenFailure };

/**
 * {@link openToken}, saying why nothing opened: an operator needs to know when well-formed
 * cookies stop opening (a secret retired too early) apart from garbage and expiry.
 * @internal
 */
export function openTokenWithReason(token: string, secrets: readonly string[], salt: string): Opened | Promise<Opened> {
  const malformed = { failure: "malformed" } as const;
  if (token.length > MAX_TOKEN_LENGTH) return malformed;
  const parts = token.split(".");
  if (parts.length !== 5) return malformed;
  const [protectedHeader = "", encryptedKey, ivPart = "", ciphertextPart = "", tagPart = ""] = parts;
  if (encryptedKey !== "" || !protectedHeader || !ivPart || !ciphertextPart || !tagPart) return malformed;
  for (const part of parts) if (!B64URL.test(part)) return malformed;
  const header = writtenHeaders.get(protectedHeader) ?? parsedHeader(protectedHeader);
  if (!header) return malformed;
  const iv = fromBase64url(ivPart);
  const ciphertext = fromBase64url(ciphertextPart);
  const received = fromBase64url(tagPart);
  if (iv.length !== 16 || received.length !== TAG_BYTES || ciphertext.length === 0 || ciphertext.length % 16 !== 0)
    return malformed;

  return openUnder(secrets, 0, salt, header, protectedHeader, iv, ciphertext, received);
}

/**
 * The first of `secrets` (from `from` on) whose key verifies the tag, then the decryption: the
 * padding is checked by the decryption, and only once the token is known authentic
 * (encrypt-then-MAC). Where the tag is a promise (a Web runtime), the next secret is tried once
 * it answers.
 */
function openUnder(
  secrets: readonly string[],
  from: number,
  salt: string,
  header: Header,
  protectedHeader: string,
  iv: Uint8Array,
  ciphertext: Uint8Array,
  received: Uint8Array,
): Opened | Promise<Opened> {
  for (let at = from; at < secrets.length; at++) {
    const key = deriveKey(secrets[at] as string, salt);
    if (header.kid !== undefined && header.kid !== key.kid) continue;
    const computed = fullMac(key, protectedHeader, iv, ciphertext);
    if (isThenable(computed)) {
      return Promise.resolve(computed).then((mac) =>
        timingSafeEqual(tagOf(mac), received)
          ? decrypted(key, iv, ciphertext)
          : openUnder(secrets, at + 1, salt, header, protectedHeader, iv, ciphertext, received),
      );
    }
    if (timingSafeEqual(tagOf(computed), received)) return decrypted(key, iv, ciphertext);
  }
  return { failure: "unknown-secret" };
}

/** The claims of a token whose tag `key` verified. */
function decrypted(key: DerivedKey, iv: Uint8Array, ciphertext: Uint8Array): Opened | Promise<Opened> {
  const invalid = { failure: "invalid-claims" } as const;
  let plaintext: Uint8Array | PromiseLike<Uint8Array>;
  try {
    plaintext = key.cipher.decrypt(iv, ciphertext);
  } catch {
    return invalid;
  }
  return isThenable(plaintext) ? Promise.resolve(plaintext).then(checkClaims, () => invalid) : checkClaims(plaintext);
}

/** What a token's protected header says, once checked: the key it names, if any. */
interface Header {
  kid?: string;
}

/**
 * The headers the keys derived so far write, each with what it says (`dir`, `A256CBC-HS512` and
 * the key's `kid`; Auth.js writes the same bytes): nearly every token read carries one, known
 * without decoding it. Filled by the derivation alone, so a stranger's header never enters it and
 * no key is derived to recognise one; as bounded as the keys.
 */
const writtenHeaders = new Map<string, Header>();
const WRITTEN_HEADERS_LIMIT = 256;

function noteWrittenHeader(header: string, kid: string): void {
  if (writtenHeaders.size >= WRITTEN_HEADERS_LIMIT) writtenHeaders.clear();
  writtenHeaders.set(header, { kid });
}

/** Any other header, decoded: only `dir` + `A256CBC-HS512`, with no member but `alg`, `enc` and `kid`. */
function parsedHeader(protectedHeader: string): Header | undefined {
  let header: unknown;
  try {
    header = JSON.parse(fromUtf8(fromBase64url(protectedHeader)));
  } catch {
    return undefined;
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) return undefined;
  const fields = header as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (name !== "alg" && name !== "enc" && name !== "kid") return undefined;
  }
  if (fields.alg !== "dir" || fields.enc !== "A256CBC-HS512") return undefined;
  if (fields.kid !== undefined && typeof fields.kid !== "string") return undefined;
  return fields.kid === undefined ? {} : { kid: fields.kid };
}

/** The payload of an authentic token, as claims that are usable now. */
function checkClaims(plaintext: Uint8Array): Opened {
  const invalid = { failure: "invalid-claims" } as const;
  let claims: unknown;
  let json: string;
  try {
    json = fromUtf8(plaintext);
    claims = JSON.parse(json);
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
  return { claims: jwt, json };
}
