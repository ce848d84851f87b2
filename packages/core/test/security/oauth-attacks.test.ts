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
  /** The `alg` of every id_token the provider itself issued (before any forgery). */
  issuedAlgs: string[];
}

interface HarnessOptions {
  id?: string;
  checks?: Array<"pkce" | "state" | "nonce">;
  forge?: Forge;
  /** The provider to sign in at (default: the module's `op`) and the client registered there. */
  provider?: () => TestOP;
  clientId?: string;
  clientSecret?: string;
  client?: Record<string, unknown>;
  /** Rewrites the `id_token_signing_alg_values_supported` the discovery document advertises. */
  advertise?: string[];
}

function algOf(jwt: string): string {
  return JSON.parse(Buffer.from(jwt.split(".")[0] as string, "base64url").toString()).alg;
}

function harness(options: HarnessOptions = {}): Harness {
  const errors: Harness["errors"] = [];
  const issuedAlgs: string[] = [];
  const forge = options.forge;
  const target = options.provider ?? (() => op);
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: { error: (e) => void errors.push(e), warn() {}, debug() {} },
    providers: [
      OIDC({
        id: options.id ?? "op",
        name: "OP",
        issuer: target().issuer,
        clientId: options.clientId ?? "latchkey",
        clientSecret: options.clientSecret ?? "latchkey-secret",
        checks: options.checks ?? ["pkce", "nonce"],
        ...(options.client ? { client: options.client } : {}),
        [customFetch]: async (input: string | URL | Request, init?: RequestInit) => {
          const response = await fetch(input, init);
          const path = new URL(input instanceof Request ? input.url : input).pathname;
          if (path === "/.well-known/openid-configuration" && options.advertise) {
            const metadata = (await response.json()) as Record<string, unknown>;
            return Response.json({ ...metadata, id_token_signing_alg_values_supported: options.advertise });
          }
          if (path === "/token") {
            const body = (await response.json()) as Record<string, unknown>;
            if (typeof body.id_token === "string") issuedAlgs.push(algOf(body.id_token));
            if (!forge) return Response.json(body, { status: response.status });
            const claims = JSON.parse(
              Buffer.from(String(body.id_token).split(".")[1] as string, "base64url").toString(),
            );
            return Response.json({ ...body, id_token: forge(claims) });
          }
          if (path === "/jwks" && forge) {
            const jwks = (await response.json()) as { keys: unknown[] };
            const mine = { ...mitmKey.publicKey.export({ format: "jwk" }), kid: "mitm", alg: "RS256", use: "sig" };
            return Response.json({ keys: [...jwks.keys, mine] });
          }
          return response;
        },
      } as Parameters<typeof OIDC>[0]),
    ],
  };
  return { config, errors, issuedAlgs, browser: new Browser({ [APP]: (r) => Auth(r, config) }) };
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

function signHS(alg: "HS256" | "HS384" | "HS512", claims: Record<string, unknown>, key: string | Buffer): string {
  const input = `${b64({ alg, typ: "JWT" })}.${b64(claims)}`;
  return `${input}.${createHmac(`sha${alg.slice(2)}`, key)
    .update(input)
    .digest("base64url")}`;
}

