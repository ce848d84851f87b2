import "./next-internals.js";

/**
 * What `@latchkey/next`'s Server Actions write through Next.js's cookie store, as Next.js turns
 * it into `Set-Cookie`: every value cookie-octets, whatever the request put in it (issue 34.6;
 * the SvelteKit shell's own test is packages/sveltekit/test/cookie-values.test.ts).
 */
import { NextAuth } from "@latchkey/next";
import GitHub from "@latchkey/next/providers/github";
import { describe, expect, it } from "vitest";
import { expectCookieOctets } from "../../../test/support/cookie-octets.js";
import { inNextRequest } from "./next-internals.js";

const SECRET = "a-test-secret-of-at-least-thirty-two-characters";
const ORIGIN = "http://localhost:3000";

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
      const { attributes, value } = expectCookieOctets(out.setCookies, "authjs.callback-url");
      expect(attributes.map((a) => a.split("=")[0])).toEqual(["Path", "HttpOnly", "SameSite"]);
      expect(value).toBe(new URL(referer).href);
    },
  );
});
