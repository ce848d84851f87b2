/**
 * Password hashing (`@latchkey/core/password`): scrypt from node:crypto in a self-describing PHC
 * string, raisable parameters, constant-cost refusal of unknown accounts, bounded input.
 */
import { scryptSync } from "node:crypto";
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SCRYPT_PARAMETERS,
  dummyVerify,
  hashPassword,
  MAX_PASSWORD_BYTES,
  needsRehash,
  verifyPassword,
} from "../../src/password.js";

// Cheap parameters keep the suite fast; the defaults get one round trip of their own.
const FAST = { parameters: { ln: 12 } };
const FORMAT = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function parse(encoded: string) {
  const m = FORMAT.exec(encoded);
  if (!m) throw new Error(`not a $scrypt$ string: ${encoded}`);
  return {
    ln: Number(m[1]),
    r: Number(m[2]),
    p: Number(m[3]),
    salt: Buffer.from(m[4] as string, "base64"),
    hash: Buffer.from(m[5] as string, "base64"),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const quartiles = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor(s.length * 0.25)] as number, s[Math.floor(s.length * 0.75)] as number] as const;
};

describe("hashes are self-describing scrypt (RFC 7914, PHC string format)", () => {
  it("the string carries algorithm, N/r/p, a 16-byte salt and a 32-byte hash that node:crypto recomputes", async () => {
    const encoded = await hashPassword("correct horse battery staple", FAST);
    const { ln, r, p, salt, hash } = parse(encoded);
    expect({ ln, r, p }).toEqual({ ...DEFAULT_SCRYPT_PARAMETERS, ln: 12 });
    expect(salt).toHaveLength(16);
    expect(hash).toHaveLength(32);
    const recomputed = scryptSync("correct horse battery staple", salt, 32, { N: 2 ** ln, r, p });
    expect(recomputed.equals(hash)).toBe(true);
  });

  it("the default parameters round-trip (N = 2^17, r = 8, p = 1)", async () => {
    const encoded = await hashPassword("tr0ub4dor&3 is not it");
    expect(parse(encoded)).toMatchObject({ ln: 17, r: 8, p: 1 });
    expect(await verifyPassword("tr0ub4dor&3 is not it", encoded)).toBe(true);
    expect(await verifyPassword("tr0ub4dor&3 is not iT", encoded)).toBe(false);
    expect(needsRehash(encoded)).toBe(false);
  });

  it("two hashes of one password differ (random salt) and both verify", async () => {
    const [a, b] = await Promise.all([hashPassword("same password", FAST), hashPassword("same password", FAST)]);
    expect(a).not.toBe(b);
    expect(await verifyPassword("same password", a)).toBe(true);
    expect(await verifyPassword("same password", b)).toBe(true);
  });

  it("passwords are NFKC-normalised: composed and decomposed, ligature and letters verify alike; others do not", async () => {
    const encoded = await hashPassword("caf\u00e9 \ufb01ne", FAST);
    expect(await verifyPassword("cafe\u0301 fine", encoded)).toBe(true);
    expect(await verifyPassword("cafe fine", encoded)).toBe(false);
    expect(await verifyPassword("CAF\u00c9 FINE", encoded)).toBe(false);
  });

  it("wrong, empty, non-ASCII and control-character passwords are false, never a throw", async () => {
    const encoded = await hashPassword("pässwörd-\u{1F511}", FAST);
    for (const attempt of [
      "",
      "pässwörd-",
      "pässwörd-\u{1F511}\u0000",
      "passwörd-\u{1F511}",
      "\u202epässwörd-\u{1F511}",
    ]) {
      expect(await verifyPassword(attempt, encoded)).toBe(false);
    }
    expect(await verifyPassword(123 as never, encoded)).toBe(false);
    expect(await verifyPassword("pässwörd-\u{1F511}", encoded)).toBe(true);
  });

  it("a NUL is refused: HMAC pads short keys with zero bytes, so node:crypto's scrypt alone takes 'pw' and 'pw\\0' as one password", async () => {
    // The hazard is real in the primitive: the same key comes out for both.
    const salt = Buffer.alloc(16, 7);
    expect(
      scryptSync("guessable", salt, 32, { N: 1024 }).equals(scryptSync("guessable\0\0", salt, 32, { N: 1024 })),
    ).toBe(true);
    const encoded = await hashPassword("guessable", FAST);
    for (const suffix of ["\0", "\0\0", "\0\0\0\0\0\0\0\0"]) {
      expect(await verifyPassword(`guessable${suffix}`, encoded)).toBe(false);
    }
    await expect(hashPassword("guessable\0", FAST)).rejects.toThrow(RangeError);
    expect(await verifyPassword("guessable", encoded)).toBe(true);
  });
});

describe("parameters can be raised: needsRehash upgrades hashes at sign-in", () => {
  it("a hash weaker than the target needs a rehash; the rehash verifies and then does not", async () => {
    const old = await hashPassword("upgrade me please", { parameters: { ln: 11, r: 4 } });
    expect(needsRehash(old, FAST)).toBe(true);
    expect(needsRehash(old, { parameters: { ln: 11, r: 4 } })).toBe(false);
    expect(await verifyPassword("upgrade me please", old)).toBe(true);
    const upgraded = await hashPassword("upgrade me please", FAST);
    expect(await verifyPassword("upgrade me please", upgraded)).toBe(true);
    expect(needsRehash(upgraded, FAST)).toBe(false);
    expect(needsRehash(upgraded)).toBe(true); // the defaults are stronger than ln=12
  });

  it("anything not a readable $scrypt$ string needs a rehash (legacy formats, other algorithms)", () => {
    for (const legacy of [
      "",
      "5f4dcc3b5aa765d61d8327deb882cf99",
      "$2b$10$abcdefghijklmnopqrstuv",
      "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
    ]) {
      expect(needsRehash(legacy)).toBe(true);
    }
  });
});

