/**
 * Built-in providers whose services depart from the usual OAuth 2 / OpenID Connect client, each
 * signed in through the whole pipeline (`Auth()`) against a local server speaking that dialect:
 * the test OAuth 2 server (oauth2-server.ts), a real OpenID Provider (`oidc-provider`), or, for a
 * service whose URLs carry its own host names, its endpoints served through `customFetch`.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthError } from "../../src/errors.js";
import { Auth, type AuthConfig, customFetch } from "../../src/index.js";
import AzureADB2C from "../../src/providers/azure-ad-b2c.js";
import BankIDNorway from "../../src/providers/bankid-no.js";
import HubSpot from "../../src/providers/hubspot.js";
import type { OAuthConfig } from "../../src/providers/oauth.js";
import Vipps from "../../src/providers/vipps.js";
import type { Account, Profile } from "../../src/types.js";
import { CookieJar, call, csrfToken, makeConfig, ORIGIN, recordingLogger } from "../helpers.js";
import { Browser } from "./support/browser.js";
import { locationOf, SECRET, sessionOf, signInThrough } from "./support/flow.js";
import { startAuthServer, type TestAuthServer } from "./support/oauth2-server.js";
import { startOP, type TestOP } from "./support/op.js";

const APP = "http://localhost:3000";
const callback = (id: string) => `${APP}/auth/callback/${id}`;

interface Harness {
  browser: Browser;
  errors: AuthError[];
  signIns: Array<{ account?: Account | null; profile?: Profile }>;
}

/** An application with `provider` alone, its errors and what its jwt callback saw at sign-in. */
function harness(provider: OAuthConfig): Harness {
  const errors: AuthError[] = [];
  const signIns: Harness["signIns"] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    providers: [provider],
    logger: { error: (e) => errors.push(e as AuthError), warn: () => {}, debug: () => {} },
    callbacks: {
      jwt({ token, account, profile, trigger }) {
        if (trigger === "signIn") signIns.push({ account, profile });
        return token;
      },
    },
  };
  return { browser: new Browser({ [APP]: (r) => Auth(r, config) }), errors, signIns };
}

