/**
 * The two implementations of `#platform` (`node.ts`: node:crypto; `web.ts`: Web Crypto and
 * @noble/hashes), imported side by side from the build and held to the same published vectors,
 * to each other, and to what the core relies on (Node.js's lenient decoders, constant-time
 * comparison that refuses other lengths, AES that refuses a wrong padding or tag).
 */
import { generateKeyPairSync, sign } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as node from "../../dist/lib/platform/node.js";
import * as web from "../../dist/lib/platform/web.js";

const implementations = [
  ["node", node],
  ["web", web],
] as const;

const hex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

describe.each(implementations)("#platform (%s)", (name, platform) => {
  it("names itself", () => {
    expect(platform.platformName).toBe(name);
  });

  it("signs JWS inputs (RS256, ES256) that both implementations' checks accept, RS256 byte for byte as node:crypto signs, and refuses a short RSA key", async () => {
    const input = new TextEncoder().encode("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1MSJ9");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    for (const [alg, pair] of [
      ["RS256", rsa],
      ["ES256", ec],
    ] as const) {
      const privateJwk = { ...(pair.privateKey.export({ format: "jwk" }) as Record<string, unknown>), alg, use: "sig" };
      const publicJwk = pair.publicKey.export({ format: "jwk" }) as Parameters<typeof node.signatureCheckOf>[0];
      const signature = await (await platform.signerOf(privateJwk, alg))(input);
      for (const checker of [node, web]) {
        const check = await checker.signatureCheckOf(publicJwk, alg);
        expect(await check(input, signature)).toBe(true);
        expect(await check(new TextEncoder().encode("another input"), signature)).toBe(false);
      }
      if (alg === "RS256") expect(toHex(signature)).toBe(toHex(sign("sha256", input, rsa.privateKey)));
      else expect(signature).toHaveLength(64);
    }
    const weak = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ format: "jwk" });
    await expect(async () => platform.signerOf(weak as Record<string, unknown>, "RS256")).rejects.toThrow(/2048/);
  });

  it("hashes as FIPS 180-4's examples say (SHA-1, SHA-256, SHA-384, SHA-512 of 'abc', in parts)", () => {
    expect(toHex(platform.hash("sha1", "a", "bc"))).toBe("a9993e364706816aba3e25717850c26c9cd0d89d");
    expect(toHex(platform.hash("sha256", "ab", new TextEncoder().encode("c")))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(toHex(platform.hash("sha384", "abc"))).toBe(
      "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
    );
    expect(toHex(platform.hash("sha512", "abc")).slice(0, 32)).toBe("ddaf35a193617abacc417349ae204131");
  });

  it("computes HMAC as RFC 4231 test case 2 says, prepared or not, with the same answer on every call", () => {
    const expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    expect(toHex(platform.hmac("sha256", "Jefe", "what do ya want ", "for nothing?"))).toBe(expected);
    const mac = platform.macOf("sha256", new TextEncoder().encode("Jefe"));
    expect(toHex(mac("what do ya want for nothing?"))).toBe(expected);
    expect(toHex(mac("what do ya want ", "for nothing?"))).toBe(expected);
    expect(toHex(platform.hmac("sha512", "Jefe", "what do ya want for nothing?")).slice(0, 32)).toBe(
      "164b7a7bfcf819e2e395fbe73b56e0a3",
    );
  });

  it("computes the JWE tag's HMAC-SHA-512 as RFC 4231 test case 2 says, at hand or promised, on every call", async () => {
    const expected =
      "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737";
    const mac = platform.awaitableMacOf("sha512", new TextEncoder().encode("Jefe"));
    const parts = ["what do ya want ", "for ", "nothing?"].map((part) => new TextEncoder().encode(part));
    expect(toHex(await mac(...parts))).toBe(expected);
    expect(toHex(await mac(new TextEncoder().encode("what do ya want for nothing?")))).toBe(expected);
    expect(toHex(await mac(...parts))).toBe(expected);
  });

  it("derives HKDF-SHA256 keys as RFC 5869 test case 1 says", () => {
    const okm = platform.hkdf(hex("0b".repeat(22)), hex("000102030405060708090a0b0c"), hex("f0f1f2f3f4f5f6f7f8f9"), 42);
    expect(toHex(okm)).toBe("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
  });

  it("encrypts AES-256-CBC as NIST SP 800-38A F.2.5 says, and refuses a wrong padding", async () => {
    const cipher = platform.cbcCipher(hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"));
    const iv = hex("000102030405060708090a0b0c0d0e0f");
    const block = hex("6bc1bee22e409f96e93d7e117393172a");
    const sealed = await cipher.encrypt(iv, block);
    // The first block is F.2.5's; the second is the PKCS #7 padding block Web Crypto and OpenSSL add.
    expect(toHex(sealed).slice(0, 32)).toBe("f58c4c04d6e5f1ba779eabfb5f7bfbd6");
    expect(sealed.length).toBe(32);
    expect(toHex(await cipher.decrypt(iv, sealed))).toBe(toHex(block));
    const tampered = sealed.slice();
    tampered[31] = (tampered[31] ?? 0) ^ 1;
    await expect(Promise.resolve().then(() => cipher.decrypt(iv, tampered))).rejects.toThrow();
  });

  it("seals AES-256-GCM that opens only with its tag and AAD", async () => {
    const cipher = platform.gcmCipher(new Uint8Array(32).fill(7));
    const iv = new Uint8Array(12).fill(1);
    const aad = new TextEncoder().encode("key");
    const { ciphertext, tag } = await cipher.seal(iv, new TextEncoder().encode("outcome"), aad);
    expect(tag.length).toBe(16);
    expect(new TextDecoder().decode(await cipher.open(iv, ciphertext, tag, aad))).toBe("outcome");
    const other = new TextEncoder().encode("another key");
    await expect(Promise.resolve().then(() => cipher.open(iv, ciphertext, tag, other))).rejects.toThrow();
  });

  it("derives scrypt as RFC 7914 §12 says (N = 16, r = 1, p = 1 and N = 1024, r = 8, p = 16)", async () => {
    const empty = await platform.scrypt(new Uint8Array(), new Uint8Array(), 64, { N: 16, r: 1, p: 1, maxmem: 2 ** 24 });
    expect(toHex(empty).slice(0, 32)).toBe("77d6576238657b203b19ca42c18a0497");
    const utf8 = new TextEncoder();
    const nacl = await platform.scrypt(utf8.encode("password"), utf8.encode("NaCl"), 64, {
      N: 1024,
      r: 8,
      p: 16,
      maxmem: 2 ** 24,
    });
    expect(toHex(nacl).slice(0, 32)).toBe("fdbabe1c9d3472007856e7190d01e9fe");
  });

  it("compares in constant time, and two lengths are never equal", () => {
    expect(platform.timingSafeEqual(hex("0102"), hex("0102"))).toBe(true);
    expect(platform.timingSafeEqual(hex("0102"), hex("0103"))).toBe(false);
    expect(platform.timingSafeEqual(hex("0102"), hex("010200"))).toBe(false);
  });

  it("draws random values: fresh bytes, UUIDs of version 4, integers below their bound", () => {
    const a = platform.randomBytes(32);
    expect(a.length).toBe(32);
    expect(toHex(a)).not.toBe(toHex(platform.randomBytes(32)));
    expect(platform.randomFill(new Uint8Array(70_000)).some((b) => b !== 0)).toBe(true);
    expect(platform.randomUUID()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const seen = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const value = platform.randomInt(10);
      expect(Number.isInteger(value) && value >= 0 && value < 10).toBe(true);
      seen.add(value);
    }
    expect(seen.size).toBe(10);
    expect(platform.randomInt(10 ** 10)).toBeLessThan(10 ** 10);
  });

  it("encodes base64, base64url and hex as Node.js's Buffer does, decoding either alphabet", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(platform.toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
    expect(platform.toBase64url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
    expect(platform.toHex(bytes)).toBe(Buffer.from(bytes).toString("hex"));
    for (const text of ["+/8=", "-_8", "-_8=", "YQ", "YWJj", "Y W J j", "YWJjZ", ""]) {
      expect([...platform.fromBase64(text)]).toEqual([...Buffer.from(text, "base64")]);
      expect([...platform.fromBase64url(text)]).toEqual([...Buffer.from(text, "base64url")]);
    }
    // Every length of a remainder, both alphabets, with and without padding; then text the fast
    // path leaves to the lenient one (a character of neither alphabet, `=` inside, non-ASCII).
    for (let length = 0; length < 40; length++) {
      const value = Buffer.from(platform.randomBytes(length));
      for (const text of [
        value.toString("base64"),
        value.toString("base64url"),
        value.toString("base64").replace(/=+$/, ""),
      ]) {
        expect([...platform.fromBase64(text)]).toEqual([...value]);
        expect([...platform.fromBase64url(text)]).toEqual([...value]);
      }
    }
    for (const text of [
      "YW=Jj",
      "YWJ=j",
      "=YWJj",
      "YWJj=YWJj",
      "YW Jj=",
      "YWJj\n",
      "YQ==YQ",
      "é",
      "YWJ\u00ffj",
      "Y",
      "YR",
      "YWJ",
      "////",
      "__-_",
      "=",
      "AB==",
    ]) {
      expect([...platform.fromBase64(text)]).toEqual([...Buffer.from(text, "base64")]);
      expect([...platform.fromBase64url(text)]).toEqual([...Buffer.from(text, "base64url")]);
    }
    // Any text of base64's characters, `=`, blanks and a few others, as Buffer decodes it.
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AZaz09+/-_= \n.é"), maxLength: 24 }), (text) => {
        expect([...platform.fromBase64(text)]).toEqual([...Buffer.from(text, "base64")]);
        expect([...platform.fromBase64url(text)]).toEqual([...Buffer.from(text, "base64url")]);
      }),
      { numRuns: 2000 },
    );
    for (const text of ["00ff", "00fg", "abc", "ABcd"]) {
      expect([...platform.fromHex(text)]).toEqual([...Buffer.from(text, "hex")]);
    }
    expect(platform.fromUtf8(platform.utf8("añ€😀"))).toBe("añ€😀");
  });

  it("tells IP addresses as node:net does", () => {
    const cases: [string, 0 | 4 | 6][] = [
      ["127.0.0.1", 4],
      ["255.255.255.255", 4],
      ["256.0.0.1", 0],
      ["01.2.3.4", 0],
      ["::1", 6],
      ["2001:db8::8a2e:370:7334", 6],
      ["::ffff:192.0.2.1", 6],
      ["2001:db8:::1", 0],
      ["example.com", 0],
      ["1::2::3", 0],
      ["::1]/x", 0],
      ["", 0],
    ];
    for (const [text, version] of cases) expect([text, platform.isIP(text)]).toEqual([text, version]);
  });

  it("turns an IDN domain to Unicode, and an undecodable label to ''", () => {
    expect(platform.domainToUnicode("xn--mnchen-3ya.de")).toBe("münchen.de");
    expect(platform.domainToUnicode("example.com")).toBe("example.com");
  });

  it("shows any value on one line, an error with its message", () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    for (const value of [{ a: 1 }, [1, "x"], circular, 10n, new Error("boom", { cause: new Error("below") })]) {
      const line = platform.inspect(value);
      expect(typeof line).toBe("string");
      expect(line.length).toBeGreaterThan(0);
    }
    expect(platform.inspect(new Error("boom"))).toContain("boom");
    expect(platform.inspect({ a: 1 })).toContain("a");
  });
});

