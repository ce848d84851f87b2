/**
 * The small rules the endpoints stand on, one by one: OAuth's parameter rules (RFC 6749 §3.1),
 * redirect-URI matching (RFC 8252 §7.3), user codes (RFC 8628 §6.1) and `acr` from Latchkey's `amr`.
 */
import { describe, expect, it } from "vitest";
import { normalizeUserCode } from "../../src/lib/authorization-server/device.js";
import { OAuthError, Params } from "../../src/lib/authorization-server/http.js";
import { acrOf } from "../../src/lib/authorization-server/tokens.js";
import { isLoopbackHostname, matchRedirectUri } from "../../src/lib/authorization-server/uris.js";

describe("parameters", () => {
  it("treats an empty parameter as absent, refuses a repeated one, and lets only resource repeat", () => {
    const params = Params.fromSearch(
      new URLSearchParams("state=&scope=a&scope=b&resource=https://a&resource=https://b"),
    );
    expect(params.one("state")).toBeUndefined();
    expect(() => params.one("scope")).toThrow(OAuthError);
    expect(params.all("resource")).toEqual(["https://a", "https://b"]);
  });

  it("refuses an oversized value and a non-string value from a parsed body", () => {
    expect(() => Params.fromSearch(new URLSearchParams({ state: "x".repeat(5000) })).one("state")).toThrow(/too long/);
    expect(() => Params.fromRecord({ client_id: { nested: true } })).toThrow(/not a string/);
    expect(() => Params.fromRecord({ client_id: ["a", "b"] }).one("client_id")).toThrow(/more than once/);
  });
});

describe("redirect URIs", () => {
  it("matches exactly, or a loopback URI on any port, and defaults to the only registered one", () => {
    expect(matchRedirectUri(["https://a.example/cb"], "https://a.example/cb")).toBe("https://a.example/cb");
    expect(matchRedirectUri(["https://a.example/cb"], "https://a.example/cb?x=1")).toBeUndefined();
    expect(matchRedirectUri(["http://[::1]/cb"], "http://[::1]:4000/cb")).toBe("http://[::1]:4000/cb");
    expect(matchRedirectUri(["http://127.0.0.1:80/cb"], "http://127.0.0.1:9/cb")).toBe("http://127.0.0.1:9/cb");
    expect(matchRedirectUri(["https://a.example/cb"], undefined)).toBe("https://a.example/cb");
    expect(matchRedirectUri(["https://a.example/cb", "https://a.example/cb2"], undefined)).toBeUndefined();
  });

  it("knows loopback names only", () => {
    expect(["localhost", "127.0.0.1", "127.1.2.3", "[::1]"].every(isLoopbackHostname)).toBe(true);
    expect(["localhost.evil.example", "128.0.0.1", "::1", "0.0.0.0"].some(isLoopbackHostname)).toBe(false);
  });
});

describe("device user codes", () => {
  it("reads a typed code in any case, with any separator", () => {
    expect(normalizeUserCode(" bcdf-ghjk ")).toBe("BCDFGHJK");
    expect(normalizeUserCode("BCDF GHJK")).toBe("BCDFGHJK");
  });
});

describe("acr", () => {
  it("is two factors only when Latchkey's second factor was passed", () => {
    expect(acrOf(["pwd", "otp"])).toBe("urn:latchkey:acr:2fa");
    expect(acrOf(["pwd"])).toBe("urn:latchkey:acr:1fa");
    expect(acrOf([])).toBe("urn:latchkey:acr:1fa");
  });
});
