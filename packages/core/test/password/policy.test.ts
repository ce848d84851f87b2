/**
 * The password policy of NIST SP 800-63B §5.1.1.2: lengths in code points after NFKC, no
 * composition rules, not the user's own identifier; reasons as codes, never a throw.
 */
import { describe, expect, it, vi } from "vitest";
import { checkPasswordPolicy, type PasswordPolicyReason } from "../../src/password.js";

const reasons = (password: unknown, options?: Parameters<typeof checkPasswordPolicy>[1]) =>
  checkPasswordPolicy(password, options).reasons;

describe("length is counted in Unicode code points after NFKC normalisation (SP 800-63B §5.1.1.2)", () => {
  it("8 code points pass by default, 7 do not, whatever their UTF-16 length", () => {
    const emoji = "\u{1F600}\u{1F60E}\u{1F680}\u{1F511}\u{1F30D}\u{1F308}\u{1F95D}\u{1F9C0}";
    expect(emoji.length).toBe(16);
    expect(checkPasswordPolicy(emoji)).toEqual({ ok: true, reasons: [], length: 8 });
    expect(reasons([...emoji].slice(1).join(""))).toEqual(["too-short"]);
  });

  it("a decomposed accent is one code point: 'e' + U+0301 seven times is 7, too short", () => {
    const decomposed = "e\u0301".repeat(7);
    expect(decomposed.length).toBe(14);
    expect(checkPasswordPolicy(decomposed)).toMatchObject({ ok: false, reasons: ["too-short"], length: 7 });
  });

  it("minLength is configurable (15 for a single factor) and maxLength allows at least 64", () => {
    expect(reasons("fourteen chars", { minLength: 15 })).toEqual(["too-short"]);
    expect(reasons("fifteen chars!!", { minLength: 15 })).toEqual([]);
    expect(reasons("x".repeat(256).replace(/x/g, (_, i) => String.fromCharCode(97 + (i % 26))))).toEqual([]);
    expect(reasons("z".repeat(257))).toEqual(["too-long"]);
    expect(() => checkPasswordPolicy("whatever", { maxLength: 63 })).toThrow(/at least 64/);
    expect(() => checkPasswordPolicy("whatever", { minLength: 0 })).toThrow(TypeError);
  });

  it("a password over 1024 UTF-8 bytes is too long even under maxLength (hashing refuses it)", () => {
    const fourByte = "\u{1F511}".repeat(257); // 257 code points, 1028 bytes
    expect(reasons(fourByte, { maxLength: 300 })).toEqual(["too-long"]);
    // U+FDFA expands to 18 code points under NFKC: 40 of them are 720 after normalisation.
    expect(checkPasswordPolicy("\ufdfa".repeat(40), { maxLength: 1000 })).toMatchObject({
      length: 720,
      reasons: ["too-long"],
    });
  });

  it("a megabyte is refused as too-long without being normalised (fast)", () => {
    // The cost is in NFKC (U+FDFA expands eighteenfold): watch that it never runs, rather than a
    // clock a busy machine can break.
    const normalize = vi.spyOn(String.prototype, "normalize");
    try {
      expect(reasons("\ufdfa".repeat(1024 * 1024))).toEqual(["too-long"]);
      expect(normalize).not.toHaveBeenCalled();
      // the spy sees the normalisation of an ordinary password (so its silence above means something)
      expect(reasons("\ufdfa".repeat(10))).toEqual([]);
      expect(normalize).toHaveBeenCalled();
    } finally {
      normalize.mockRestore();
    }
  });
});

describe("no composition rules (SP 800-63B §5.1.1.2)", () => {
  it("all lower case, all digits, spaces only between words, all non-ASCII: each is fine when long enough", () => {
    for (const password of [
      "correct horse battery staple",
      "3141592653589793",
      "пароль-надёжный",
      "日本語のパスワードです",
    ]) {
      expect(reasons(password), password).toEqual([]);
    }
  });
});

describe("the user's own identifier is refused (SP 800-63B §5.1.1.2 context-specific words)", () => {
  const identifiers = ["Alice.Smith@Example.com", "asmith"];
  it.each([
    ["the e-mail address itself", "alice.smith@example.com"],
    ["the e-mail local part in another case", "ALICE.SMITH"],
    ["the local part with a suffix", "alice.smith2024!"],
    ["the user name inside", "my-asmith-password"],
    ["full-width letters (NFKC)", "ａｓｍｉｔｈ１２３４"],
  ])("%s", (_, password) => {
    expect(reasons(password, { identifiers, minLength: 8 })).toContain("identifier" satisfies PasswordPolicyReason);
  });

  it("a short identifier forbids itself, not every password that contains it", () => {
    expect(reasons("bob", { identifiers: ["bob"], minLength: 3 })).toEqual(["identifier"]);
    expect(reasons("bobsled racing team", { identifiers: ["bob"] })).toEqual([]);
  });

  it("context words (the service's name) are refused the same way; empty and null identifiers are ignored", () => {
    expect(reasons("latchkey-rocks-2026", { context: ["Latchkey"] })).toEqual(["context-word"]);
    expect(reasons("unrelated passphrase", { identifiers: ["", "   ", null, undefined], context: [] })).toEqual([]);
  });
});

describe("odd input gets codes, never a throw", () => {
  it("control characters are refused; non-strings are 'invalid'", () => {
    expect(reasons("password\u0000tail")).toEqual(["control-character"]);
    expect(reasons("line\r\nbreak pass")).toEqual(["control-character"]);
    expect(reasons("c1 control\u0085here")).toEqual(["control-character"]);
    for (const value of [undefined, null, 12345678, ["a", "b"], { toString: () => "x" }]) {
      expect(checkPasswordPolicy(value)).toEqual({ ok: false, reasons: ["invalid"], length: 0 });
    }
  });

  it("every reason that applies is returned together", () => {
    expect(reasons("bob\u0000", { identifiers: ["bob\u0000"] }).sort()).toEqual([
      "control-character",
      "identifier",
      "too-short",
    ]);
  });
});
