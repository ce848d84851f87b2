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
import { applyProviderOptions } from "../../src/lib/config/provider-options.js";
import Asgardeo from "../../src/providers/asgardeo.js";
import AzureADB2C from "../../src/providers/azure-ad-b2c.js";
import AzureDevOps from "../../src/providers/azure-devops.js";
import BankIDNorway from "../../src/providers/bankid-no.js";
import Bungie from "../../src/providers/bungie.js";
import Descope from "../../src/providers/descope.js";
import Eventbrite, { type EventbriteProfile } from "../../src/providers/eventbrite.js";
import Foursquare from "../../src/providers/foursquare.js";
import HubSpot from "../../src/providers/hubspot.js";
import Mailchimp from "../../src/providers/mailchimp.js";
import Mailru from "../../src/providers/mailru.js";
import Mastodon from "../../src/providers/mastodon.js";
import Nextcloud from "../../src/providers/nextcloud.js";
import type { OAuthConfig } from "../../src/providers/oauth.js";
import OneLogin from "../../src/providers/onelogin.js";
import Osso from "../../src/providers/osso.js";
import Trakt from "../../src/providers/trakt.js";
import Vipps from "../../src/providers/vipps.js";
import WeChat from "../../src/providers/wechat.js";
import Zoho from "../../src/providers/zoho.js";
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

/** A request a provider's host received through customFetch. */
interface Served {
  method: string;
  url: URL;
  headers: Headers;
  body: URLSearchParams;
}

/**
 * A service whose URLs carry its own host names, served in process through customFetch: `answer`
 * receives every request the provider makes (token, user), which `served` records.
 */
function hosted(answer: (request: Served) => Response | Promise<Response>) {
  const served: Served[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const request: Served = {
      method: init?.method ?? "GET",
      url: new URL(input instanceof Request ? input.url : input),
      headers: new Headers(init?.headers),
      body: new URLSearchParams(
        typeof init?.body === "string" || init?.body instanceof URLSearchParams ? init.body : "",
      ),
    };
    served.push(request);
    return answer(request);
  };
  return { fetch: fetchFn, served };
}

/** The sign-in, the provider's redirect back with `code`, and the session it made. */
async function signInAt(provider: OAuthConfig, code = "the-code") {
  const { logger, errors } = recordingLogger();
  const config = makeConfig({ logger, providers: [provider] });
  const jar = new CookieJar();
  const start = await call(config, `/auth/signin/${provider.id}`, {
    jar,
    form: { csrfToken: await csrfToken(config, jar) },
  });
  const authorize = new URL(start.headers.get("location") as string);
  const query = new URLSearchParams({ code });
  const state = authorize.searchParams.get("state");
  if (state) query.set("state", state);
  const back = await call(config, `/auth/callback/${provider.id}?${query}`, { jar });
  const session = (await (await call(config, "/auth/session", { jar })).json()) as {
    user?: Record<string, unknown>;
  } | null;
  return { authorize, callback: back.headers.get("location"), session, errors };
}

const tokenAnswer = (extra: Record<string, unknown> = {}) =>
  Response.json({ access_token: "at-1", token_type: "Bearer", expires_in: 3600, ...extra });

