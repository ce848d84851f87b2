import "./next-internals.js";

/**
 * What `@latchkey/next`'s Server Actions write through Next.js's cookie store, as Next.js turns
 * it into `Set-Cookie`: every value cookie-octets, whatever the request put in it (issue 34.6;
 * the SvelteKit shell's own test is packages/sveltekit/test/cookie-values.test.ts).
 */
import { NextAuth } from "@latchkey/next";
import GitHub from "@latchkey/next/providers/github";
import { describe, expect, it } from "vitest";
import { inNextRequest } from "./next-internals.js";

const SECRET = "a-test-secret-of-at-least-thirty-two-characters";
const ORIGIN = "http://localhost:3000";

/** RFC 6265 §4.1.1 cookie-value: cookie-octets only (no CTL, white space, DQUOTE, comma, semicolon or backslash). */
const COOKIE_OCTETS = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

describe("cookies the Server Actions write", () => {
  it.each([
    ["attributes after a ';'", "/login;Domain=evil.example;Max-Age=31536000;SameSite=None"],
    ["a comma and a backslash", "/login;x,Secure\\y"],
  ])(
    "attack: a same-origin Referer with %s (the callback URL of signIn) never writes the cookie's attributes: every value is cookie-octets, and the callback URL reads back whole",
    async (_, path) => {
      const { signIn } = NextAuth({ secret: SECRET, providers: [GitHub({ clientId: "id", clientSecret: "secret" })] });
      const referer = `${ORIGIN}${path}`;
      const out = await inNextRequest(
        `${ORIGIN}/login`,
        { origin: ORIGIN, "sec-fetch-site": "same-origin", referer },
        () => signIn("github"),
      );
      expect(new URL(out.redirectedTo as string).host).toBe("github.com");
      expect(out.setCookies.length).toBeGreaterThan(0);
      for (const line of out.setCookies) {
        const [pair = ""] = line.split(";");
        expect(pair.slice(pair.indexOf("=") + 1), line).toMatch(COOKIE_OCTETS);
      }
      const callback = out.setCookies.find((line) => line.startsWith("authjs.callback-url="));
      const [pair = "", ...attributes] = (callback as string).split(";").map((part) => part.trim());
      expect(attributes.map((a) => a.split("=")[0])).toEqual(["Path", "HttpOnly", "SameSite"]);
      expect(decodeURIComponent(pair.slice(pair.indexOf("=") + 1))).toBe(new URL(referer).href);
    },
  );
});
