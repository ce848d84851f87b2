import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COOKIE_OCTETS } from "../../../test/support/cookie-octets.js";
import { CookieTooLarge } from "../src/errors.js";
import {
  clearChunkedCookie,
  cookieHeaderBytes,
  defaultCookies,
  encodeCookieValue,
  parseCookieHeader,
  readChunkedCookie,
  serializeCookie,
  writeChunkedCookie,
} from "../src/lib/http/cookies.js";

describe("default cookies match Auth.js", () => {
  it("uses plain names on http", () => {
    const c = defaultCookies(false);
    expect(c.sessionToken.name).toBe("authjs.session-token");
    expect(c.csrfToken.name).toBe("authjs.csrf-token");
    expect(c.callbackUrl.name).toBe("authjs.callback-url");
    expect(c.pkceCodeVerifier.name).toBe("authjs.pkce.code_verifier");
    expect(c.state.name).toBe("authjs.state");
    expect(c.nonce.name).toBe("authjs.nonce");
    expect(c.webauthnChallenge.name).toBe("authjs.challenge");
    expect(c.sessionToken.options).toEqual({ httpOnly: true, sameSite: "lax", path: "/", secure: false });
  });
  it("uses __Secure- on https for the session and callback-URL cookies (Auth.js's names, so sessions carry over)", () => {
    const c = defaultCookies(true);
    expect(c.sessionToken.name).toBe("__Secure-authjs.session-token");
    expect(c.callbackUrl.name).toBe("__Secure-authjs.callback-url");
    expect(c.sessionToken.options.secure).toBe(true);
  });
  it("uses __Host- on https for the CSRF cookie and every check cookie, which no sibling sub-domain can set", () => {
    const c = defaultCookies(true);
    expect(c.csrfToken.name).toBe("__Host-authjs.csrf-token");
    expect(c.pkceCodeVerifier.name).toBe("__Host-authjs.pkce.code_verifier");
    expect(c.state.name).toBe("__Host-authjs.state");
    expect(c.nonce.name).toBe("__Host-authjs.nonce");
    expect(c.webauthnChallenge.name).toBe("__Host-authjs.challenge");
    // What a browser demands of a __Host- cookie: Secure, Path=/, no Domain.
    for (const role of ["csrfToken", "pkceCodeVerifier", "state", "nonce", "webauthnChallenge"] as const) {
      expect(c[role].options).toMatchObject({ secure: true, path: "/" });
      expect(c[role].options.domain).toBeUndefined();
    }
  });
  it("gives flow check cookies a 15 minute lifetime", () => {
    const c = defaultCookies(false);
    for (const role of ["pkceCodeVerifier", "state", "nonce", "webauthnChallenge"] as const)
      expect(c[role].options.maxAge).toBe(900);
    expect(c.sessionToken.options.maxAge).toBeUndefined();
  });
});

