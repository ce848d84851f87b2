/**
 * Attacks over HTTP against Express + Latchkey on loopback: Host / X-Forwarded-Host injection
 * with AUTH_URL set and with trustHost off, malformed Host headers, oversized cookies, and the
 * open-redirect and CSRF rules once over a real socket (the full matrices run in process in
 * packages/core/test/security/).
 */
import { request as httpRequest } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import OAuth2 from "@latchkey/core/providers/generic-oauth";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExpressAuth } from "../src/index.js";
import { listen } from "./helpers.js";

const SECRET = "express-security-secret-0123456789abcdef";
const AUTH_URL = "http://app.example:8080/auth";
const APP_ORIGIN = "http://app.example:8080";

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP/1.1 request with exactly these headers (Host included), no client-side rewriting. */
function raw(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: options.headers, setHost: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.setTimeout(10_000, () => req.destroy(new Error("no answer within 10 s")));
    req.end(options.body);
  });
}

function cookiesOf(r: Raw): string[] {
  const set = r.headers["set-cookie"];
  return Array.isArray(set) ? set : set ? [set] : [];
}

function jarHeader(...responses: Raw[]): string {
  const jar = new Map<string, string>();
  for (const r of responses) {
    for (const line of cookiesOf(r)) {
      const pair = line.split(";")[0] as string;
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

function authConfig(overrides: Partial<AuthConfig> = {}): AuthConfig & { mailed: string[] } {
  const mailed: string[] = [];
  return {
    mailed,
    secret: SECRET,
    rateLimit: false,
    logger: { error() {}, warn() {}, debug() {} },
    adapter: undefined,
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) =>
          c.username === "ada" && c.password === "lovelace"
            ? { id: "u1", name: "Ada", email: "ada@example.com" }
            : null,
      }),
      OAuth2({
        id: "oauth",
        name: "OAuth",
        clientId: "client",
        clientSecret: "secret",
        authorization: "http://127.0.0.1:9/authorize",
        token: "http://127.0.0.1:9/token",
        userinfo: "http://127.0.0.1:9/me",
      }),
    ],
    ...overrides,
  };
}

const EVIL_HEADERS = { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };

