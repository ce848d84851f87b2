/**
 * The MCP profile's client side of the authorization server: clients known by the URL of their
 * metadata document (fetched from a real HTTPS server on loopback, with SSRF protection, limits
 * and a cache) and dynamic client registration (RFC 7591), each with the attacker's tests:
 * SSRF to this machine and through redirects, a document that names another client, oversized
 * or slow documents, redirect-URI tricks, secrets and client credentials asked for, registration
 * abuse, and many requests at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import {
  type AuthorizationServerOptions,
  consentDetails,
  rotateClientSecret,
  updateClient,
} from "../../src/authorization-server.js";
import { isPublicAddress } from "../../src/lib/platform/addresses.js";
import { type DocumentHost, startDocumentHost } from "./document-host.js";
import {
  type App,
  authorizationQuery,
  authorizeInBrowser,
  codeFor,
  consentFields,
  errorOf,
  exchange,
  makeApp,
  pkce,
  publicClient,
  send,
  signedInBrowser,
} from "./support.js";

const REDIRECT = "https://reports.example/callback";
const MCP = "https://mcp.example/mcp";
let host: DocumentHost;
let path = 0;

beforeAll(async () => {
  host = await startDocumentHost();
});
afterAll(() => host.close());

/** A fresh path on the document host, and its URL (the client id). */
function newDocumentPath(): { path: string; clientId: string } {
  const p = `/clients/${++path}.json`;
  return { path: p, clientId: `${host.origin}${p}` };
}

/** Publishes a document for a new client id (its own `client_id` unless `document` says otherwise). */
function publish(document: Record<string, unknown> = {}, headers?: Record<string, string>): string {
  const { path: p, clientId } = newDocumentPath();
  host.published.set(p, {
    json: { client_id: clientId, client_name: "Claude-ish", redirect_uris: [REDIRECT], ...document },
    ...(headers && { headers }),
  });
  return clientId;
}

const documents = (more: Partial<NonNullable<AuthorizationServerOptions["clientMetadataDocuments"]>> = {}) => ({
  clientMetadataDocuments: {
    scopes: ["openid", "email", "offline_access", "reports:read"],
    resources: [MCP],
    allowPrivateNetwork: true,
    ca: [host.cert],
    ...more,
  },
});

const hitsOf = (clientId: string) => host.hits.get(new URL(clientId).pathname) ?? 0;

/** The authorization endpoint's answer for `clientId`, from a signed-in browser. */
async function authorizeAs(app: App, clientId: string, extra: Record<string, string> = {}) {
  const jar = await signedInBrowser(app);
  const { verifier, challenge } = await pkce();
  const response = await send(app, `/oauth/authorize?${authorizationQuery(clientId, challenge, extra)}`, { jar });
  return { response, jar, verifier };
}