describe("HubSpot: the user is the access token's metadata, the token in the path", () => {
  let srv: TestAuthServer;
  beforeAll(async () => {
    srv = await startAuthServer({ "hubspot-app": { secret: "hubspot-secret", redirectUris: [callback("hubspot")] } });
  });
  afterAll(() => srv.close());

  /** HubSpot with its three endpoints on the test server. */
  const hubspot = () =>
    HubSpot({
      clientId: "hubspot-app",
      clientSecret: "hubspot-secret",
      authorization: { url: `${srv.origin}/authorize` },
      token: `${srv.origin}/token`,
      userinfo: { url: `${srv.origin}/oauth/v1/access-tokens` },
    }) as OAuthConfig;

  it("signs in with client_secret_post and reads GET /oauth/v1/access-tokens/<token> without an Authorization header", async () => {
    const h = harness(hubspot());
    const answer = await signInThrough(h.browser, APP, "hubspot");
    expect(h.errors).toEqual([]);
    expect(locationOf(answer)).toBe(`${APP}/`);

    const authorize = srv.requests.find((r) => r.path === "/authorize");
    expect(authorize?.query).toMatchObject({ scope: "oauth", client_id: "hubspot-app" });
    expect(authorize?.query.state).toBeTruthy();
    const token = srv.requests.find((r) => r.path === "/token");
    expect(token?.authorization).toBeUndefined();
    expect(token?.body).toMatchObject({ client_id: "hubspot-app", client_secret: "hubspot-secret" });
    const info = srv.requests.find((r) => r.path.startsWith("/oauth/v1/access-tokens/"));
    expect(info?.method).toBe("GET");
    expect(info?.authorization).toBeUndefined();
    expect(h.signIns[0]?.account).toMatchObject({ provider: "hubspot", providerAccountId: "4242" });
    expect(info?.path).toBe(`/oauth/v1/access-tokens/${h.signIns[0]?.account?.access_token}`);
    expect((await sessionOf(h.browser, APP))?.user).toEqual({
      name: "Ada@Example.org",
      email: "ada@example.org",
      image: null,
    });
  });

  it("refuses the sign-in when HubSpot does not know the token", async () => {
    srv.failures.set("/token", { status: 200, body: { access_token: "unknown", token_type: "bearer" } });
    try {
      const h = harness(hubspot());
      const answer = await signInThrough(h.browser, APP, "hubspot");
      expect(locationOf(answer)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
      expect(h.errors[0]?.message).toMatch(/access-tokens answered 404/);
      expect(await sessionOf(h.browser, APP)).toBeNull();
    } finally {
      srv.failures.delete("/token");
    }
  });
});

describe("BankID Norge: client_secret_post, and the user from a signed UserInfo answer", () => {
  let op: TestOP;
  beforeAll(async () => {
    op = await startOP(
      [
        {
          client_id: "bankid-client",
          client_secret: "bankid-secret",
          redirect_uris: [callback("bankid-no")],
          token_endpoint_auth_method: "client_secret_post",
          userinfo_signed_response_alg: "RS256",
        },
      ],
      {
        jwtUserinfo: true,
        // The id_token has `sub` alone; the name and the address are in the UserInfo answer.
        conformIdTokenClaims: true,
        accounts: { kari: { name: "Kari Nordmann", email: "kari@example.no" } },
      },
    );
  });
  afterAll(() => op.close());

  /** BankID pointed at the local provider; `tamper` may rewrite the UserInfo answer on its way. */
  function bankid(tamper?: (jwt: string) => string): OAuthConfig {
    const fetchFn: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : input);
      if (!tamper || url.pathname !== "/me") return response;
      return new Response(tamper(await response.text()), { status: response.status, headers: response.headers });
    };
    return BankIDNorway({
      issuer: op.issuer,
      clientId: "bankid-client",
      clientSecret: "bankid-secret",
      [customFetch]: fetchFn,
    }) as OAuthConfig;
  }

  it("signs in with the claims of the signed answer, having asked for application/jwt", async () => {
    const h = harness(bankid());
    const answer = await signInThrough(h.browser, APP, "bankid-no", { query: { login_hint: "kari" } });
    expect(h.errors).toEqual([]);
    expect(locationOf(answer)).toBe(`${APP}/`);
    expect(op.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(["POST /token", "GET /me", "GET /jwks"]),
    );
    expect(h.signIns[0]?.profile).toMatchObject({ sub: "kari", name: "Kari Nordmann", email: "kari@example.no" });
    expect((await sessionOf(h.browser, APP))?.user).toEqual({
      name: "Kari Nordmann",
      email: "kari@example.no",
      image: null,
    });
  });

  it("refuses a UserInfo answer whose claims were changed after BankID signed them", async () => {
    const forged = (jwt: string) => {
      const [header, payload, signature] = jwt.split(".") as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
      const changed = Buffer.from(JSON.stringify({ ...claims, email: "mallory@example.com" })).toString("base64url");
      return `${header}.${changed}.${signature}`;
    };
    const h = harness(bankid(forged));
    const answer = await signInThrough(h.browser, APP, "bankid-no", { query: { login_hint: "kari" } });
    expect(locationOf(answer)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(h.errors[0]?.message).toMatch(
      /signed userinfo of provider "bankid-no" was refused: its signature does not verify/,
    );
    expect(h.signIns).toEqual([]);
    expect(await sessionOf(h.browser, APP)).toBeNull();
  });

  it("refuses an unsigned (alg none) UserInfo answer", async () => {
    const unsigned = (jwt: string) => {
      const payload = jwt.split(".")[1] as string;
      return `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${payload}.`;
    };
    const h = harness(bankid(unsigned));
    const answer = await signInThrough(h.browser, APP, "bankid-no", { query: { login_hint: "kari" } });
    expect(locationOf(answer)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(await sessionOf(h.browser, APP)).toBeNull();
  });
});

describe("Vipps: the user from UserInfo (idToken: false), scope openid name email", () => {
  let op: TestOP;
  beforeAll(async () => {
    op = await startOP(
      [{ client_id: "vipps-client", client_secret: "vipps-secret", redirect_uris: [callback("vipps")] }],
      {
        // Vipps' own scopes: `name` and `email`; the id_token carries `sub` alone.
        claims: { openid: ["sub"], name: ["name", "given_name", "family_name"], email: ["email", "email_verified"] },
        conformIdTokenClaims: true,
        accounts: {
          ola: { name: "Ola Nordmann", given_name: "Ola", family_name: "Nordmann", email: "ola@example.no" },
        },
      },
    );
  });
  afterAll(() => op.close());

  it("asks for state, nonce and PKCE, and signs in with the name and address of UserInfo", async () => {
    const h = harness(
      Vipps({ issuer: `${op.issuer}/`, clientId: "vipps-client", clientSecret: "vipps-secret" }) as OAuthConfig,
    );
    const answer = await signInThrough(h.browser, APP, "vipps", { query: { login_hint: "ola" } });
    expect(h.errors).toEqual([]);
    expect(locationOf(answer)).toBe(`${APP}/`);
    expect(op.requests.map((r) => `${r.method} ${r.path}`)).toContain("GET /me");
    expect(h.signIns[0]?.profile).toMatchObject({ sub: "ola", name: "Ola Nordmann", email_verified: true });
    expect((await sessionOf(h.browser, APP))?.user).toEqual({
      name: "Ola Nordmann",
      email: "ola@example.no",
      image: null,
    });
  });
});

describe("Azure AD B2C: metadata at the user flow's URL, another issuer named in it", () => {
  const HOST = "https://contoso.b2clogin.com";
  const TENANT_ID = "775527ff-9a37-4307-8b3d-cc311f58d925";
  const AUTHORITY = `${HOST}/contoso.onmicrosoft.com/B2C_1_signupsignin/v2.0`;
  let key: CryptoKey;
  let jwk: JWK;
  beforeAll(async () => {
    const pair = await generateKeyPair("RS256");
    key = pair.privateKey as CryptoKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: "b2c", alg: "RS256", use: "sig" };
  });

  interface Plan {
    /** The issuer the metadata names. */
    named?: string;
    /** The `iss` of the id_token. */
    iss?: string;
  }

  /** B2C's endpoints for the user flow, served through customFetch. */
  function b2c(state: { nonce?: string }, plan: Plan): typeof fetch {
    const flow = `${HOST}/contoso.onmicrosoft.com/b2c_1_signupsignin`;
    return async (input) => {
      const url = new URL(input instanceof Request ? input.url : input);
      const issuer = `${HOST}/${TENANT_ID}/v2.0/`;
      if (url.href === `${AUTHORITY}/.well-known/openid-configuration`) {
        return Response.json({
          issuer: plan.named ?? issuer,
          authorization_endpoint: `${flow}/oauth2/v2.0/authorize`,
          token_endpoint: `${flow}/oauth2/v2.0/token`,
          jwks_uri: `${flow}/discovery/v2.0/keys`,
          response_types_supported: ["code"],
          subject_types_supported: ["pairwise"],
          id_token_signing_alg_values_supported: ["RS256"],
        });
      }
      if (url.href === `${flow}/discovery/v2.0/keys`) return Response.json({ keys: [jwk] });
      if (url.href === `${flow}/oauth2/v2.0/token`) {
        const idToken = await new SignJWT({
          nonce: state.nonce,
          name: "Ingrid Berg",
          emails: ["ingrid.berg@example.no"],
          tfp: "B2C_1_signupsignin",
          ver: "1.0",
        })
          .setProtectedHeader({ alg: "RS256", kid: "b2c" })
          .setIssuer(plan.iss ?? issuer)
          .setAudience("b2c-client")
          .setSubject("45b6f3a2-7c1d-4e8f-9a0b-1c2d3e4f5a6b")
          .setIssuedAt()
          .setExpirationTime("1h")
          .sign(key);
        return Response.json({ access_token: "at", token_type: "Bearer", expires_in: 3600, id_token: idToken });
      }
      return new Response("not found", { status: 404 });
    };
  }

  async function signInWith(plan: Plan, options: Parameters<typeof AzureADB2C>[0] = { issuer: AUTHORITY }) {
    const state: { nonce?: string } = {};
    const { logger, errors } = recordingLogger();
    const provider = AzureADB2C({
      clientId: "b2c-client",
      clientSecret: "s",
      ...options,
      [customFetch]: b2c(state, plan),
    });
    const config = makeConfig({ logger, providers: [provider] });
    const jar = new CookieJar();
    const start = await call(config, "/auth/signin/azure-ad-b2c", {
      jar,
      form: { csrfToken: await csrfToken(config, jar) },
    });
    const location = start.headers.get("location") ?? "";
    if (!location.startsWith(HOST)) return { start: location, errors, session: null, callback: undefined };
    const authorize = new URL(location);
    state.nonce = authorize.searchParams.get("nonce") ?? undefined;
    const query = new URLSearchParams({ code: "the-code", state: authorize.searchParams.get("state") ?? "" });
    const answer = await call(config, `/auth/callback/azure-ad-b2c?${query}`, { jar });
    const session = await (await call(config, "/auth/session", { jar })).json();
    return { start: location, callback: answer.headers.get("location"), session, errors };
  }

  it("signs in: the id_token's iss is the tenant's issuer the flow's metadata names", async () => {
    const { start, callback: back, session, errors } = await signInWith({});
    expect(errors).toEqual([]);
    expect(start.startsWith(`${HOST}/contoso.onmicrosoft.com/b2c_1_signupsignin/oauth2/v2.0/authorize?`)).toBe(true);
    expect(new URL(back as string).href).toBe(new URL(ORIGIN).href);
    expect(session).toMatchObject({ user: { name: "Ingrid Berg", email: "ingrid.berg@example.no" } });
  });

  it("builds the authority from tenantId and primaryUserFlow (next-auth v4's options)", async () => {
    const { session, errors } = await signInWith({}, { tenantId: "contoso", primaryUserFlow: "B2C_1_signupsignin" });
    expect(errors).toEqual([]);
    expect(session).toMatchObject({ user: { email: "ingrid.berg@example.no" } });
  });

  it("accepts the tfp form of the issuer for the same user flow", async () => {
    const tfp = `${HOST}/tfp/${TENANT_ID}/b2c_1_signupsignin/v2.0/`;
    const { session, errors } = await signInWith({ named: tfp, iss: tfp });
    expect(errors).toEqual([]);
    expect(session).toMatchObject({ user: { name: "Ingrid Berg" } });
  });

  it("refuses metadata naming an issuer on another host, or for another user flow", async () => {
    for (const named of [`https://evil.example/${TENANT_ID}/v2.0/`, `${HOST}/tfp/${TENANT_ID}/B2C_1_other/v2.0/`]) {
      const { start, session, errors } = await signInWith({ named, iss: named });
      expect(start).toBe(`${ORIGIN}/auth/signin?error=OAuthSignin`);
      expect(errors[0]?.message).toMatch(/"issuer" property does not match the expected value/);
      expect(session).toBeNull();
    }
  });

  it("refuses an id_token whose iss is not the issuer the metadata names", async () => {
    const { callback: back, session } = await signInWith({ iss: `${AUTHORITY}/` });
    expect(back).toBe(`${ORIGIN}/auth/signin?error=OAuthCallbackError`);
    expect(session).toBeNull();
  });
});
