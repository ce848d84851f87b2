import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import type { AuthConfig } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import express5 from "express";
import express4 from "express4";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ExpressAuth, getSession } from "../src/index.js";
import { Jar, listen } from "./helpers.js";

const SECRET = "express-test-secret-0123456789abcdefghi";

function config(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: { error() {}, warn() {}, debug() {} },
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: async (c) =>
          c.username === "ada" && c.password === "lovelace"
            ? { id: "u1", name: "Ada", email: "ada@example.com" }
            : null,
      }),
    ],
    ...overrides,
  };
}

type Express = typeof express5;

function buildApp(
  express: Express,
  authConfig: AuthConfig,
  options: { trustProxy?: boolean; bodyParser?: boolean } = {},
) {
  const app = express();
  if (options.trustProxy) app.set("trust proxy", true);
  if (options.bodyParser) app.use(express.urlencoded({ extended: false }), express.json());
  app.use("/auth", ExpressAuth(authConfig));
  // one route protected on its own (spec §5.10)
  app.get("/me", async (req, res) => {
    const session = await getSession(req, authConfig);
    if (!session?.user) return res.redirect("/auth/signin?callbackUrl=/me");
    res.json(session);
  });
  // a router protected as a group
  const admin = express.Router();
  admin.use(async (req, res, next) => {
    const session = await getSession(req, authConfig);
    if (!session?.user) return res.status(401).json({ error: "signed out" });
    res.locals.session = session;
    next();
  });
  admin.get("/stats", (_req, res) => res.json({ user: res.locals.session.user.name }));
  app.use("/admin", admin);
  return app;
}

async function credentialsSignIn(base: string, jar: Jar, form: Record<string, string> = {}): Promise<Response> {
  const { csrfToken } = (await (await jar.fetch(`${base}/auth/csrf`)).json()) as { csrfToken: string };
  return jar.fetch(`${base}/auth/callback/credentials`, {
    form: { csrfToken, username: "ada", password: "lovelace", ...form },
  });
}