describe("a stored hash is data the application owns: tampered values fail fast and cheaply", () => {
  it("unreadable, repeated-field, odd-case or out-of-bounds strings throw a TypeError without hashing", async () => {
    const good = parse(await hashPassword("x-password-x", FAST));
    const salt = good.salt.toString("base64").replace(/=+$/, "");
    const hash = good.hash.toString("base64").replace(/=+$/, "");
    const tampered = [
      `$SCRYPT$ln=12,r=8,p=1$${salt}$${hash}`,
      `$scrypt$ln=12,ln=12,r=8,p=1$${salt}$${hash}`,
      `$scrypt$ln=12,r=8$${salt}$${hash}`,
      `$scrypt$ln=12,r=8,p=1,x=1$${salt}$${hash}`,
      `$scrypt$ln=40,r=8,p=1$${salt}$${hash}`, // 2^40: would hang or exhaust memory
      `$scrypt$ln=22,r=32,p=1$${salt}$${hash}`, // 16 GiB
      `$scrypt$ln=0,r=8,p=1$${salt}$${hash}`,
      `$scrypt$ln=12,r=8,p=1$${salt}$`,
      `$scrypt$ln=12,r=8,p=1$$${hash}`,
      `$scrypt$ln=12,r=8,p=1$${salt}$${hash}$`,
      `$scrypt$ln=12,r=8,p=1$${salt}$${hash}\n`,
      `$scrypt$ln=１２,r=8,p=1$${salt}$${hash}`,
    ];
    for (const stored of tampered) {
      await expect(verifyPassword("x-password-x", stored), stored).rejects.toThrow(TypeError);
    }
  });
});

describe("input length is bounded before any hashing (a 1 MB password costs no scrypt)", () => {
  it("1024 UTF-8 bytes hash; 1025 bytes, a megabyte, or a short string that NFKC expands past 1024 are refused", async () => {
    const edge = "a".repeat(MAX_PASSWORD_BYTES - 2) + "é"; // 1024 bytes
    expect(await verifyPassword(edge, await hashPassword(edge, FAST))).toBe(true);
    const over = `${edge}a`;
    await expect(hashPassword(over, FAST)).rejects.toThrow(RangeError);
    await expect(hashPassword("x".repeat(1024 * 1024), FAST)).rejects.toThrow(RangeError);
    // U+FDFA is one code point that NFKC turns into 18 (33 bytes): 40 of them pass a raw check.
    const expanding = "\ufdfa".repeat(40);
    expect(expanding.length).toBeLessThan(MAX_PASSWORD_BYTES);
    await expect(hashPassword(expanding, FAST)).rejects.toThrow(RangeError);
  });

  it("verifying or dummy-verifying a megabyte answers false faster than one real verification", async () => {
    const stored = await hashPassword("a normal password", FAST);
    const megabyte = "p".repeat(1024 * 1024);
    const real: number[] = [];
    const huge: number[] = [];
    for (let i = 0; i < 7; i++) {
      let t = performance.now();
      await verifyPassword("a wrong password", stored);
      real.push(performance.now() - t);
      t = performance.now();
      expect(await verifyPassword(megabyte, stored)).toBe(false);
      expect(await dummyVerify(megabyte, FAST)).toBe(false);
      huge.push(performance.now() - t);
    }
    expect(median(huge)).toBeLessThan(median(real));
  });
});

describe("scrypt runs off the event loop", () => {
  it("the event loop keeps turning while a default-cost hash is computed", async () => {
    let turns = 0;
    let running = true;
    const spin = () => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    await hashPassword("event loop stays free");
    running = false;
    // A synchronous scrypt of ~100+ ms would allow one turn at most.
    expect(turns).toBeGreaterThan(10);
  });
});

describe("an unknown account costs what a wrong password costs (dummyVerify), measured as a distribution", () => {
  it("30 interleaved samples each: medians within ×1.5 and interquartile ranges overlap; an immediate refusal is told apart", async () => {
    const stored = await hashPassword("the real password", FAST);
    const wrong: number[] = [];
    const unknown: number[] = [];
    const naive: number[] = [];
    const time = async (work: () => Promise<unknown>) => {
      const t = performance.now();
      await work();
      return performance.now() - t;
    };
    // Interleaved, so that load from other processes falls on both series alike.
    for (let i = 0; i < 30; i++) {
      wrong.push(await time(() => verifyPassword(`wrong guess ${i}`, stored)));
      unknown.push(await time(() => dummyVerify(`wrong guess ${i}`, FAST)));
      naive.push(await time(async () => false));
    }
    const [mw, mu] = [median(wrong), median(unknown)];
    expect(Math.max(mw, mu) / Math.min(mw, mu)).toBeLessThan(1.5);
    const [wq1, wq3] = quartiles(wrong);
    const [uq1, uq3] = quartiles(unknown);
    expect(uq1).toBeLessThanOrEqual(wq3);
    expect(wq1).toBeLessThanOrEqual(uq3);
    // The control: without the decoy, the unknown account would answer at once; the same
    // statistics must tell that apart, or they prove nothing.
    expect(quartiles(naive)[1]).toBeLessThan(wq1 / 5);
  });
});