describe("services whose user request is their own", () => {
  it("Nextcloud: the user named by the token answer's user_id, from the OCS API with OCS-APIRequest", async () => {
    const cloud = hosted((r) => {
      if (r.url.pathname === "/apps/oauth2/api/v1/token") return tokenAnswer({ user_id: "frank" });
      if (r.url.pathname === "/ocs/v1.php/cloud/users/frank" && r.headers.get("ocs-apirequest") === "true")
        return Response.json({
          ocs: {
            meta: { status: "ok" },
            data: { id: "frank", displayname: "Frank Meyer", email: "frank@example.com" },
          },
        });
      return Response.json({ ocs: { meta: { message: "not found" } } }, { status: 404 });
    });
    const provider = Nextcloud({
      issuer: "https://cloud.example.com/",
      clientId: "nc",
      clientSecret: "s",
      [customFetch]: cloud.fetch,
    });
    const { authorize, session, errors } = await signInAt(provider as OAuthConfig);
    expect(errors).toEqual([]);
    expect(authorize.origin + authorize.pathname).toBe("https://cloud.example.com/apps/oauth2/authorize");
    const user = cloud.served.find((r) => r.url.pathname.startsWith("/ocs/"));
    expect(user?.headers.get("authorization")).toBe("Bearer at-1");
    expect(session?.user).toEqual({
      name: "Frank Meyer",
      email: "frank@example.com",
      image: "https://cloud.example.com/avatar/frank/512",
    });
  });

  it("Nextcloud: a token answer without user_id ends the sign-in, naming what is missing", async () => {
    const cloud = hosted(() => tokenAnswer());
    const provider = Nextcloud({
      issuer: "https://cloud.example.com",
      clientId: "nc",
      clientSecret: "s",
      [customFetch]: cloud.fetch,
    });
    const { callback, session, errors } = await signInAt(provider as OAuthConfig);
    expect(callback).toBe(`${ORIGIN}/auth/signin?error=OAuthCallbackError`);
    expect(errors[0]?.message).toMatch(/names no user_id/);
    expect(session).toBeNull();
  });

  it("Trakt: trakt-api-version 2 and the client id as trakt-api-key", async () => {
    const trakt = hosted((r) =>
      r.url.pathname === "/oauth/token"
        ? tokenAnswer()
        : r.headers.get("trakt-api-version") === "2" && r.headers.get("trakt-api-key") === "trakt-client"
          ? Response.json({
              username: "sean",
              name: "Sean Rudford",
              ids: { slug: "sean" },
              images: { avatar: { full: "https://t.example/a.jpg" } },
            })
          : new Response("missing headers", { status: 412 }),
    );
    const { session, errors } = await signInAt(
      Trakt({ clientId: "trakt-client", clientSecret: "s", [customFetch]: trakt.fetch }) as OAuthConfig,
    );
    expect(errors).toEqual([]);
    expect(session?.user).toEqual({ name: "Sean Rudford", email: null, image: "https://t.example/a.jpg" });
  });

  it.each([
    ["Mailchimp", () => Mailchimp, "/oauth2/token", (r: Served) => r.headers.get("authorization") === "OAuth at-1"],
    ["Zoho", () => Zoho, "/oauth/v2/token", (r: Served) => r.headers.get("authorization") === "Zoho-oauthtoken at-1"],
    [
      "Foursquare",
      () => Foursquare,
      "/oauth2/access_token",
      (r: Served) => r.url.searchParams.get("oauth_token") === "at-1" && r.url.searchParams.get("v") === "20230131",
    ],
    ["Mail.ru", () => Mailru, "/token", (r: Served) => r.url.searchParams.get("access_token") === "at-1"],
  ] as const)("%s: the token where the service takes it", async (_name, factory, tokenPath, accepts) => {
    const profiles: Record<string, unknown> = {
      "login.mailchimp.com": {
        accountname: "Acme",
        login: { login_id: 7, login_name: "fred", login_email: "fred@example.com" },
      },
      "accounts.zoho.com": { ZUID: 9, First_Name: "Ravi", Last_Name: "Kumar", Email: "ravi@example.com" },
      "api.foursquare.com": {
        response: { user: { id: "54321", firstName: "Lena", contact: { email: "lena@example.com" } } },
      },
      "oauth.mail.ru": { id: "123", name: "Ivan", email: "ivan@mail.ru" },
    };
    const host = hosted((r) => {
      if (r.url.pathname === tokenPath) return tokenAnswer();
      return accepts(r) ? Response.json(profiles[r.url.host]) : new Response("unauthorized", { status: 401 });
    });
    const { session, errors } = await signInAt(
      factory()({ clientId: "c", clientSecret: "s", [customFetch]: host.fetch }) as OAuthConfig,
    );
    expect(errors).toEqual([]);
    expect(session?.user?.email).toMatch(/@/);
    // A Bearer header is not what these services read: none is sent to the user request.
    const userRequest = host.served.at(-1) as Served;
    if (!/^(OAuth|Zoho)/.test(userRequest.headers.get("authorization") ?? ""))
      expect(userRequest.headers.has("authorization")).toBe(false);
  });

  it("Bungie: the API key on the user request, the user from Response.bungieNetUser", async () => {
    const bungie = hosted((r) =>
      r.url.pathname === "/platform/app/oauth/token/"
        ? tokenAnswer({ membership_id: "21045677" })
        : r.headers.get("x-api-key") === "bungie-key"
          ? Response.json({
              Response: {
                bungieNetUser: { membershipId: "21045677", displayName: "Guardian", profilePicturePath: "/img/a.gif" },
              },
              ErrorCode: 1,
              Message: "Ok",
            })
          : Response.json({ ErrorCode: 2101, Message: "ApiKeyMissingFromRequest" }, { status: 401 }),
    );
    for (const options of [{ apiKey: "bungie-key" }, { headers: { "X-API-Key": "bungie-key" } }]) {
      const { authorize, session, errors } = await signInAt(
        Bungie({ clientId: "b", clientSecret: "s", ...options, [customFetch]: bungie.fetch }) as OAuthConfig,
      );
      expect(errors).toEqual([]);
      expect(authorize.searchParams.get("code_challenge")).toBeNull();
      expect(session?.user).toEqual({ name: "Guardian", email: null, image: "https://www.bungie.net/img/a.gif" });
    }
    const { callback } = await signInAt(
      Bungie({ clientId: "b", clientSecret: "s", [customFetch]: bungie.fetch }) as OAuthConfig,
    );
    expect(callback).toBe(`${ORIGIN}/auth/signin?error=OAuthCallbackError`);
  });

  it("WeChat: appid in an authorization URL ending #wechat_redirect, the code redeemed by GET, openid to the user request", async () => {
    const wechat = hosted((r) => {
      if (r.url.pathname === "/sns/oauth2/access_token") {
        const q = r.url.searchParams;
        if (
          r.method !== "GET" ||
          q.get("appid") !== "wx-app" ||
          q.get("secret") !== "wx-secret" ||
          q.get("grant_type") !== "authorization_code"
        )
          return Response.json({ errcode: 40013, errmsg: "invalid appid" });
        if (q.get("code") === "used-code") return Response.json({ errcode: 40163, errmsg: "code been used" });
        return Response.json({
          access_token: "wx-at",
          expires_in: 7200,
          refresh_token: "wx-rt",
          openid: "o6_open",
          scope: "snsapi_userinfo",
        });
      }
      const q = r.url.searchParams;
      if (q.get("access_token") !== "wx-at" || q.get("openid") !== "o6_open")
        return Response.json({ errcode: 40003, errmsg: "invalid openid" });
      return Response.json({
        openid: "o6_open",
        nickname: "小明",
        headimgurl: "https://wx.example/h.jpg",
        privilege: [],
        unionid: "o6_union",
      });
    });
    const provider = WeChat({
      clientId: "wx-app",
      clientSecret: "wx-secret",
      [customFetch]: wechat.fetch,
    }) as OAuthConfig;
    const { authorize, session, errors } = await signInAt(provider);
    expect(errors).toEqual([]);
    expect(authorize.hash).toBe("#wechat_redirect");
    expect(authorize.searchParams.get("appid")).toBe("wx-app");
    expect(authorize.searchParams.get("scope")).toBe("snsapi_userinfo");
    expect(authorize.searchParams.get("state")).toBeTruthy();
    expect(session?.user).toEqual({ name: "小明", email: null, image: "https://wx.example/h.jpg" });

    const refused = await signInAt(provider, "used-code");
    expect(refused.callback).toBe(`${ORIGIN}/auth/signin?error=OAuthCallbackError`);
    expect(refused.errors[0]?.message).toMatch(/40163 code been used/);
    expect(refused.session).toBeNull();

    const website = await signInAt(
      WeChat({
        clientId: "wx-app",
        clientSecret: "wx-secret",
        platformType: "WebsiteApp",
        [customFetch]: wechat.fetch,
      }) as OAuthConfig,
    );
    expect(website.authorize.pathname).toBe("/connect/qrconnect");
    expect(website.authorize.searchParams.get("scope")).toBe("snsapi_login");
  });

  it("Azure DevOps: response_type Assertion, the code redeemed as a JWT bearer assertion with the secret as client_assertion", async () => {
    const devops = hosted((r) => {
      if (r.url.pathname === "/oauth2/token") {
        const b = r.body;
        const ok =
          b.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
          b.get("assertion") === "the-code" &&
          b.get("client_assertion") === "app-secret-jwt" &&
          b.get("client_assertion_type") === "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" &&
          b.get("redirect_uri") === `${ORIGIN}/auth/callback/azure-devops`;
        return ok
          ? tokenAnswer({ token_type: "jwt-bearer" })
          : Response.json({ Error: "invalid_grant" }, { status: 400 });
      }
      return Response.json({
        id: "bb5e5e25",
        displayName: "Jamal Wright",
        emailAddress: "jamal@example.com",
        coreAttributes: { Avatar: { value: { value: "iVBORw0KGgo=" } } },
      });
    });
    const { authorize, session, errors } = await signInAt(
      AzureDevOps({ clientId: "app-id", clientSecret: "app-secret-jwt", [customFetch]: devops.fetch }) as OAuthConfig,
    );
    expect(errors).toEqual([]);
    expect(authorize.searchParams.get("response_type")).toBe("Assertion");
    expect(authorize.searchParams.get("scope")).toBe("vso.profile");
    expect(session?.user).toEqual({
      name: "Jamal Wright",
      email: "jamal@example.com",
      image: "data:image/jpeg;base64,iVBORw0KGgo=",
    });
  });
});

