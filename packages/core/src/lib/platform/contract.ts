/**
 * What the core asks of the runtime it runs on: random values, hashes, HMAC, HKDF, AES, scrypt,
 * encodings, and the few helpers Node.js has built in (inspect, IP addresses, IDN). Declarations
 * only: `#platform` (package.json `"imports"`) resolves to `node.ts` under the `node` export
 * condition (Node.js, Bun, Deno, Vite SSR, Next.js's Node.js server) and to `web.ts` everywhere
 * else (`edge-light`, `workerd`, `worker`, `browser`: Next.js's Edge runtime, Cloudflare Workers),
 * and TypeScript sees this file for both (`types` comes first), so no caller can lean on one
 * implementation's answer being at hand where the other's is a promise.
 *
 * Every function here answers synchronously except AES, whose Web implementation is
 * `crypto.subtle` (an `Awaitable`: Node.js answers at once, a Web runtime with a promise) and
 * scrypt (always a promise). Strings given as data are hashed as UTF-8.
 */
import type { Awaitable } from "../../shapes/data.js";

/** Bytes, or text hashed as its UTF-8 bytes. */
export type Data = string | Uint8Array;

/** The hash functions the core uses: SHA-1 only for TOTP (RFC 6238) and the breached-password range API, SHA-384 for HS384 id_tokens. */
export type HashName = "sha1" | "sha256" | "sha384" | "sha512";

/** An HMAC under a key prepared once (the key's schedule is not redone per call). */
export type Mac = (...parts: Data[]) => Uint8Array;

/**
 * A {@link Mac} for a caller that can wait (the JWE's tag, whose decryption is a promise on a Web
 * runtime anyway): Node.js answers at once; a Web runtime answers with Web Crypto's promise, native
 * code where `@noble/hashes` computes the hash in JavaScript (HMAC-SHA-512 of a session token on
 * workerd: 16–24 µs of CPU in JavaScript, 6–12 µs with Web Crypto, measured 29 Nov 2026).
 */
export type AwaitableMac = (...parts: Uint8Array[]) => Awaitable<Uint8Array>;

/** AES-256-CBC with PKCS #7 padding under one 32-byte key (the JWE content encryption). */
export interface CbcCipher {
  encrypt(iv: Uint8Array, plaintext: Uint8Array): Awaitable<Uint8Array>;
  /** Throws (or rejects) on a wrong padding. */
  decrypt(iv: Uint8Array, ciphertext: Uint8Array): Awaitable<Uint8Array>;
}

