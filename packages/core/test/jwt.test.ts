import { hkdfSync } from "node:crypto";
import { decode as authjsDecode, encode as authjsEncode } from "@auth/core/jwt";
import { base64url, EncryptJWT, jwtDecrypt } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MissingSecret } from "../src/errors.js";
import { decode, encode, getToken } from "../src/jwt.js";
import { openToken } from "../src/lib/crypto/jwe.js";

const secret = "jwt-test-secret-0123456789abcdefghijkl";
const salt = "authjs.session-token";

function flip(token: string, part: number, index = 3): string {
  const parts = token.split(".");
  const chars = (parts[part] as string).split("");
  chars[index] = chars[index] === "A" ? "B" : "A";
  parts[part] = chars.join("");
  return parts.join(".");
}

describe("session tokens are wire compatible with Auth.js", () => {
  it("a token sealed by Latchkey is opened by @auth/core", async () => {
    const token = await encode({ token: { sub: "42", name: "Ada", email: "ada@example.com" }, secret, salt });
    const payload = await authjsDecode({ token, secret, salt });
    expect(payload).toMatchObject({ sub: "42", name: "Ada", email: "ada@example.com" });
    expect(typeof payload?.jti).toBe("string");
  });

  it("a token sealed by @auth/core is opened by Latchkey", async () => {
    const token = await authjsEncode({ token: { sub: "7", picture: "https://x.example/p.png" }, secret, salt });
    expect(await decode({ token, secret, salt })).toMatchObject({ sub: "7", picture: "https://x.example/p.png" });
  });

  it("the header is dir + A256CBC-HS512 with a SHA-512 JWK thumbprint kid, readable by jose", async () => {
    const token = await encode({ token: { sub: "1" }, secret, salt, maxAge: 60 });
    const header = JSON.parse(Buffer.from(token.split(".")[0] as string, "base64url").toString());
    expect(header.alg).toBe("dir");
    expect(header.enc).toBe("A256CBC-HS512");
    const key = new Uint8Array(hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, 64));
    const { payload } = await jwtDecrypt(token, key);
    expect(payload.sub).toBe("1");
    expect((payload.exp as number) - (payload.iat as number)).toBe(60);
    const { calculateJwkThumbprint } = await import("jose");
    expect(header.kid).toBe(await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, "sha512"));
  });
});

describe("secret rotation", () => {
  const oldSecret = "old-secret-0123456789abcdefghijklmnopq";
  it("a token made with the old secret is read when the old secret is still in the list", async () => {
    const token = await encode({ token: { sub: "1" }, secret: oldSecret, salt });
    expect(await decode({ token, secret: [secret, oldSecret], salt })).toMatchObject({ sub: "1" });
  });
  it("new tokens use the first secret", async () => {
    const token = await encode({ token: { sub: "1" }, secret: [secret, oldSecret], salt });
    expect(await decode({ token, secret, salt })).toMatchObject({ sub: "1" });
    expect(await decode({ token, secret: oldSecret, salt })).toBeNull();
  });
  it("a token under a removed secret is refused", async () => {
    const token = await encode({ token: { sub: "1" }, secret: oldSecret, salt });
    expect(await decode({ token, secret, salt })).toBeNull();
  });
  it("a token without kid is tried against every secret", async () => {
    const key = new Uint8Array(hkdfSync("sha256", oldSecret, salt, `Auth.js Generated Encryption Key (${salt})`, 64));
    const token = await new EncryptJWT({ sub: "no-kid" })
      .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512" })
      .setExpirationTime("1h")
      .encrypt(key);
    expect(await decode({ token, secret: [secret, oldSecret], salt })).toMatchObject({ sub: "no-kid" });
  });
  it("the salt (cookie name) separates keys: a token for one cookie name is not valid for another", async () => {
    const token = await encode({ token: { sub: "1" }, secret, salt });
    expect(await decode({ token, secret, salt: `__Secure-${salt}` })).toBeNull();
  });
});

