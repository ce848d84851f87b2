/**
 * The platform on Node.js (and on Bun, Deno and Vite SSR, which resolve the `node` condition):
 * `node:crypto`, synchronous wherever it can be, `Buffer` for the encodings, and `node:util`,
 * `node:net`, `node:url` for what Node.js has built in. See `contract.ts`.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomInt as nodeRandomInt,
  randomUUID as nodeRandomUUID,
  scrypt as nodeScrypt,
  sign as nodeSign,
  timingSafeEqual as nodeTimingSafeEqual,
  verify as nodeVerify,
  randomFillSync,
} from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { createRequire } from "node:module";
import { isIP as nodeIsIP } from "node:net";
import { dirname, join } from "node:path";
import { rootCertificates } from "node:tls";
import { domainToUnicode as nodeDomainToUnicode } from "node:url";
import { inspect as nodeInspect } from "node:util";
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

export const platformName = "node";

export function randomFill<T extends Uint8Array>(bytes: T): T {
  return randomFillSync(bytes);
}

export function randomBytes(size: number): Uint8Array {
  return randomFillSync(Buffer.allocUnsafe(size));
}

export function randomInt(max: number): number {
  return nodeRandomInt(0, max);
}

export function randomUUID(): string {
  return nodeRandomUUID();
}

export function hash(name: HashName, ...parts: Data[]): Uint8Array {
  const h = createHash(name);
  for (const part of parts) h.update(part);
  return h.digest();
}

export function hmac(name: HashName, key: Data, ...parts: Data[]): Uint8Array {
  const h = createHmac(name, key);
  for (const part of parts) h.update(part);
  return h.digest();
}

export function macOf(name: HashName, key: Data): Mac {
  // A KeyObject, made once: an HMAC under a raw key imports it again at every call (about 2 µs,
  // as much as the MAC of a short value itself).
  const secret = createSecretKey(typeof key === "string" ? Buffer.from(key, "utf8") : key);
  return (...parts) => {
    const h = createHmac(name, secret);
    for (const part of parts) h.update(part);
    return h.digest();
  };
}

export function awaitableMacOf(name: "sha512", key: Uint8Array): AwaitableMac {
  // node:crypto's HMAC is native and synchronous: no promise to pay for.
  return macOf(name, key);
}

export function hkdf(secret: Data, salt: Data, info: Data, length: number): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", secret, salt, info, length));
}

export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && nodeTimingSafeEqual(a, b);
}

export function cbcCipher(key: Uint8Array): CbcCipher {
  return {
    encrypt(iv, plaintext) {
      const cipher = createCipheriv("aes-256-cbc", key, iv);
      return Buffer.concat([cipher.update(plaintext), cipher.final()]);
    },
    decrypt(iv, ciphertext) {
      const decipher = createDecipheriv("aes-256-cbc", key, iv);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    },
  };
}

export function gcmCipher(key: Uint8Array): GcmCipher {
  return {
    seal(iv, plaintext, aad) {
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(aad);
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return { ciphertext, tag: cipher.getAuthTag() };
    },
    open(iv, ciphertext, tag, aad) {
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAAD(aad);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    },
  };
}

/** `key` as `sign`/`verify` take it for `alg`, once its type and size are checked (RFC 7518 §3.3: RSA of 2048 bits or more). */
function jwsKey(key: KeyObject, alg: SignatureAlgorithm): KeyObject | { key: KeyObject; dsaEncoding: "ieee-p1363" } {
  const details = key.asymmetricKeyDetails;
  if (alg === "RS256" && !(key.asymmetricKeyType === "rsa" && (details?.modulusLength ?? 0) >= 2048))
    throw new Error("RS256 needs an RSA key of at least 2048 bits");
  if (alg === "ES256" && !(key.asymmetricKeyType === "ec" && details?.namedCurve === "prime256v1"))
    throw new Error("ES256 needs a P-256 key");
  // JWS carries ECDSA signatures as r ‖ s (RFC 7518 §3.4), not DER.
  return alg === "ES256" ? { key, dsaEncoding: "ieee-p1363" } : key;
}

