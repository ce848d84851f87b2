/**
 * Latchkey's authorization server served by Express on loopback, driven by relying-party
 * libraries nobody here wrote: `openid-client` (every flow: the code flow with PKCE, refresh,
 * UserInfo, client credentials with each client authentication, the device grant, revocation,
 * introspection, RP-initiated logout) and `oauth4webapi` (the code flow and its tokens again,
 * with its own checks of the ID token, `iss` and the at+jwt access token).
 */

import { AuthorizationServer, MemoryAuthorizationStore, registerClient } from "@latchkey/core/authorization-server";
import { verifyAccessToken } from "@latchkey/core/resource-server";
import { type AuthConfig, ExpressAuth, ExpressAuthorizationServer } from "@latchkey/express";
import express from "express";
import { exportJWK, generateKeyPair } from "jose";
import * as oauth from "oauth4webapi";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adaConfig, browserWalk, signInAt } from "./authorization-walk.js";
import { Jar, listen } from "./helpers.js";

const SECRET = "authorization-server-express-secret-0123456789";
const REDIRECT = "http://127.0.0.1:9/callback";

let issuer = "";
let close: () => Promise<void>;
let server: AuthorizationServer;
let config: AuthConfig;

beforeAll(async () => {
  config = await adaConfig(SECRET);
  const app = express();
  let mounted: express.RequestHandler = (_req, _res, next) => next();
  app.use((req, res, next) => mounted(req, res, next));
  app.use("/auth", ExpressAuth(config));
  ({ url: issuer, close } = await listen(app, "127.0.0.1"));
  server = AuthorizationServer({
    issuer,
    auth: config,
    store: new MemoryAuthorizationStore(),
    scopes: ["openid", "profile", "email", "offline_access", "reports:read"],
  });
  mounted = ExpressAuthorizationServer(server);
});

afterAll(() => close());

/** Options every openid-client call needs here: the issuer is plain http on loopback. */
const insecure = { execute: [client.allowInsecureRequests] };

/** The code flow with openid-client, for a client already discovered; answers the tokens and the browser. */
async function codeFlow(configuration: client.Configuration, scope = "openid email offline_access") {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: REDIRECT,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  const jar = new Jar();
  const back = await browserWalk(issuer, REDIRECT, jar, url);
  const tokens = await client.authorizationCodeGrant(configuration, back, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: scope.includes("openid"),
  });
  return { tokens, jar };
}

