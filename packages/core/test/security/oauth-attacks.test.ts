/**
 * OAuth / OIDC attacks against the real test OpenID Provider (oidc-provider on 127.0.0.1), for
 * what packages/core/test/oauth/oidc-flow.test.ts does not already cover ("attacks on the OIDC
 * flow end without a session": missing/mismatched/replayed state, foreign PKCE cookie, missing
 * PKCE cookie, code replay, id_token for another audience / issuer / nonce):
 *
 * - the id_token rejection matrix (OIDC Core §3.1.3.7, RFC 8725): a man in the middle of the
 *   token and JWKS responses publishes its own key, so every claim check can be hit one at a
 *   time with an otherwise valid signature — and the unmodified control proves the harness;
 * - authorization code injection stopped by PKCE (RFC 9700 §4.5, RFC 7636);
 * - mix-up: a wrong `iss` in the authorization response (RFC 9207, RFC 9700 §4.4);
 * - a state cookie made for another provider (provider-bound check cookies).
 */
import { createHmac, createSign, generateKeyPairSync, type KeyObject } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Auth, type AuthConfig, customFetch } from "../../src/index.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import { Browser } from "../oauth/support/browser.js";
import { deliver, locationOf, loginAtProvider, SECRET, sessionOf, startSignIn } from "../oauth/support/flow.js";
import { startOP, type TestOP } from "../oauth/support/op.js";

const APP = "http://localhost:3000";
let op: TestOP;

beforeAll(async () => {
  const redirect_uris = ["op", "op-b", "op-state", "op-state-b"].map((id) => `${APP}/auth/callback/${id}`);
  op = await startOP([{ client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris }]);
});
afterAll(() => op?.close());

const mitmKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
const strangerKey = generateKeyPairSync("rsa", { modulusLength: 2048 });

function b64(value: unknown): string {
  return Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
}

