/**
 * The signing keys (the JWKS). Keys are made with `jose` on Web Crypto and kept in the store, the
 * private half sealed under the application's secret. Time is cut into periods of `rotateAfter`
 * seconds; the key of a period is the record `<alg>.<period>`, added once whichever instance
 * comes first (`add` is atomic, so instances agree on one key per period). A key is published a
 * period before it signs (relying parties that cached the JWKS already know it) and kept until
 * every token it signed has expired, then the store forgets it.
 */
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTVerifyGetKey,
} from "jose";
import { type Signer, signerOf } from "#platform";
import { openToken, type Secrets, sealToken } from "../crypto/jwe.js";
import type { SigningAlgorithm } from "./options.js";
import type { AuthorizationRecord, AuthorizationStore } from "./store.js";

const SEAL_SALT = "latchkey authorization-server signing key";
/** How long a loaded key set is trusted before the store is read again (a new period, another instance's key). */
const RELOAD_MS = 60_000;

/** A key able to sign, with the id and algorithm its tokens name. */
export interface SigningKey {
  alg: SigningAlgorithm;
  kid: string;
  /** Signs a JWS signing input (`#platform`: `node:crypto` on Node.js, Web Crypto elsewhere). */
  sign: Signer;
}

interface KeyData {
  alg: SigningAlgorithm;
  kid: string;
  publicJwk: JWK;
  /** The private JWK, sealed under the application's secret. */
  sealed: string;
  /** Epoch milliseconds: when the key begins to sign. */
  from: number;
}

function isKeyData(data: Record<string, unknown>): data is Record<string, unknown> & KeyData {
  return (
    (data.alg === "RS256" || data.alg === "ES256") &&
    typeof data.kid === "string" &&
    typeof data.sealed === "string" &&
    typeof data.from === "number" &&
    typeof data.publicJwk === "object" &&
    data.publicJwk !== null
  );
}

/** What the key ring needs of the server. */
export interface KeyRingOptions {
  store: AuthorizationStore;
  algorithms: readonly SigningAlgorithm[];
  /** Seconds a key signs for. */
  rotateAfter: number;
  /** Seconds a key is kept after it stopped signing: the longest lifetime of what it signs, and some. */
  keepAfter: number;
  /** The application's secrets, newest first (read at each use: a rotation is followed). */
  secrets(): Secrets;
}

/**
 * The keys of one server: made and loaded from the store, held in memory for a minute (and until
 * the period changes), and the JWKS they publish.
 *
 * @example
 * ```ts
 * const { kid, sign } = await ring.signingKey("RS256")
 * ```
 */
export class KeyRing {
  readonly #options: KeyRingOptions;
  #loaded: { at: number; period: number; keys: KeyData[] } | undefined;
  #loading: Promise<KeyData[]> | undefined;
  readonly #private = new Map<string, Promise<Signer>>();
  #verifier: { keys: KeyData[]; get: JWTVerifyGetKey } | undefined;
  #published: { keys: KeyData[]; jwks: readonly JWK[] } | undefined;

  constructor(options: KeyRingOptions) {
    this.#options = options;
  }

  #period(now: number): number {
    return Math.floor(now / (this.#options.rotateAfter * 1000));
  }

  /** The live keys, this period's and the next one's made where missing. */
  async #keys(): Promise<KeyData[]> {
    const now = Date.now();
    const period = this.#period(now);
    const loaded = this.#loaded;
    if (loaded && loaded.period === period && now - loaded.at < RELOAD_MS) return loaded.keys;
    this.#loading ??= this.#load(period).finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #load(period: number): Promise<KeyData[]> {
    const { store, algorithms } = this.#options;
    let records = await store.find("key");
    const ids = new Set(records.map((r) => r.id));
    const missing = algorithms.flatMap((alg) =>
      [period, period + 1].filter((p) => !ids.has(`${alg}.${p}`)).map((p) => ({ alg, p })),
    );
    if (missing.length) {
      await Promise.all(missing.map(({ alg, p }) => this.#make(alg, p)));
      records = await store.find("key");
    }
    const keys = records.map((r) => r.data).filter(isKeyData);
    keys.sort((a, b) => b.from - a.from);
    this.#loaded = { at: Date.now(), period, keys };
    return keys;
  }

  /** Makes the key of `alg` for `period` and adds it, unless another instance added one first. */
  async #make(alg: SigningAlgorithm, period: number): Promise<void> {
    const { rotateAfter, keepAfter, store } = this.#options;
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const from = period * rotateAfter * 1000;
    const until = from + rotateAfter * 1000;
    const lifetime = Math.ceil((until + keepAfter * 1000 - Date.now()) / 1000);
    const data: KeyData = {
      alg,
      kid,
      publicJwk: { ...publicJwk, kid, alg, use: "sig" },
      sealed: await sealToken({ jwk: await exportJWK(privateKey) }, this.#options.secrets(), SEAL_SALT, lifetime),
      from,
    };
    const record: AuthorizationRecord = {
      kind: "key",
      id: `${alg}.${period}`,
      data: { ...data },
      expiresAt: until + keepAfter * 1000,
      version: 1,
    };
    await store.add(record);
  }

  /**
   * The key that signs now with `alg`: this period's. Throws when the store holds none this
   * server can open (a secret changed without keeping the old one in `secret`'s list).
   */
  async signingKey(alg: SigningAlgorithm): Promise<SigningKey> {
    const keys = await this.#keys();
    const now = Date.now();
    const current = keys.find((k) => k.alg === alg && k.from <= now);
    if (!current) throw new Error(`No ${alg} signing key is available in the authorization server's store`);
    let key = this.#private.get(current.kid);
    if (!key) {
      key = this.#open(current);
      this.#private.set(current.kid, key);
      // Keys of past periods are no longer asked for: keep only the ones still listed.
      for (const kid of this.#private.keys()) if (!keys.some((k) => k.kid === kid)) this.#private.delete(kid);
    }
    return { alg, kid: current.kid, sign: await key };
  }

  async #open(data: KeyData): Promise<Signer> {
    const opened = await openToken(data.sealed, this.#options.secrets(), SEAL_SALT);
    const jwk = opened?.jwk;
    if (!jwk || typeof jwk !== "object") {
      this.#private.delete(data.kid);
      throw new Error(
        `The signing key ${data.kid} cannot be opened with the configured secrets: keep the secret it was sealed with in \`secret\`'s list`,
      );
    }
    return signerOf({ ...jwk }, data.alg);
  }

  /** The public keys, as the JWKS endpoint serves them (the next period's included). */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.#keys()).map((k) => ({ ...k.publicJwk })) };
  }

  /**
   * The public keys as the JWKS lists them, the same objects while the loaded keys are the same:
   * a resource server in this process imports each once (see verify-jwt.ts).
   */
  async publicKeys(): Promise<readonly JWK[]> {
    const keys = await this.#keys();
    if (this.#published?.keys !== keys)
      this.#published = { keys, jwks: Object.freeze(keys.map((k) => Object.freeze({ ...k.publicJwk }))) };
    return this.#published.jwks;
  }

  /** A key resolver over the published keys, for verifying the server's own tokens: made again only when they change. */
  async verifier(): Promise<JWTVerifyGetKey> {
    const keys = await this.#keys();
    if (this.#verifier?.keys !== keys)
      this.#verifier = { keys, get: createLocalJWKSet({ keys: keys.map((k) => ({ ...k.publicJwk })) }) };
    return this.#verifier.get;
  }
}
