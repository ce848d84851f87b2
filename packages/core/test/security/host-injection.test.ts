/**
 * Host header injection (OWASP ASVS 5.1.5 / 14.5, RFC 9700 §4.1 redirect_uri integrity): with
 * `trustHost` off no action builds anything from the request's host; the core never reads
 * `X-Forwarded-Host` (only the URL the framework built from a host it trusts).
 */
import { describe, expect, it } from "vitest";
import { Auth } from "../../src/index.js";
import OAuth2 from "../../src/providers/generic-oauth.js";
import { CookieJar, call, csrfToken, demoCredentials, makeConfig, recordingLogger } from "../helpers.js";
import { expectOnOrigin } from "./support.js";

const EVIL = { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };

function oauthProvider() {
  return OAuth2({
    id: "oauth",
    name: "OAuth",
    clientId: "client",
    clientSecret: "secret",
    authorization: "http://127.0.0.1:9/authorize",
    token: "http://127.0.0.1:9/token",
    userinfo: "http://127.0.0.1:9/me",
  });
}

describe("Host / X-Forwarded-Host injection", () => {
  it("with trustHost off every action answers UntrustedHost and builds no redirect from the host", async () => {
    const log = recordingLogger();
    const config = makeConfig({
      trustHost: false,
      logger: log.logger,
      providers: [demoCredentials(), oauthProvider()],
    });
    const paths: Array<[string, "GET" | "POST"]> = [
      ["/auth/signin?callbackUrl=/x", "GET"],
      ["/auth/signin/oauth", "POST"],
      ["/auth/signout", "GET"],
      ["/auth/signout", "POST"],
      ["/auth/session", "GET"],
      ["/auth/csrf", "GET"],
      ["/auth/providers", "GET"],
      ["/auth/callback/credentials", "POST"],
      ["/auth/callback/oauth?code=x&state=y", "GET"],
      ["/auth/error", "GET"],
    ];
    for (const [path, method] of paths) {
      const response = await Auth(
        new Request(`http://evil.example${path}`, {
          method,
          headers: { ...EVIL, "content-type": "application/x-www-form-urlencoded" },
          body: method === "POST" ? "csrfToken=x&username=ada&password=lovelace" : undefined,
        }),
        config,
      );
      const location = response.headers.get("location");
      expect(location, `${method} ${path} redirected to ${location}`).toBeNull();
      expect(response.headers.getSetCookie(), `${method} ${path}`).toEqual([]);
      expect(await response.text()).not.toMatch(/evil\.example/);
      expect([500, 200]).toContain(response.status);
    }
    expect(log.errors.every((e) => (e as { type?: string }).type === "UntrustedHost")).toBe(true);
    expect(log.errors).toHaveLength(paths.length);
  });

  it("with trustHost off and a custom error page, the error redirect is relative to nothing the attacker sent", async () => {
    const config = makeConfig({ trustHost: false, pages: { error: "/oops" }, logger: recordingLogger().logger });
    const response = await Auth(new Request("http://evil.example/auth/signin", { headers: EVIL }), config);
    // The page path is the application's own; the origin is the request URL's, which a framework
    // builds only from a host it trusts (see packages/express/test/security.test.ts for AUTH_URL).
    expect(response.headers.get("location")).toMatch(/\/oops\?error=Configuration$/);
  });

  it("the core ignores X-Forwarded-Host: redirects, the OAuth redirect_uri and the sign-in page use the request URL", async () => {
    const config = makeConfig({ providers: [demoCredentials(), oauthProvider()], rateLimit: false });
    const headers = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const start = await call(config, "/auth/signin/oauth", { jar, form: { csrfToken: token }, headers });
    const authorize = new URL(start.headers.get("location") as string);
    expectOnOrigin(authorize.searchParams.get("redirect_uri"));
    const signin = await call(config, "/auth/callback/credentials", {
      jar,
      form: { csrfToken: token, username: "ada", password: "lovelace", callbackUrl: "/home" },
      headers,
    });
    expect(signin.headers.get("location")).toBe("http://localhost:3000/home");
    const page = await call(config, "/auth/signin", { headers });
    expect(await page.text()).not.toMatch(/evil\.example/);
    const providers = (await (await call(config, "/auth/providers", { headers })).json()) as Record<
      string,
      { callbackUrl: string }
    >;
    for (const p of Object.values(providers)) expectOnOrigin(p.callbackUrl);
  });
});
