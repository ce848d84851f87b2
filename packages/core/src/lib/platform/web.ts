/**
 * The platform where `node:crypto` is absent (Next.js's Edge runtime, Cloudflare Workers without
 * `nodejs_compat`, browsers): Web Crypto for random values and AES (`crypto.subtle`, whose answers
 * are promises), `@noble/hashes` (audited, no dependencies) for the hashes, HMAC, HKDF and
 * scrypt, whose answers the core needs synchronously (a CSRF cookie checked, a token's MAC
 * compared, a key derived on the request's own turn). Nothing here imports `node:` or touches
 * `Buffer`. See `contract.ts`.
 */
import { hkdf as nobleHkdf } from "@noble/hashes/hkdf.js";
import { hmac as nobleHmac } from "@noble/hashes/hmac.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { scryptAsync } from "@noble/hashes/scrypt.js";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
// The npm package's own module, by its file: the bare "punycode" is also the name of a Node.js
// built-in, which Next.js's Edge compilation treats as unsupported there.
import { toUnicode } from "punycode/punycode.es6.js";
import { isPublicAddress } from "./addresses.js";
import type {
  AwaitableMac,
  CbcCipher,
  Data,
  DocumentRequest,
  DocumentResponse,
  GcmCipher,
  HashName,
  Mac,
  PublicJwk,
  ScryptCost,
  SignatureAlgorithm,
  SignatureCheck,
  Signer,
} from "./contract.js";

export const platformName = "web";

const HASHES = { sha1, sha256, sha384, sha512 } as const;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytesOf = (data: Data): Uint8Array => (typeof data === "string" ? encoder.encode(data) : data);

/** getRandomValues fills at most 64 KiB a call. */
const RANDOM_CHUNK = 65536;

export function randomFill<T extends Uint8Array>(bytes: T): T {
  for (let at = 0; at < bytes.length; at += RANDOM_CHUNK) {
    crypto.getRandomValues(bytes.subarray(at, Math.min(bytes.length, at + RANDOM_CHUNK)));
  }
  return bytes;
}

export function randomBytes(size: number): Uint8Array {
  return randomFill(new Uint8Array(size));
}

const RANDOM_INT_RANGE = 2 ** 48;

export function randomInt(max: number): number {
  if (!Number.isSafeInteger(max) || max < 1 || max > RANDOM_INT_RANGE)
    throw new RangeError("randomInt: max must be an integer from 1 to 2^48");
  // 48 random bits; values at or past the largest multiple of max are drawn again (no modulo bias).
  const limit = RANDOM_INT_RANGE - (RANDOM_INT_RANGE % max);
  const words = new Uint32Array(2);
  for (;;) {
    crypto.getRandomValues(words);
    const value = ((words[0] ?? 0) & 0xffff) * 2 ** 32 + (words[1] ?? 0);
    if (value < limit) return value % max;
  }
}

export function randomUUID(): string {
  return crypto.randomUUID();
}

export function hash(name: HashName, ...parts: Data[]): Uint8Array {
  const h = HASHES[name].create();
  for (const part of parts) h.update(bytesOf(part));
  return h.digest();
}

export function hmac(name: HashName, key: Data, ...parts: Data[]): Uint8Array {
  return macOf(name, key)(...parts);
}

export function macOf(name: HashName, key: Data): Mac {
  // The keyed inner and outer states, made once; each MAC goes on from a copy of them.
  const prepared = nobleHmac.create(HASHES[name], bytesOf(key));
  return (...parts) => {
    const h = prepared.clone();
    for (const part of parts) h.update(bytesOf(part));
    return h.digest();
  };
}

export function awaitableMacOf(_name: "sha512", key: Uint8Array): AwaitableMac {
  const keyOf = importedOnce(key, { name: "HMAC", hash: "SHA-512" }, ["sign"]);
  return (...parts) => {
    // Web Crypto signs one buffer: the parts laid end to end.
    let length = 0;
    for (const part of parts) length += part.length;
    const data = new Uint8Array(length);
    let at = 0;
    for (const part of parts) {
      data.set(part, at);
      at += part.length;
    }
    return withKey(keyOf, (imported) => crypto.subtle.sign("HMAC", imported, data).then(bytesOfBuffer));
  };
}