describe("openid-client against Latchkey on Express", () => {
  it("discovers the server and completes the code flow with PKCE, UserInfo and a rotating refresh", async () => {
    const { client: registered } = await registerClient(server, {
      name: "Native app",
      redirectUris: [REDIRECT],
      tokenEndpointAuthMethod: "none",
      scopes: ["openid", "email", "offline_access"],
    });
    const configuration = await client.discovery(
      new URL(issuer),
      registered.clientId,
      undefined,
      client.None(),
      insecure,
    );
    expect(configuration.serverMetadata().issuer).toBe(issuer);
    const { tokens } = await codeFlow(configuration);
    const claims = tokens.claims();
    expect(claims?.sub).toBe("u1");
    expect(claims?.iss).toBe(issuer);
    const info = await client.fetchUserInfo(configuration, tokens.access_token, "u1");
    expect(info.email).toBe("ada@example.com");
    const refreshed = await client.refreshTokenGrant(configuration, tokens.refresh_token ?? "");
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(client.refreshTokenGrant(configuration, tokens.refresh_token ?? "")).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("authenticates with client_secret_basic, client_secret_post and private_key_jwt for client credentials", async () => {
    for (const method of ["client_secret_basic", "client_secret_post"] as const) {
      const { client: registered, clientSecret } = await registerClient(server, {
        name: method,
        tokenEndpointAuthMethod: method,
        scopes: ["reports:read"],
        resources: ["https://api.example"],
      });
      const auth =
        method === "client_secret_basic"
          ? client.ClientSecretBasic(clientSecret)
          : client.ClientSecretPost(clientSecret);
      const configuration = await client.discovery(new URL(issuer), registered.clientId, undefined, auth, insecure);
      const tokens = await client.clientCredentialsGrant(configuration, {
        scope: "reports:read",
        resource: "https://api.example",
      });
      expect(tokens.scope).toBe("reports:read");
      const introspected = await client.tokenIntrospection(configuration, tokens.access_token);
      expect(introspected).toMatchObject({ active: true, aud: "https://api.example", client_id: registered.clientId });
    }
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const { client: signed } = await registerClient(server, {
      name: "Signed",
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kty: "EC", alg: "ES256", kid: "k1" }] },
      scopes: ["reports:read"],
    });
    const configuration = await client.discovery(
      new URL(issuer),
      signed.clientId,
      undefined,
      client.PrivateKeyJwt({ key: privateKey, kid: "k1" }),
      insecure,
    );
    const tokens = await client.clientCredentialsGrant(configuration, { scope: "reports:read" });
    expect(tokens.token_type).toBe("bearer");
  });

  it("completes the device grant: the user types the code under a signed-in session", async () => {
    const { client: registered } = await registerClient(server, {
      name: "CLI",
      tokenEndpointAuthMethod: "none",
      grantTypes: ["urn:ietf:params:oauth:grant-type:device_code"],
      scopes: ["openid", "reports:read"],
    });
    const configuration = await client.discovery(
      new URL(issuer),
      registered.clientId,
      undefined,
      client.None(),
      insecure,
    );
    const started = await client.initiateDeviceAuthorization(configuration, { scope: "openid reports:read" });
    const jar = new Jar();
    const signIn = await jar.fetch(started.verification_uri_complete ?? "");
    const signedIn = await signInAt(issuer, jar, new URL(signIn.headers.get("location") ?? ""));
    expect(signedIn.headers.get("location")).toBe(started.verification_uri_complete);
    const form = await (await jar.fetch(started.verification_uri_complete ?? "")).text();
    expect(form).toContain(started.user_code);
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(form)?.[1] ?? "";
    const consent = await (
      await jar.fetch(`${issuer}/oauth/device`, { form: { csrfToken, user_code: started.user_code } })
    ).text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(consent)?.[1] ?? "";
    const done = await jar.fetch(`${issuer}/oauth/consent`, {
      form: { interaction: field("interaction"), csrfToken: field("csrfToken"), decision: "allow" },
    });
    expect(await done.text()).toContain("Device connected");
    const tokens = await client.pollDeviceAuthorizationGrant(configuration, started);
    expect(tokens.claims()?.sub).toBe("u1");
  }, 20_000);

  it("revokes a refresh token and logs out through the end-session endpoint, ending the Latchkey session", async () => {
    const { client: registered } = await registerClient(server, {
      name: "Web app",
      redirectUris: [REDIRECT],
      postLogoutRedirectUris: ["http://127.0.0.1:9/bye"],
      tokenEndpointAuthMethod: "none",
      scopes: ["openid", "email", "offline_access"],
    });
    const configuration = await client.discovery(
      new URL(issuer),
      registered.clientId,
      undefined,
      client.None(),
      insecure,
    );
    const { tokens, jar } = await codeFlow(configuration);
    await client.tokenRevocation(configuration, tokens.refresh_token ?? "");
    await expect(client.refreshTokenGrant(configuration, tokens.refresh_token ?? "")).rejects.toMatchObject({
      error: "invalid_grant",
    });
    const end = client.buildEndSessionUrl(configuration, {
      id_token_hint: tokens.id_token ?? "",
      post_logout_redirect_uri: "http://127.0.0.1:9/bye",
      state: "s",
    });
    const page = await (await jar.fetch(end.href)).text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? "";
    const out = await jar.fetch(`${issuer}/oauth/logout`, {
      form: {
        csrfToken: field("csrfToken"),
        client_id: field("client_id"),
        post_logout_redirect_uri: field("post_logout_redirect_uri"),
        state: "s",
      },
    });
    expect(out.headers.get("location")).toBe("http://127.0.0.1:9/bye?state=s");
    expect(await (await jar.fetch(`${issuer}/auth/session`)).json()).toBeNull();
  });
});