for (const [label, express] of [
  ["Express 4", express4 as unknown as Express],
  ["Express 5", express5],
] as const) {
  describe(`${label}`, () => {
    const authConfig = config();
    let server: Awaited<ReturnType<typeof listen>>;
    beforeAll(async () => {
      server = await listen(buildApp(express, authConfig));
    });
    afterAll(() => server.close());

    it("serves csrf and providers with the right status, headers and cookies", async () => {
      const jar = new Jar();
      const csrf = await jar.fetch(`${server.url}/auth/csrf`);
      expect(csrf.status).toBe(200);
      expect(csrf.headers.get("content-type")).toMatch(/application\/json/);
      expect(csrf.headers.getSetCookie()).toHaveLength(1);
      const providers = (await (await jar.fetch(`${server.url}/auth/providers`)).json()) as Record<
        string,
        { callbackUrl: string }
      >;
      expect(providers.credentials?.callbackUrl).toBe(`${server.url}/auth/callback/credentials`);
    });

    it("signs in with credentials over a socket, reads the session, protects routes, signs out", async () => {
      const jar = new Jar();
      expect((await jar.fetch(`${server.url}/me`)).headers.get("location")).toBe("/auth/signin?callbackUrl=/me");
      expect((await jar.fetch(`${server.url}/admin/stats`)).status).toBe(401);
      const signin = await credentialsSignIn(server.url, jar, { callbackUrl: "/me" });
      expect(signin.status).toBe(302);
      expect(signin.headers.get("location")).toBe(`${server.url}/me`);
      expect(signin.headers.getSetCookie().length).toBeGreaterThanOrEqual(2);
      const session = (await (await jar.fetch(`${server.url}/auth/session`)).json()) as { user: { name: string } };
      expect(session.user.name).toBe("Ada");
      expect(((await (await jar.fetch(`${server.url}/me`)).json()) as { user: { email: string } }).user.email).toBe(
        "ada@example.com",
      );
      expect(await (await jar.fetch(`${server.url}/admin/stats`)).json()).toEqual({ user: "Ada" });
      const { csrfToken } = (await (await jar.fetch(`${server.url}/auth/csrf`)).json()) as { csrfToken: string };
      const signout = await jar.fetch(`${server.url}/auth/signout`, { form: { csrfToken } });
      expect(signout.status).toBe(302);
      expect(await (await jar.fetch(`${server.url}/auth/session`)).json()).toBeNull();
      expect((await jar.fetch(`${server.url}/admin/stats`)).status).toBe(401);
    });

    it("serves the built-in sign-in page and answers 400 to unknown actions", async () => {
      const page = await fetch(`${server.url}/auth/signin`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(`action="${server.url}/auth/callback/credentials"`);
      const unknown = await fetch(`${server.url}/auth/nope`);
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({ error: "UnknownAction" });
    });

    it("a wrong password redirects with CredentialsSignin and no session", async () => {
      const jar = new Jar();
      const response = await credentialsSignIn(server.url, jar, { password: "nope" });
      expect(response.headers.get("location")).toBe(
        `${server.url}/auth/signin?error=CredentialsSignin&code=credentials`,
      );
      expect([...jar.cookies.keys()].some((k) => k.startsWith("authjs.session-token"))).toBe(false);
    });

    it("getSession does not re-seal the token", async () => {
      const jar = new Jar();
      await credentialsSignIn(server.url, jar);
      const response = await jar.fetch(`${server.url}/me`);
      expect(response.headers.getSetCookie()).toEqual([]);
    });

    it("works behind a body parser the application already mounted", async () => {
      const withParser = await listen(buildApp(express, config(), { bodyParser: true }));
      try {
        const jar = new Jar();
        expect((await credentialsSignIn(withParser.url, jar)).status).toBe(302);
        expect(await (await jar.fetch(`${withParser.url}/auth/session`)).json()).toMatchObject({
          user: { name: "Ada" },
        });
      } finally {
        await withParser.close();
      }
    });

    it("honours trust proxy for protocol and host, and ignores forwarded headers without it", async () => {
      const headers = { "x-forwarded-proto": "https", "x-forwarded-host": "app.example" };
      const trusted = await listen(buildApp(express, config(), { trustProxy: true }));
      try {
        const response = await fetch(`${trusted.url}/auth/providers`, { headers });
        expect(((await response.json()) as Record<string, { signinUrl: string }>).credentials?.signinUrl).toBe(
          "https://app.example/auth/signin/credentials",
        );
        const csrf = await fetch(`${trusted.url}/auth/csrf`, { headers });
        expect(csrf.headers.getSetCookie()[0]).toMatch(/^__Host-authjs\.csrf-token=.*Secure/);
      } finally {
        await trusted.close();
      }
      const untrusted = await fetch(`${server.url}/auth/providers`, { headers });
      expect(((await untrusted.json()) as Record<string, { signinUrl: string }>).credentials?.signinUrl).toBe(
        `${server.url}/auth/signin/credentials`,
      );
    });

    it("uses the mount path as basePath", async () => {
      const app = express();
      const c = config();
      app.use("/api/auth", ExpressAuth(c));
      const mounted = await listen(app);
      try {
        const providers = (await (await fetch(`${mounted.url}/api/auth/providers`)).json()) as Record<
          string,
          { signinUrl: string }
        >;
        expect(providers.credentials?.signinUrl).toBe(`${mounted.url}/api/auth/signin/credentials`);
      } finally {
        await mounted.close();
      }
    });
  });
}

describe("configuration errors over Express", () => {
  it("a missing secret gives a 500 JSON message and a logged error, not a crash", async () => {
    const error = vi.fn();
    const app = express5();
    app.use("/auth", ExpressAuth({ providers: [], logger: { error, warn() {}, debug() {} } }));
    const saved = process.env.AUTH_SECRET;
    delete process.env.AUTH_SECRET;
    const server = await listen(app);
    try {
      const response = await fetch(`${server.url}/auth/session`);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ message: expect.stringMatching(/server configuration/) });
      expect(error).toHaveBeenCalledWith(expect.objectContaining({ type: "MissingSecret" }));
    } finally {
      if (saved !== undefined) process.env.AUTH_SECRET = saved;
      await server.close();
    }
  });
});

describe("packaging", () => {
  it("require('@latchkey/express') works from CommonJS on this Node", () => {
    const out = execFileSync(
      process.execPath,
      [
        "-e",
        "const m = require('@latchkey/express'); console.log(typeof m.ExpressAuth, typeof m.getSession, typeof m.AuthError)",
      ],
      {
        cwd: new URL("..", import.meta.url),
        encoding: "utf8",
      },
    );
    expect(out.trim()).toBe("function function function");
  });
  it("every documented subpath resolves from the built packages", async () => {
    const require = createRequire(import.meta.url);
    for (const spec of [
      "@latchkey/core",
      "@latchkey/core/jwt",
      "@latchkey/core/errors",
      "@latchkey/core/providers/credentials",
      "@latchkey/express",
      "@latchkey/express/providers/credentials",
    ]) {
      expect(require.resolve(spec), spec).toMatch(/dist\/.*\.js$/);
      const mod = (await import(spec)) as Record<string, unknown>;
      expect(Object.keys(mod).length, spec).toBeGreaterThan(0);
    }
  });
});
