/**
 * A JWT access token (RFC 9068) checked offline against the issuer's published keys, with the
 * signature from `#platform`: `node:crypto`'s synchronous `verify` on Node.js (a key imported once
 * per JWKS member; about 48 µs for RS256 where `jose`'s Web Crypto path took 282 µs, Node.js 20),
 * Web Crypto elsewhere. The rules are `jose`'s `jwtVerify` ones, each kept (the corpus test
 * holds the two to the same decisions), with one stricter: base64url must be canonical.
 *
 * - Compact serialization (RFC 7515 §7.1): three parts, each non-empty base64url without padding
 *   or whitespace, canonical (no set bits past the last byte: one signature, one spelling); at
 *   most 16 KiB, what a Node.js request header can carry.
 * - Header: a JSON object in strict UTF-8; `crit` (§4.1.11) only with `b64`, and `b64` must then
 *   be `true` (RFC 7797 §6; a JWT's payload is always base64url, RFC 7519 §3); `alg` in the allow-list (no
 *   `none`, no HS*: RFC 8725 §3.1), a key of the JWKS usable for it (its `kty`, `crv`, `alg`,
 *   `use`, `key_ops`), found by `kid`, exactly one; an unknown `kid` fetches the JWKS again, at
 *   most once per 30 s.
 * - Claims: a JSON object; `typ` `at+jwt` (RFC 9068 §4, `application/` optional, any case);
 *   the required claims present; `iss` the issuer; `aud` naming the resource (RFC 8707);
 *   `iat` a number; `nbf` and `exp` numbers, judged with the clock tolerance.
 */
import {
  fromBase64url,
  type PublicJwk,
  type SignatureAlgorithm,
  type SignatureCheck,
  signatureCheckOf,
} from "#platform";
import type { Awaitable } from "../../shapes/data.js";
import { isPlainObject } from "../base/merge.js";

/** A JWKS member as published: checked here before it is imported. */
export type Jwk = Record<string, unknown>;

/** How `#platform` imports a key (given so a test can hold both implementations to the same rules). */
export type KeyImport = (jwk: PublicJwk, alg: SignatureAlgorithm) => Awaitable<SignatureCheck>;

/** Where the issuer's keys come from. Both throw when they cannot be had (the caller answers 503). */
export interface KeySource {
  /** The published keys, cached. */
  keys(): Awaitable<readonly Jwk[]>;
  /** The keys again, for a token whose key is not among them; the cached ones while the last fetch is recent. */
  refreshed(): Awaitable<readonly Jwk[]>;
}

/** What a token must say. */
export interface JwtExpectations {
  issuer: string;
  audience: string;
  algorithms: readonly string[];
  /** Claims that must be present (`iss` and `aud` always are). */
  requiredClaims: readonly string[];
  /** Seconds of clock difference allowed on `nbf` and `exp`. */
  clockTolerance: number;
}

/** Longer than any request header Node.js accepts (16 KiB): no token that long reached a server. */
export const MAX_TOKEN_LENGTH = 16_384;
const COMPACT = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const ascii = new TextEncoder();

/** A JWKS fetched at most this often for unknown `kid`s (jose's `cooldownDuration`). */
export const JWKS_COOLDOWN_MS = 30_000;
/** A fetched JWKS is used this long before it is fetched again (jose's `cacheMaxAge`). */
const JWKS_MAX_AGE_MS = 600_000;
/** The most JWKS members looked at: a key set is a handful of keys, not a way to make us import thousands. */
const JWKS_MAX_KEYS = 64;

/**
 * The bytes of a canonical unpadded base64url string (RFC 4648 §5, §3.5), or null: a length of
 * 1 mod 4 decodes no whole byte, and bits set past the last byte would give one value two spellings.
 */
function decodeCanonical(text: string): Uint8Array | null {
  const tail = text.length % 4;
  if (tail === 1) return null;
  if (tail) {
    const last = BASE64URL.indexOf(text[text.length - 1] ?? "");
    if (last & (tail === 2 ? 0x0f : 0x03)) return null;
  }
  return fromBase64url(text);
}

/** A JSON object of strict UTF-8, or null. */
function jsonObject(bytes: Uint8Array): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(strictUtf8.decode(bytes));
    return isPlainObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** A media type as JOSE writes it: `application/` optional (RFC 7515 §4.1.9), case-insensitive. */
