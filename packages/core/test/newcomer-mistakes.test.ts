/**
 * A newcomer's mistakes in the core (issue 25): each test makes the mistake as a new user would,
 * reads what Latchkey says, and checks that it names the fix. And any server: `Auth`,
 * `getSession(request, config)` and the helpers taking a configuration read `AUTH_SECRET` from
 * the environment when they are the first Latchkey call for that configuration.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Auth, type AuthConfig, getSession } from "../src/index.js";
import { MemoryAdapter } from "../src/memory-adapter.js";
import Credentials from "../src/providers/credentials.js";
import { OAuth } from "../src/providers/generic-oauth.js";
import GitHub from "../src/providers/github.js";
import TOTP from "../src/providers/totp.js";
import { secondFactorStatus, startTotpEnrolment } from "../src/second-factor.js";
import { Browser } from "./oauth/support/browser.js";
import { signInThrough } from "./oauth/support/flow.js";
import { type HostileOP, startHostileOP } from "./oauth/support/hostile-op.js";

const APP = "http://localhost:3000";
const SECRET = "newcomer-mistakes-test-secret-0123456789";

/** A logger that keeps what it is told: warnings with their text, errors with their causes. */
function recorder() {
  const kept = { warnings: [] as string[], errors: [] as string[] };
  const describe = (error: Error) => {
    let text = error.message;
    for (let c = (error as { cause?: unknown }).cause; c; c = (c as { cause?: unknown }).cause) {
      const err = c instanceof Error ? c : (c as { err?: unknown }).err;
      text += ` | ${err instanceof Error ? err.message : JSON.stringify(c)}`;
      if (!(c instanceof Error)) break;
    }
    return text;
  };
  const logger = {
    warn: (code: string, detail?: string) => void kept.warnings.push(`${code}: ${detail ?? ""}`),
    error: (error: Error) => void kept.errors.push(describe(error)),
    debug: () => {},
  };
  return { ...kept, logger };
}

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (key.startsWith("AUTH_")) delete process.env[key];
  for (const [key, value] of Object.entries(saved)) if (key.startsWith("AUTH_")) process.env[key] = value;
});

const session = (config: AuthConfig) => Auth(new Request(`${APP}/auth/session`), config);

describe("a secret too short, given through the environment", () => {
  it("names AUTH_SECRET, the variable the user set, not secret[0]", async () => {
    process.env.AUTH_SECRET = "too-short";
    const log = recorder();
    const response = await session({ providers: [], logger: log.logger });
    expect(response.status).toBe(500);
    expect(log.errors.join("\n")).toMatch(/AUTH_SECRET must be at least 32 characters long \(it is 9\)/);
    expect(log.errors.join("\n")).not.toContain("secret[0]");
  });

  it("names AUTH_SECRET_1 when the retired secret kept for rotation is the short one", async () => {
    process.env.AUTH_SECRET = SECRET;
    process.env.AUTH_SECRET_1 = "old-and-short";
    const log = recorder();
    expect((await session({ providers: [], logger: log.logger })).status).toBe(500);
    expect(log.errors.join("\n")).toMatch(/AUTH_SECRET_1 must be at least 32 characters long/);
  });

  it("still names `secret[1]` for a short secret written in the configuration", async () => {
    const log = recorder();
    expect((await session({ secret: [SECRET, "short"], providers: [], logger: log.logger })).status).toBe(500);
    expect(log.errors.join("\n")).toMatch(/`secret\[1\]` must be at least 32 characters long/);
  });
});

describe("options misspelled on a provider, for users without a type checker", () => {
  it("GitHub({ clientID }) is warned with clientId, and the provider without a client id is refused naming AUTH_GITHUB_ID", async () => {
    const log = recorder();
    const config = {
      secret: SECRET,
      providers: [GitHub({ clientID: "Iv1.abc", clientSecret: "s" } as never)],
      logger: log.logger,
    };
    const response = await Auth(new Request(`${APP}/auth/signin`), config);
    expect(response.status).toBe(500);
    expect(log.warnings).toContainEqual(
      expect.stringMatching(
        /^unknown-option: Provider "github": `clientID` is not an option of oauth providers and is ignored; did you mean `clientId`\?/,
      ),
    );
    expect(log.errors.join("\n")).toMatch(/Provider "github" has no `clientId`; set AUTH_GITHUB_ID/);
  });

  it("a provider given as a factory reads AUTH_GITHUB_ID, so nothing is refused or warned", async () => {
    process.env.AUTH_GITHUB_ID = "Iv1.abc";
    process.env.AUTH_GITHUB_SECRET = "gh-secret";
    const log = recorder();
    const response = await Auth(new Request(`${APP}/auth/providers`), {
      secret: SECRET,
      providers: [GitHub],
      logger: log.logger,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ github: { id: "github" } });
    expect(log.warnings).toEqual([]);
  });

  it("Credentials({ authorise }) is warned with authorize (the default refuses every sign-in)", async () => {
    const log = recorder();
    const config = {
      secret: SECRET,
      providers: [Credentials({ credentials: { pin: {} }, authorise: async () => ({ id: "1" }) } as never)],
      logger: log.logger,
    };
    expect((await session(config)).status).toBe(200);
    expect(log.warnings).toEqual([
      'unknown-option: Provider "credentials": `authorise` is not an option of credentials providers and is ignored; did you mean `authorize`?',
    ]);
  });

  it("a misspelled top-level option is warned with its right name", async () => {
    const log = recorder();
    await session({ secret: SECRET, providers: [], sesion: { strategy: "jwt" }, logger: log.logger } as never);
    expect(log.warnings).toEqual([
      "unknown-option: `sesion` is not a Latchkey option and is ignored; did you mean `session`?",
    ]);
  });
});

