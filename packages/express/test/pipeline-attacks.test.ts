/**
 * Attacks on what the Express shell used to decide for itself, now decided once by the core's
 * pipeline: the host it trusts, the secrets it accepts, the configuration and limiter state per
 * mount-path spelling, and a `trust proxy` that lets clients pick their own address.
 */
import { request as httpRequest } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import { encode } from "@latchkey/core/jwt";
import Credentials from "@latchkey/core/providers/credentials";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { ExpressAuth, getSession } from "../src/index.js";
import { Jar, listen } from "./helpers.js";

const OLD = "pipeline-attacks-old-secret-0123456789abcdef";
const NEW = "pipeline-attacks-new-secret-0123456789abcdef";

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
  delete process.env.AUTH_URL;
  delete process.env.AUTH_TRUST_HOST;
});

function logs() {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    logger: {
      warn: (code: string) => void warnings.push(code),
      error: (e: Error) => void errors.push(`${(e as { type?: string }).type ?? e.name}: ${e.message}`),
      debug() {},
    },
  };
}

function credentials(authorize: (c: Record<string, unknown>) => unknown = () => null) {
  return Credentials({
    credentials: { username: {}, password: {} },
    authorize: (c) => authorize(c) as never,
  });
}

async function start(app: express.Express): Promise<string> {
  const { url, close } = await listen(app);
  closers.push(close);
  return url;
}

/** One request with exactly this Host header (fetch would set its own). */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers, setHost: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("host trust fails closed: only AUTH_URL, AUTH_TRUST_HOST, trustHost or a loopback name make a host usable", () => {
  it("a foreign Host without any of them gets the configuration error that names the fix, and no CSRF cookie or link", async () => {
    const { logger, errors } = logs();
    const app = express();
    app.use("/auth", ExpressAuth({ secret: NEW, logger, providers: [credentials()] }));
    const url = await start(app);
    for (const path of ["/auth/csrf", "/auth/signin", "/auth/providers"]) {
      const answer = await rawGet(url, path, { host: "login.evil.example" });
      expect(answer.status).toBe(500);
      expect(answer.body).not.toContain("evil");
    }
    expect(errors.some((e) => e.startsWith("UntrustedHost") && e.includes("AUTH_URL"))).toBe(true);
  });
  it("NODE_ENV does not matter: unset or development, a foreign Host is still refused", async () => {
    const before = process.env.NODE_ENV;
    try {
      for (const value of [undefined, "development"]) {
        if (value === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = value;
        const app = express();
        app.use("/auth", ExpressAuth({ secret: NEW, logger: logs().logger, providers: [credentials()] }));
        const url = await start(app);
        expect((await rawGet(url, "/auth/csrf", { host: "login.evil.example" })).status).toBe(500);
      }
    } finally {
      process.env.NODE_ENV = before;
    }
  });
  it("loopback names work with no setting at all (local development), and so does an explicit AUTH_TRUST_HOST", async () => {
    const app = express();
    app.use("/auth", ExpressAuth({ secret: NEW, logger: logs().logger, providers: [credentials()] }));
    const url = await start(app);
    for (const host of ["localhost:3000", "127.0.0.1", "[::1]:8080", "app.localhost"]) {
      const answer = await rawGet(url, "/auth/csrf", { host });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).csrfToken).toMatch(/^[0-9a-f]{64}$/);
    }
    process.env.AUTH_TRUST_HOST = "true";
    const trusting = express();
    trusting.use("/auth", ExpressAuth({ secret: NEW, logger: logs().logger, providers: [credentials()] }));
    expect((await rawGet(await start(trusting), "/auth/csrf", { host: "app.example" })).status).toBe(200);
  });
  it("getSession refuses to read a session for an untrusted host instead of guessing its cookie set", async () => {
    // Issue 35.1, the one session read's failure policy: refused as no session, UntrustedHost logged (it threw before).
    const log = logs();
    const config: AuthConfig = { secret: NEW, logger: log.logger, providers: [credentials()] };
    const req = { headers: { host: "login.evil.example" }, protocol: "http", socket: {} } as never;
    await expect(getSession(req, config)).resolves.toBeNull();
    expect(log.errors.some((e) => e.startsWith("UntrustedHost"))).toBe(true);
  });
});