describe("client ID metadata documents", () => {
  it("are advertised only when on", async () => {
    const off = await (await send(await makeApp(), "/.well-known/oauth-authorization-server")).json();
    expect(off).not.toHaveProperty("client_id_metadata_document_supported");
    const on = await (await send(await makeApp(documents()), "/.well-known/oauth-authorization-server")).json();
    expect(on).toMatchObject({ client_id_metadata_document_supported: true });
  });

  it("let a client named by its document's URL sign a user in: consent shows where it comes from, the token is for the MCP server", async () => {
    const app = await makeApp(documents());
    const clientId = publish({ client_name: "Inspector <b>", scope: "openid reports:read admin" });
    const { response, jar, verifier } = await authorizeAs(app, clientId, {
      scope: "openid reports:read",
      resource: MCP,
    });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain("Inspector &lt;b&gt;");
    expect(page).toContain("not registered here");
    expect(page).toContain(`<strong>${new URL(clientId).host}</strong>`);
    expect(page).toContain("<strong>reports.example</strong>");
    const consented = await send(app, "/oauth/consent", { jar, form: { ...consentFields(page), decision: "allow" } });
    const code = new URL(consented.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const tokens = (await (await exchange(app, clientId, code, verifier, { resource: MCP })).json()) as Record<
      string,
      string
    >;
    expect(tokens.scope).toBe("openid reports:read");
    const claims = JSON.parse(Buffer.from(tokens.access_token?.split(".")[1] ?? "", "base64url").toString());
    expect(claims).toMatchObject({ client_id: clientId, aud: MCP, sub: "u1" });
    expect(hitsOf(clientId)).toBe(1);
  });

  it("tell a consent page of the application's own which host vouches for such a client, and none for a registered one", async () => {
    const app = await makeApp({ ...documents(), pages: { consent: "/my-consent" } });
    const clientId = publish({ client_name: "Registered-looking name" });
    const { response, jar } = await authorizeAs(app, clientId);
    const page = new URL(response.headers.get("location") ?? "");
    expect(page.pathname).toBe("/my-consent");
    const request = new Request(page, { headers: { cookie: jar.header() } });
    const details = await consentDetails(app.server, request, page.searchParams.get("interaction"));
    expect(details).toMatchObject({
      clientId,
      clientName: "Registered-looking name",
      clientHost: new URL(host.origin).host,
      redirectHost: "reports.example",
    });
    const registered = await publicClient(app);
    const { response: own } = await authorizeAs(app, registered.clientId);
    const ownPage = new URL(own.headers.get("location") ?? "");
    const ownDetails = await consentDetails(
      app.server,
      new Request(ownPage, { headers: { cookie: jar.header() } }),
      ownPage.searchParams.get("interaction"),
    );
    expect(ownDetails?.clientName).toBe("Reports app");
    expect(ownDetails).not.toHaveProperty("clientHost");
  });

  it("never skip consent, and refuse scopes beyond the server's policy for such clients", async () => {
    const app = await makeApp(documents());
    const clientId = publish();
    const { response } = await authorizeAs(app, clientId, { scope: "openid profile" });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location") ?? "").searchParams.get("error")).toBe("invalid_scope");
  });

  it("fetch a document once for 40 requests at once, and keep it", async () => {
    const app = await makeApp(documents());
    const clientId = publish();
    const jar = await signedInBrowser(app);
    const { challenge } = await pkce();
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        send(app, `/oauth/authorize?${authorizationQuery(clientId, challenge)}`, { jar }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    await send(app, `/oauth/authorize?${authorizationQuery(clientId, challenge)}`, { jar });
    expect(hitsOf(clientId)).toBe(1);
  });

  it.each([
    ["names another client_id", (id: string) => ({ client_id: `${id}x` })],
    ["names the client_id in another case", (id: string) => ({ client_id: id.toUpperCase() })],
    ["has a javascript: redirect URI", () => ({ redirect_uris: ["javascript:alert(document.cookie)"] })],
    ["has a redirect URI with user info", () => ({ redirect_uris: ["https://reports.example@evil.example/callback"] })],
    ["carries a client secret", () => ({ client_secret: "s3cret" })],
    ["asks for client credentials", () => ({ grant_types: ["authorization_code", "client_credentials"] })],
    ["authenticates with a shared secret", () => ({ token_endpoint_auth_method: "client_secret_basic" })],
    ["asks for an implicit response type", () => ({ response_types: ["token"] })],
    [
      "sends its keys by URL",
      () => ({ token_endpoint_auth_method: "private_key_jwt", jwks_uri: "https://x.example/j" }),
    ],
    ["has no redirect URI", () => ({ redirect_uris: [] })],
  ])("refuse a document that %s, and log why", async (_what, change) => {
    const app = await makeApp(documents());
    const { path: p, clientId } = newDocumentPath();
    host.published.set(p, {
      json: { client_id: clientId, client_name: "Evil", redirect_uris: [REDIRECT], ...change(clientId) },
    });
    const { response } = await authorizeAs(app, clientId);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("not registered");
    expect(app.logged.warnings).toContain("client-metadata-document-refused");
  });

  it("refuse a redirect URI the document does not list, and look-alike hosts", async () => {
    const app = await makeApp(documents());
    const clientId = publish();
    for (const uri of ["https://reports.example.evil.example/callback", "https://reports.example/callback/../x"]) {
      const { response } = await authorizeAs(app, clientId, { redirect_uri: uri });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
    }
  });

  it("refuse a document whose client_name holds control or bidirectional characters: the consent page shows no forged text", async () => {
    const app = await makeApp(documents());
    for (const name of ["Reports\n\u0000", "Reports \u202Emoc.elpmaxe", "Reports\u2067x"]) {
      const clientId = publish({ client_name: name });
      const { response } = await authorizeAs(app, clientId);
      expect(response.status, JSON.stringify(name)).toBe(400);
      expect(await response.text()).not.toContain(name);
      expect(app.logged.warnings.at(-1)).toBe("client-metadata-document-refused");
    }
  });

  it("refuse what is not JSON, an error status, a body over the size limit", async () => {
    const app = await makeApp(documents({ maxBytes: 1024 }));
    const notJson = newDocumentPath();
    host.published.set(notJson.path, (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("{}"));
    const failing = newDocumentPath();
    host.published.set(failing.path, { json: {}, status: 500 });
    const large = publish({ software_statement: "x".repeat(2000) });
    const chunked = newDocumentPath();
    host.published.set(chunked.path, (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`{"client_id":"${chunked.clientId}","pad":"`);
      res.end(`${"y".repeat(4096)}"}`);
    });
    for (const clientId of [notJson.clientId, failing.clientId, large, chunked.clientId]) {
      const { response } = await authorizeAs(app, clientId);
      expect(response.status, clientId).toBe(400);
    }
    expect(app.logged.warnings.filter((w) => w === "client-metadata-document-refused")).toHaveLength(4);
  });

  it("give up on a document that does not come in time", async () => {
    const app = await makeApp(documents({ timeoutMs: Math.ceil(100 * inject("timeScale")) }));
    const { path: p, clientId } = newDocumentPath();
    const held: import("node:http").ServerResponse[] = [];
    host.published.set(p, (_req, res) => {
      held.push(res);
    });
    const { response } = await authorizeAs(app, clientId);
    expect(response.status).toBe(400);
    expect(held).toHaveLength(1);
    for (const res of held) res.destroy();
  });

  it("do not follow a redirect, not even to a public document", async () => {
    const app = await makeApp(documents());
    const target = publish();
    const { path: p, clientId } = newDocumentPath();
    host.published.set(p, (_req, res) => res.writeHead(302, { location: target }).end());
    const { response } = await authorizeAs(app, clientId);
    expect(response.status).toBe(400);
    expect(hitsOf(target)).toBe(0);
  });

  it("remember a refused document for a while: a failing client id cannot make the server fetch on every request", async () => {
    const app = await makeApp(documents());
    const { path: p, clientId } = newDocumentPath();
    host.published.set(p, { json: {}, status: 404 });
    for (let i = 0; i < 5; i++) expect((await authorizeAs(app, clientId)).response.status).toBe(400);
    expect(hitsOf(clientId)).toBe(1);
  });

  it("keep a document at least a minute, even when its Cache-Control says max-age=0", async () => {
    const app = await makeApp(documents({ cacheSeconds: 60 }));
    const clientId = publish({}, { "cache-control": "max-age=0" });
    expect((await authorizeAs(app, clientId)).response.status).toBe(200);
    expect((await authorizeAs(app, clientId)).response.status).toBe(200);
    expect(hitsOf(clientId)).toBe(1);
  });

  it("are not fetched from this machine or private networks unless a test allows it: no connection is made", async () => {
    const app = await makeApp(documents({ allowPrivateNetwork: false }));
    const port = new URL(host.origin).port;
    const before = [...host.hits.values()].reduce((a, b) => a + b, 0);
    const clientIds = [
      publish(), // localhost: resolves to loopback
      `https://127.0.0.1:${port}/clients/a.json`,
      `https://[::1]:${port}/clients/b.json`,
      `https://[::ffff:7f00:1]:${port}/clients/c.json`,
      "https://169.254.169.254/latest/meta-data.json",
      "https://10.0.0.1/client.json",
      "https://0.0.0.0/client.json",
    ];
    for (const clientId of clientIds) {
      const { response } = await authorizeAs(app, clientId);
      expect(response.status, clientId).toBe(400);
    }
    expect([...host.hits.values()].reduce((a, b) => a + b, 0)).toBe(before);
    expect(app.logged.warnings.filter((w) => w === "client-metadata-document-refused")).toHaveLength(clientIds.length);
  });

  it("are client ids only when https, with a path, and written exactly as parsed", async () => {
    const app = await makeApp(documents());
    const clientId = publish();
    const port = new URL(host.origin).port;
    for (const variant of [
      clientId.replace("https://localhost", "https://LOCALHOST"),
      clientId.replace("https:", "http:"),
      `https://localhost:${port}/`,
      `https://localhost:${port}/clients/../clients/${clientId.split("/").pop()}`,
      `${clientId}#fragment`,
      clientId.replace("https://", "https://user@"),
    ]) {
      const { response } = await authorizeAs(app, variant);
      expect(response.status, variant).toBe(400);
    }
    expect(hitsOf(clientId)).toBe(0);
  });

  it("are off by default: a URL client id is an unknown client, never fetched", async () => {
    const app = await makeApp();
    const clientId = publish();
    expect((await authorizeAs(app, clientId)).response.status).toBe(400);
    expect(hitsOf(clientId)).toBe(0);
  });

  it("are checked when the server is made", async () => {
    await expect(makeApp({ clientMetadataDocuments: { scopes: ["admin"] } })).rejects.toThrow(/lack/);
    await expect(
      makeApp({ clientMetadataDocuments: { scopes: ["openid"], resources: ["not a uri"] } }),
    ).rejects.toThrow(/resources/);
    await expect(makeApp({ clientMetadataDocuments: { scopes: ["openid"], timeoutMs: 0 } })).rejects.toThrow(
      /timeoutMs/,
    );
  });
});

describe("dynamic client registration (RFC 7591)", () => {
  const policy = {
    dynamicRegistration: { scopes: ["openid", "email", "offline_access", "reports:read"], resources: [MCP] },
  };

  const registerAt = (app: App, body: unknown, headers: Record<string, string> = {}) =>
    app.server.fetch(
      new Request("http://localhost:3000/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );

  it("is off by default: no endpoint, none advertised", async () => {
    const app = await makeApp();
    expect(await registerAt(app, { redirect_uris: [REDIRECT] })).toBeUndefined();
    expect(await (await send(app, "/.well-known/oauth-authorization-server")).json()).not.toHaveProperty(
      "registration_endpoint",
    );
  });

  it("registers a public client whose code flow then works, its scopes the policy's whatever it asked, and consent says it is unverified", async () => {
    const app = await makeApp(policy);
    const metadata = (await (await send(app, "/.well-known/oauth-authorization-server")).json()) as Record<
      string,
      string
    >;
    expect(metadata.registration_endpoint).toBe("http://localhost:3000/oauth/register");
    const response = await registerAt(app, {
      client_name: "MCP Inspector",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: "openid reports:read profile admin",
    });
    expect(response?.status).toBe(201);
    const registered = (await response?.json()) as Record<string, unknown>;
    expect(registered).toMatchObject({
      client_name: "MCP Inspector",
      scope: "openid email offline_access reports:read",
    });
    expect(registered).not.toHaveProperty("client_secret");
    const clientId = String(registered.client_id);
    const {
      response: page,
      jar,
      verifier,
    } = await authorizeAs(app, clientId, {
      scope: "openid reports:read",
      resource: MCP,
    });
    const html = await page.text();
    expect(html).toContain("not registered here");
    const consented = await send(app, "/oauth/consent", { jar, form: { ...consentFields(html), decision: "allow" } });
    const code = new URL(consented.headers.get("location") ?? "").searchParams.get("code") ?? "";
    expect((await exchange(app, clientId, code, verifier, { resource: MCP })).status).toBe(200);
  });

  it("gives a confidential client its secret once, which then authenticates it", async () => {
    const app = await makeApp(policy);
    const registered = (await (await registerAt(app, { redirect_uris: [REDIRECT] }))?.json()) as Record<string, string>;
    expect(registered.token_endpoint_auth_method).toBe("client_secret_basic");
    expect(registered.client_secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const wrong = await send(app, "/oauth/token", {
      form: { grant_type: "client_credentials" },
      headers: { authorization: `Basic ${btoa(`${registered.client_id}:${registered.client_secret}`)}` },
    });
    expect(await errorOf(wrong)).toBe("unauthorized_client");
  });

  it.each([
    ["a javascript: redirect URI", { redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
    ["a data: redirect URI", { redirect_uris: ["data:text/html,x"] }, "invalid_redirect_uri"],
    ["plain http off loopback", { redirect_uris: ["http://reports.example/cb"] }, "invalid_redirect_uri"],
    ["no redirect URI", { redirect_uris: [] }, "invalid_redirect_uri"],
    [
      "client credentials",
      { redirect_uris: [REDIRECT], grant_types: ["client_credentials"] },
      "invalid_client_metadata",
    ],
    ["the implicit grant", { redirect_uris: [REDIRECT], grant_types: ["implicit"] }, "invalid_client_metadata"],
    [
      "keys by URL",
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt", jwks_uri: "https://x.example" },
      "invalid_client_metadata",
    ],
    [
      "private keys",
      {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "private_key_jwt",
        jwks: { keys: [{ kty: "EC", d: "x" }] },
      },
      "invalid_client_metadata",
    ],
    [
      "a name of 10,000 characters",
      { redirect_uris: [REDIRECT], client_name: "x".repeat(10_000) },
      "invalid_client_metadata",
    ],
    ["a list for a name", { redirect_uris: [REDIRECT], client_name: ["a", "b"] }, "invalid_client_metadata"],
    [
      "a name with CR, LF or NUL",
      { redirect_uris: [REDIRECT], client_name: "Reports\r\nSet-Cookie: x=1\u0000" },
      "invalid_client_metadata",
    ],
    [
      "a name that reverses the text after it (U+202E)",
      { redirect_uris: [REDIRECT], client_name: "Reports \u202Emoc.elpmaxe" },
      "invalid_client_metadata",
    ],
    [
      "a name with an isolate or invisible mark (U+2066, U+200F)",
      { redirect_uris: [REDIRECT], client_name: "Reports\u2066\u200F" },
      "invalid_client_metadata",
    ],
  ])("refuses %s", async (_what, body, error) => {
    const app = await makeApp(policy);
    const response = await registerAt(app, body);
    expect(response?.status).toBe(400);
    expect(await errorOf(response as Response)).toBe(error);
    expect(await app.store.find("client")).toHaveLength(0);
  });

  it("refuses what is not a JSON object, and a form", async () => {
    const app = await makeApp(policy);
    for (const body of ["not json", "[1,2]", "null", '"x"']) {
      const response = await registerAt(app, body);
      expect(response?.status, body).toBe(400);
    }
    const form = await send(app, "/oauth/register", { form: { redirect_uris: REDIRECT } });
    expect(await errorOf(form)).toBe("invalid_client_metadata");
  });

  it("needs the initial access token when one is set, compared exactly", async () => {
    const token = "initial-access-token-0123456789abcdef";
    const app = await makeApp({ dynamicRegistration: { ...policy.dynamicRegistration, initialAccessToken: token } });
    for (const authorization of [undefined, `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`]) {
      const response = await registerAt(app, { redirect_uris: [REDIRECT] }, authorization ? { authorization } : {});
      expect(response?.status).toBe(401);
    }
    const ok = await registerAt(app, { redirect_uris: [REDIRECT] }, { authorization: `Bearer ${token}` });
    expect(ok?.status).toBe(201);
  });

  it("registers 30 clients at once, each its own id", async () => {
    const app = await makeApp({
      dynamicRegistration: { ...policy.dynamicRegistration, perIp: { max: 30, windowSeconds: 3600 } },
    });
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        registerAt(app, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
      ),
    );
    const ids = await Promise.all(
      answers.map(async (a) => ((await (a as Response).json()) as { client_id: string }).client_id),
    );
    expect(new Set(ids).size).toBe(30);
    expect(await app.store.find("client")).toHaveLength(30);
  });
});

describe("rule: registrations are counted even where no client address is known (server.fetch, no clientAddress)", () => {
  const limited = (more: Partial<AuthorizationServerOptions> = {}) => ({
    dynamicRegistration: {
      scopes: ["openid", "reports:read"],
      resources: [MCP],
      perIp: { max: 5, windowSeconds: 3600 },
    },
    ...more,
  });
  const registerOnce = (app: App, headers: Record<string, string> = {}) =>
    app.server.fetch(
      new Request("http://localhost:3000/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
      }),
    );

  it("attack: 40 registrations at once from strangers without an address share one budget: perIp.max stored, the rest 429", async () => {
    const app = await makeApp(limited());
    const answers = await Promise.all(Array.from({ length: 40 }, () => registerOnce(app)));
    const statuses = answers.map((a) => a?.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    expect(answers.find((a) => a?.status === 429)?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await app.store.find("client")).toHaveLength(5);
  });

  it("attack: a spoofed X-Forwarded-For without clientAddress moves no registration to a fresh budget", async () => {
    const app = await makeApp(limited());
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => registerOnce(app, { "x-forwarded-for": `203.0.113.${i + 1}` })),
    );
    expect(answers.filter((a) => a?.status === 201)).toHaveLength(5);
    expect(await app.store.find("client")).toHaveLength(5);
  });

  it("attack: open registration where the application turned rate limits off (rateLimit: false) is refused when the server is made, naming the fix; with an initial access token it is allowed", async () => {
    await expect(makeApp(limited(), { rateLimit: false })).rejects.toThrow(
      /dynamicRegistration.*rateLimit: false.*initialAccessToken/s,
    );
    const closed = await makeApp(
      { dynamicRegistration: { ...limited().dynamicRegistration, initialAccessToken: "i".repeat(40) } },
      { rateLimit: false },
    );
    const answer = await registerOnce(closed, { authorization: `Bearer ${"i".repeat(40)}` });
    expect(answer?.status).toBe(201);
  });

  it("honest: with clientAddress set, each address has its own budget", async () => {
    const app = await makeApp(limited(), {
      clientAddress: (request) => request.headers.get("x-test-client"),
    });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => registerOnce(app, { "x-test-client": `198.51.100.${i % 2}` })),
    );
    expect(answers.filter((a) => a?.status === 201)).toHaveLength(10);
    expect(await app.store.find("client")).toHaveLength(10);
  });
});

describe("rule: dynamic registrations are bounded: an unused one expires, and at most maxClients are kept", () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const bounded = (more: Record<string, unknown> = {}) => ({
    dynamicRegistration: {
      scopes: ["openid", "reports:read"],
      resources: [MCP],
      perIp: { max: 100, windowSeconds: 3600 },
      ...more,
    },
  });
  // Each stranger from an address of its own (the application's clientAddress), so that only the cap counts.
  const byAddress = { clientAddress: (request: Request) => request.headers.get("x-test-client") };
  const registerFrom = (app: App, address: string) =>
    app.server.fetch(
      new Request("http://localhost:3000/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json", "x-test-client": address },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
      }),
    );
  const idOf = async (response: Response | undefined) =>
    ((await (response as Response).json()) as { client_id: string }).client_id;

  it("an unused registration is gone after unusedSeconds; one a user granted is kept and keeps working", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const app = await makeApp(bounded({ unusedSeconds: 600 }), byAddress);
    const unused = await idOf(await registerFrom(app, "198.51.100.1"));
    const used = await idOf(await registerFrom(app, "198.51.100.2"));
    expect((await app.store.get("client", unused))?.expiresAt).toBe(Date.now() + 600_000);
    const jar = await signedInBrowser(app);
    const { challenge } = await pkce();
    const back = await authorizeInBrowser(app, jar, authorizationQuery(used, challenge, { scope: "openid" }));
    expect(back.searchParams.get("code")).toBeTruthy();
    expect((await app.store.get("client", used))?.expiresAt).toBeUndefined();
    vi.setSystemTime(Date.now() + 601_000);
    expect(await app.store.get("client", unused)).toBeNull();
    const refused = await send(app, `/oauth/authorize?${authorizationQuery(unused, challenge)}`, { jar });
    expect(refused.status).toBe(400);
    expect(await app.store.find("client")).toHaveLength(1);
    const again = await codeFor(app, used, jar, { scope: "openid" });
    expect((await exchange(app, used, again.code, again.verifier)).status).toBe(200);
  });

  it("attack: 40 strangers from 40 addresses register at once against maxClients 5: 5 stored, the rest 503 with Retry-After and a warning naming the option", async () => {
    const app = await makeApp(bounded({ maxClients: 5, unusedSeconds: 600 }), byAddress);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => registerFrom(app, `203.0.113.${i + 1}`)));
    const statuses = answers.map((a) => a?.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 503)).toHaveLength(35);
    const full = answers.find((a) => a?.status === 503) as Response;
    expect(Number(full.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(full.headers.get("retry-after"))).toBeLessThanOrEqual(600);
    expect(await full.json()).toEqual({
      error: "temporarily_unavailable",
      error_description: "The server takes no more registrations now: try again later",
    });
    expect(await app.store.find("client")).toHaveLength(5);
    expect(app.logged.warnings).toContain("dynamic-registration-full");
  });

  it("honest: once an unused registration expires there is room again; clients the admin API registered never count", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const app = await makeApp(bounded({ maxClients: 2, unusedSeconds: 600 }), byAddress);
    await publicClient(app);
    await publicClient(app);
    expect((await registerFrom(app, "198.51.100.1"))?.status).toBe(201);
    vi.setSystemTime(Date.now() + 300_000);
    expect((await registerFrom(app, "198.51.100.2"))?.status).toBe(201);
    const full = await registerFrom(app, "198.51.100.3");
    expect(full?.status).toBe(503);
    expect(full?.headers.get("retry-after")).toBe("300");
    vi.setSystemTime(Date.now() + 301_000);
    expect((await registerFrom(app, "198.51.100.3"))?.status).toBe(201);
  });

  it("an admin's change to a dynamic registration (updateClient, rotateClientSecret) keeps it counting toward maxClients and on its unused clock", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const app = await makeApp(bounded({ maxClients: 2, unusedSeconds: 600 }), byAddress);
    const named = await idOf(await registerFrom(app, "198.51.100.1"));
    const confidential = await app.server.fetch(
      new Request("http://localhost:3000/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json", "x-test-client": "198.51.100.2" },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" }),
      }),
    );
    expect(confidential?.status).toBe(201);
    const rotated = await idOf(confidential);
    const before = await Promise.all([named, rotated].map((id) => app.store.get("client", id)));
    await updateClient(app.server, named, { name: "Renamed by the admin" });
    await rotateClientSecret(app.server, rotated);
    for (const [i, id] of [named, rotated].entries()) {
      const record = await app.store.get("client", id);
      expect(record?.data.origin).toBe("registration");
      expect(record?.expiresAt).toBe(before[i]?.expiresAt);
    }
    expect((await app.store.get("client", named))?.data.name).toBe("Renamed by the admin");
    // Still two registrations kept: a third stranger is refused.
    expect((await registerFrom(app, "198.51.100.3"))?.status).toBe(503);
    // And still unused ones: gone after unusedSeconds, making room again.
    vi.setSystemTime(Date.now() + 601_000);
    expect(await app.store.get("client", named)).toBeNull();
    expect((await registerFrom(app, "198.51.100.3"))?.status).toBe(201);
  });

  it("an admin's change racing a user's grant keeps both: the new name, and the client kept for good", async () => {
    const app = await makeApp(bounded({ maxClients: 5, unusedSeconds: 600 }), byAddress);
    const id = await idOf(await registerFrom(app, "198.51.100.1"));
    const jar = await signedInBrowser(app);
    const { challenge } = await pkce();
    const [back] = await Promise.all([
      authorizeInBrowser(app, jar, authorizationQuery(id, challenge, { scope: "openid" })),
      ...Array.from({ length: 5 }, (_, i) => updateClient(app.server, id, { name: `Renamed ${i}` })),
    ]);
    expect(back.searchParams.get("code")).toBeTruthy();
    const record = await app.store.get("client", id);
    expect(record?.expiresAt).toBeUndefined();
    expect(record?.data.origin).toBe("registration");
    expect(String(record?.data.name)).toMatch(/^Renamed \d$/);
  });

  it.each([
    ["unusedSeconds", 0],
    ["unusedSeconds", 1.5],
    ["maxClients", -1],
    ["maxClients", "10"],
  ])("refuses dynamicRegistration.%s = %s when the server is made, naming the option", async (name, value) => {
    await expect(makeApp(bounded({ [name]: value }))).rejects.toThrow(
      new RegExp(`dynamicRegistration\\.${name}.*whole number`),
    );
  });
});

describe("public addresses", () => {
  it.each([
    ["93.184.215.14", true],
    ["8.8.8.8", true],
    ["2606:4700:4700::1111", true],
    ["127.0.0.1", false],
    ["127.255.0.9", false],
    ["10.1.2.3", false],
    ["172.16.0.1", false],
    ["172.31.255.255", false],
    ["172.32.0.1", true],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["224.0.0.1", false],
    ["255.255.255.255", false],
    ["198.18.0.1", false],
    ["::1", false],
    ["::", false],
    ["[::1]", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:8.8.8.8", false],
    ["::ffff:7f00:1", false],
    ["64:ff9b::7f00:1", false],
    ["fc00::1", false],
    ["fd12:3456::1", false],
    ["fe80::1%eth0", false],
    ["ff02::1", false],
    ["2001:db8::1", false],
    ["2002:7f00:1::1", false],
    ["2001:0:4136:e378::1", false],
    ["not an address", false],
    ["1.2.3", false],
    ["1.2.3.256", false],
    ["1:2:3:4:5:6:7:8:9", false],
  ])("%s is public: %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