export function hkdf(secret: Data, salt: Data, info: Data, length: number): Uint8Array {
  return nobleHkdf(sha256, bytesOf(secret), bytesOf(salt), bytesOf(info), length);
}

export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

/** Web Crypto wants an ArrayBuffer-backed view. */
const view = (bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  bytes.buffer instanceof ArrayBuffer
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : new Uint8Array(bytes);

const bytesOfBuffer = (buffer: ArrayBuffer): Uint8Array => new Uint8Array(buffer);

/**
 * A Web Crypto key imported once, on first use (configuration resolution stays free of
 * asynchronous work): the key itself once imported, so a call does not wait a turn for it.
 */
function importedOnce(
  key: Uint8Array,
  algorithm: "AES-CBC" | "AES-GCM" | HmacImportParams,
  usages: KeyUsage[],
): () => CryptoKey | Promise<CryptoKey> {
  let imported: CryptoKey | undefined;
  let importing: Promise<CryptoKey> | undefined;
  return () => {
    if (imported) return imported;
    importing ??= crypto.subtle.importKey("raw", view(key), algorithm, false, usages).then((made) => {
      imported = made;
      return made;
    });
    return importing;
  };
}

/**
 * `use` with the key, at once when it is imported. A thenable, not `instanceof Promise`: in
 * Next.js's Edge sandbox Web Crypto's promises come from another realm.
 */
function withKey<T>(keyOf: () => CryptoKey | Promise<CryptoKey>, use: (key: CryptoKey) => Promise<T>): Promise<T> {
  const key = keyOf();
  return "then" in key ? key.then(use) : use(key);
}

export function cbcCipher(key: Uint8Array): CbcCipher {
  const keyOf = importedOnce(key, "AES-CBC", ["encrypt", "decrypt"]);
  return {
    encrypt: (iv, plaintext) =>
      withKey(keyOf, (imported) =>
        crypto.subtle.encrypt({ name: "AES-CBC", iv: view(iv) }, imported, view(plaintext)).then(bytesOfBuffer),
      ),
    decrypt: (iv, ciphertext) =>
      withKey(keyOf, (imported) =>
        crypto.subtle.decrypt({ name: "AES-CBC", iv: view(iv) }, imported, view(ciphertext)).then(bytesOfBuffer),
      ),
  };
}

const GCM_TAG_BYTES = 16;

export function gcmCipher(key: Uint8Array): GcmCipher {
  const keyOf = importedOnce(key, "AES-GCM", ["encrypt", "decrypt"]);
  return {
    async seal(iv, plaintext, aad) {
      const sealed = new Uint8Array(
        await crypto.subtle.encrypt(
          { name: "AES-GCM", iv: view(iv), additionalData: view(aad) },
          await keyOf(),
          view(plaintext),
        ),
      );
      const split = sealed.length - GCM_TAG_BYTES;
      return { ciphertext: sealed.subarray(0, split), tag: sealed.subarray(split) };
    },
    async open(iv, ciphertext, tag, aad) {
      const sealed = new Uint8Array(ciphertext.length + tag.length);
      sealed.set(ciphertext);
      sealed.set(tag, ciphertext.length);
      return new Uint8Array(
        await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: view(iv), additionalData: view(aad) },
          await keyOf(),
          sealed,
        ),
      );
    },
  };
}