const mediaType = (value: string) => (value.includes("/") ? value : `application/${value}`).toLowerCase();

const KEY_TYPES: Record<SignatureAlgorithm, { kty: string; crv?: string }> = {
  RS256: { kty: "RSA" },
  ES256: { kty: "EC", crv: "P-256" },
};

const isSignatureAlgorithm = (alg: string): alg is SignatureAlgorithm => Object.hasOwn(KEY_TYPES, alg);

/** Whether a JWKS member may check an `alg` signature named `kid` (RFC 7517 §4; jose's rules for a key set). */
function usable(jwk: Jwk, alg: SignatureAlgorithm, kid: unknown): boolean {
  const { kty, crv } = KEY_TYPES[alg];
  const ops = jwk.key_ops;
  return (
    jwk.kty === kty &&
    (crv === undefined || jwk.crv === crv) &&
    (kid === undefined || (typeof kid === "string" && kid === jwk.kid)) &&
    (jwk.alg === undefined || jwk.alg === alg) &&
    (jwk.use === undefined || jwk.use === "sig") &&
    (jwk.ext === undefined || typeof jwk.ext === "boolean") &&
    (ops === undefined ||
      (Array.isArray(ops) &&
        ops.every((op, i) => typeof op === "string" && ops.indexOf(op) === i) &&
        ops.includes("verify")))
  );
}

/** The one key of `keys` usable for the header, or undefined when none or several are. */
function keyFor(keys: readonly Jwk[], alg: SignatureAlgorithm, kid: unknown): Jwk | undefined {
  let found: Jwk | undefined;
  for (let i = 0; i < keys.length && i < JWKS_MAX_KEYS; i++) {
    const jwk = keys[i] as Jwk;
    if (!usable(jwk, alg, kid)) continue;
    if (found) return undefined;
    found = jwk;
  }
  return found;
}

/** The members that make the key, each a string; null when one is missing. */
function publicJwk(jwk: Jwk): PublicJwk | null {
  if ("d" in jwk || "p" in jwk || "k" in jwk) return null;
  if (jwk.kty === "RSA" && typeof jwk.n === "string" && typeof jwk.e === "string")
    return { kty: "RSA", n: jwk.n, e: jwk.e };
  if (jwk.kty === "EC" && jwk.crv === "P-256" && typeof jwk.x === "string" && typeof jwk.y === "string")
    return { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y };
  return null;
}

/**
 * The keys of one issuer imported once each, kept as long as the JWKS member they came from is
 * (a key set fetched again makes new members, and the old ones go with their set).
 */
export class ImportedKeys {
  readonly #import: KeyImport;
  readonly #imported = new WeakMap<Jwk, Awaitable<SignatureCheck>>();

  constructor(importKey: KeyImport = signatureCheckOf) {
    this.#import = importKey;
  }

  /** The check of `jwk` for `alg`; throws (the issuer published a key that cannot be used, a 503) when it does not import. */
  of(jwk: Jwk, alg: SignatureAlgorithm): Awaitable<SignatureCheck> {
    const known = this.#imported.get(jwk);
    if (known) return known;
    const members = publicJwk(jwk);
    if (!members) throw new Error(`The issuer's JWKS member ${String(jwk.kid)} is not a public ${alg} key`);
    const made = this.#import(members, alg);
    if ("then" in made) {
      const pending = made.then(
        (check) => {
          this.#imported.set(jwk, check);
          return check;
        },
        (e: unknown) => {
          this.#imported.delete(jwk);
          throw e;
        },
      );
      this.#imported.set(jwk, pending);
      return pending;
    }
    this.#imported.set(jwk, made);
    return made;
  }
}

/**
 * The claims of `token` when it is a JWT access token `expected` accepts, signed by a key of
 * `source`; null when it is not. Throws only when the keys cannot be had or used (503: no token
 * is accepted unchecked, and none refused for the issuer's fault).
 *
 * @example
 * ```ts
 * const claims = await verifyJwt(token, source, imported, { issuer, audience, algorithms: ["RS256"], requiredClaims: ["sub", "exp"], clockTolerance: 15 })
 * ```
 */