describe("oauth4webapi against Latchkey on Express", () => {
  it("runs the code flow with its own checks of iss, the ID token and an at+jwt access token, which verifyAccessToken accepts too", async () => {
    const { client: registered, clientSecret } = await registerClient(server, {
      name: "Partner",
      redirectUris: [REDIRECT],
      tokenEndpointAuthMethod: "client_secret_post",
      scopes: ["openid", "email"],
      resources: ["https://api.example"],
    });
    const as = await oauth.processDiscoveryResponse(
      new URL(issuer),
      await oauth.discoveryRequest(new URL(issuer), { [oauth.allowInsecureRequests]: true }),
    );
    const c: oauth.Client = { client_id: registered.clientId };
    const auth = oauth.ClientSecretPost(clientSecret ?? "");
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint ?? "");
    url.search = new URLSearchParams({
      client_id: c.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid email",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      resource: "https://api.example",
    }).toString();
    const back = await browserWalk(issuer, REDIRECT, new Jar(), url);
    const params = oauth.validateAuthResponse(as, c, back);
    const response = await oauth.authorizationCodeGrantRequest(as, c, auth, params, REDIRECT, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    const result = await oauth.processAuthorizationCodeResponse(as, c, response);
    expect(oauth.getValidatedIdTokenClaims(result)?.sub).toBe("u1");
    // The resource server's check of the access token, by the same library (RFC 9068).
    const request = new Request("https://api.example/reports", {
      headers: { authorization: `Bearer ${result.access_token}` },
    });
    const claims = await oauth.validateJwtAccessToken(as, request, "https://api.example", {
      [oauth.allowInsecureRequests]: true,
    });
    expect(claims).toMatchObject({ sub: "u1", client_id: registered.clientId });
    // And Latchkey's own resource-server helper, finding the keys over the socket from the issuer's metadata.
    const check = await verifyAccessToken(request, { issuer, audience: "https://api.example" }, ["email"]);
    expect(check.ok && check.token.sub).toBe("u1");
  });
});

describe("rule: ExpressAuthorizationServer reads the client address through the application's clientAddress", () => {
  it("counts registrations per address that clientAddress names: two addresses behind one proxy get a budget each", async () => {
    const proxied: AuthConfig = {
      ...(await adaConfig(SECRET)),
      // One trusted proxy in front sets this header; every request arrives from 127.0.0.1.
      clientAddress: (request) => request.headers.get("x-test-client"),
    };
    const app = express();
    let mounted: express.RequestHandler = (_req, _res, next) => next();
    app.use((req, res, next) => mounted(req, res, next));
    const served = await listen(app, "127.0.0.1");
    try {
      const registering = AuthorizationServer({
        issuer: served.url,
        auth: proxied,
        store: new MemoryAuthorizationStore(),
        scopes: ["openid"],
        dynamicRegistration: { scopes: ["openid"], perIp: { max: 3, windowSeconds: 3600 } },
      });
      mounted = ExpressAuthorizationServer(registering);
      const register = (address: string) =>
        fetch(`${served.url}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-test-client": address },
          body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
        });
      const statuses: Record<string, number[]> = { "198.51.100.1": [], "198.51.100.2": [] };
      for (let i = 0; i < 4; i++)
        for (const address of Object.keys(statuses)) statuses[address]?.push((await register(address)).status);
      expect(statuses).toEqual({ "198.51.100.1": [201, 201, 201, 429], "198.51.100.2": [201, 201, 201, 429] });
    } finally {
      await served.close();
    }
  });
});
