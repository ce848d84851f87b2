/**
 * The JWT access token check of resource servers (verify-jwt.ts), on both signature paths of
 * `#platform` (node.ts: `node:crypto`'s `verify`; web.ts: Web Crypto), held to `jose`'s
 * `jwtVerify` decisions on a corpus of good, broken and hostile tokens and on random mutations
 * of a good one, with the one rule where it is stricter on purpose (canonical base64url). Then
 * the attacks one by one, and the JWKS fetched again for an unknown `kid`, at most once per
 * cool-down, from a real HTTP server.
 */
import { createHmac, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { createLocalJWKSet, jwtVerify } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as node from "../../dist/lib/platform/node.js";
import * as web from "../../dist/lib/platform/web.js";
import {
  ImportedKeys,
  JWKS_COOLDOWN_MS,
  type Jwk,
  type JwtExpectations,
  type KeySource,
  MAX_TOKEN_LENGTH,
  remoteKeys,
  verifyJwt,
} from "../../src/lib/authorization-server/verify-jwt.js";

const ISSUER = "https://as.example";
const AUDIENCE = "https://api.example";
const EXPECTED: JwtExpectations = {
  issuer: ISSUER,
  audience: AUDIENCE,
  algorithms: ["RS256", "ES256"],
  requiredClaims: ["sub", "client_id", "iat", "exp", "jti"],
  clockTolerance: 15,
};

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
/** Another RSA key, which an attacker holds and publishes nowhere. */
const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
const weak = generateKeyPairSync("rsa", { modulusLength: 1024 });
const jwkOf = (key: KeyObject, extra: Jwk): Jwk => ({ ...(key.export({ format: "jwk" }) as Jwk), ...extra });
const RSA_JWK = jwkOf(rsa.publicKey, { kid: "r1", alg: "RS256", use: "sig" });
const EC_JWK = jwkOf(ec.publicKey, { kid: "e1", alg: "ES256", use: "sig" });
const JWKS = [RSA_JWK, EC_JWK];

const b64 = (data: string | Uint8Array) => Buffer.from(data).toString("base64url");
const json = (value: unknown) => b64(JSON.stringify(value));
const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: AUDIENCE,
  sub: "u1",
  client_id: "c1",
  scope: "reports:read",
  jti: "t1",
  iat: now(),
  exp: now() + 300,
  ...extra,
});

type Signer = "rsa" | "ec" | "stranger" | "weak" | "hs-with-public-key" | "none";
/** The signature of `input` by `signer`, as JWS writes it (ECDSA as r ‖ s). */
function signatureOf(input: string, signer: Signer): string {
  switch (signer) {
    case "rsa":
      return b64(sign("sha256", Buffer.from(input), rsa.privateKey));
    case "weak":
      return b64(sign("sha256", Buffer.from(input), weak.privateKey));
    case "stranger":
      return b64(sign("sha256", Buffer.from(input), stranger.privateKey));
    case "ec":
      return b64(sign("sha256", Buffer.from(input), { key: ec.privateKey, dsaEncoding: "ieee-p1363" }));
    case "hs-with-public-key":
      // The classic confusion: HMAC keyed with the public key's own bytes, hoping the verifier
      // takes the JWK for an HMAC secret.
      return b64(
        createHmac("sha256", rsa.publicKey.export({ type: "spki", format: "pem" }))
          .update(input)
          .digest(),
      );
    case "none":
      return "";
  }
}
/** A compact JWS of an encoded header and payload, signed as given. */
const signed = (header: string, payload: string, signer: Signer) =>
  `${header}.${payload}.${signatureOf(`${header}.${payload}`, signer)}`;
const token = (header: Record<string, unknown>, payload: Record<string, unknown>, signer: Signer = "rsa") =>
  signed(json(header), json(payload), signer);
const RS = { alg: "RS256", typ: "at+jwt", kid: "r1" };
const ES = { alg: "ES256", typ: "at+jwt", kid: "e1" };
const good = () => token(RS, claims());

const fixed = (keys: readonly Jwk[]): KeySource => ({ keys: () => keys, refreshed: () => keys });