describe("the generic OAuth() provider whose server sends an id_token", () => {
  let op: HostileOP;
  beforeAll(async () => {
    op = await startHostileOP("alice");
  });
  afterAll(() => op?.close());

  /** OAuth() with its endpoints written out (so discovery is skipped) and the `openid` scope. */
  function app(withIssuer: boolean) {
    const log = recorder();
    const config: AuthConfig = {
      secret: SECRET,
      providers: [
        OAuth({
          id: "corp",
          name: "Corp",
          ...(withIssuer ? { issuer: op.issuer } : {}),
          authorization: { url: `${op.issuer}/authorize`, params: { scope: "openid" } },
          token: `${op.issuer}/token`,
          userinfo: { url: `${op.issuer}/me`, request: () => ({ id: "alice", email: "alice@corp.test" }) },
          clientId: op.clientId,
          clientSecret: op.clientSecret,
          checks: ["pkce", "state"],
        }),
      ],
      logger: log.logger,
    };
    return { log, browser: new Browser({ [APP]: (r) => Auth(r, config) }) };
  }

  it("with its issuer, discovers the keys from it and signs in (the advice to give the issuer is now true)", async () => {
    op.mode = "honest";
    const { log, browser } = app(true);
    const response = await signInThrough(browser, APP, "corp");
    expect(log.errors).toEqual([]);
    expect(response.headers.get("location")).toBe(`${APP}/`);
    expect(browser.jar(APP).has("authjs.session-token")).toBe(true);
  });

  it("without an issuer, the sign-in is refused with the advice to give it one", async () => {
    op.mode = "honest";
    const { log, browser } = app(false);
    const response = await signInThrough(browser, APP, "corp");
    expect(new URL(response.headers.get("location") as string).searchParams.get("error")).toBe("OAuthCallbackError");
    expect(log.errors.join("\n")).toMatch(
      /the provider has no `issuer` to discover its keys \(`jwks_uri`\) from: give the provider its `issuer`/,
    );
  });
});

describe("any server: the environment is read by every entry point, whichever comes first", () => {
  it("Auth() on a Web Request reads AUTH_SECRET (no MissingSecret), and getSession(request, config) reads the session it made", async () => {
    process.env.AUTH_SECRET = SECRET;
    const config: AuthConfig = {
      providers: [
        Credentials({ credentials: { name: {} }, authorize: ({ name }) => ({ id: "1", name: String(name) }) }),
      ],
    };
    const browser = new Browser({ [APP]: (r) => Auth(r, config) });
    const csrf = (await (await browser.get(`${APP}/auth/csrf`)).json()) as { csrfToken: string };
    const signIn = await browser.post(`${APP}/auth/callback/credentials`, { csrfToken: csrf.csrfToken, name: "Ada" });
    expect(signIn.status).toBe(302);
    const cookie = [...browser.jar(APP)].map(([k, v]) => `${k}=${v}`).join("; ");
    const read = await getSession(new Request(`${APP}/dashboard`, { headers: { cookie } }), config);
    expect(read?.user?.name).toBe("Ada");
    expect(await getSession(new Request(`${APP}/dashboard`), config)).toBeNull();
  });

  it("the README's node:http server: Auth() for /auth, getSession() for the rest", async () => {
    process.env.AUTH_SECRET = SECRET;
    const config: AuthConfig = {
      providers: [
        Credentials({ credentials: { name: {} }, authorize: ({ name }) => ({ id: "1", name: String(name) }) }),
      ],
    };
    // As the README writes it.
    const toRequest = (req: IncomingMessage) =>
      new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: req.method === "POST" ? (Readable.toWeb(req) as ReadableStream) : undefined,
        duplex: "half",
      } as RequestInit);
    const send = async (res: ServerResponse, response: Response) => {
      res.writeHead(response.status, [...response.headers].flat());
      res.end(Buffer.from(await response.arrayBuffer()));
    };
    const server = createServer(async (req, res) => {
      const request = toRequest(req);
      if (new URL(request.url).pathname.startsWith("/auth/")) return send(res, await Auth(request, config));
      const session = await getSession(request, config);
      return send(res, new Response(session?.user ? `Hello ${session.user.name}` : "Sign in at /auth/signin"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    try {
      const browser = new Browser();
      const csrf = (await (await browser.get(`${origin}/auth/csrf`)).json()) as { csrfToken: string };
      const signIn = await browser.post(`${origin}/auth/callback/credentials`, {
        csrfToken: csrf.csrfToken,
        name: "Ada",
      });
      expect(signIn.status).toBe(302);
      expect(await (await browser.get(`${origin}/`)).text()).toBe("Hello Ada");
      expect(await (await new Browser().get(`${origin}/`)).text()).toBe("Sign in at /auth/signin");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("startTotpEnrolment(config, ...) and secondFactorStatus(config, ...) work as the first call, with the secret in AUTH_SECRET", async () => {
    process.env.AUTH_SECRET = SECRET;
    const adapter = MemoryAdapter();
    const user = await adapter.createUser?.({ id: "u1", email: "ada@example.com", emailVerified: null });
    const config: AuthConfig = { adapter, providers: [TOTP({ issuer: "Acme" })] };
    const enrolment = await startTotpEnrolment(config, { id: user?.id as string, label: "ada@example.com" });
    expect(enrolment.uri).toMatch(/^otpauth:\/\/totp\/Acme:/);
    expect(await secondFactorStatus({ ...config }, "u1")).toEqual({ active: false, pending: true, backupCodesLeft: 0 });
  });
});
