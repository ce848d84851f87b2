/**
 * `verifyAccessToken`: a resource server's check of a Bearer token (RFC 6750, RFC 9068) offline
 * against the issuer's keys, with Latchkey's revocation list shared with the authorization
 * server, and the challenge of every refusal (RFC 6750 §3, RFC 9728 §5.1). Against a server in
 * the same process, and against its published metadata and JWKS fetched as a remote one.
 */
import { generateKeyPair, SignJWT } from "jose";
import { describe, expect, it, vi } from "vitest";
import { registerClient, revokeAuthorizedApp } from "../../src/authorization-server.js";
import { type AccessTokenOptions, protectedResourceMetadata, verifyAccessToken } from "../../src/resource-server.js";
import { MemoryRevocationStore } from "../../src/revocation.js";
import { getCsrfToken } from "../../src/sessions.js";
import type { RevocationStore } from "../../src/shapes/revocation.js";
import { type App, ORIGIN, send, signedInClient, tokensFor } from "./support.js";

const API = "https://api.example";
const bearer = (token: string) => new Request(`${API}/reports`, { headers: { authorization: `Bearer ${token}` } });

async function withApi(options: Parameters<typeof signedInClient>[0] = {}) {
  const revocation = new MemoryRevocationStore();
  const { app, client, jar } = await signedInClient({ signing: { algorithms: ["ES256"] }, revocation, ...options });
  const tokens = await tokensFor(app, client.clientId, jar, { resource: API, scope: "openid email offline_access" });
  return { app, client, jar, tokens, revocation };
}

/** The server's own endpoints, reached through `fetch` as a remote resource server reaches them. */
const fetchFrom = (app: App) => async (input: RequestInfo | URL, init?: RequestInit) =>
  (await app.server.fetch(new Request(input, init))) ?? new Response(null, { status: 404 });