type Decision = "accepted" | "refused" | "error";
/** What jose refuses as the token's fault (resource-server.ts mapped these to 401 before). */
const JOSE_TOKEN_FAULTS = new Set([
  "ERR_JWT_EXPIRED",
  "ERR_JWT_CLAIM_VALIDATION_FAILED",
  "ERR_JWT_INVALID",
  "ERR_JWS_INVALID",
  "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
  "ERR_JOSE_ALG_NOT_ALLOWED",
  "ERR_JOSE_NOT_SUPPORTED",
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
]);
async function joseDecision(jwt: string, keys: readonly Jwk[] = JWKS): Promise<Decision> {
  try {
    await jwtVerify(jwt, createLocalJWKSet({ keys: keys.map((k) => ({ ...k })) }), {
      ...EXPECTED,
      algorithms: [...EXPECTED.algorithms],
      requiredClaims: [...EXPECTED.requiredClaims],
      typ: "at+jwt",
    });
    return "accepted";
  } catch (e) {
    return JOSE_TOKEN_FAULTS.has(String((e as { code?: unknown }).code)) ? "refused" : "error";
  }
}

/** Whether each part of a compact token is the one spelling of its bytes (what verify-jwt.ts adds to jose's rules). */
const canonical = (jwt: string) =>
  jwt.split(".").every((part) => /^[A-Za-z0-9_-]*$/.test(part) && b64(Buffer.from(part, "base64url")) === part);

/** Tokens good and bad, each with what it tries. */
function corpus(): [string, string][] {
  const [h = "", p = "", s = ""] = good().split(".");
  const other = token(RS, claims({ sub: "mallory" }));
  return [
    ["a good RS256 token", good()],
    ["a good ES256 token", token(ES, claims(), "ec")],
    ["typ application/at+jwt, any case", token({ ...RS, typ: "Application/AT+JWT" }, claims())],
    ["aud as a list naming the resource", token(RS, claims({ aud: ["https://other.example", AUDIENCE] }))],
    ["no kid, one RS256 key", token({ alg: "RS256", typ: "at+jwt" }, claims())],
    ["crit b64 with b64 true (RFC 7797: the same as no b64)", token({ ...RS, crit: ["b64"], b64: true }, claims())],
    [
      "a duplicate header member: the last one counts",
      signed(b64(`{"alg":"RS256","kid":"r1","typ":"JWT","typ":"at+jwt"}`), p, "rsa"),
    ],
    ["exp passed within the clock tolerance", token(RS, claims({ exp: now() - 5 }))],
    ["alg none", token({ ...RS, alg: "none" }, claims(), "none")],
    ["alg none with a signature", `${json({ ...RS, alg: "none" })}.${p}.${s}`],
    ["HS256 keyed with the public key", token({ ...RS, alg: "HS256" }, claims(), "hs-with-public-key")],
    ["alg in lower case", token({ ...RS, alg: "rs256" }, claims())],
    ["RS256 naming the EC key", token({ ...RS, kid: "e1" }, claims())],
    ["ES256 naming the RSA key", token({ ...ES, kid: "r1" }, claims(), "ec")],
    ["another key under the server's kid", token(RS, claims(), "stranger")],
    ["an unknown kid", token({ ...RS, kid: "r2" }, claims())],
    ["a kid that is a number", token({ ...RS, kid: 1 }, claims())],
    ["the signature of another token", `${h}.${p}.${other.split(".")[2]}`],
    ["another token's payload under this signature", `${h}.${other.split(".")[1]}.${s}`],
    ["the signature cut short", `${h}.${p}.${s.slice(0, -4)}`],
    ["the signature one character short", `${h}.${p}.${s.slice(0, -1)}`],
    ["the signature padded", `${h}.${p}.${s}==`],
    ["an empty signature", `${h}.${p}.`],
    ["a space in the signature", `${h}.${p}.${s.slice(0, 10)} ${s.slice(10)}`],
    ["a newline in the payload", `${h}.${p.slice(0, 10)}\n${p.slice(10)}.${s}`],
    ["standard base64 in the signature", `${h}.${p}.${s.replace(/-/g, "+").replace(/_/g, "/")}`],
    ["four parts", `${h}.${p}.${s}.${s}`],
    ["two parts", `${h}.${p}`],
    ["crit naming an extension not understood", token({ ...RS, crit: ["exp"], exp: 1 }, claims())],
    ["crit empty", token({ ...RS, crit: [] }, claims())],
    ["crit not a list", token({ ...RS, crit: "b64", b64: true }, claims())],
    ["crit b64 without b64", token({ ...RS, crit: ["b64"] }, claims())],
    ["b64 false (an unencoded payload)", token({ ...RS, crit: ["b64"], b64: false }, claims())],
    ["typ JWT", token({ ...RS, typ: "JWT" }, claims())],
    ["no typ", token({ alg: "RS256", kid: "r1" }, claims())],
    ["another issuer", token(RS, claims({ iss: "https://evil.example" }))],
    ["another audience", token(RS, claims({ aud: "https://other.example" }))],
    ["an audience list without the resource", token(RS, claims({ aud: ["https://other.example"] }))],
    ["expired beyond the tolerance", token(RS, claims({ exp: now() - 60 }))],
    ["not yet valid", token(RS, claims({ nbf: now() + 120 }))],
    ["exp a string", token(RS, claims({ exp: String(now() + 300) }))],
    ["iat a string", token(RS, claims({ iat: String(now()) }))],
    ["no jti", token(RS, (({ jti: _, ...rest }) => rest)(claims()))],
    ["no client_id", token(RS, (({ client_id: _, ...rest }) => rest)(claims()))],
    ["no aud", token(RS, (({ aud: _, ...rest }) => rest)(claims()))],
    ["a header that is not JSON", signed(b64("{alg:RS256}"), p, "rsa")],
    ["a header that is a list", signed(b64('["RS256"]'), p, "rsa")],
    ["a header of bad UTF-8", signed(b64(Uint8Array.from([0x7b, 0xff, 0x7d])), p, "rsa")],
    ["a payload that is a list", signed(h, b64("[1]"), "rsa")],
    ["a payload of bad UTF-8", signed(h, b64(Uint8Array.from([0x7b, 0xc3, 0x28, 0x7d])), "rsa")],
    [
      "an ES256 signature in DER",
      `${json(ES)}.${p}.${b64(sign("sha256", Buffer.from(`${json(ES)}.${p}`), ec.privateKey))}`,
    ],
  ];
}