/** AES-256-GCM under one 32-byte key, a 16-byte tag apart from the ciphertext. */
export interface GcmCipher {
  seal(iv: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Awaitable<{ ciphertext: Uint8Array; tag: Uint8Array }>;
  /** Throws (or rejects) when the tag does not verify. */
  open(iv: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, aad: Uint8Array): Awaitable<Uint8Array>;
}

/** The JWS algorithms a Latchkey authorization server signs with (RFC 7518 §3.3, §3.4). */
export type SignatureAlgorithm = "RS256" | "ES256";

/**
 * A public key imported once, checking a JWS signature over its signing input (RFC 7515 §5.2):
 * false for a signature that does not verify, a wrong length included, never a throw. Node.js
 * answers at once (`node:crypto`'s `verify`, about 48 µs for RS256); a Web runtime with Web
 * Crypto's promise.
 */
export type SignatureCheck = (signingInput: Uint8Array, signature: Uint8Array) => Awaitable<boolean>;

/**
 * A private key imported once, signing a JWS signing input (RFC 7515 §5.1): RS256 (deterministic,
 * RSASSA-PKCS1-v1_5) or ES256 (r ‖ s). Node.js answers at once (`node:crypto`'s `sign`: no
 * thread-pool job and promise per signature, as Web Crypto's); a Web runtime with a promise.
 */
export type Signer = (signingInput: Uint8Array) => Awaitable<Uint8Array>;

/** The members of a public JWK that make the key (RFC 7518 §6.2.1, §6.3.1); the caller has checked the rest. */
export type PublicJwk = { kty: "RSA"; n: string; e: string } | { kty: "EC"; crv: "P-256"; x: string; y: string };

/** scrypt's cost (RFC 7914), with the most memory one derivation may take. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
  maxmem: number;
}

/** Fills `bytes` from the CSPRNG and returns it. */
export declare function randomFill<T extends Uint8Array>(bytes: T): T;
/** `size` fresh random bytes. */
export declare function randomBytes(size: number): Uint8Array;
/** A uniformly random integer in [0, max), max at most 2^48 (as `node:crypto`'s `randomInt`). */
export declare function randomInt(max: number): number;
/** A random version 4 UUID. */
export declare function randomUUID(): string;

/** The digest of the parts, in order. */
export declare function hash(name: HashName, ...parts: Data[]): Uint8Array;
/** An HMAC of the parts, in order, under `key`. */
export declare function hmac(name: HashName, key: Data, ...parts: Data[]): Uint8Array;
/** A prepared HMAC key (see {@link Mac}). */
export declare function macOf(name: HashName, key: Data): Mac;
/** A prepared HMAC key whose answer may be a promise (see {@link AwaitableMac}); the key is imported on first use. */
export declare function awaitableMacOf(name: "sha512", key: Uint8Array): AwaitableMac;
/** HKDF-SHA256 (RFC 5869) of a secret, with a text salt and info. */
export declare function hkdf(secret: Data, salt: Data, info: Data, length: number): Uint8Array;
/** Constant-time equality of two byte strings; false, at once, when their lengths differ. */
export declare function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;

/**
 * Imports `jwk` once to check `alg` signatures: RS256 with an RSA key of at least 2048 bits
 * (RFC 8725 §3.5), ES256 with a P-256 key. Throws (or rejects) when the key is not such a key.
 */
export declare function signatureCheckOf(jwk: PublicJwk, alg: SignatureAlgorithm): Awaitable<SignatureCheck>;

/** Imports a private JWK (RFC 7518 §6.2.2, §6.3.2) once to sign with `alg`; throws (or rejects) when it is not such a key. */
export declare function signerOf(jwk: Record<string, unknown>, alg: SignatureAlgorithm): Awaitable<Signer>;

export declare function cbcCipher(key: Uint8Array): CbcCipher;
export declare function gcmCipher(key: Uint8Array): GcmCipher;
/** scrypt (RFC 7914), off the request's turn where the runtime can (Node.js's thread pool). */
export declare function scrypt(
  password: Uint8Array,
  salt: Uint8Array,
  length: number,
  cost: ScryptCost,
): Promise<Uint8Array>;

export declare function utf8(text: string): Uint8Array;
export declare function fromUtf8(bytes: Uint8Array): string;
export declare function toBase64url(bytes: Uint8Array): string;
/**
 * Lenient as Node.js's decoders are: either alphabet (`+/` or `-_`), padding or none, and other
 * characters skipped (callers that must refuse them check the alphabet first). So is {@link fromBase64}.
 */
export declare function fromBase64url(text: string): Uint8Array;
export declare function toBase64(bytes: Uint8Array): string;
export declare function fromBase64(text: string): Uint8Array;
export declare function toHex(bytes: Uint8Array): string;
export declare function fromHex(text: string): Uint8Array;

/** Any value as one line of text, for a log (Node.js's `util.inspect` where there is one). */
export declare function inspect(value: unknown): string;
/** 4 or 6 for an IP address in its textual form, 0 for anything else (as `node:net`'s `isIP`). */
export declare function isIP(text: string): 0 | 4 | 6;
/** The Unicode form of an ASCII (Punycode) domain, "" when a label does not decode (as `node:url`'s). */
export declare function domainToUnicode(domain: string): string;
/** The version of an installed package, from its package.json; undefined where there is no file system to read it from (a bundle). */
export declare function packageVersion(name: string): string | undefined;

/** The scrypt parameters of new password hashes on this runtime (see `DEFAULT_SCRYPT_PARAMETERS`). */
export declare const SCRYPT_DEFAULTS: { readonly ln: number; readonly r: number; readonly p: number };
/** The most memory one scrypt derivation may take on this runtime, in bytes. */
export declare const SCRYPT_MEMORY_LIMIT: number;

/** A GET of a document a stranger named (a client's metadata document), and its limits. */
export interface DocumentRequest {
  /** An `https:` URL. */
  url: string;
  accept: string;
  /** The longest body taken; a longer one is refused. */
  maxBytes: number;
  /** The whole request's deadline, connection included. */
  timeoutMs: number;
  /** Loopback, private and other special-purpose addresses too: for tests on this machine only. */
  allowPrivateNetwork: boolean;
  /** Certificates (PEM) trusted beside the system's roots; Node.js only (Web runtimes have their own trust). */
  ca?: readonly string[];
}

/** What the server answered. */
export interface DocumentResponse {
  status: number;
  header(name: string): string | null;
  body: Uint8Array;
}

/**
 * Fetches `request.url` with SSRF protection: only public addresses (Node.js checks every address
 * the name resolves to, and connects to the one it checked, so a name that resolves again to a
 * private address cannot slip through; Web runtimes, which cannot resolve names, refuse private
 * IP literals and `localhost`), no redirect followed (a 3xx is answered as it is), the body
 * bounded in size and the whole in time. Rejects with an Error that says why.
 */
export declare function fetchDocument(request: DocumentRequest): Promise<DocumentResponse>;
