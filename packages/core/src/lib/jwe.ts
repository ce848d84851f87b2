/**
 * The session-token format itself: JWE `dir` + `A256CBC-HS512` under a key derived with HKDF from
 * a secret and a salt (the cookie name), as Auth.js writes it. Internal: the public `encode`,
 * `decode` and `getToken` (`@latchkey/core/jwt`) and the flows that seal their own cookies (OAuth
 * checks, WebAuthn challenges, JWT sessions) call it; applications never do.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomUUID,
  timingSafeEqual,
} from "node:crypto";
import type { JWT } from "../shapes/jwt.js";
import { randomBytesFromPool } from "./random-pool.js";

/** Seconds of clock difference tolerated on `exp`, as Auth.js does. */
const CLOCK_TOLERANCE = 15;
/** A session token is at most a few KB; anything far larger is refused before any work. */
const MAX_TOKEN_LENGTH = 64 * 1024;

interface DerivedKey {
  /** A KeyObject, made once: an HMAC under a raw Buffer key imports it again at every call. */
  macKey: KeyObject;
  encKey: Buffer;
  kid: string;
  /** base64url of the protected header, ready to prefix a token. */
  header: string;
  /** The AAD length block of `header` (what every token this key seals authenticates). */
  headerLength: Buffer;
}

// Keys by (secret, salt). Bounded: an application has a handful of salts (cookie names) and
// secrets; a cap keeps a misbehaving caller (random salts) from growing memory without end.
const keyCache = new Map<string, DerivedKey>();
const KEY_CACHE_LIMIT = 256;

function deriveKey(secret: string, salt: string): DerivedKey {
  const cacheKey = `${salt}\u0000${secret}`;
  let key = keyCache.get(cacheKey);
  if (key) return key;
  const raw = Buffer.from(hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, 64));
  // RFC 7638 thumbprint of the oct JWK {"k","kty"}, with SHA-512 as Auth.js uses for a 64-byte key.
  const kid = createHash("sha512")
    .update(`{"k":"${raw.toString("base64url")}","kty":"oct"}`)
    .digest("base64url");
  const header = Buffer.from(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", kid })).toString("base64url");
  key = {
    macKey: createSecretKey(raw.subarray(0, 32)),
    encKey: raw.subarray(32),
    kid,
    header,
    headerLength: aadLength(header),
  };
  if (keyCache.size >= KEY_CACHE_LIMIT) {
    const [oldest] = keyCache.keys();
    if (oldest !== undefined) keyCache.delete(oldest);
  }
  keyCache.set(cacheKey, key);
  return key;
}

/** AL of RFC 7516 B.3: the AAD's length in bits, as a 64-bit big-endian number. */
function aadLength(aad: string): Buffer {
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(aad.length * 8));
  return al;
}

function tag(key: DerivedKey, aad: string, iv: Buffer, ciphertext: Buffer): Buffer {
  const al = aad === key.header ? key.headerLength : aadLength(aad);
  return createHmac("sha512", key.macKey).update(aad).update(iv).update(ciphertext).update(al).digest().subarray(0, 32);
}

const now = () => Math.floor(Date.now() / 1000);

/** Secrets, newest first: never empty (the first seals, every one opens). */
export type Secrets = readonly [string, ...string[]];

/**
 * Seals claims into a JWE with the first secret, adding `iat`, `exp` and `jti`. Synchronous.
 */
export function sealToken(claims: Record<string, unknown>, secrets: Secrets, salt: string, maxAge: number): string {
  const key = deriveKey(secrets[0], salt);
  const issuedAt = now();
  const payload = JSON.stringify({ ...claims, iat: issuedAt, exp: issuedAt + maxAge, jti: randomUUID() });
  const iv = randomBytesFromPool(16);
  const cipher = createCipheriv("aes-256-cbc", key.encKey, iv);
  const ciphertext = Buffer.concat([cipher.update(payload, "utf8"), cipher.final()]);
  return `${key.header}..${iv.toString("base64url")}.${ciphertext.toString("base64url")}.${tag(key, key.header, iv, ciphertext).toString("base64url")}`;
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
export function openToken(token: string, secrets: readonly string[], salt: string): JWT | null {
  const opened = openTokenWithReason(token, secrets, salt);
  return "claims" in opened ? opened.claims : null;
}

/**
 * {@link openToken}, saying why nothing opened: an operator needs to know when well-formed
 * cookies stop opening (a secret retired too early) apart from garbage and expiry.
 * @internal
 */
export function openTokenWithReason(
  token: string,
  secrets: readonly string[],
  salt: string,
): { claims: JWT } | { failure: OpenFailure } {
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
    header = JSON.parse(Buffer.from(protectedHeader, "base64url").toString("utf8"));
  } catch {
    return malformed;
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) return malformed;
  for (const name of Object.keys(header)) {
    if (name !== "alg" && name !== "enc" && name !== "kid") return malformed;
  }
  if (header.alg !== "dir" || header.enc !== "A256CBC-HS512") return malformed;
  if (header.kid !== undefined && typeof header.kid !== "string") return malformed;
  const iv = Buffer.from(ivPart, "base64url");
  const ciphertext = Buffer.from(ciphertextPart, "base64url");
  const received = Buffer.from(tagPart, "base64url");
  if (iv.length !== 16 || received.length !== 32 || ciphertext.length === 0 || ciphertext.length % 16 !== 0)
    return malformed;

  for (const secret of secrets) {
    const key = deriveKey(secret, salt);
    if (header.kid !== undefined && header.kid !== key.kid) continue;
    if (!timingSafeEqual(tag(key, protectedHeader, iv, ciphertext), received)) continue;
    let claims: unknown;
    try {
      const decipher = createDecipheriv("aes-256-cbc", key.encKey, iv);
      claims = JSON.parse(Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8"));
    } catch {
      return invalid;
    }
    if (claims === null || typeof claims !== "object" || Array.isArray(claims)) return invalid;
    const jwt = claims as JWT;
    for (const claim of ["exp", "iat", "nbf"] as const) {
      if (jwt[claim] !== undefined && (typeof jwt[claim] !== "number" || !Number.isFinite(jwt[claim]))) return invalid;
    }
    const t = now();
    if (typeof jwt.exp === "number" && jwt.exp <= t - CLOCK_TOLERANCE) return invalid;
    if (typeof jwt.nbf === "number" && jwt.nbf > t + CLOCK_TOLERANCE) return invalid;
    return { claims: jwt };
  }
  return { failure: "unknown-secret" };
}