export async function signatureCheckOf(jwk: PublicJwk, alg: SignatureAlgorithm): Promise<SignatureCheck> {
  const members: JsonWebKey =
    jwk.kty === "RSA" ? { kty: jwk.kty, n: jwk.n, e: jwk.e } : { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const imported =
    alg === "RS256" ? { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } : { name: "ECDSA", namedCurve: "P-256" };
  const key = await crypto.subtle.importKey("jwk", members, imported, false, ["verify"]);
  const algorithm = key.algorithm as Partial<RsaHashedKeyAlgorithm & EcKeyAlgorithm>;
  if (alg === "RS256" && !(algorithm.name === "RSASSA-PKCS1-v1_5" && (algorithm.modulusLength ?? 0) >= 2048))
    throw new Error("RS256 needs an RSA key of at least 2048 bits");
  if (alg === "ES256" && !(algorithm.name === "ECDSA" && algorithm.namedCurve === "P-256"))
    throw new Error("ES256 needs a P-256 key");
  const signing = alg === "RS256" ? imported : { name: "ECDSA", hash: "SHA-256" };
  return (signingInput, signature) =>
    crypto.subtle.verify(signing, key, view(signature), view(signingInput)).then(
      (verified) => verified,
      () => false,
    );
}

export async function signerOf(jwk: Record<string, unknown>, alg: SignatureAlgorithm): Promise<Signer> {
  const { alg: _alg, use: _use, key_ops: _ops, ext: _ext, ...members } = jwk;
  const imported =
    alg === "RS256" ? { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } : { name: "ECDSA", namedCurve: "P-256" };
  const key = await crypto.subtle.importKey("jwk", members as JsonWebKey, imported, false, ["sign"]);
  const algorithm = key.algorithm as Partial<RsaHashedKeyAlgorithm & EcKeyAlgorithm>;
  if (alg === "RS256" && (algorithm.modulusLength ?? 0) < 2048)
    throw new Error("RS256 needs an RSA key of at least 2048 bits");
  const signing = alg === "RS256" ? imported : { name: "ECDSA", hash: "SHA-256" };
  return (signingInput) => crypto.subtle.sign(signing, key, view(signingInput)).then(bytesOfBuffer);
}

export function scrypt(password: Uint8Array, salt: Uint8Array, length: number, cost: ScryptCost): Promise<Uint8Array> {
  // Yields to the event loop every 10 ms: other requests of the isolate go on meanwhile.
  return scryptAsync(password, salt, { N: cost.N, r: cost.r, p: cost.p, dkLen: length, maxmem: cost.maxmem });
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

function binaryOf(bytes: Uint8Array): string {
  let binary = "";
  // Chunks keep each String.fromCharCode call's argument list short.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return binary;
}

function bytesOfBinary(binary: string): Uint8Array {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function toBase64(bytes: Uint8Array): string {
  return btoa(binaryOf(bytes));
}

/** Each character's 6 bits in either alphabet (`+/` and `-_`); -1 for any other character. */
const SEXTETS = new Int8Array(128).fill(-1);
for (const [at, char] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries()) {
  SEXTETS[char.charCodeAt(0)] = at;
}
SEXTETS["-".charCodeAt(0)] = 62;
SEXTETS["_".charCodeAt(0)] = 63;

const sextetAt = (text: string, at: number): number => {
  const code = text.charCodeAt(at);
  return code < 128 ? (SEXTETS[code] ?? -1) : -1;
};

/**
 * The bytes of base64 text in which every character is of the alphabets (trailing `=` aside),
 * four characters to three bytes with no string or regular expression in between (a session
 * read decodes four parts of a token); undefined when another character is met.
 */
function decodeClean(text: string): Uint8Array | undefined {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  // A lone sixth bit-group carries no byte: dropped, as Node.js's decoder drops it.
  if (end % 4 === 1) end--;
  const bytes = new Uint8Array((end * 3) >> 2);
  const whole = end - (end % 4);
  let out = 0;
  let at = 0;
  for (; at < whole; at += 4) {
    const group =
      (sextetAt(text, at) << 18) |
      (sextetAt(text, at + 1) << 12) |
      (sextetAt(text, at + 2) << 6) |
      sextetAt(text, at + 3);
    // Any -1 sets the sign bit (-1 << 18 is negative, and OR keeps it).
    if (group < 0) return undefined;
    bytes[out++] = group >> 16;
    bytes[out++] = (group >> 8) & 0xff;
    bytes[out++] = group & 0xff;
  }
  // The last 2 or 3 characters: their trailing 4 or 2 bits are no byte, dropped as atob drops them.
  if (end - at === 2) {
    const group = (sextetAt(text, at) << 6) | sextetAt(text, at + 1);
    if (group < 0) return undefined;
    bytes[out] = group >> 4;
  } else if (end - at === 3) {
    const group = (sextetAt(text, at) << 12) | (sextetAt(text, at + 1) << 6) | sextetAt(text, at + 2);
    if (group < 0) return undefined;
    bytes[out++] = group >> 10;
    bytes[out] = (group >> 2) & 0xff;
  }
  return bytes;
}

export function fromBase64(text: string): Uint8Array {
  const clean = decodeClean(text);
  if (clean) return clean;
  // Either alphabet, as Node.js's decoders read both, up to the first `=` (where they stop);
  // anything else is skipped.
  const padding = text.indexOf("=");
  const kept = (padding < 0 ? text : text.slice(0, padding))
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .replace(/[^A-Za-z0-9+/]/g, "");
  const usable = kept.length % 4 === 1 ? kept.slice(0, -1) : kept;
  return bytesOfBinary(atob(usable + "=".repeat((4 - (usable.length % 4)) % 4)));
}

export function toBase64url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text: string): Uint8Array {
  return fromBase64(text);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += HEX[byte];
  return hex;
}

export function fromHex(text: string): Uint8Array {
  // As Node.js's decoder: the leading pairs up to the first that is not hex.
  const bytes: number[] = [];
  for (let at = 0; at + 1 < text.length; at += 2) {
    const pair = text.slice(at, at + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) break;
    bytes.push(Number.parseInt(pair, 16));
  }
  return new Uint8Array(bytes);
}

export function inspect(value: unknown): string {
  if (value instanceof Error) {
    const cause = value.cause === undefined ? "" : ` { cause: ${inspect(value.cause)} }`;
    return `${value.stack ?? `${value.name}: ${value.message}`}${cause}`;
  }
  if (typeof value === "bigint" || typeof value === "symbol" || typeof value === "function") return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // A circular value: its tag is all that can be said in one line.
    return Object.prototype.toString.call(value);
  }
}

const IPV4 =
  /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;
const IPV6_CHARACTERS = /^[0-9A-Fa-f:.]+$/;

export function isIP(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  if (!text.includes(":") || !IPV6_CHARACTERS.test(text)) return 0;
  // The URL parser is the Web's IPv6 parser (RFC 4291 text forms, an IPv4 tail included).
  return URL.canParse(`http://[${text}]/`) ? 6 : 0;
}

export function domainToUnicode(domain: string): string {
  try {
    return toUnicode(domain);
  } catch {
    return "";
  }
}

export function packageVersion(_name: string): undefined {
  // A bundle has no file system to read a package.json from.
  return undefined;
}

/**
 * 16 MiB per hash, with the N·r·p work of Node.js's default (OWASP lists N = 2^14, r = 8, p = 5 as
 * an equivalent minimum; p = 8 keeps the work of N = 2^17, p = 1): a Worker has 128 MiB in all.
 */
export const SCRYPT_DEFAULTS = { ln: 14, r: 8, p: 8 } as const;
/** A quarter of a Worker's 128 MiB: a few sign-ins at once still fit beside the application. */
export const SCRYPT_MEMORY_LIMIT = 32 * 2 ** 20;

/** Names that never leave the machine or its network, whatever a resolver says. */
const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

export async function fetchDocument(request: DocumentRequest): Promise<DocumentResponse> {
  const url = new URL(request.url);
  if (url.protocol !== "https:") throw new Error("only https: documents are fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!request.allowPrivateNetwork) {
    if (isIP(host) && !isPublicAddress(host)) throw new Error(`${host} is not a public address`);
    if (!isIP(host) && (LOCAL_NAMES.test(host) || !host.includes("."))) throw new Error(`${host} is not a public name`);
  }
  const response = await fetch(url, {
    headers: { accept: request.accept },
    redirect: "manual",
    signal: AbortSignal.timeout(request.timeoutMs),
  });
  const length = Number(response.headers.get("content-length"));
  if (length > request.maxBytes) {
    await response.body?.cancel();
    throw new Error(`the document is larger than ${request.maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > request.maxBytes) {
      await reader.cancel();
      throw new Error(`the document is larger than ${request.maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { status: response.status, header: (name) => response.headers.get(name), body };
}