describe("verifyAccessToken against a server in this process", () => {
  it("accepts a token for its audience and gives its claims", async () => {
    const { app, tokens } = await withApi();
    const options: AccessTokenOptions = { issuer: app.server, audience: API };
    const check = await verifyAccessToken(bearer(tokens.access_token ?? ""), options, ["email"]);
    expect(check.ok && check.token).toMatchObject({
      sub: "u1",
      scopes: ["openid", "email", "offline_access"],
      aud: API,
    });
  });

  it("challenges a request without a token with the scope needed and the resource metadata", async () => {
    const { app } = await withApi();
    const options: AccessTokenOptions = {
      issuer: app.server,
      audience: API,
      resourceMetadata: `${API}/.well-known/oauth-protected-resource`,
    };
    const check = await verifyAccessToken(new Request(`${API}/reports`), options, ["reports:read"]);
    expect(check).toMatchObject({ ok: false, status: 401, body: null });
    expect(!check.ok && check.headers["WWW-Authenticate"]).toBe(
      `Bearer scope="reports:read", resource_metadata="${API}/.well-known/oauth-protected-resource"`,
    );
  });

  it("refuses a token for another audience, an ID token, and a token the client never got (403 for a missing scope)", async () => {
    const { app, tokens } = await withApi();
    const other: AccessTokenOptions = { issuer: app.server, audience: "https://other.example" };
    expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), other)).toMatchObject({
      status: 401,
      error: "invalid_token",
    });
    const options: AccessTokenOptions = { issuer: app.server, audience: API };
    expect(await verifyAccessToken(bearer(tokens.id_token ?? ""), options)).toMatchObject({
      status: 401,
      error: "invalid_token",
    });
    const scoped = await verifyAccessToken(bearer(tokens.access_token ?? ""), options, ["reports:write"]);
    expect(scoped).toMatchObject({ status: 403, error: "insufficient_scope" });
    expect(!scoped.ok && scoped.headers["WWW-Authenticate"]).toContain('error="insufficient_scope"');
    expect(!scoped.ok && scoped.headers["WWW-Authenticate"]).toContain('scope="reports:write"');
    const malformed = await verifyAccessToken(new Request(API, { headers: { authorization: "Basic abc" } }), options);
    expect(malformed).toMatchObject({ status: 400, error: "invalid_request" });
  });

  it("refuses forgeries: another key with the server's kid, alg none, and HS256 keyed with the public key", async () => {
    const { app, tokens } = await withApi();
    const options: AccessTokenOptions = { issuer: app.server, audience: API };
    const [header = "", payload = ""] = (tokens.access_token ?? "").split(".");
    const { kid } = JSON.parse(atob(header.replace(/-/g, "+").replace(/_/g, "/")));
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const { privateKey } = await generateKeyPair("ES256");
    const otherKey = await new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" })
      .sign(privateKey);
    const none = `${btoa(JSON.stringify({ alg: "none", typ: "at+jwt" })).replace(/=/g, "")}.${payload}.`;
    const jwks = (await (await send(app, "/oauth/jwks")).json()) as { keys: { kid: string }[] };
    const publicJwk = JSON.stringify(jwks.keys.find((k) => k.kid === kid));
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid, typ: "at+jwt" })
      .sign(new TextEncoder().encode(publicJwk));
    for (const forged of [otherKey, none, hmac]) {
      expect(await verifyAccessToken(bearer(forged), options)).toMatchObject({ ok: false, status: 401 });
    }
  });

  it("answers 401, never 5xx, to tokens bent out of shape: huge, crit, b64 false, padded, cut, another token's signature, 30 at once", async () => {
    const { app, client, jar, tokens } = await withApi();
    const options: AccessTokenOptions = { issuer: app.server, audience: API };
    const good = tokens.access_token ?? "";
    const [header = "", payload = "", signature = ""] = good.split(".");
    const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString());
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const again = await tokensFor(app, client.clientId, jar, { resource: API, scope: "openid email" });
    const hostile = [
      `${header}.${encode({ ...decode(payload), pad: "x".repeat(20_000) })}.${signature}`,
      `${encode({ ...decode(header), crit: ["exp"] })}.${payload}.${signature}`,
      `${encode({ ...decode(header), crit: ["b64"], b64: false })}.${payload}.${signature}`,
      `${good}==`,
      `${header}.${payload}.${signature.slice(0, -2)}`,
      `${header}.${payload}.${(again.access_token ?? "").split(".")[2]}`,
      `${header}.${payload}`,
      `${good}.${signature}`,
    ];
    const checks = await Promise.all(
      Array.from({ length: 30 }, (_, i) => verifyAccessToken(bearer(hostile[i % hostile.length] ?? ""), options)),
    );
    for (const check of checks) expect(check).toMatchObject({ ok: false, status: 401, error: "invalid_token" });
    expect((await verifyAccessToken(bearer(good), options)).ok).toBe(true);
  });

  it("refuses an expired token", async () => {
    const { app, tokens } = await withApi();
    const options: AccessTokenOptions = { issuer: app.server, audience: API };
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 601_000 + 15_000);
      expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).toMatchObject({ status: 401 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses at once a token whose application the user revoked", async () => {
    const { app, client, jar, tokens } = await withApi();
    const options: AccessTokenOptions = { issuer: app.server, audience: API };
    expect((await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).ok).toBe(true);
    const request = new Request(`${ORIGIN}/account`, { headers: { cookie: jar.header() } });
    const csrf = await getCsrfToken(request, app.config);
    for (const cookie of csrf.cookies) jar.cookies.set(cookie.name, cookie.value);
    const page = new Request(`${ORIGIN}/account`, { headers: { cookie: jar.header() } });
    expect(await revokeAuthorizedApp(app.server, page, client.clientId, { csrfToken: csrf.token })).toBe(true);
    expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).toMatchObject({
      status: 401,
      error: "invalid_token",
    });
  });

  it("refuses at once the tokens of a refresh family ended by a reused refresh token", async () => {
    const { app, client, tokens } = await withApi();
    const options: AccessTokenOptions = { issuer: app.server, audience: API };
    const refresh = (token: string) =>
      send(app, "/oauth/token", {
        form: { grant_type: "refresh_token", refresh_token: token, client_id: client.clientId },
      });
    const next = (await (await refresh(tokens.refresh_token ?? "")).json()) as Record<string, string>;
    expect((await verifyAccessToken(bearer(next.access_token ?? ""), options)).ok).toBe(true);
    await refresh(tokens.refresh_token ?? "");
    expect(await verifyAccessToken(bearer(next.access_token ?? ""), options)).toMatchObject({ status: 401 });
  });

  it("answers 503, never accepting the token, when the revocation list cannot be loaded", async () => {
    const down: RevocationStore = {
      add: async () => {
        throw new Error("store down");
      },
      load: async () => {
        throw new Error("store down");
      },
      subscribe: async () => {},
    };
    const { app, tokens } = await withApi({ revocation: undefined });
    const options: AccessTokenOptions = { issuer: app.server, audience: API, revocation: down };
    const check = await verifyAccessToken(bearer(tokens.access_token ?? ""), options);
    expect(check).toMatchObject({ ok: false, status: 503 });
    expect(!check.ok && check.headers["Retry-After"]).toBe("5");
  });

  it("reads an opaque token from the server's store", async () => {
    const { app, tokens } = await withApi({ accessTokenFormat: "opaque" });
    expect(tokens.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const options: AccessTokenOptions = { issuer: app.server, audience: API };
    expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).toMatchObject({
      ok: true,
      token: { sub: "u1" },
    });
    const elsewhere: AccessTokenOptions = { issuer: app.server, audience: "https://other.example" };
    expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), elsewhere)).toMatchObject({ status: 401 });
  });
});