describe("#platform: the two implementations agree", () => {
  it("on HKDF, HMAC and hashes of text and bytes", () => {
    const secret = "a secret of at least thirty-two characters";
    expect(
      toHex(web.hkdf(secret, "authjs.session-token", "Auth.js Generated Encryption Key (authjs.session-token)", 64)),
    ).toBe(
      toHex(node.hkdf(secret, "authjs.session-token", "Auth.js Generated Encryption Key (authjs.session-token)", 64)),
    );
    expect(toHex(web.hkdf(secret, "", "Latchkey CSRF token key", 32))).toBe(
      toHex(node.hkdf(secret, "", "Latchkey CSRF token key", 32)),
    );
    for (const name of ["sha1", "sha256", "sha384", "sha512"] as const) {
      expect(toHex(web.hmac(name, "k", "a", "\u0000", "b"))).toBe(toHex(node.hmac(name, "k", "a", "\u0000", "b")));
      expect(toHex(web.hash(name, "é"))).toBe(toHex(node.hash(name, "é")));
    }
  });

  it("on AES-CBC and AES-GCM: what one seals the other opens", async () => {
    const key = node.randomBytes(32);
    const iv = node.randomBytes(16);
    const text = new TextEncoder().encode("a payload that spans more than one block of sixteen");
    expect(toHex(await web.cbcCipher(key).decrypt(iv, await node.cbcCipher(key).encrypt(iv, text)))).toBe(toHex(text));
    expect(toHex(await node.cbcCipher(key).decrypt(iv, await web.cbcCipher(key).encrypt(iv, text)))).toBe(toHex(text));
    const nonce = node.randomBytes(12);
    const aad = new TextEncoder().encode("aad");
    const sealed = await web.gcmCipher(key).seal(nonce, text, aad);
    expect(toHex(await node.gcmCipher(key).open(nonce, sealed.ciphertext, sealed.tag, aad))).toBe(toHex(text));
  });

  it("on scrypt, with the parameters of each runtime's password hashes", async () => {
    const password = new TextEncoder().encode("correct horse");
    const salt = node.randomBytes(16);
    const cost = { N: 2 ** 10, r: 8, p: 2, maxmem: 2 ** 25 };
    expect(toHex(await web.scrypt(password, salt, 32, cost))).toBe(toHex(await node.scrypt(password, salt, 32, cost)));
    expect(web.SCRYPT_DEFAULTS).toEqual({ ln: 14, r: 8, p: 8 });
    expect(node.SCRYPT_DEFAULTS).toEqual({ ln: 17, r: 8, p: 1 });
    // The same N·r·p work either way; 16 MiB instead of 128 MiB of memory.
    const work = ({ ln, r, p }: { ln: number; r: number; p: number }) => 2 ** ln * r * p;
    expect(work(web.SCRYPT_DEFAULTS)).toBe(work(node.SCRYPT_DEFAULTS));
    expect(128 * 2 ** web.SCRYPT_DEFAULTS.ln * web.SCRYPT_DEFAULTS.r).toBe(16 * 2 ** 20);
  });
});
