/**
 * Confidential clients: the three ways they authenticate (RFC 6749 §2.3.1, RFC 7523), the client
 * credentials grant, resource indicators (RFC 8707), introspection (RFC 7662), revocation
 * (RFC 7009) and the admin API.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  getClient,
  listClients,
  registerClient,
  removeClient,
  rotateClientSecret,
  updateClient,
} from "../../src/authorization-server.js";
import { MemoryRevocationStore } from "../../src/revocation.js";
import {
  type App,
  codeFor,
  exchange,
  makeApp,
  ORIGIN,
  publicClient,
  send,
  signedInBrowser,
  signedInClient,
  verifyWithJwks,
} from "./support.js";

const basic = (id: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

async function service(app: App, overrides = {}) {
  const { client, clientSecret } = await registerClient(app.server, {
    name: "Billing service",
    scopes: ["reports:read", "reports:write"],
    resources: ["https://api.example", "https://other.example"],
    ...overrides,
  });
  return { clientId: client.clientId, secret: clientSecret ?? "" };
}

async function keyClient(app: App) {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kty: "EC", kid: "k1", alg: "ES256" };
  const { client } = await registerClient(app.server, {
    name: "Signed service",
    jwks: { keys: [jwk] },
    scopes: ["reports:read"],
    resources: ["https://api.example"],
  });
  const assertion = (claims: Record<string, unknown> = {}, audience = ORIGIN) =>
    new SignJWT({ ...claims })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(client.clientId)
      .setSubject(client.clientId)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime("2m")
      .setJti(crypto.randomUUID())
      .sign(privateKey);
  return { clientId: client.clientId, assertion };
}

const credentialsGrant = (app: App, form: Record<string, string | string[]>, headers: Record<string, string> = {}) =>
  send(app, "/oauth/token", { form: { grant_type: "client_credentials", ...form }, headers });

describe("client authentication", () => {
  it("accepts client_secret_basic, form-urlencoded parts included", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const { clientId, secret } = await service(app);
    const response = await credentialsGrant(app, { scope: "reports:read" }, { authorization: basic(clientId, secret) });
    expect(response.status).toBe(200);
    const { access_token } = (await response.json()) as { access_token: string };
    const claims = await verifyWithJwks(app, access_token, { typ: "at+jwt" });
    expect(claims).toMatchObject({
      sub: clientId,
      client_id: clientId,
      scope: "reports:read",
      aud: ["https://api.example", "https://other.example"],
    });
  });

  it("accepts client_secret_post only for a client registered with it", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const post = await service(app, { tokenEndpointAuthMethod: "client_secret_post" });
    const ok = await credentialsGrant(app, { client_id: post.clientId, client_secret: post.secret });
    expect(ok.status).toBe(200);
    const viaBasic = await credentialsGrant(app, {}, { authorization: basic(post.clientId, post.secret) });
    expect(viaBasic.status).toBe(401);
    expect(((await viaBasic.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("refuses a wrong secret, an unknown client and two methods at once, never saying which", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const { clientId, secret } = await service(app);
    const wrong = await credentialsGrant(app, {}, { authorization: basic(clientId, `${secret}x`) });
    const unknown = await credentialsGrant(app, {}, { authorization: basic("nobody", secret) });
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("Basic");
      expect(await response.json()).toEqual({
        error: "invalid_client",
        error_description: "Client authentication failed",
      });
    }
    const twice = await credentialsGrant(app, { client_secret: secret }, { authorization: basic(clientId, secret) });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { error: string }).error).toBe("invalid_request");
  });

  it("accepts a private_key_jwt assertion once, for the issuer or the token endpoint, and refuses its replay", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const { clientId, assertion } = await keyClient(app);
    const type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
    const first = await assertion();
    expect((await credentialsGrant(app, { client_assertion_type: type, client_assertion: first })).status).toBe(200);
    const replay = await credentialsGrant(app, { client_assertion_type: type, client_assertion: first });
    expect(replay.status).toBe(401);
    const toEndpoint = await assertion({}, `${ORIGIN}/oauth/token`);
    expect(
      (await credentialsGrant(app, { client_id: clientId, client_assertion_type: type, client_assertion: toEndpoint }))
        .status,
    ).toBe(200);
    const elsewhere = await assertion({}, "https://other-issuer.example");
    expect((await credentialsGrant(app, { client_assertion_type: type, client_assertion: elsewhere })).status).toBe(
      401,
    );
  });

  it("refuses an assertion signed with the client id as an HMAC secret, or unsigned", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const { clientId } = await keyClient(app);
    const type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
    const hmac = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(ORIGIN)
      .setExpirationTime("2m")
      .setJti("j1")
      .sign(new TextEncoder().encode(clientId.padEnd(32, "x")));
    const header = btoa(JSON.stringify({ alg: "none" })).replace(/=/g, "");
    const payload = btoa(
      JSON.stringify({ iss: clientId, sub: clientId, aud: ORIGIN, exp: Date.now() / 1000 + 60, jti: "j2" }),
    ).replace(/=/g, "");
    for (const client_assertion of [hmac, `${header}.${payload}.`]) {
      const response = await credentialsGrant(app, {
        client_id: clientId,
        client_assertion_type: type,
        client_assertion,
      });
      expect(response.status).toBe(401);
    }
  });
});

describe("client credentials and resource indicators", () => {
  it("binds the token's audience to the resource asked for, and refuses one the client may not ask for", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const { clientId, secret } = await service(app);
    const auth = { authorization: basic(clientId, secret) };
    const one = await credentialsGrant(app, { resource: "https://api.example" }, auth);
    const claims = await verifyWithJwks(app, ((await one.json()) as { access_token: string }).access_token);
    expect(claims.aud).toBe("https://api.example");
    const foreign = await credentialsGrant(app, { resource: "https://evil.example" }, auth);
    expect(foreign.status).toBe(400);
    expect(((await foreign.json()) as { error: string }).error).toBe("invalid_target");
    const scope = await credentialsGrant(app, { scope: "openid" }, auth);
    expect(((await scope.json()) as { error: string }).error).toBe("invalid_scope");
  });

  it("refuses client credentials to a public client", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const client = await publicClient(app);
    const response = await credentialsGrant(app, { client_id: client.clientId });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("unauthorized_client");
  });
});

describe("introspection and revocation", () => {
  it("introspects for authenticated clients only, and only their own tokens or tokens meant for them", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const caller = await service(app);
    const other = await service(app, { resources: ["https://elsewhere.example"] });
    const token = (
      (await (
        await credentialsGrant(
          app,
          { resource: "https://api.example" },
          { authorization: basic(caller.clientId, caller.secret) },
        )
      ).json()) as { access_token: string }
    ).access_token;
    const own = await send(app, "/oauth/introspect", {
      form: { token },
      headers: { authorization: basic(caller.clientId, caller.secret) },
    });
    expect(await own.json()).toMatchObject({
      active: true,
      client_id: caller.clientId,
      aud: "https://api.example",
      token_type: "Bearer",
    });
    const stranger = await send(app, "/oauth/introspect", {
      form: { token },
      headers: { authorization: basic(other.clientId, other.secret) },
    });
    expect(await stranger.json()).toEqual({ active: false });
    const pub = await publicClient(app);
    const anonymous = await send(app, "/oauth/introspect", { form: { token, client_id: pub.clientId } });
    expect(anonymous.status).toBe(401);
  });

  it("revokes a refresh token's whole family, and the family's access tokens with it", async () => {
    const { app, client, jar } = await signedInClient({ signing: { algorithms: ["ES256"] } });
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const tokens = (await (await exchange(app, client.clientId, code, verifier)).json()) as Record<string, string>;
    const revoked = await send(app, "/oauth/revoke", {
      form: { token: tokens.refresh_token ?? "", client_id: client.clientId },
    });
    expect(revoked.status).toBe(200);
    const refresh = await send(app, "/oauth/token", {
      form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "", client_id: client.clientId },
    });
    expect(((await refresh.json()) as { error: string }).error).toBe("invalid_grant");
    // The family's access token is refused too (UserInfo reads the family).
    const info = await send(app, "/oauth/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    expect(info.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("answers 200 to revoking another client's token, and leaves that token working", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const owner = await service(app);
    const thief = await service(app);
    const token = (
      (await (await credentialsGrant(app, {}, { authorization: basic(owner.clientId, owner.secret) })).json()) as {
        access_token: string;
      }
    ).access_token;
    const attempt = await send(app, "/oauth/revoke", {
      form: { token },
      headers: { authorization: basic(thief.clientId, thief.secret) },
    });
    expect(attempt.status).toBe(200);
    const still = await send(app, "/oauth/introspect", {
      form: { token },
      headers: { authorization: basic(owner.clientId, owner.secret) },
    });
    expect(((await still.json()) as { active: boolean }).active).toBe(true);
  });

  it("revokes a JWT access token at once when the server keeps a revocation list", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] }, revocation: new MemoryRevocationStore() });
    const client = await publicClient(app);
    const jar = await signedInBrowser(app);
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const tokens = (await (await exchange(app, client.clientId, code, verifier)).json()) as Record<string, string>;
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    expect((await send(app, "/oauth/userinfo", { headers: bearer })).status).toBe(200);
    const revoked = await send(app, "/oauth/revoke", {
      form: { token: tokens.access_token ?? "", client_id: client.clientId },
    });
    expect(revoked.status).toBe(200);
    expect((await send(app, "/oauth/userinfo", { headers: bearer })).status).toBe(401);
    // The refresh token was not revoked with it.
    const refreshed = await send(app, "/oauth/token", {
      form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "", client_id: client.clientId },
    });
    expect(refreshed.status).toBe(200);
  });

  it("says a JWT access token cannot be revoked when the server keeps no revocation list", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const { clientId, secret } = await service(app);
    const auth = { authorization: basic(clientId, secret) };
    const token = ((await (await credentialsGrant(app, {}, auth)).json()) as { access_token: string }).access_token;
    const response = await send(app, "/oauth/revoke", { form: { token }, headers: auth });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("unsupported_token_type");
  });

  it("revokes an opaque access token by deleting it", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] }, accessTokenFormat: "opaque" });
    const { clientId, secret } = await service(app);
    const auth = { authorization: basic(clientId, secret) };
    const token = ((await (await credentialsGrant(app, {}, auth)).json()) as { access_token: string }).access_token;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(
      ((await (await send(app, "/oauth/introspect", { form: { token }, headers: auth })).json()) as { active: boolean })
        .active,
    ).toBe(true);
    await send(app, "/oauth/revoke", { form: { token }, headers: auth });
    expect(await (await send(app, "/oauth/introspect", { form: { token }, headers: auth })).json()).toEqual({
      active: false,
    });
  });
});

describe("admin API", () => {
  it("rotates a secret: the new one works, the old one stops at once (or after its grace)", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const { clientId, secret } = await service(app);
    const rotated = await rotateClientSecret(app.server, clientId);
    expect((await credentialsGrant(app, {}, { authorization: basic(clientId, secret) })).status).toBe(401);
    expect((await credentialsGrant(app, {}, { authorization: basic(clientId, rotated) })).status).toBe(200);
    const next = await rotateClientSecret(app.server, clientId, { graceSeconds: 60 });
    expect((await credentialsGrant(app, {}, { authorization: basic(clientId, rotated) })).status).toBe(200);
    expect((await credentialsGrant(app, {}, { authorization: basic(clientId, next) })).status).toBe(200);
  });

  it("removes a client and ends what it was issued", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] }, accessTokenFormat: "opaque" });
    const caller = await service(app);
    const removed = await service(app);
    const token = (
      (await (await credentialsGrant(app, {}, { authorization: basic(removed.clientId, removed.secret) })).json()) as {
        access_token: string;
      }
    ).access_token;
    expect(await removeClient(app.server, removed.clientId)).toBe(true);
    expect(await getClient(app.server, removed.clientId)).toBeNull();
    expect((await credentialsGrant(app, {}, { authorization: basic(removed.clientId, removed.secret) })).status).toBe(
      401,
    );
    const seen = await send(app, "/oauth/introspect", {
      form: { token },
      headers: { authorization: basic(caller.clientId, caller.secret) },
    });
    expect(await seen.json()).toEqual({ active: false });
  });

  it("lists and updates clients, never showing a secret, and refuses a registration mistake naming the field", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const { clientId } = await service(app);
    const listed = await listClients(app.server);
    expect(listed.map((c) => c.clientId)).toEqual([clientId]);
    expect(JSON.stringify(listed)).not.toContain("digest");
    const updated = await updateClient(app.server, clientId, { name: "Billing" });
    expect(updated.name).toBe("Billing");
    await expect(registerClient(app.server, { name: "x", scopes: ["admin"] })).rejects.toThrow(/`scopes` names admin/);
    await expect(updateClient(app.server, clientId, { tokenEndpointAuthMethod: "none" })).rejects.toThrow(
      /`client_credentials` grant is for confidential clients/,
    );
    const app2 = await publicClient(app);
    await expect(
      updateClient(app.server, app2.clientId, { tokenEndpointAuthMethod: "client_secret_basic" }),
    ).rejects.toThrow(/cannot switch/);
  });
});
