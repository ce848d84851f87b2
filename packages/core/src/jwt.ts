/**
 * Session tokens: JWTs encrypted as JWE (`dir` + `A256CBC-HS512`), the format Auth.js writes, so a
 * session made by either library is read by the other. The key is 64 bytes from HKDF-SHA256 over
 * the secret, with the cookie name as salt; the `kid` header is the key's JWK thumbprint
 * (SHA-512), which lets a rotated secret array find the right key at once.
 *
 * Tokens are sealed and opened with synchronous `node:crypto` and keys derived once per
 * (secret, salt): a session read costs one HMAC and one AES-CBC decryption.
 *
 * @example
 * ```ts
 * import { encode, decode } from "@latchkey/core/jwt"
 * const token = await encode({ token: { sub: "42" }, secret, salt: "authjs.session-token" })
 * const payload = await decode({ token, secret, salt: "authjs.session-token" })
 * ```
 * @module jwt
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from "node:crypto";
import { MissingSecret } from "./errors.js";
import { defaultCookieName, parseCookieHeader, readChunkedCookie } from "./lib/cookies.js";
import type { Awaitable } from "./types.js";

/** The claims of a session token. `name`, `email`, `picture` and `sub` are set at sign-in. */
export interface JWT extends Record<string, unknown> {
  name?: string | null;
  email?: string | null;
  picture?: string | null;
  sub?: string;
  iat?: number;
  exp?: number;
  jti?: string;
  /**
   * The session's id, set at sign-in and kept by every re-issue of the session (`jti` is new on
   * each seal): what `revokeJwtSession` revokes.
   */
  sid?: string;
  /** When the session began (epoch seconds, fractional), kept by every re-issue; `revokeUserSessions` compares it. */
  auth_time?: number;
}

/** What `encode` takes. */
export interface JWTEncodeParams<Payload = JWT> {
  token?: Payload;
  /** The cookie name; it salts the key. */
  salt: string;
  /** The first element encrypts. */
  secret: string | string[];
  /** Seconds until `exp`. @default 2592000 (30 days) */
  maxAge?: number;
}

/** What `decode` takes. */
export interface JWTDecodeParams {
  token?: string;
  salt: string;
  /** Any element may decrypt. */
  secret: string | string[];
}

/** Custom encoding of session tokens (config `jwt`). */
export interface JWTOptions {
  /** @default the configuration's secret */
  secret: string | string[];
  /** @default session.maxAge */
  maxAge: number;
  encode: (params: JWTEncodeParams) => Awaitable<string>;
  decode: (params: JWTDecodeParams) => Awaitable<JWT | null>;
}

const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60;
/** Seconds of clock difference tolerated on `exp`, as Auth.js does. */
const CLOCK_TOLERANCE = 15;
/** A session token is at most a few KB; anything far larger is refused before any work. */
const MAX_TOKEN_LENGTH = 64 * 1024;

interface DerivedKey {
  macKey: Buffer;
  encKey: Buffer;
  kid: string;
  /** base64url of the protected header, ready to prefix a token. */
  header: string;
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
  key = { macKey: raw.subarray(0, 32), encKey: raw.subarray(32), kid, header };
  if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(cacheKey, key);
  return key;
}

function secretList(secret: string | string[] | undefined): string[] {
  const list = Array.isArray(secret) ? secret : secret ? [secret] : [];
  if (list.length === 0 || list.some((s) => typeof s !== "string" || s.length === 0)) {
    throw new MissingSecret("A secret is required to encode or decode a session token");
  }
  return list;
}

function tag(key: DerivedKey, aad: string, iv: Buffer, ciphertext: Buffer): Buffer {
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(aad.length * 8));
  return createHmac("sha512", key.macKey).update(aad).update(iv).update(ciphertext).update(al).digest().subarray(0, 32);
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * Seals claims into a JWE with the first secret, adding `iat`, `exp` and `jti`. Synchronous.
 * @internal
 */
export function sealToken(
  claims: Record<string, unknown>,
  secrets: readonly string[],
  salt: string,
  maxAge: number,
): string {
  const key = deriveKey(secrets[0] as string, salt);
  const issuedAt = now();
  const payload = JSON.stringify({ ...claims, iat: issuedAt, exp: issuedAt + maxAge, jti: randomUUID() });
  const iv = randomBytes(16);
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
  const [protectedHeader, encryptedKey, ivPart, ciphertextPart, tagPart] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
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

/**
 * Issues an encrypted session token, with `iat`, `exp` (now + `maxAge`) and a random `jti`.
 *
 * @example
 * ```ts
 * const jwe = await encode({ token: { sub: "42", name: "Ada" }, secret: process.env.AUTH_SECRET!, salt: "authjs.session-token" })
 * ```
 */
export async function encode(params: JWTEncodeParams): Promise<string> {
  const { token = {}, secret, salt, maxAge = DEFAULT_MAX_AGE } = params;
  return sealToken(token, secretList(secret), salt, maxAge);
}

/**
 * Decodes a session token made by Latchkey or Auth.js; null when it is missing, forged,
 * expired or encrypted under no secret in the list.
 *
 * @example
 * ```ts
 * const claims = await decode({ token: jwe, secret: [newSecret, oldSecret], salt: "authjs.session-token" })
 * ```
 */
export async function decode(params: JWTDecodeParams): Promise<JWT | null> {
  const { token, secret, salt } = params;
  if (!token) return null;
  return openToken(token, secretList(secret), salt);
}

/** What `getToken` takes. */
export interface GetTokenParams {
  /** Anything with `headers` (a `Request`, or an object with a headers record). */
  req: { headers: Headers | Record<string, string | string[] | undefined> };
  secret: string | string[];
  /** Read the `__Secure-` cookie. @default false */
  secureCookie?: boolean;
  /** @default "authjs.session-token", with `__Secure-` when `secureCookie` */
  cookieName?: string;
  /** @default cookieName */
  salt?: string;
  /** Return the raw token instead of its claims. */
  raw?: boolean;
  decode?: JWTOptions["decode"];
}

function headerValue(headers: GetTokenParams["req"]["headers"], name: string): string | null {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value.join(", ") : (value ?? null);
}

/**
 * Reads the session token of a request (its cookie, chunked or not, or an
 * `Authorization: Bearer` header) and decodes it. Null when absent or invalid.
 *
 * @example
 * ```ts
 * const token = await getToken({ req: request, secret: process.env.AUTH_SECRET! })
 * if (token?.sub) ...
 * ```
 */
export async function getToken(params: GetTokenParams): Promise<JWT | string | null> {
  const { req, secret, secureCookie = false, raw = false } = params;
  const cookieName = params.cookieName ?? defaultCookieName("sessionToken", secureCookie);
  const salt = params.salt ?? cookieName;
  let token = readChunkedCookie(parseCookieHeader(headerValue(req.headers, "cookie")), cookieName);
  if (!token) {
    const authorization = headerValue(req.headers, "authorization");
    const [scheme, value] = authorization?.split(" ") ?? [];
    if (scheme === "Bearer" && value) {
      try {
        token = decodeURIComponent(value);
      } catch {
        return null;
      }
    }
  }
  if (!token) return null;
  if (raw) return token;
  try {
    return await (params.decode ?? decode)({ token, secret, salt });
  } catch {
    return null;
  }
}