describe("parseCookieHeader", () => {
  it("parses pairs, trims, unquotes and percent-decodes", () => {
    expect(parseCookieHeader(' a=1; b = two ; c="q"; d=%7C')).toEqual({ a: "1", b: "two", c: "q", d: "|" });
  });
  it("attack: a name with Unicode white space before a prefix (NBSP, U+FEFF, U+2028) is not read as the prefixed name", () => {
    for (const space of ["\u00a0", "\ufeff", "\u2028", "\u3000"]) {
      const read = parseCookieHeader(
        `${space}__Host-authjs.binding=planted; ${space}__Secure-authjs.session-token=planted\t`,
      );
      expect(read["__Host-authjs.binding"], JSON.stringify(space)).toBeUndefined();
      expect(read["__Secure-authjs.session-token"], JSON.stringify(space)).toBeUndefined();
    }
    // SP and HTAB (the header's own OWS) are still dropped
    expect(parseCookieHeader("\t__Host-authjs.binding=v\t ;  b=2 ")).toEqual({ "__Host-authjs.binding": "v", b: "2" });
  });
  it("reads a name sent twice (another Domain or Path) as absent, and tolerates malformed encoding and parts", () => {
    const duplicates = new Set<string>();
    expect(parseCookieHeader("a=1; a=2; junk; =x; e=%E0%A4%A; a=3", duplicates)).toEqual({ e: "%E0%A4%A" });
    expect([...duplicates]).toEqual(["a"]);
  });
  it("is safe with prototype-looking names", () => {
    const parsed = parseCookieHeader("__proto__=x; constructor=y");
    expect(Object.getOwnPropertyDescriptor(parsed, "__proto__")?.value).toBe("x");
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe("serializeCookie", () => {
  it("writes attributes", () => {
    const expires = new Date("2030-01-01T00:00:00Z");
    expect(
      serializeCookie("n", "v", { httpOnly: true, secure: true, sameSite: "lax", path: "/", expires, maxAge: 10 }),
    ).toBe("n=v; Max-Age=10; Path=/; Expires=Tue, 01 Jan 2030 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax");
  });
  it("percent-encodes values that need it and refuses bad names", () => {
    expect(serializeCookie("n", "a b;c")).toBe("n=a%20b%3Bc");
    expect(() => serializeCookie("bad name", "v")).toThrow(TypeError);
  });
});

describe("encodeCookieValue (the one encoding of a cookie value, whatever writes it)", () => {
  it("rule: any string becomes cookie-octets that read back as itself, so no value a request put in can write a cookie's attributes", () => {
    const hostile = fc.oneof(
      fc.string({ unit: "grapheme-composite" }),
      fc.string({ unit: fc.constantFrom(";", ",", " ", '"', "\\", "%", "=", "\r", "\n", "\t", "\u0000", "a", "/") }),
      fc.webUrl().map((url) => `${url};Domain=evil.example;Max-Age=99`),
    );
    fc.assert(
      fc.property(hostile, (value) => {
        const wire = encodeCookieValue(value);
        expect(wire).toMatch(COOKIE_OCTETS);
        expect(parseCookieHeader(`a=${wire}`).a).toBe(value);
        expect(serializeCookie("a", value)).toBe(`a=${wire}`);
      }),
      { numRuns: 500 },
    );
  });

  it("leaves Auth.js's own values as they are: a sealed token, a base64url id", () => {
    for (const value of ["eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..a_b-c.d_e", "85919e4df7bccfb1c40e"])
      expect(encodeCookieValue(value)).toBe(value);
  });
});

describe("chunked session cookies", () => {
  const options = { path: "/", httpOnly: true };
  const bound = {
    maxBytes: 12 * 1024,
    tooLarge: (size: number, max: number) => new CookieTooLarge(`${size} > ${max}`),
  };
  it("keeps a small value in one cookie", () => {
    expect(writeChunkedCookie({}, "s", "abc", options, bound)).toEqual([{ name: "s", value: "abc", options }]);
  });
  it("splits a large value into ordered chunks under 4 KB that read back whole", () => {
    const value = "x".repeat(9000);
    const cookies = writeChunkedCookie({}, "s", value, options, bound);
    expect(cookies.map((c) => c.name)).toEqual(["s.0", "s.1", "s.2"]);
    for (const c of cookies) expect(c.value.length + c.name.length).toBeLessThan(4096 - 100);
    const jar = Object.fromEntries(cookies.map((c) => [c.name, c.value]));
    expect(readChunkedCookie(jar, "s")).toBe(value);
  });
  it("expires stale chunks when the value shrinks, and the whole cookie when it grows", () => {
    const shrink = writeChunkedCookie({ "s.0": "a", "s.1": "b", "s.2": "c" }, "s", "small", options, bound);
    expect(shrink.find((c) => c.name === "s")?.value).toBe("small");
    expect(
      shrink
        .filter((c) => c.options?.maxAge === 0)
        .map((c) => c.name)
        .sort(),
    ).toEqual(["s.0", "s.1", "s.2"]);
    const grow = writeChunkedCookie({ s: "old" }, "s", "y".repeat(5000), options, bound);
    expect(grow.filter((c) => c.options?.maxAge === 0).map((c) => c.name)).toEqual(["s"]);
  });
  it("rule: every chunked cookie is bounded: past its bound nothing is written and the caller's error is thrown", () => {
    const value = "z".repeat(12 * 1024);
    expect(() => writeChunkedCookie({ "s.0": "a" }, "s", value, options, bound)).toThrow(CookieTooLarge);
    // Just under the bound (counted as the browser sends it back: `name=value; ` per chunk) is written.
    const fits = "z".repeat(12 * 1024 - 4 * ("s.0".length + 3));
    expect(cookieHeaderBytes(writeChunkedCookie({}, "s", fits, options, bound))).toBeLessThanOrEqual(12 * 1024);
  });
  it("clears every chunk the request carried, and only those", () => {
    const cleared = clearChunkedCookie({ s: "1", "s.0": "2", "s.x": "3", session: "4" }, "s", options);
    expect(cleared.map((c) => c.name).sort()).toEqual(["s", "s.0"]);
    expect(cleared.every((c) => c.value === "" && c.options?.maxAge === 0)).toBe(true);
  });
});