const importers = [
  ["node (node:crypto)", node.signatureCheckOf],
  ["web (Web Crypto)", web.signatureCheckOf],
] as const;

describe.each(importers)("verifyJwt, %s", (_name, importKey) => {
  const decide = async (jwt: string, keys: readonly Jwk[] = JWKS): Promise<Decision> => {
    try {
      return (await verifyJwt(jwt, fixed(keys), new ImportedKeys(importKey), EXPECTED)) ? "accepted" : "refused";
    } catch {
      return "error";
    }
  };

  it("decides as jose does on every token of the corpus, stricter only where base64url is not canonical", async () => {
    const differences: string[] = [];
    for (const [what, jwt] of corpus()) {
      const [ours, theirs] = [await decide(jwt), await joseDecision(jwt)];
      if (ours === theirs) continue;
      // The one rule added: a part spelled another way than its bytes' one spelling (padding, whitespace, set trailing bits).
      if (ours === "refused" && theirs === "accepted" && !canonical(jwt)) continue;
      differences.push(`${what}: ours ${ours}, jose ${theirs}`);
    }
    expect(differences).toEqual([]);
    expect(await decide(good())).toBe("accepted");
  });

  it("decides as jose does on random edits of a good token (a character changed, added or removed, parts swapped)", async () => {
    const base = good();
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.= +/";
    const edit = fc.oneof(
      fc.tuple(fc.constant("set"), fc.nat(base.length - 1), fc.constantFrom(...alphabet)),
      fc.tuple(fc.constant("insert"), fc.nat(base.length), fc.constantFrom(...alphabet)),
      fc.tuple(fc.constant("delete"), fc.nat(base.length - 1), fc.constant("")),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (edits) => {
        let jwt = base;
        for (const [kind, at, c] of edits)
          jwt =
            jwt.slice(0, at) +
            (kind === "delete" ? "" : c) +
            jwt.slice(kind === "set" || kind === "delete" ? at + 1 : at);
        const [ours, theirs] = [await decide(jwt), await joseDecision(jwt)];
        expect(ours === theirs || (ours === "refused" && theirs === "accepted" && !canonical(jwt))).toBe(true);
        // Whatever the edit, never an acceptance jose would not give.
        if (ours === "accepted") expect(theirs).toBe("accepted");
      }),
      { numRuns: 150 },
    );
  });

  it("refuses a token whose signature is spelled two ways (bits set past its last byte)", async () => {
    const [h, p, s = ""] = good().split(".");
    // 256 bytes of RSA signature are 342 characters, the last carrying 4 unused bits.
    const last = s.at(-1) ?? "A";
    const twin = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(last) | 1
    ];
    const jwt = `${h}.${p}.${s.slice(0, -1)}${twin}`;
    expect(Buffer.from(jwt.split(".")[2] ?? "", "base64url")).toEqual(Buffer.from(s, "base64url"));
    expect(await decide(jwt)).toBe("refused");
  });

  it("refuses a token longer than any request header Node.js accepts, validly signed", async () => {
    const huge = token(RS, claims({ padding: "x".repeat(MAX_TOKEN_LENGTH) }));
    expect(await joseDecision(huge)).toBe("accepted");
    expect(await decide(huge)).toBe("refused");
  });

  it("never takes a key of the key set for what it is not: use enc, key_ops without verify, another alg, two keys for one header", async () => {
    const jwt = good();
    expect(await decide(jwt, [{ ...RSA_JWK, use: "enc" }])).toBe("refused");
    expect(await decide(jwt, [{ ...RSA_JWK, key_ops: ["sign"] }])).toBe("refused");
    expect(await decide(jwt, [{ ...RSA_JWK, alg: "PS256" }])).toBe("refused");
    expect(await decide(jwt, [{ ...RSA_JWK, key_ops: ["verify"] }])).toBe("accepted");
    const noKid = token({ alg: "RS256", typ: "at+jwt" }, claims());
    expect(await decide(noKid, [RSA_JWK, { ...RSA_JWK, kid: "r2" }])).toBe("refused");
    expect(await joseDecision(noKid, [RSA_JWK, { ...RSA_JWK, kid: "r2" }])).toBe("refused");
  });

  it("answers an error (503), not a refusal, when the issuer publishes a key that cannot be used: private, or RSA under 2048 bits", async () => {
    const privateJwk = { ...(rsa.privateKey.export({ format: "jwk" }) as Jwk), kid: "r1", alg: "RS256" };
    expect(await decide(good(), [privateJwk])).toBe("error");
    expect(await joseDecision(good(), [privateJwk])).toBe("error");
    const weakJwk = jwkOf(weak.publicKey, { kid: "w1", alg: "RS256" });
    const byWeak = token({ ...RS, kid: "w1" }, claims(), "weak");
    expect(await decide(byWeak, [weakJwk])).toBe("error");
    expect(await joseDecision(byWeak, [weakJwk])).toBe("error");
  });

  it("imports each key once, however many tokens it checks", async () => {
    let imports = 0;
    const counted = new ImportedKeys((jwk, alg) => {
      imports++;
      return importKey(jwk, alg);
    });
    const tokens = await Promise.all(
      Array.from({ length: 40 }, () => verifyJwt(good(), fixed(JWKS), counted, EXPECTED)),
    );
    expect(tokens.every((t) => t?.sub === "u1")).toBe(true);
    expect(imports).toBe(1);
  });
});