export function signatureCheckOf(jwk: PublicJwk, alg: SignatureAlgorithm): SignatureCheck {
  // Only the members that make a public key: a `d` cannot slip in and make a private one.
  const members =
    jwk.kty === "RSA" ? { kty: jwk.kty, n: jwk.n, e: jwk.e } : { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const verifier = jwsKey(createPublicKey({ key: members, format: "jwk" }), alg);
  return (signingInput, signature) => {
    try {
      return nodeVerify("sha256", signingInput, verifier, signature);
    } catch {
      return false;
    }
  };
}

export function signerOf(jwk: Record<string, unknown>, alg: SignatureAlgorithm): Signer {
  const signing = jwsKey(createPrivateKey({ key: jwk, format: "jwk" }), alg);
  return (signingInput) => nodeSign("sha256", signingInput, signing);
}

export function scrypt(password: Uint8Array, salt: Uint8Array, length: number, cost: ScryptCost): Promise<Uint8Array> {
  // The asynchronous scrypt runs on libuv's thread pool: the event loop keeps serving requests.
  return new Promise((resolve, reject) => {
    nodeScrypt(password, salt, length, cost, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

const bufferOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export function utf8(text: string): Uint8Array {
  return Buffer.from(text, "utf8");
}

export function fromUtf8(bytes: Uint8Array): string {
  return bufferOf(bytes).toString("utf8");
}

export function toBase64url(bytes: Uint8Array): string {
  return bufferOf(bytes).toString("base64url");
}

export function fromBase64url(text: string): Uint8Array {
  return Buffer.from(text, "base64url");
}

export function toBase64(bytes: Uint8Array): string {
  return bufferOf(bytes).toString("base64");
}

export function fromBase64(text: string): Uint8Array {
  return Buffer.from(text, "base64");
}

export function toHex(bytes: Uint8Array): string {
  return bufferOf(bytes).toString("hex");
}

export function fromHex(text: string): Uint8Array {
  return Buffer.from(text, "hex");
}

export function inspect(value: unknown): string {
  return nodeInspect(value, { breakLength: Number.POSITIVE_INFINITY, depth: 4 });
}

export function isIP(text: string): 0 | 4 | 6 {
  const version = nodeIsIP(text);
  return version === 4 || version === 6 ? version : 0;
}

export function domainToUnicode(domain: string): string {
  return nodeDomainToUnicode(domain);
}

export function packageVersion(name: string): string | undefined {
  try {
    // The package's package.json, which it need not export: up from its entry point.
    let dir = dirname(createRequire(import.meta.url).resolve(name));
    for (let depth = 0; depth < 4; depth++, dir = dirname(dir)) {
      try {
        const manifest: { name?: unknown; version?: unknown } = JSON.parse(
          readFileSync(join(dir, "package.json"), "utf8"),
        );
        if (manifest.name === name && typeof manifest.version === "string") return manifest.version;
      } catch {
        // no package.json at this level: one up
      }
    }
  } catch {
    // not resolvable by require: the import that follows says so
  }
  return undefined;
}

/** OWASP's scrypt minimum: 128 MiB per hash, on the thread pool. */
export const SCRYPT_DEFAULTS = { ln: 17, r: 8, p: 1 } as const;
export const SCRYPT_MEMORY_LIMIT = 2 ** 30;

export function fetchDocument(request: DocumentRequest): Promise<DocumentResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url);
    if (url.protocol !== "https:") return reject(new Error("only https: documents are fetched"));
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // An IP literal is connected to without a lookup: judged here.
    if (nodeIsIP(host) && !request.allowPrivateNetwork && !isPublicAddress(host))
      return reject(new Error(`${host} is not a public address`));
    const ca = request.ca?.length ? [...rootCertificates, ...request.ca] : undefined;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      reject(error);
    };
    const outgoing = httpsRequest(
      url,
      {
        method: "GET",
        agent: false,
        headers: { accept: request.accept, "user-agent": "Latchkey" },
        ...(ca && { ca }),
        // Every address the name resolves to is checked, and the connection goes to one of them.
        lookup: (hostname, options, callback) => {
          dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
            if (error) return callback(error, "", 4);
            const refused = addresses.find((a) => !request.allowPrivateNetwork && !isPublicAddress(a.address));
            if (refused || addresses.length === 0)
              return callback(
                new Error(`${hostname} resolves to ${refused?.address ?? "nothing"}, not a public address`),
                "",
                4,
              );
            if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
            const [first] = addresses as [LookupAddress];
            callback(null, first.address, first.family);
          });
        },
      },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        const length = Number(incoming.headers["content-length"]);
        if (length > request.maxBytes) return fail(new Error(`the document is larger than ${request.maxBytes} bytes`));
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxBytes) fail(new Error(`the document is larger than ${request.maxBytes} bytes`));
          else chunks.push(chunk);
        });
        incoming.on("error", (error) => fail(error));
        incoming.on("end", () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const headers = incoming.headers;
          resolve({
            status,
            header: (name) => {
              const value = headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
            },
            body: new Uint8Array(Buffer.concat(chunks)),
          });
        });
      },
    );
    const timer = setTimeout(() => fail(new Error(`no answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    outgoing.on("error", (error) => fail(error));
    outgoing.end();
  });
}