describe("id_token signatures are always verified, HS256 included (OIDC Core §10.1, RFC 8725 §3.1)", () => {
  // A provider that advertises HS256 next to RS256, as Keycloak and Auth0 do, with one client
  // registered for HS256 id_tokens (signed with its client secret) and one left at RS256.
  const HS_SECRET = "hs256-client-secret-0123456789-abcdefghijklmnopqrstuvwxyz-0123";
  let hsOp: TestOP;
  beforeAll(async () => {
    const redirect_uris = ["hs", "rs"].map((id) => `${APP}/auth/callback/${id}`);
    hsOp = await startOP(
      [
        { client_id: "latchkey-hs", client_secret: HS_SECRET, redirect_uris, id_token_signed_response_alg: "HS256" },
        { client_id: "latchkey-rs", client_secret: "latchkey-rs-secret", redirect_uris },
      ],
      { idTokenSigningAlgs: ["RS256", "HS256"] },
    );
  });
  afterAll(() => hsOp?.close());

  const hsClient = (forge?: Forge, client: Record<string, unknown> = { id_token_signed_response_alg: "HS256" }) =>
    harness({ id: "hs", provider: () => hsOp, clientId: "latchkey-hs", clientSecret: HS_SECRET, client, forge });
  const rsClient = (forge?: Forge, options: Partial<HarnessOptions> = {}) =>
    harness({
      id: "rs",
      provider: () => hsOp,
      clientId: "latchkey-rs",
      clientSecret: "latchkey-rs-secret",
      forge,
      ...options,
    });

  it("control: a genuine HS256 id_token from the provider, for a client configured for HS256, signs in", async () => {
    const h = hsClient();
    const response = await runFlow(h, "hs");
    expect(h.issuedAlgs).toEqual(["HS256"]); // the provider really signed with the client secret
    expect(h.errors).toEqual([]);
    expect(locationOf(response)).toBe(`${APP}/`);
    expect((await sessionOf(h.browser, APP))?.user?.email).toBe("alice@example.com");
  });

  it("control: the RS256 client of the same provider (which advertises HS256) signs in", async () => {
    const h = rsClient();
    const response = await runFlow(h, "rs");
    expect(h.issuedAlgs).toEqual(["RS256"]);
    expect(locationOf(response)).toBe(`${APP}/`);
  });

  const configuredForHS: Array<[string, Forge]> = [
    [
      "claims changed (sub: mallory) and signed with a guessed key",
      (c) => signHS("HS256", { ...c, sub: "mallory" }, "guessed-key"),
    ],
    ["unchanged claims signed with an empty key", (c) => signHS("HS256", c, Buffer.alloc(0))],
    ["the client secret with one character changed", (c) => signHS("HS256", c, `${HS_SECRET.slice(0, -1)}4`)],
    [
      "a genuine HS256 signature over a tampered payload",
      (c) => {
        const [header, , signature] = signHS("HS256", c, HS_SECRET).split(".");
        return `${header}.${b64({ ...c, email: "mallory@example.com" })}.${signature}`;
      },
    ],
    ["HS512 under the right client secret while HS256 is configured", (c) => signHS("HS512", c, HS_SECRET)],
    ["alg none", (c) => `${b64({ alg: "none", typ: "JWT" })}.${b64(c)}.`],
  ];
  for (const [name, forge] of configuredForHS) {
    it(`a client configured for HS256 refuses ${name}: no session`, async () => {
      const h = hsClient(forge);
      await expectRefused(h, await runFlow(h, "hs"));
    });
  }

  const expectingRS: Array<[string, Forge]> = [
    ["an HS256 token forged with any key", (c) => signHS("HS256", { ...c, sub: "mallory" }, "any-key-at-all")],
    ["an HS256 token signed with the client's own secret", (c) => signHS("HS256", c, "latchkey-rs-secret")],
    ["an HS384 token", (c) => signHS("HS384", c, "any-key-at-all")],
  ];
  for (const [name, forge] of expectingRS) {
    it(`a client that expects RS256 refuses ${name}, though the provider advertises HS256: no session`, async () => {
      const h = rsClient(forge);
      await expectRefused(h, await runFlow(h, "rs"));
      // Refused for its algorithm (ours, or oauth4webapi's when the provider does not even advertise it).
      expect(h.errors.at(-1)?.message).toMatch(/HS\d+.*not configured for|unexpected JWT "alg"/);
    });
    it(`a client configured for RS256 explicitly refuses ${name}: no session`, async () => {
      const h = rsClient(forge, { client: { id_token_signed_response_alg: "RS256" } });
      await expectRefused(h, await runFlow(h, "rs"));
    });
  }

  it("alg none is refused even when the provider advertises it", async () => {
    const h = rsClient((c) => `${b64({ alg: "none", typ: "JWT" })}.${b64(c)}.`, {
      advertise: ["none", "RS256", "HS256"],
    });
    await expectRefused(h, await runFlow(h, "rs"));
    expect(h.errors.at(-1)?.message).toMatch(/not signed/);
  });
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