describe("verifyAccessToken against a remote server (its metadata and JWKS fetched)", () => {
  it("discovers the JWKS from the issuer's metadata and shares the revocation store", async () => {
    const { app, client, tokens, revocation } = await withApi();
    const options: AccessTokenOptions = { issuer: ORIGIN, audience: API, revocation, fetch: fetchFrom(app) };
    expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).toMatchObject({
      ok: true,
      token: { sub: "u1" },
    });
    await send(app, "/oauth/revoke", { form: { token: tokens.refresh_token ?? "", client_id: client.clientId } });
    expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).toMatchObject({ status: 401 });
  });

  it("introspects an opaque token with the resource server's own credentials", async () => {
    const { app, tokens } = await withApi({ accessTokenFormat: "opaque" });
    const { client: api, clientSecret } = await registerClient(app.server, {
      name: "API",
      scopes: [],
      resources: [API],
    });
    const options: AccessTokenOptions = {
      issuer: ORIGIN,
      audience: API,
      fetch: fetchFrom(app),
      introspection: { clientId: api.clientId, clientSecret: clientSecret ?? "" },
    };
    expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).toMatchObject({
      ok: true,
      token: { sub: "u1" },
    });
  });

  it("answers 503 when the issuer cannot be reached, and recovers once it can", async () => {
    const { app, tokens } = await withApi();
    let reachable = false;
    const fetcher = fetchFrom(app);
    const options: AccessTokenOptions = {
      issuer: ORIGIN,
      audience: API,
      fetch: async (input, init) => {
        if (!reachable) throw new TypeError("fetch failed");
        return fetcher(input, init);
      },
    };
    expect(await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).toMatchObject({ status: 503 });
    reachable = true;
    expect((await verifyAccessToken(bearer(tokens.access_token ?? ""), options)).ok).toBe(true);
  });
});

describe("protected resource metadata", () => {
  it("puts the well-known part before the resource's path (RFC 9728 §3.1)", () => {
    const { path, document } = protectedResourceMetadata({
      resource: `${API}/mcp`,
      authorizationServers: [ORIGIN],
      scopes: ["reports:read"],
    });
    expect(path).toBe("/.well-known/oauth-protected-resource/mcp");
    expect(document).toEqual({
      resource: `${API}/mcp`,
      authorization_servers: [ORIGIN],
      bearer_methods_supported: ["header"],
      scopes_supported: ["reports:read"],
    });
  });
});