export async function verifyJwt(
  token: string,
  source: KeySource,
  imported: ImportedKeys,
  expected: JwtExpectations,
): Promise<Record<string, unknown> | null> {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const parts = COMPACT.exec(token);
  if (!parts) return null;
  const [, encodedHeader = "", encodedPayload = "", encodedSignature = ""] = parts;
  const headerBytes = decodeCanonical(encodedHeader);
  const payloadBytes = decodeCanonical(encodedPayload);
  const signature = decodeCanonical(encodedSignature);
  if (!headerBytes || !payloadBytes || !signature) return null;
  const header = jsonObject(headerBytes);
  if (!header) return null;

  // `crit` (RFC 7515 §4.1.11): every extension named must be understood; the only one is `b64`
  // (RFC 7797 §6), and a JWT's payload is always encoded (RFC 7519 §3), so `b64` can only be `true`.
  if (header.crit !== undefined) {
    const crit = header.crit;
    if (!Array.isArray(crit) || crit.length === 0 || crit.some((name) => name !== "b64")) return null;
    if (header.b64 !== true) return null;
  }
  const alg = header.alg;
  if (typeof alg !== "string" || !expected.algorithms.includes(alg) || !isSignatureAlgorithm(alg)) return null;

  let jwk = keyFor(await source.keys(), alg, header.kid);
  jwk ??= keyFor(await source.refreshed(), alg, header.kid);
  if (!jwk) return null;
  const check = await imported.of(jwk, alg);
  const signingInput = ascii.encode(`${encodedHeader}.${encodedPayload}`);
  if (!(await check(signingInput, signature))) return null;

  const claims = jsonObject(payloadBytes);
  if (!claims) return null;
  if (typeof header.typ !== "string" || mediaType(header.typ) !== "application/at+jwt") return null;
  for (const claim of [...expected.requiredClaims, "iss", "aud"]) if (!Object.hasOwn(claims, claim)) return null;
  if (claims.iss !== expected.issuer) return null;
  const aud = claims.aud;
  if (!(aud === expected.audience || (Array.isArray(aud) && aud.includes(expected.audience)))) return null;
  const now = Math.floor(Date.now() / 1000);
  const tolerance = expected.clockTolerance;
  if (claims.iat !== undefined && typeof claims.iat !== "number") return null;
  const { nbf, exp } = claims;
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > now + tolerance)) return null;
  if (exp !== undefined && (typeof exp !== "number" || exp <= now - tolerance)) return null;
  return claims;
}

/**
 * The keys of a remote issuer's `jwks_uri`: fetched on first use and again after
 * {@link JWKS_MAX_AGE_MS}, or for an unknown `kid` once {@link JWKS_COOLDOWN_MS} has passed
 * since the last fetch, answered or failed (so tokens naming made-up keys cannot make us fetch in
 * a loop, even while the issuer fails: they are refused from the cached set meanwhile); one fetch
 * at a time, no redirect followed, a 200 with a key set or an error.
 *
 * @example
 * ```ts
 * const source = remoteKeys(async () => jwksUri, fetch)
 * ```
 */
export function remoteKeys(uri: () => Promise<string>, doFetch: typeof fetch): KeySource {
  let cached: { at: number; keys: readonly Jwk[] } | undefined;
  let pending: Promise<readonly Jwk[]> | undefined;
  // When the last fetch began, answered or not: a failing issuer is not asked once per made-up kid.
  let attemptedAt = Number.NEGATIVE_INFINITY;
  const load = () => {
    pending ??= (async () => {
      attemptedAt = Date.now();
      const response = await doFetch(await uri(), {
        headers: { accept: "application/jwk-set+json, application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(5_000),
      });
      if (response.status !== 200) throw new Error(`The authorization server's JWKS answered ${response.status}`);
      const document: unknown = await response.json();
      if (!isPlainObject(document) || !Array.isArray(document.keys))
        throw new Error("The authorization server's jwks_uri does not serve a key set");
      const keys = document.keys.filter(isPlainObject).slice(0, JWKS_MAX_KEYS);
      cached = { at: Date.now(), keys };
      return keys;
    })().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  const within = (ms: number) => cached !== undefined && Date.now() - cached.at < ms;
  return {
    keys: () => (cached && within(JWKS_MAX_AGE_MS) ? cached.keys : load()),
    refreshed: () =>
      pending ??
      (cached && (within(JWKS_COOLDOWN_MS) || Date.now() - attemptedAt < JWKS_COOLDOWN_MS) ? cached.keys : load()),
  };
}