describe("one configuration and one limiter per application configuration, whatever the mount path looks like", () => {
  it("mount paths in any case share one failure counter: /auth, /AUTH, /Auth give no extra guesses", async () => {
    let calls = 0;
    const config: AuthConfig = {
      secret: NEW,
      logger: logs().logger,
      rateLimit: { credentialsPerIdentifier: { max: 3, windowSeconds: 60 } },
      providers: [credentials(() => void calls++)],
    };
    const app = express();
    app.use("/auth", ExpressAuth(config));
    const url = await start(app);
    const statuses: number[] = [];
    for (const base of ["/auth", "/AUTH", "/Auth", "/aUTH", "/auTH", "/AuTh"]) {
      const jar = new Jar();
      const { csrfToken } = (await (await jar.fetch(`${url}${base}/csrf`)).json()) as { csrfToken: string };
      const answer = await jar.fetch(`${url}${base}/callback/credentials`, {
        form: { csrfToken, username: "victim", password: `guess-${base}` },
        headers: { accept: "application/json" },
      });
      statuses.push(answer.status);
    }
    expect(calls).toBe(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
  });
  it("a parameterised mount (/:tenant/auth) resolves the configuration once for 2,000 tenants", async () => {
    const { logger, warnings } = logs();
    const config: AuthConfig = { secret: NEW, logger, debug: true, providers: [credentials()] };
    const app = express();
    app.use("/:tenant/auth", ExpressAuth(config));
    const url = await start(app);
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const answer = await fetch(`${url}/tenant-${batch}-${i}/auth/providers`);
          const body = (await answer.json()) as Record<string, { signinUrl: string }>;
          // URLs follow the tenant the request came through
          expect(body.credentials?.signinUrl).toBe(`${url}/tenant-${batch}-${i}/auth/signin/credentials`);
        }),
      );
    }
    // `debug: true` warns once per resolution: one warning means one resolved configuration.
    expect(warnings.filter((w) => w === "debug-enabled")).toHaveLength(1);
  });
});

describe("a retired secret ends its sessions on the next request, in every entry point", () => {
  async function oldSession(): Promise<string> {
    const token = await encode({ token: { name: "Ada", sub: "u1" }, secret: OLD, salt: "authjs.session-token" });
    return `authjs.session-token=${token}`;
  }
  async function sessionOver(url: string, cookie: string) {
    return (await fetch(`${url}/auth/session`, { headers: { cookie } })).json();
  }
  it("reassigning config.secret: ExpressAuth and getSession stop accepting the old secret at once", async () => {
    const config: AuthConfig = { secret: [NEW, OLD], logger: logs().logger, providers: [credentials()] };
    const app = express();
    app.use("/auth", ExpressAuth(config));
    app.get("/me", async (req, res) => void res.json(await getSession(req, config)));
    const url = await start(app);
    const cookie = await oldSession();
    expect(await sessionOver(url, cookie)).toMatchObject({ user: { name: "Ada" } });
    expect(await (await fetch(`${url}/me`, { headers: { cookie } })).json()).toMatchObject({ user: { name: "Ada" } });
    config.secret = [NEW];
    expect(await sessionOver(url, cookie)).toBeNull();
    expect(await (await fetch(`${url}/me`, { headers: { cookie } })).json()).toBeNull();
  });
  it("changing the secret array in place, and retiring a jwt.secret, are noticed too", async () => {
    const secrets = [NEW, OLD];
    const config: AuthConfig = { secret: secrets, logger: logs().logger, providers: [credentials()] };
    const app = express();
    app.use("/auth", ExpressAuth(config));
    app.get("/me", async (req, res) => void res.json(await getSession(req, config)));
    const url = await start(app);
    const cookie = await oldSession();
    expect(await sessionOver(url, cookie)).toMatchObject({ user: { name: "Ada" } });
    secrets.pop();
    expect(await sessionOver(url, cookie)).toBeNull();
    expect(await (await fetch(`${url}/me`, { headers: { cookie } })).json()).toBeNull();

    const withJwtSecret: AuthConfig = {
      secret: NEW,
      jwt: { secret: [NEW, OLD] },
      logger: logs().logger,
      providers: [credentials()],
    };
    const second = express();
    second.use("/auth", ExpressAuth(withJwtSecret));
    const url2 = await start(second);
    expect(await sessionOver(url2, cookie)).toMatchObject({ user: { name: "Ada" } });
    (withJwtSecret.jwt as { secret: string[] }).secret = [NEW];
    expect(await sessionOver(url2, cookie)).toBeNull();
  });
});

describe("a trust proxy that lets any client choose its address is pointed out", () => {
  it("`trust proxy` = true is warned about once per configuration, not per request; a hop count is not", async () => {
    const { logger, warnings } = logs();
    const config: AuthConfig = { secret: NEW, logger, providers: [credentials()] };
    const app = express();
    app.set("trust proxy", true);
    app.use("/auth", ExpressAuth(config));
    const url = await start(app);
    await Promise.all(Array.from({ length: 20 }, () => fetch(`${url}/auth/csrf`)));
    expect(warnings.filter((w) => w === "trust-proxy-all")).toHaveLength(1);

    const counted = logs();
    const hops = express();
    hops.set("trust proxy", 1);
    hops.use("/auth", ExpressAuth({ secret: NEW, logger: counted.logger, providers: [credentials()] }));
    await fetch(`${await start(hops)}/auth/csrf`);
    expect(counted.warnings).not.toContain("trust-proxy-all");
  });
});