describe("remoteKeys: the JWKS of a remote issuer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function jwksServer() {
    let keys: Jwk[] = [RSA_JWK];
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { "content-type": "application/jwk-set+json" }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    return {
      source: remoteKeys(async () => uri, fetch),
      publish: (next: Jwk[]) => {
        keys = next;
      },
      requests: () => requests,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  it("fetches the key set again for an unknown kid, once per cool-down however many tokens ask", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const jwks = await jwksServer();
    try {
      const imported = new ImportedKeys();
      expect(await verifyJwt(good(), jwks.source, imported, EXPECTED)).not.toBeNull();
      expect(jwks.requests()).toBe(1);
      // The issuer rotates to a key this resource server has not seen.
      jwks.publish([RSA_JWK, EC_JWK]);
      const rotated = token(ES, claims(), "ec");
      // Within the cool-down, 40 tokens naming it (or made-up kids) fetch nothing.
      const early = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          verifyJwt(i % 2 ? rotated : token({ ...RS, kid: `made-up-${i}` }, claims()), jwks.source, imported, EXPECTED),
        ),
      );
      expect(early.every((c) => c === null)).toBe(true);
      expect(jwks.requests()).toBe(1);
      vi.setSystemTime(Date.now() + JWKS_COOLDOWN_MS + 1_000);
      // After it, one fetch for all the tokens that ask at once, and the new key is known.
      const later = await Promise.all(
        Array.from({ length: 30 }, () => verifyJwt(token(ES, claims(), "ec"), jwks.source, imported, EXPECTED)),
      );
      expect(later.every((c) => c?.sub === "u1")).toBe(true);
      expect(jwks.requests()).toBe(2);
      // Made-up kids right after fetch nothing more.
      expect(await verifyJwt(token({ ...RS, kid: "made-up" }, claims()), jwks.source, imported, EXPECTED)).toBeNull();
      expect(jwks.requests()).toBe(2);
    } finally {
      await jwks.close();
    }
  });

  it("attack: while the issuer's JWKS fails, tokens naming made-up kids fetch it at most once per cool-down", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    let up = true;
    let requests = 0;
    let keys: Jwk[] = [RSA_JWK];
    const server = createServer((_req, res) => {
      requests++;
      if (!up) return res.writeHead(500).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
      const source = remoteKeys(async () => uri, fetch);
      const imported = new ImportedKeys();
      expect(await verifyJwt(good(), source, imported, EXPECTED)).not.toBeNull();
      expect(requests).toBe(1);
      vi.setSystemTime(Date.now() + JWKS_COOLDOWN_MS + 1_000);
      up = false;
      // A stranger's made-up kids, one after another: the first asks the failing issuer (503).
      await expect(verifyJwt(token({ ...RS, kid: "made-up-0" }, claims()), source, imported, EXPECTED)).rejects.toThrow(
        /JWKS answered 500/,
      );
      for (let i = 1; i < 20; i++) {
        const answer = await verifyJwt(token({ ...RS, kid: `made-up-${i}` }, claims()), source, imported, EXPECTED);
        expect(answer).toBeNull();
      }
      expect(requests).toBe(2);
      // Known keys keep working meanwhile, from the cached set.
      expect(await verifyJwt(good(), source, imported, EXPECTED)).not.toBeNull();
      // Once the cool-down has passed, a rotated key is fetched again.
      up = true;
      keys = [RSA_JWK, EC_JWK];
      vi.setSystemTime(Date.now() + JWKS_COOLDOWN_MS + 1_000);
      expect((await verifyJwt(token(ES, claims(), "ec"), source, imported, EXPECTED))?.sub).toBe("u1");
      expect(requests).toBe(3);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("throws (503) when the key set cannot be fetched, and fetches again on the next token", async () => {
    let up = false;
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      if (!up) return res.writeHead(500).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [RSA_JWK] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
      const source = remoteKeys(async () => uri, fetch);
      await expect(verifyJwt(good(), source, new ImportedKeys(), EXPECTED)).rejects.toThrow(/JWKS answered 500/);
      up = true;
      expect(await verifyJwt(good(), source, new ImportedKeys(), EXPECTED)).not.toBeNull();
      expect(requests).toBe(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