function signRS256(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${createSign("RSA-SHA256").update(input).sign(key).toString("base64url")}`;
}

/** How the man in the middle rewrites the genuine id_token's claims and signature. */
type Forge = (claims: Record<string, unknown>) => string;

interface Harness {
  config: AuthConfig;
  browser: Browser;
  errors: Array<Error & { type?: string }>;
}

function harness(options: { id?: string; checks?: Array<"pkce" | "state" | "nonce">; forge?: Forge } = {}): Harness {
  const errors: Harness["errors"] = [];
  const forge = options.forge;
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: { error: (e) => void errors.push(e), warn() {}, debug() {} },
    providers: [
      OIDC({
        id: options.id ?? "op",
        name: "OP",
        issuer: op.issuer,
        clientId: "latchkey",
        clientSecret: "latchkey-secret",
        checks: options.checks ?? ["pkce", "nonce"],
        [customFetch]: async (input: string | URL | Request, init?: RequestInit) => {
          const response = await fetch(input, init);
          if (!forge) return response;
          const path = new URL(input instanceof Request ? input.url : input).pathname;
          if (path === "/jwks") {
            const jwks = (await response.json()) as { keys: unknown[] };
            const mine = { ...mitmKey.publicKey.export({ format: "jwk" }), kid: "mitm", alg: "RS256", use: "sig" };
            return Response.json({ keys: [...jwks.keys, mine] });
          }
          if (path === "/token") {
            const body = (await response.json()) as Record<string, unknown>;
            const claims = JSON.parse(
              Buffer.from(String(body.id_token).split(".")[1] as string, "base64url").toString(),
            );
            return Response.json({ ...body, id_token: forge(claims) });
          }
          return response;
        },
      } as Parameters<typeof OIDC>[0]),
    ],
  };
  return { config, errors, browser: new Browser({ [APP]: (r) => Auth(r, config) }) };
}

const now = () => Math.floor(Date.now() / 1000);
const mitm =
  (change: Record<string, unknown>, drop: string[] = []): Forge =>
  (claims) => {
    const out: Record<string, unknown> = { ...claims, ...change };
    for (const name of drop) delete out[name];
    return signRS256({ alg: "RS256", kid: "mitm", typ: "JWT" }, out, mitmKey.privateKey);
  };

async function runFlow(h: Harness, id = "op"): Promise<Response> {
  const start = await startSignIn(h.browser, APP, id);
  return deliver(h.browser, await loginAtProvider(h.browser, locationOf(start), APP));
}

async function expectRefused(h: Harness, response: Response): Promise<void> {
  expect(response.status).toBe(302);
  expect(locationOf(response)).toMatch(/^http:\/\/localhost:3000\/auth\/(signin|error)\?error=/);
  expect(h.browser.jar(APP).has("authjs.session-token")).toBe(false);
  expect(await sessionOf(h.browser, APP)).toBeNull();
  expect(h.errors.length).toBeGreaterThan(0);
}

describe("id_token rejection matrix (OIDC Core §3.1.3.7) behind a key the client trusts", () => {
  it("control: the man in the middle's re-signed, unchanged token is accepted (so each refusal below is its claim's)", async () => {
    const h = harness({ forge: mitm({}) });
    const response = await runFlow(h);
    expect(locationOf(response)).toBe(`${APP}/`);
    expect((await sessionOf(h.browser, APP))?.user?.email).toBe("alice@example.com");
  });

  const matrix: Array<[string, Forge]> = [
    ["alg none (unsigned)", (c) => `${b64({ alg: "none", typ: "JWT" })}.${b64(c)}.`],
    [
      "HS256 signed with the client secret (algorithm confusion)",
      (c) => {
        const input = `${b64({ alg: "HS256", typ: "JWT" })}.${b64(c)}`;
        return `${input}.${createHmac("sha256", "latchkey-secret").update(input).digest("base64url")}`;
      },
    ],
    ["an expired token (exp an hour ago)", mitm({ exp: now() - 3600, iat: now() - 7200 })],
    ["a token not valid yet (nbf in an hour)", mitm({ nbf: now() + 3600 })],
    ["another audience", mitm({ aud: "other-app" })],
    ["several audiences with another authorized party", mitm({ aud: ["latchkey", "other-app"], azp: "other-app" })],
    ["another issuer", mitm({ iss: "http://127.0.0.1:1" })],
    ["no nonce while one was sent", mitm({}, ["nonce"])],
    ["another flow's nonce", mitm({ nonce: "nonce-of-another-sign-in" })],
    ["no sub", mitm({}, ["sub"])],
    ["no exp", mitm({}, ["exp"])],
  ];
  for (const [name, forge] of matrix) {
    it(`refuses ${name}: no session`, async () => {
      const h = harness({ forge });
      await expectRefused(h, await runFlow(h));
    });
  }

  // oauth4webapi's processAuthorizationCodeResponse alone does not verify the signature of an
  // id_token from the token endpoint (OIDC Core §3.1.3.7 item 6 lets a client rely on TLS);
  // Latchkey also checks it against the provider's published keys (RFC 8725, ASVS V3.5.3).
  const unsigned: Array<[string, Forge]> = [
    [
      "a signature by a key the provider never published",
      (c) => signRS256({ alg: "RS256", kid: "mitm" }, c, strangerKey.privateKey),
    ],
    [
      "a tampered payload under a genuine signature",
      (c) => {
        const [header, , signature] = signRS256({ alg: "RS256", kid: "mitm" }, c, mitmKey.privateKey).split(".");
        return `${header}.${b64({ ...c, sub: "mallory" })}.${signature}`;
      },
    ],
  ];
  for (const [name, forge] of unsigned) {
    it(`refuses ${name}: no session`, async () => {
      const h = harness({ forge });
      await expectRefused(h, await runFlow(h));
    });
  }
});

describe("OAuth checks against the real provider", () => {
  it("authorization code injection: an attacker's code in the victim's browser fails PKCE (RFC 9700 §4.5)", async () => {
    const h = harness();
    const attacker = new Browser({ [APP]: (r) => Auth(r, h.config) });
    const stolen = await loginAtProvider(attacker, locationOf(await startSignIn(attacker, APP, "op")), APP);
    await startSignIn(h.browser, APP, "op"); // the victim holds PKCE and nonce cookies of its own
    const callback = await h.browser.get(stolen.url);
    await expectRefused(h, callback);
    expect(h.errors.at(-1)?.message).toMatch(/invalid_grant|code_verifier|PKCE/i);
  });

  it("mix-up: an authorization response with another issuer's iss is refused (RFC 9207)", async () => {
    const h = harness();
    const answer = await loginAtProvider(h.browser, locationOf(await startSignIn(h.browser, APP, "op")), APP);
    const url = new URL(answer.url);
    expect(url.searchParams.get("iss")).toBe(op.issuer);
    url.searchParams.set("iss", "http://127.0.0.1:1");
    await expectRefused(h, await h.browser.get(url.href));
  });

  it("a state cookie made for another provider is refused (check cookies are bound to their provider)", async () => {
    const h = harness({ id: "op-state", checks: ["pkce", "state", "nonce"] });
    const other = harness({ id: "op-state-b", checks: ["pkce", "state", "nonce"] });
    await startSignIn(other.browser, APP, "op-state-b");
    const foreign = other.browser.jar(APP).get("authjs.state") as string;
    expect(foreign).toBeTruthy();
    const answer = await loginAtProvider(h.browser, locationOf(await startSignIn(h.browser, APP, "op-state")), APP);
    h.browser.jar(APP).set("authjs.state", foreign);
    await expectRefused(h, await h.browser.get(answer.url));
  });

  it("a callback with only a code and no check cookies at all (a cross-site GET) makes no session", async () => {
    const h = harness();
    const attacker = new Browser({ [APP]: (r) => Auth(r, h.config) });
    const stolen = await loginAtProvider(attacker, locationOf(await startSignIn(attacker, APP, "op")), APP);
    await expectRefused(h, await h.browser.get(stolen.url));
  });
});