describe("issuers written as the service's console shows them", () => {
  it("Asgardeo and OneLogin complete the organisation's URL to the issuer their metadata names", () => {
    for (const issuer of ["https://api.asgardeo.io/t/acme", "https://api.asgardeo.io/t/acme/oauth2/token/"])
      expect((applyProviderOptions(Asgardeo({ issuer })) as OAuthConfig).issuer).toBe(
        "https://api.asgardeo.io/t/acme/oauth2/token",
      );
    for (const issuer of ["https://acme.onelogin.com", "https://acme.onelogin.com/oidc/2"])
      expect((applyProviderOptions(OneLogin({ issuer })) as OAuthConfig).issuer).toBe(
        "https://acme.onelogin.com/oidc/2",
      );
  });

  it("Descope's issuer is the project's, from the project id; Osso's endpoints from a bare host name", () => {
    expect((applyProviderOptions(Descope({ clientId: "P2abc" })) as OAuthConfig).issuer).toBe(
      "https://api.descope.com/P2abc",
    );
    expect(
      (applyProviderOptions(Descope({ clientId: "P2abc", issuer: "https://auth.acme.example/P2abc" })) as OAuthConfig)
        .issuer,
    ).toBe("https://auth.acme.example/P2abc");
    const osso = applyProviderOptions(Osso({ issuer: "demo.ossoapp.com" })) as OAuthConfig & { token?: string };
    expect(osso.token).toBe("https://demo.ossoapp.com/oauth/token");
  });

  it("a server-based provider without its issuer names what is missing when the configuration is resolved", async () => {
    for (const provider of [
      Mastodon({ clientId: "c", clientSecret: "s" }),
      Nextcloud({ clientId: "c", clientSecret: "s" }),
    ]) {
      const { logger, errors } = recordingLogger();
      const response = await call(makeConfig({ logger, providers: [provider as OAuthConfig] }), "/auth/providers");
      expect(response.status).toBe(500);
      expect(errors[0]?.message).toMatch(
        /needs an `issuer` \(for discovery\) or both `authorization` and `token` endpoints/,
      );
    }
  });
});

describe("Eventbrite proves the address it marked verified, and only that one", () => {
  it("takes the primary address and its verified flag", async () => {
    const provider = applyProviderOptions(Eventbrite({})) as OAuthConfig<EventbriteProfile> & {
      isEmailVerified: (p: EventbriteProfile) => boolean;
    };
    const profile = (emails: EventbriteProfile["emails"]) => ({
      id: "1",
      name: "T",
      first_name: "T",
      last_name: "R",
      image_id: null,
      emails,
    });
    expect(provider.isEmailVerified(profile([{ email: "a@example.com", verified: true, primary: true }]))).toBe(true);
    expect(
      provider.isEmailVerified(
        profile([
          { email: "old@example.com", verified: true, primary: false },
          { email: "new@example.com", verified: false, primary: true },
        ]),
      ),
    ).toBe(false);
  });
});
