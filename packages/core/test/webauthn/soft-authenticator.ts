/**
 * A software WebAuthn authenticator for unit tests: an ES256 key from WebCrypto, attestation
 * "none", authenticator data and CBOR built by hand (WebAuthn §6.1, §6.5; RFC 8949; RFC 9053).
 * It answers the `{ action, options }` JSON of `webauthn-options` with the credential JSON a
 * browser would post (`RegistrationResponseJSON` / `AuthenticationResponseJSON`).
 */
import { createHash, randomBytes, webcrypto } from "node:crypto";

const { subtle } = webcrypto;

// --- CBOR (only the major types a credential uses) --------------------------------------------

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, value: number): number[] {
  const m = major << 5;
  if (value < 24) return [m | value];
  if (value < 0x100) return [m | 24, value];
  if (value < 0x10000) return [m | 25, value >> 8, value & 0xff];
  return [m | 26, (value >>> 24) & 0xff, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

function cbor(value: Cbor): Uint8Array {
  const out: number[] = [];
  const write = (v: Cbor): void => {
    if (typeof v === "number") {
      out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)));
    } else if (typeof v === "string") {
      const bytes = new TextEncoder().encode(v);
      out.push(...head(3, bytes.length), ...bytes);
    } else if (v instanceof Uint8Array) {
      out.push(...head(2, v.length), ...v);
    } else if (Array.isArray(v)) {
      out.push(...head(4, v.length));
      for (const item of v) write(item);
    } else {
      const entries = v instanceof Map ? [...v] : Object.entries(v);
      out.push(...head(5, entries.length));
      for (const [k, item] of entries) {
        write(k);
        write(item);
      }
    }
  };
  write(value);
  return new Uint8Array(out);
}

// --- helpers ----------------------------------------------------------------------------------

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash("sha256").update(data).digest());
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const uint32 = (n: number) => new Uint8Array([(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);

/** An ECDSA signature from WebCrypto (r || s) as the ASN.1 DER that WebAuthn ES256 uses. */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let v = bytes.slice(i);
    if ((v[0] as number) & 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([0x02, v.length]), v);
  };
  const body = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

export interface SoftCredential {
  id: Uint8Array;
  keys: webcrypto.CryptoKeyPair;
  rpId: string;
  counter: number;
}

/** The JSON a browser posts. */
export type CredentialJSON = {
  id: string;
  rawId: string;
  type: "public-key";
  response: Record<string, unknown>;
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment?: string;
};

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  /** Flags set on every response (user present and verified by default). */
  flags: number = FLAGS.UP | FLAGS.UV;
  /** What the counter advances by per assertion; 0 models authenticators without counters. */
  step = 1;

  constructor(readonly origin: string) {}

  private clientData(type: string, challenge: string, origin: string): Uint8Array {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /**
   * `navigator.credentials.create`: a new credential with attestation "none", its id `idLength`
   * random bytes (32 by default; WebAuthn allows up to 1023), or `credential` attested again (the
   * same passkey registered a second time).
   */
  async create(
    options: { challenge: string; rp: { id?: string } },
    overrides: { origin?: string; rpId?: string; idLength?: number; credential?: SoftCredential } = {},
  ): Promise<CredentialJSON> {
    const rpId = overrides.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const keys =
      overrides.credential?.keys ??
      ((await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
        "sign",
        "verify",
      ])) as webcrypto.CryptoKeyPair);
    const jwk = await subtle.exportKey("jwk", keys.publicKey);
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, new Uint8Array(Buffer.from(jwk.x as string, "base64url"))],
      [-3, new Uint8Array(Buffer.from(jwk.y as string, "base64url"))],
    ]);
    const id = overrides.credential?.id ?? new Uint8Array(randomBytes(overrides.idLength ?? 32));
    const credential: SoftCredential = overrides.credential ?? { id, keys, rpId, counter: 0 };
    const attested = concat(new Uint8Array(16), new Uint8Array([id.length >> 8, id.length & 0xff]), id, cbor(coseKey));
    const authData = concat(
      sha256(rpId),
      new Uint8Array([this.flags | FLAGS.AT]),
      uint32(credential.counter),
      attested,
    );
    const attestationObject = cbor({ fmt: "none", attStmt: {}, authData });
    if (!this.credentials.includes(credential)) this.credentials.push(credential);
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge, overrides.origin ?? this.origin)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** `navigator.credentials.get`: an assertion by a stored credential (the last one by default). */
  async get(
    options: { challenge: string; rpId?: string; allowCredentials?: Array<{ id: string }> },
    overrides: { origin?: string; credential?: SoftCredential; counter?: number } = {},
  ): Promise<CredentialJSON> {
    const allowed = options.allowCredentials?.map((c) => c.id);
    const credential =
      overrides.credential ??
      [...this.credentials].reverse().find((c) => !allowed?.length || allowed.includes(b64url(c.id)));
    if (!credential) throw new Error("SoftAuthenticator: no credential fits");
    credential.counter = overrides.counter ?? credential.counter + this.step;
    const authData = concat(
      sha256(options.rpId ?? credential.rpId),
      new Uint8Array([this.flags]),
      uint32(credential.counter),
    );
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, overrides.origin ?? this.origin);
    const signed = concat(authData, sha256(clientDataJSON));
    const raw = new Uint8Array(
      await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, credential.keys.privateKey, signed),
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(derSignature(raw)),
        userHandle: b64url(new Uint8Array(32)),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
