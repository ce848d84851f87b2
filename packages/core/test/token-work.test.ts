/**
 * Refusing a token that cannot be ours costs no cryptography: oversized and malformed tokens are
 * turned away before any key is derived, any MAC computed or anything decrypted. Proved by
 * counting the calls into node:crypto that opening a token can make.
 */
import type * as crypto from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";

const counted = vi.hoisted(() => ({ calls: [] as string[] }));
vi.mock("node:crypto", async (original) => {
  const real = await original<typeof crypto>();
  const count =
    <A extends unknown[], R>(name: string, fn: (...args: A) => R) =>
    (...args: A): R => {
      counted.calls.push(name);
      return fn(...args);
    };
  return {
    ...real,
    hkdfSync: count("hkdfSync", real.hkdfSync),
    createHmac: count("createHmac", real.createHmac),
    createDecipheriv: count("createDecipheriv", real.createDecipheriv),
    createHash: count("createHash", real.createHash),
  };
});

const { openToken, sealToken } = await import("../src/lib/crypto/jwe.js");
const salt = "authjs.session-token";

beforeEach(() => {
  counted.calls.length = 0;
});

describe("tokens that cannot be ours are refused without cryptographic work", () => {
  it("a 20 KB token of one part, and one over the 64 KiB limit with five parts, cost no crypto call", () => {
    const secret = `fresh-secret-${"a".repeat(32)}-one`;
    expect(openToken("x".repeat(20_000), [secret], salt)).toBeNull();
    expect(openToken(`${"e".repeat(70_000)}..a.b.c`, [secret], salt)).toBeNull();
    expect(openToken(`${"e".repeat(20_000)}.not-empty.a.b.c`, [secret], salt)).toBeNull();
    expect(counted.calls).toEqual([]);
  });
  it("control: the counter sees the work a real token costs (key derivation, MAC, decryption)", async () => {
    const secret = `fresh-secret-${"b".repeat(32)}-two`;
    const token = await sealToken({ sub: "u1" }, [secret], salt, 60);
    counted.calls.length = 0;
    expect(openToken(token, [secret], salt)).toMatchObject({ sub: "u1" });
    expect(counted.calls).toEqual(expect.arrayContaining(["createHmac", "createDecipheriv"]));
    counted.calls.length = 0;
    expect(openToken(token, [`fresh-secret-${"c".repeat(32)}-three`], salt)).toBeNull();
    expect(counted.calls).toContain("hkdfSync");
  });
});

describe("keys are derived at first use, once per secret: configuration resolution does no cryptography", () => {
  it("resolving a configuration derives no key; the first CSRF token derives its key; a configuration made again (per request) derives nothing more", async () => {
    const { resolveConfig } = await import("../src/lib/config/resolve.js");
    const { createCsrfToken, readCsrfCookie } = await import("../src/lib/crypto/csrf.js");
    const secret = `fresh-secret-${"d".repeat(32)}-four`;
    const configOf = () => ({ secret, trustHost: true, providers: [] });
    const first = resolveConfig(configOf(), {});
    expect(counted.calls).not.toContain("hkdfSync");
    const csrf = first.csrf;
    if (!csrf) throw new Error("the CSRF check is on by default");
    const { token, cookieValue } = createCsrfToken(csrf);
    expect(counted.calls.filter((call) => call === "hkdfSync")).toEqual(["hkdfSync"]);

    counted.calls.length = 0;
    // A new object with the same secret, as NextAuth(() => config) makes per request.
    const again = resolveConfig(configOf(), {});
    expect(again).not.toBe(first);
    expect(again.csrf && readCsrfCookie(again.csrf, cookieValue)).toBe(token);
    expect(counted.calls).not.toContain("hkdfSync");
  });
});
