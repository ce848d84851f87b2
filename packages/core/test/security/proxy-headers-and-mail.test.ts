/**
 * Which host decides what (issue 34 item 2). A proxy's headers (`X-Forwarded-Host`,
 * `X-Forwarded-Proto`, `Forwarded`) are read only behind a proxy the application names
 * (`trustProxy`), and then only the kind it names, last entry first; a link mailed to someone is
 * built from `AUTH_URL` or one of `trustedOrigins` (or a loopback name), never from a host the
 * request names, `trustHost: true` or not (OWASP Forgot Password Cheat Sheet: password reset
 * poisoning; RFC 7239). Every shell runs the same over HTTP with a real SMTP server:
 * `@latchkey/adapter-test/hostile-hosts`.
 */
import { describe, expect, it } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { setEnvDefaults } from "../../src/index.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import { CookieJar, call, makeConfig, recordingLogger } from "../helpers.js";

/** A configuration mailing magic links through the application's own `sendVerificationRequest`. */
function mailing(overrides: Partial<AuthConfig> = {}) {
  const log = recordingLogger();
  const sent: string[] = [];
  const config = makeConfig({
    adapter: MemoryAdapter(),
    rateLimit: false,
    logger: log.logger,
    providers: [
      Nodemailer({
        server: "smtp://127.0.0.1:9",
        from: "no-reply@app.example",
        sendVerificationRequest: ({ url }) => void sent.push(url),
      }),
    ],
    ...overrides,
  });
  return { config, sent, log };
}

/** The magic-link form, sent to `origin` with `headers`: its answer. */
async function askLink(config: AuthConfig, origin: string, headers: Record<string, string> = {}) {
  const jar = new CookieJar();
  const response = await call(config, "/auth/csrf", { jar, origin, headers });
  const { csrfToken: token } = (await response.json()) as { csrfToken: string };
  return call(config, "/auth/signin/nodemailer", {
    jar,
    origin,
    headers,
    form: { csrfToken: token, email: "victim@example.com" },
  });
}

/** The origin of the sign-in page's form actions: where the request's answers point. */
async function answersPointTo(config: AuthConfig, origin: string, headers: Record<string, string>) {
  const response = await call(config, "/auth/providers", { origin, headers });
  const providers = (await response.json()) as Record<string, { signinUrl: string }>;
  return new URL(Object.values(providers)[0]?.signinUrl ?? "").origin;
}

describe("a proxy's headers: read only behind a proxy the application names", () => {
  const hostile = {
    "x-forwarded-host": "evil.example",
    "x-forwarded-proto": "https",
    forwarded: "host=evil.example;proto=https",
  };

  it("without trustProxy, no proxy header decides where the answers point (trustHost: true): the host the request arrived at does", async () => {
    const { config } = mailing();
    expect(await answersPointTo(config, "http://app.example", hostile)).toBe("http://app.example");
  });

  it("trustProxy: true reads the last X-Forwarded-Host and X-Forwarded-Proto entries (the proxy's), never a client's Forwarded", async () => {
    const { config } = mailing({ trustProxy: true });
    const proxied = { "x-forwarded-host": "evil.example, app.example", "x-forwarded-proto": "http, https" };
    expect(await answersPointTo(config, "http://10.0.0.5:3000", proxied)).toBe("https://app.example");
    const forged = { forwarded: "host=evil.example;proto=https" };
    expect(await answersPointTo(config, "http://app.example", forged)).toBe("http://app.example");
  });

  it('trustProxy: "forwarded" reads the last Forwarded element (quoted, with a port), never a client\'s X-Forwarded-Host', async () => {
    const { config } = mailing({ trustProxy: "forwarded" });
    const proxied = {
      forwarded: 'for=203.0.113.9;host=evil.example, for="[2001:db8::1]";host="app.example:8443";proto=https',
    };
    expect(await answersPointTo(config, "http://10.0.0.5:3000", proxied)).toBe("https://app.example:8443");
    const forged = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
    expect(await answersPointTo(config, "http://app.example", forged)).toBe("http://app.example");
  });

  it("a malformed host in the proxy's header is a 400, never a 5xx", async () => {
    const { config } = mailing({ trustProxy: "forwarded" });
    const response = await call(config, "/auth/providers", {
      origin: "http://app.example",
      headers: { forwarded: 'host="evil.example/path"' },
    });
    expect(response.status).toBe(400);
  });

  it("a proxy header the application did not name is warned about once, naming trustProxy and AUTH_URL", async () => {
    const { config, log } = mailing();
    for (let i = 0; i < 3; i++)
      await answersPointTo(config, "http://app.example", { "x-forwarded-host": "www.app.example" });
    expect(log.warnings.filter((w) => w === "forwarded-host-ignored")).toHaveLength(1);
    const quiet = mailing({ trustProxy: true });
    await answersPointTo(quiet.config, "http://app.example", { "x-forwarded-host": "www.app.example" });
    expect(quiet.log.warnings).not.toContain("forwarded-host-ignored");
  });
});