describe("tampered and hostile tokens give no session", () => {
  it("refuses bit flips in every part", async () => {
    const token = await encode({ token: { sub: "1" }, secret, salt });
    for (const part of [0, 2, 3, 4]) expect(openToken(flip(token, part), [secret], salt)).toBeNull();
  });
  it("refuses truncation and garbage", async () => {
    const token = await encode({ token: { sub: "1" }, secret, salt });
    for (const bad of [
      token.slice(0, -1),
      token.slice(0, token.length / 2),
      "a.b.c.d.e",
      "....",
      "",
      "%%%%",
      `${token}.x`,
      token.replace(/\./g, ""),
    ]) {
      expect(openToken(bad, [secret], salt)).toBeNull();
    }
  });
  it("refuses other algorithms: alg none, PBES2 with a huge count, A256GCM, zip, crit", async () => {
    const body = (await encode({ token: { sub: "1" }, secret, salt })).split(".").slice(1).join(".");
    const headers = [
      { alg: "none" },
      { alg: "none", enc: "A256CBC-HS512" },
      { alg: "PBES2-HS512+A256KW", enc: "A256CBC-HS512", p2c: 2 ** 31, p2s: "AAAAAAAAAAAAAAAAAAAAAA" },
      { alg: "dir", enc: "A256GCM" },
      { alg: "dir", enc: "A256CBC-HS512", zip: "DEF" },
      { alg: "dir", enc: "A256CBC-HS512", crit: ["exp"] },
    ];
    for (const header of headers) {
      const forged = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${body}`;
      expect(openToken(forged, [secret], salt)).toBeNull();
    }
  });
  it("refuses an A256GCM token that jose would accept", async () => {
    const key = new Uint8Array(hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, 32));
    const token = await new EncryptJWT({ sub: "gcm" })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .setExpirationTime("1h")
      .encrypt(key);
    expect(await decode({ token, secret, salt })).toBeNull();
  });
  it("refuses a payload that is not a JSON object", async () => {
    const key = new Uint8Array(hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, 64));
    const { CompactEncrypt } = await import("jose");
    const token = await new CompactEncrypt(new TextEncoder().encode("[1,2]"))
      .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512" })
      .encrypt(key);
    expect(openToken(token, [secret], salt)).toBeNull();
  });
});

describe("expiry", () => {
  afterEach(() => vi.useRealTimers());
  it("accepts a token up to 15 seconds past exp and refuses it after", async () => {
    vi.useFakeTimers({ now: new Date("2030-01-01T00:00:00Z") });
    const token = await encode({ token: { sub: "1" }, secret, salt, maxAge: 60 });
    vi.setSystemTime(new Date("2030-01-01T00:01:10Z"));
    expect(openToken(token, [secret], salt)).toMatchObject({ sub: "1" });
    vi.setSystemTime(new Date("2030-01-01T00:01:16Z"));
    expect(openToken(token, [secret], salt)).toBeNull();
  });
});

describe("getToken", () => {
  it("reads the session cookie of a request", async () => {
    const token = await encode({ token: { sub: "9" }, secret, salt });
    const req = new Request("http://localhost/", { headers: { cookie: `other=1; authjs.session-token=${token}` } });
    expect(await getToken({ req, secret })).toMatchObject({ sub: "9" });
  });
  it("reads the __Secure- cookie when secureCookie is set, with its own salt", async () => {
    const name = "__Secure-authjs.session-token";
    const token = await encode({ token: { sub: "s" }, secret, salt: name });
    const req = new Request("https://localhost/", { headers: { cookie: `${name}=${token}` } });
    expect(await getToken({ req, secret, secureCookie: true })).toMatchObject({ sub: "s" });
    expect(await getToken({ req, secret })).toBeNull();
  });
  it("joins chunked cookies in order", async () => {
    const token = await encode({ token: { sub: "c", blob: "z".repeat(6000) }, secret, salt });
    // Cut as Latchkey and Auth.js write them: full chunks of 3936 characters, then the rest.
    const cut = 4096 - 160;
    const req = {
      headers: {
        cookie: `authjs.session-token.1=${token.slice(cut)}; authjs.session-token.0=${token.slice(0, cut)}`,
      },
    };
    expect(token.length).toBeGreaterThan(cut);
    expect(await getToken({ req, secret })).toMatchObject({ sub: "c" });
  });
  it("falls back to an Authorization: Bearer header, and returns the raw token when asked", async () => {
    const token = await encode({ token: { sub: "b" }, secret, salt });
    const req = new Request("http://localhost/", { headers: { authorization: `Bearer ${token}` } });
    expect(await getToken({ req, secret })).toMatchObject({ sub: "b" });
    expect(await getToken({ req, secret, raw: true })).toBe(token);
  });
  it("returns null for a malformed bearer or cookie", async () => {
    expect(await getToken({ req: { headers: { authorization: "Bearer %E0%A4%A" } }, secret })).toBeNull();
    expect(await getToken({ req: { headers: { cookie: "authjs.session-token=garbage" } }, secret })).toBeNull();
  });
  it("throws MissingSecret, naming the fix, for a token it has no secret to read (secret: process.env.AUTH_SECRET unset)", async () => {
    const token = await encode({ token: { sub: "m" }, secret, salt });
    const req = new Request("http://localhost/", { headers: { cookie: `authjs.session-token=${token}` } });
    const unset: string | undefined = undefined;
    for (const missing of [unset, "", []]) {
      const failure = await getToken({ req, secret: missing }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(MissingSecret);
      expect((failure as Error).message).toContain("process.env.AUTH_SECRET");
    }
    // Neither a request without a token nor a raw read needs the secret, as in Auth.js.
    expect(await getToken({ req: new Request("http://localhost/"), secret: unset })).toBeNull();
    expect(await getToken({ req, secret: unset, raw: true })).toBe(token);
  });
});