describe("over HTTP with AUTH_URL set: nothing is built from Host or X-Forwarded-Host", () => {
  let server: Awaited<ReturnType<typeof listen>>;
  let port: number;
  const saved = process.env.AUTH_URL;
  let config: ReturnType<typeof authConfig>;

  beforeAll(async () => {
    process.env.AUTH_URL = AUTH_URL;
    const { MemoryAdapter, createMemoryStore } = await import("@latchkey/core/memory-adapter");
    config = authConfig({ adapter: MemoryAdapter(createMemoryStore()), session: { strategy: "jwt" } });
    config.providers.push({
      id: "mail",
      name: "Mail",
      type: "email",
      sendVerificationRequest: ({ url }: { url: string }) => void config.mailed.push(url),
    } as never);
    const app = express();
    app.set("trust proxy", true); // even a trusting proxy setting must not beat AUTH_URL
    app.use("/auth", ExpressAuth(config));
    server = await listen(app);
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.AUTH_URL;
    else process.env.AUTH_URL = saved;
    await server?.close();
  });

  async function csrf(): Promise<{ token: string; cookie: string }> {
    const r = await raw(port, "/auth/csrf", { headers: EVIL_HEADERS });
    return { token: (JSON.parse(r.body) as { csrfToken: string }).csrfToken, cookie: jarHeader(r) };
  }

  function post(path: string, cookie: string, form: Record<string, string>): Promise<Raw> {
    return raw(port, path, {
      method: "POST",
      headers: { ...EVIL_HEADERS, cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
  }

  it("redirects (credentials callback, sign-out, sign-in page) keep the AUTH_URL origin", async () => {
    const { token, cookie } = await csrf();
    const signin = await post("/auth/callback/credentials", cookie, {
      csrfToken: token,
      username: "ada",
      password: "lovelace",
      callbackUrl: "/home",
    });
    expect(signin.headers.location).toBe(`${APP_ORIGIN}/home`);
    const withSession = `${cookie}; ${jarHeader(signin)}`;
    const out = await post("/auth/signout", withSession, { csrfToken: token, callbackUrl: "https://evil.example/" });
    expect(out.headers.location).toBe(APP_ORIGIN);
    const page = await raw(port, "/auth/signin?callbackUrl=%2F%2Fevil.example", { headers: EVIL_HEADERS });
    expect(page.status).toBe(200);
    expect(page.body).not.toMatch(/evil\.example/);
    expect(page.body).toMatch(/app\.example:8080\/auth\/callback\/credentials/);
  });

  it("the OAuth redirect_uri keeps the AUTH_URL origin", async () => {
    const { token, cookie } = await csrf();
    const start = await post("/auth/signin/oauth", cookie, { csrfToken: token });
    const authorize = new URL(start.headers.location as string);
    expect(authorize.origin).toBe("http://127.0.0.1:9");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${APP_ORIGIN}/auth/callback/oauth`);
  });

  it("the magic link keeps the AUTH_URL origin", async () => {
    const { token, cookie } = await csrf();
    const start = await post("/auth/signin/mail", cookie, { csrfToken: token, email: "ada@example.com" });
    expect(start.headers.location).toMatch(new RegExp(`^${APP_ORIGIN}/auth/verify-request`));
    const link = new URL(config.mailed.at(-1) as string);
    expect(link.origin).toBe(APP_ORIGIN);
    expect(new URL(link.searchParams.get("callbackUrl") as string).origin).toBe(APP_ORIGIN);
  });
});

describe("over HTTP without AUTH_URL", () => {
  let trusting: Awaited<ReturnType<typeof listen>>;
  let untrusted: Awaited<ReturnType<typeof listen>>;
  const saved = process.env.AUTH_URL;

  beforeAll(async () => {
    delete process.env.AUTH_URL;
    const a = express();
    a.use("/auth", ExpressAuth(authConfig({ trustHost: true })));
    trusting = await listen(a);
    const b = express();
    b.use("/auth", ExpressAuth(authConfig({ trustHost: false })));
    untrusted = await listen(b);
  });
  afterAll(async () => {
    if (saved !== undefined) process.env.AUTH_URL = saved;
    await trusting?.close();
    await untrusted?.close();
  });

  it("trustHost off: UntrustedHost, no redirect and no cookie built from the injected host", async () => {
    const port = Number(new URL(untrusted.url).port);
    for (const [method, path] of [
      ["GET", "/auth/signin"],
      ["GET", "/auth/session"],
      ["POST", "/auth/signout"],
      ["POST", "/auth/signin/oauth"],
    ]) {
      const r = await raw(port, path as string, {
        method,
        headers: { ...EVIL_HEADERS, "content-type": "application/x-www-form-urlencoded" },
        body: method === "POST" ? "csrfToken=x" : undefined,
      });
      expect(r.headers.location, `${method} ${path}`).toBeUndefined();
      expect(cookiesOf(r)).toEqual([]);
      expect(r.body).not.toMatch(/evil\.example/);
    }
  });

  it("X-Forwarded-Host is ignored unless Express trusts the proxy", async () => {
    const port = Number(new URL(trusting.url).port);
    const r = await raw(port, "/auth/signin", {
      headers: { host: `localhost:${port}`, "x-forwarded-host": "evil.example" },
    });
    expect(r.status).toBe(200);
    expect(r.body).not.toMatch(/evil\.example/);
  });

  it("a malformed Host header gets a 4xx, never a 5xx", async () => {
    const port = Number(new URL(trusting.url).port);
    const answers: Record<string, number> = {};
    for (const host of ["bad host", "a\\b", "[::1", "x:99999", "%00", "evil.example:abc", "a/b", "a?b", "a#b"]) {
      answers[host] = (await raw(port, "/auth/session", { headers: { host } })).status;
    }
    expect(Object.entries(answers).filter(([, status]) => status >= 500)).toEqual([]);
  });

  it("oversized cookies (20 KB) are answered, never with a 5xx", async () => {
    const port = Number(new URL(trusting.url).port);
    const big = `authjs.session-token=${"A".repeat(20 * 1024)}`;
    const r = await raw(port, "/auth/session", { headers: { host: `localhost:${port}`, cookie: big } });
    expect(r.status).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(500);
    const chunks = Array.from({ length: 4 }, (_, i) => `authjs.session-token.${i}=${"B".repeat(3000)}`).join("; ");
    const c = await raw(port, "/auth/session", { headers: { host: `localhost:${port}`, cookie: chunks } });
    expect(c.status).toBe(200);
    expect(c.body).toBe("null");
  });

  it("a forged CSRF token over HTTP signs nobody in and a foreign callbackUrl stays home", async () => {
    const port = Number(new URL(trusting.url).port);
    const host = { host: `localhost:${port}` };
    const first = await raw(port, "/auth/csrf", { headers: host });
    const cookie = jarHeader(first);
    const forged = await raw(port, "/auth/callback/credentials", {
      method: "POST",
      headers: { ...host, cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: "f".repeat(64), username: "ada", password: "lovelace" }).toString(),
    });
    expect(forged.headers.location).toMatch(/error=MissingCSRF/);
    expect(cookiesOf(forged).some((c) => c.startsWith("authjs.session-token="))).toBe(false);
    const token = (JSON.parse(first.body) as { csrfToken: string }).csrfToken;
    const good = await raw(port, "/auth/callback/credentials", {
      method: "POST",
      headers: { ...host, cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        csrfToken: token,
        username: "ada",
        password: "lovelace",
        callbackUrl: "/\\evil.example",
      }).toString(),
    });
    expect(new URL(good.headers.location as string).origin).toBe(`http://localhost:${port}`);
    expect(cookiesOf(good).some((c) => c.startsWith("authjs.session-token="))).toBe(true);
  });
});

describe("bad input never throws or 5xx over Express: redirect targets and inherited names", () => {
  let server: Awaited<ReturnType<typeof listen>>;
  let port: number;
  let host: Record<string, string>;
  let origin: string;
  const saved = process.env.AUTH_URL;

  beforeAll(async () => {
    delete process.env.AUTH_URL;
    const app = express();
    app.use("/auth", ExpressAuth(authConfig({ trustHost: true })));
    server = await listen(app);
    port = Number(new URL(server.url).port);
    origin = `http://localhost:${port}`;
    host = { host: `localhost:${port}` };
  });
  afterAll(async () => {
    if (saved !== undefined) process.env.AUTH_URL = saved;
    await server?.close();
  });

  /** A fresh CSRF token with its cookie, as a browser holds them. */
  async function csrf(): Promise<{ token: string; cookie: string }> {
    const r = await raw(port, "/auth/csrf", { headers: host });
    return { token: (JSON.parse(r.body) as { csrfToken: string }).csrfToken, cookie: jarHeader(r) };
  }

  // Each is a same-origin path an attacker can put into a link or a form.
  const paths = ["/€", "/a\u0000b", "/a\r\nSet-Cookie: pwned=1", "/\u2028x\u0085", "/a b\t?q=é#ü", "/\u007f%zz"];

  it("a same-origin callbackUrl with non-ASCII or control characters becomes a valid, encoded Location (form and JSON)", async () => {
    const answers = await Promise.all(
      paths.flatMap((target) =>
        ["form", "json", "json-lone-surrogate"].map(async (kind) => {
          const { token, cookie } = await csrf();
          const callbackUrl = kind === "json-lone-surrogate" ? `${target}\ud800` : target;
          const json = kind !== "form";
          const r = await raw(port, "/auth/signout", {
            method: "POST",
            headers: {
              ...host,
              cookie,
              "content-type": json ? "application/json" : "application/x-www-form-urlencoded",
            },
            body: json
              ? JSON.stringify({ csrfToken: token, callbackUrl })
              : new URLSearchParams({ csrfToken: token, callbackUrl }).toString(),
          });
          return { target, kind, r };
        }),
      ),
    );
    for (const { target, kind, r } of answers) {
      const what = `${kind} ${JSON.stringify(target)}`;
      expect(r.status, what).toBe(302);
      const location = r.headers.location as string;
      expect(location, what).toMatch(/^[\x21-\x7e]+$/);
      expect(new URL(location).origin, what).toBe(origin);
      expect(
        cookiesOf(r).some((c) => c.startsWith("pwned")),
        what,
      ).toBe(false);
    }
    // What the browser lands on is the path it was asked for, encoded: "/€" is "/%E2%82%AC".
    const euro = answers.find((a) => a.target === "/€" && a.kind === "form");
    expect(decodeURIComponent(new URL(euro?.r.headers.location as string).pathname)).toBe("/€");
  });

  it("?error= and ?code= named like Object.prototype members get the unknown-value page, no 5xx", async () => {
    const inherited = Object.getOwnPropertyNames(Object.prototype);
    const page = async (path: string) => {
      const r = await raw(port, path, { headers: host });
      expect(r.status, path).toBeLessThan(500);
      expect(r.body, path).not.toMatch(/\[native code\]|function \w*\(|at .*\.js:\d+/);
      return {
        status: r.status,
        alert: r.body.match(/role="alert"><p>(.*?)<\/p>/)?.[1],
        h1: r.body.match(/<h1>(.*?)<\/h1>/)?.[1],
      };
    };
    const unknownError = await page("/auth/error?error=NoSuchError");
    const unknownSignin = await page("/auth/signin?error=NoSuchError");
    expect(unknownSignin.alert).toBeTruthy();
    for (const name of inherited) {
      const q = encodeURIComponent(name);
      expect(await page(`/auth/error?error=${q}`), name).toEqual(unknownError);
      expect(await page(`/auth/signin?error=${q}&code=${q}`), name).toEqual(unknownSignin);
    }
  });
});