describe("a mailed link: from AUTH_URL or trustedOrigins, never from a host the request names", () => {
  it("attack: with trustHost: true and neither AUTH_URL nor trustedOrigins, a magic link asked for at another host is not sent; the answer is a success's and the operator is told the fix", async () => {
    const { config, sent, log } = mailing();
    const answer = await askLink(config, "http://evil.example");
    expect(answer.status).toBe(302);
    expect(new URL(answer.headers.get("location") ?? "").pathname).toBe("/auth/verify-request");
    expect(sent).toEqual([]);
    const [error] = log.errors;
    expect(error?.message).toMatch(/was not sent.*http:\/\/evil\.example.*AUTH_URL.*trustedOrigins/);
    // The same request at a loopback name mails (a link there reaches only its reader's machine).
    await askLink(config, "http://localhost:3000");
    expect(sent.map((url) => new URL(url).origin)).toEqual(["http://localhost:3000"]);
  });

  it("attack: behind a named proxy, a forwarded host that is not one of trustedOrigins mails nothing; one that is mails its links", async () => {
    const { config, sent } = mailing({
      trustProxy: true,
      trustedOrigins: ["https://app.example", "https://www.app.example"],
    });
    await askLink(config, "http://10.0.0.5:3000", { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" });
    await askLink(config, "http://10.0.0.5:3000", { "x-forwarded-host": "app.example", "x-forwarded-proto": "http" });
    expect(sent).toEqual([]);
    await askLink(config, "http://10.0.0.5:3000", {
      "x-forwarded-host": "www.app.example",
      "x-forwarded-proto": "https",
    });
    expect(sent.map((url) => new URL(url).origin)).toEqual(["https://www.app.example"]);
  });

  it("trustedOrigins trust their hosts without trustHost; any other host stays untrusted (UntrustedHost, nothing built)", async () => {
    const { config, sent } = mailing({ trustHost: false, trustedOrigins: ["https://app.example"] });
    expect((await askLink(config, "https://app.example")).status).toBe(302);
    expect(sent.map((url) => new URL(url).origin)).toEqual(["https://app.example"]);
    const refused = await call(config, "/auth/csrf", { origin: "https://evil.example" });
    expect(refused.status).toBe(500);
    expect(refused.headers.getSetCookie()).toEqual([]);
  });

  it("AUTH_URL decides the link whatever host the request names", async () => {
    const before = process.env.AUTH_URL;
    process.env.AUTH_URL = "https://app.example/auth";
    try {
      const { config, sent } = mailing();
      await askLink(config, "http://evil.example", { "x-forwarded-host": "evil.example" });
      expect(sent.map((url) => new URL(url).origin)).toEqual(["https://app.example"]);
    } finally {
      if (before === undefined) delete process.env.AUTH_URL;
      else process.env.AUTH_URL = before;
    }
  });
});

describe("the options and their environment", () => {
  it("refuses a trustedOrigins entry that is not an origin, and a trustProxy that names no header, naming the fix", async () => {
    for (const entry of ["app.example", "https://app.example/auth", "ftp://app.example", "https://app.example?x"]) {
      const { config, log } = mailing({ trustedOrigins: [entry] });
      const response = await call(config, "/auth/session", { origin: "http://localhost:3000" });
      expect(response.status, entry).toBe(500);
      expect(log.errors[0]?.message, entry).toMatch(/must be an origin.*https:\/\/app\.example/);
    }
    const { config, log } = mailing({ trustProxy: "x-forwarded" as never });
    expect((await call(config, "/auth/session", { origin: "http://localhost:3000" })).status).toBe(500);
    expect(log.errors[0]?.message).toMatch(/`trustProxy` must be true .* "forwarded"/);
  });

  it("reads AUTH_TRUST_PROXY and AUTH_TRUSTED_ORIGINS, and on Vercel its proxy and its own domains", () => {
    const plain: AuthConfig = { providers: [] };
    setEnvDefaults(
      { AUTH_TRUST_PROXY: "forwarded", AUTH_TRUSTED_ORIGINS: "https://a.example, https://b.example" },
      plain,
    );
    expect(plain.trustProxy).toBe("forwarded");
    expect(plain.trustedOrigins).toEqual(["https://a.example", "https://b.example"]);
    const vercel: AuthConfig = { providers: [] };
    setEnvDefaults(
      { VERCEL: "1", VERCEL_URL: "app-git-x.vercel.app", VERCEL_PROJECT_PRODUCTION_URL: "app.example" },
      vercel,
    );
    expect(vercel.trustProxy).toBe(true);
    expect(vercel.trustedOrigins).toEqual(["https://app.example", "https://app-git-x.vercel.app"]);
    const none: AuthConfig = { providers: [] };
    setEnvDefaults({ AUTH_TRUST_HOST: "true" }, none);
    expect(none.trustProxy).toBeUndefined();
    expect(none.trustedOrigins).toBeUndefined();
  });
});
