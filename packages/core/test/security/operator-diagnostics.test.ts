/**
 * Diagnostics an operator relies on (a migrating one above all): the log names the real cause.
 *
 * - A redirect proxy whose secret differs from the deployment's cannot open the `state`: the log
 *   says so, not "the state cookie is missing".
 * - A session cookie no configured secret opens (a secret retired too early) is a warning, once per
 *   configuration, not a debug line per request; garbage and expired cookies are not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthError } from "../../src/errors.js";
import { Auth, type AuthConfig } from "../../src/index.js";
import { sealToken } from "../../src/lib/crypto/jwe.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import { call, makeConfig, signIn } from "../helpers.js";
import { Browser } from "../oauth/support/browser.js";
import { locationOf, loginAtProvider, startSignIn } from "../oauth/support/flow.js";
import { startOP, type TestOP } from "../oauth/support/op.js";

const APP = "http://localhost:3000";
const PROXY = "http://localhost:4000";
const SECRET_A = "proxy-secret-A-0123456789-abcdefghijklmnop";
const SECRET_B = "deploy-secret-B-0123456789-abcdefghijklmnop";

describe("a redirect proxy that cannot open the state names that cause", () => {
  let op: TestOP;
  beforeAll(async () => {
    op = await startOP([
      { client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: [`${PROXY}/auth/callback/op`] },
    ]);
  });
  afterAll(() => op?.close());

  function deployment(secret: string, errors: AuthError[]): AuthConfig {
    return {
      secret,
      trustHost: true,
      logger: { error: (e) => void errors.push(e as AuthError), warn() {}, debug() {} },
      providers: [
        OIDC({
          id: "op",
          name: "OP",
          issuer: op.issuer,
          clientId: "latchkey",
          clientSecret: "latchkey-secret",
          redirectProxyUrl: `${PROXY}/auth`,
        } as Parameters<typeof OIDC>[0]),
      ],
    };
  }

  /** A sign-in started on the deployment, answered by the provider to the proxy. */
  async function atProxy(proxySecret: string, deploySecret: string) {
    const proxyErrors: AuthError[] = [];
    const deployErrors: AuthError[] = [];
    const proxy = deployment(proxySecret, proxyErrors);
    const app = deployment(deploySecret, deployErrors);
    const browser = new Browser({ [APP]: (r) => Auth(r, app), [PROXY]: (r) => Auth(r, proxy) });
    const start = await startSignIn(browser, APP, "op");
    const answer = await loginAtProvider(browser, locationOf(start), PROXY);
    expect(answer.url.startsWith(`${PROXY}/auth/callback/op?`)).toBe(true);
    return { response: await browser.get(answer.url), proxyErrors, deployErrors };
  }

  it("control: with the same secret the proxy forwards the callback to the deployment", async () => {
    const { response, proxyErrors } = await atProxy(SECRET_A, SECRET_A);
    expect(locationOf(response).startsWith(`${APP}/auth/callback/op?`)).toBe(true);
    expect(proxyErrors).toEqual([]);
  });

  it("with another secret the proxy logs that the state could not be decoded, not that a cookie is missing", async () => {
    const { response, proxyErrors } = await atProxy(SECRET_A, SECRET_B);
    expect(locationOf(response)).toMatch(/^http:\/\/localhost:4000\/auth\/(signin|error)\?error=OAuthCallbackError/);
    expect(proxyErrors).toHaveLength(1);
    expect(proxyErrors[0]?.type).toBe("InvalidCheck");
    expect(proxyErrors[0]?.message).toMatch(/state .* could not be decoded on this redirect proxy.*share AUTH_SECRET/);
    expect(proxyErrors[0]?.message).not.toMatch(/missing/);
  });

  it("a state the proxy itself made keeps the usual checks (a replay after completion says the cookie is missing)", async () => {
    const errors: AuthError[] = [];
    const proxy = deployment(SECRET_A, errors);
    const browser = new Browser({ [PROXY]: (r) => Auth(r, proxy) });
    const start = await startSignIn(browser, PROXY, "op");
    const answer = await loginAtProvider(browser, locationOf(start), PROXY);
    expect(locationOf(await browser.get(answer.url))).toBe(`${PROXY}/`);
    await browser.get(answer.url); // the same callback again: its state decodes, its cookie is gone
    expect(errors.at(-1)?.message).toMatch(/state cookie is missing/);
  });
});

describe("a session cookie no configured secret opens is a warning, once per configuration", () => {
  const OLD = "retired-secret-0123456789-abcdefghijklmnop";
  const NEW = "current-secret-0123456789-abcdefghijklmnop";

  function rotated(secret: string | string[]) {
    const warnings: string[] = [];
    const debug: string[] = [];
    const config = makeConfig({
      secret,
      debug: true,
      logger: { error() {}, warn: (code) => void warnings.push(code), debug: (m) => void debug.push(m) },
    });
    return { config, warnings, debug, mismatches: () => warnings.filter((w) => w === "session-secret-mismatch") };
  }

  async function sessionWith(config: AuthConfig, cookie: string): Promise<unknown> {
    const response = await call(config, "/auth/session", { headers: { cookie } });
    expect(response.status).toBe(200);
    return response.json();
  }

  it("40 concurrent requests with cookies of a retired secret: all signed out, one warning, a debug line each", async () => {
    const { jar } = await signIn(makeConfig({ secret: OLD }));
    const cookie = jar.header();
    expect(cookie).toMatch(/authjs\.session-token=/);
    const wrong = rotated(NEW); // OLD retired too early
    const sessions = await Promise.all(Array.from({ length: 40 }, () => sessionWith(wrong.config, cookie)));
    expect(sessions.every((s) => s === null)).toBe(true);
    expect(wrong.mismatches()).toEqual(["session-secret-mismatch"]);
    expect(wrong.debug.filter((m) => /session token rejected/.test(m))).toHaveLength(40);
    // Another configuration object is another configuration: it warns once too.
    const other = rotated(NEW);
    await sessionWith(other.config, cookie);
    await sessionWith(other.config, cookie);
    expect(other.mismatches()).toEqual(["session-secret-mismatch"]);
  });

  it("control: rotating right (`[NEW, OLD]`) keeps the session and warns nothing", async () => {
    const { jar } = await signIn(makeConfig({ secret: OLD }));
    const right = rotated([NEW, OLD]);
    expect(((await sessionWith(right.config, jar.header())) as { user?: { name?: string } })?.user?.name).toBe(
      "Ada Lovelace",
    );
    expect(right.mismatches()).toEqual([]);
  });

  it("garbage, a truncated token and an expired token sealed with the current secret do not warn", async () => {
    const name = "authjs.session-token";
    const genuine = await sealToken({ sub: "u1" }, [NEW], name, 3600);
    const expired = await sealToken({ sub: "u1" }, [NEW], name, -3600);
    const subject = rotated(NEW);
    for (const value of [
      "garbage",
      genuine.slice(0, 40),
      genuine.split(".").slice(0, 4).join("."),
      expired,
      "a.b.c.d.e",
    ]) {
      expect(await sessionWith(subject.config, `${name}=${value}`)).toBeNull();
    }
    expect(subject.mismatches()).toEqual([]);
    expect(await sessionWith(subject.config, `${name}=${genuine}`)).not.toBeNull();
  });
});
