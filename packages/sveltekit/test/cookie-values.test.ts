/**
 * What `@latchkey/sveltekit`'s form actions write through `event.cookies`, on the SvelteKit demo
 * as Vite and adapter-node build it: every value in Latchkey's one encoding (`encodeCookieValue`),
 * whatever the request put in it (issue 34.6).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type DemoProcess, startDemoProcess } from "../../../examples/express-demo/test/support.js";
import { Jar } from "../../../test/frameworks/http.js";
import { buildSvelteKitDemo, svelteKitServer } from "../../../test/frameworks/sveltekit-build.js";
import { expectCookieOctets } from "../../../test/support/cookie-octets.js";

let demo: DemoProcess;
beforeAll(async () => {
  await buildSvelteKitDemo();
  demo = await startDemoProcess({}, undefined, svelteKitServer);
}, 180_000 * inject("timeScale"));
afterAll(() => demo?.stop());

describe("cookies the form actions write", () => {
  it.each([
    ["attributes after a ';'", "/login;Domain=evil.example;Max-Age=31536000;SameSite=None"],
    ["a comma and a backslash", "/login;x,Secure\\y"],
  ])(
    "attack: a same-origin Referer with %s (the callback URL of a form action's sign-in) never writes the cookie's attributes nor fails the action: every value is cookie-octets, and the callback URL reads back whole",
    async (_, path) => {
      const jar = new Jar();
      const referer = `${demo.url}${path}`;
      const response = await jar.fetch(`${demo.url}/login?/signin`, {
        form: { providerId: "demo-idp" },
        headers: { origin: demo.url, accept: "text/html", referer },
      });
      expect(response.status).toBe(303);
      const { attributes, value } = expectCookieOctets(response.headers.getSetCookie(), "authjs.callback-url");
      // Only the attributes Latchkey gives it: no Domain, no Max-Age, no SameSite=None.
      expect(attributes).toEqual(["Path=/", "HttpOnly", "SameSite=Lax"]);
      expect(value).toBe(new URL(referer).href);
    },
  );
});
