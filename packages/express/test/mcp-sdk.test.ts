/**
 * An MCP server built with the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`), served by
 * Express on loopback and protected by Latchkey's resource-server helper, reached by the SDK's
 * own client and its own OAuth flow (issue 37.3): the 401 challenge, protected resource metadata
 * (RFC 9728), the authorization server's metadata, the client made known by a metadata document
 * (served over HTTPS on loopback) or by dynamic registration, PKCE, the user's sign-in and
 * consent through Latchkey's pages, the token for the MCP server's audience, the tool called as
 * the signed-in user, and a refresh. Then the SDK client against a revoked application.
 */

import {
  type AuthorizationServer,
  AuthorizationServer as createServer,
  endUserGrants,
  listClients,
  MemoryAuthorizationStore,
} from "@latchkey/core/authorization-server";
import { protectedResourceMetadata, verifyAccessToken } from "@latchkey/core/resource-server";
import { MemoryRevocationStore } from "@latchkey/core/revocation";
import { ExpressAuth, ExpressAuthorizationServer } from "@latchkey/express";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DocumentHost, startDocumentHost } from "../../core/test/authorization-server/document-host.js";
import { adaConfig, browserWalk } from "./authorization-walk.js";
import { Jar, listen } from "./helpers.js";
import { MemoryOAuthProvider } from "./mcp-client.js";

const REDIRECT = "http://127.0.0.1:9/callback";
const SCOPES = ["openid", "offline_access", "mcp:tools", "mcp:admin"];

let origin = "";
let close: () => Promise<void>;
let server: AuthorizationServer;
let host: DocumentHost;
/** The bodies of the MCP server's answers that refused a request, and their challenges. */
const challenges: string[] = [];
/** The clients that reached the registration endpoint. */
let registrations = 0;

beforeAll(async () => {
  host = await startDocumentHost();
  const config = await adaConfig("mcp-sdk-express-secret-0123456789abcdef");
  const app = express();
  let mounted: express.RequestHandler = (_req, _res, next) => next();
  app.use((req, _res, next) => {
    if (req.path === "/oauth/register") registrations++;
    next();
  });
  app.use((req, res, next) => mounted(req, res, next));
  app.use("/auth", ExpressAuth(config));
  ({ url: origin, close } = await listen(app, "127.0.0.1"));

  const resource = `${origin}/mcp`;
  const revocation = new MemoryRevocationStore();
  server = createServer({
    issuer: origin,
    auth: config,
    store: new MemoryAuthorizationStore(),
    scopes: SCOPES,
    revocation,
    clientMetadataDocuments: { scopes: SCOPES, resources: [resource], allowPrivateNetwork: true, ca: [host.cert] },
    dynamicRegistration: { scopes: SCOPES, resources: [resource], perIp: { max: 5, windowSeconds: 3600 } },
  });
  mounted = ExpressAuthorizationServer(server);

  // The MCP server: its resource metadata, and /mcp behind verifyAccessToken.
  const metadata = protectedResourceMetadata({
    resource,
    authorizationServers: [origin],
    scopes: ["mcp:tools"],
    name: "Latchkey demo tools",
  });
  const api = { issuer: server, audience: resource, resourceMetadata: `${origin}${metadata.path}`, revocation };
  app.get(metadata.path, (_req, res) => res.json(metadata.document));
  app.post("/mcp", express.json(), async (req, res) => {
    // One tool needs more than the others: its call asks for mcp:admin too (step-up by scope).
    const body = req.body as { method?: unknown; params?: { name?: unknown } } | undefined;
    const admin = body?.method === "tools/call" && body.params?.name === "admin-report";
    const needed = admin ? ["mcp:tools", "mcp:admin"] : ["mcp:tools"];
    const check = await verifyAccessToken({ headers: { get: (name) => req.get(name) ?? null } }, api, needed);
    if (!check.ok) {
      challenges.push(check.headers["WWW-Authenticate"] ?? "");
      res
        .status(check.status)
        .set(check.headers)
        .json(check.body ?? { error: "unauthorized" });
      return;
    }
    const token = check.token;
    const authorized = req as express.Request & { auth?: unknown };
    authorized.auth = {
      token: String(req.get("authorization")).slice(7),
      clientId: token.client_id,
      scopes: token.scopes,
      ...(token.exp !== undefined && { expiresAt: token.exp }),
      extra: { sub: token.sub },
    };
    const mcp = new McpServer({ name: "latchkey-demo-tools", version: "1.0.0" });
    mcp.registerTool("whoami", { description: "The signed-in user's id" }, async (extra) => ({
      content: [{ type: "text", text: `${extra.authInfo?.extra?.sub} via ${extra.authInfo?.clientId}` }],
    }));
    mcp.registerTool("admin-report", { description: "Needs mcp:admin" }, async (extra) => ({
      content: [
        { type: "text", text: `admin report for ${extra.authInfo?.extra?.sub}: ${extra.authInfo?.scopes.join(" ")}` },
      ],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
});

afterAll(async () => {
  await close();
  await host.close();
});

/** The SDK client's whole flow: refused, sent to authorize, the user walks through, the code finished, connected. */
async function connectThroughOAuth(provider: MemoryOAuthProvider, jar = new Jar()) {
  const url = new URL(`${origin}/mcp`);
  const first = new Client({ name: "sdk-test", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toThrow(
    UnauthorizedError,
  );
  const start = provider.authorizationUrl;
  if (!start) throw new Error("The SDK did not ask for an authorization");
  const pages: string[] = [];
  const back = await browserWalk(origin, REDIRECT, jar, start, (html) => pages.push(html));
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`No code: ${back.href}`);
  expect(back.searchParams.get("iss")).toBe(origin);
  await new StreamableHTTPClientTransport(url, { authProvider: provider }).finishAuth(code);
  const client = new Client({ name: "sdk-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return { client, start, pages };
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as { type: string; text: string }[])[0]?.text;

describe("the MCP TypeScript SDK's client against an MCP server protected by Latchkey", () => {
  it("discovers the server from the challenge, uses a client ID metadata document, and calls a tool as the signed-in user", async () => {
    host.published.set("/sdk-client.json", {
      json: {
        client_id: `${host.origin}/sdk-client.json`,
        client_name: "SDK test client",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
    });
    const before = registrations;
    const provider = new MemoryOAuthProvider(REDIRECT, `${host.origin}/sdk-client.json`);
    const { client, start, pages } = await connectThroughOAuth(provider);
    expect(challenges.at(-1)).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenges.at(-1)).toContain('scope="mcp:tools"');
    expect(start.searchParams.get("client_id")).toBe(`${host.origin}/sdk-client.json`);
    expect(start.searchParams.get("resource")).toBe(`${origin}/mcp`);
    expect(start.searchParams.get("code_challenge_method")).toBe("S256");
    expect(pages.some((p) => p.includes("not registered here") && p.includes(new URL(host.origin).host))).toBe(true);
    expect(registrations).toBe(before);
    expect(textOf(await client.callTool({ name: "whoami", arguments: {} }))).toBe(
      `u1 via ${host.origin}/sdk-client.json`,
    );
    await client.close();
  });

  it("registers dynamically when the client has no metadata document, then refreshes its token", async () => {
    const before = registrations;
    const provider = new MemoryOAuthProvider(REDIRECT);
    const { client } = await connectThroughOAuth(provider);
    expect(registrations).toBe(before + 1);
    const clientId = provider.information?.client_id ?? "";
    expect(textOf(await client.callTool({ name: "whoami", arguments: {} }))).toBe(`u1 via ${clientId}`);
    await client.close();

    // An access token that no longer works: the SDK refreshes (a rotated refresh token) and goes on.
    const refreshToken = provider.saved?.refresh_token;
    expect(refreshToken).toBeTruthy();
    provider.saved = { ...(provider.saved as OAuthTokens), access_token: "expired-or-revoked-token-0000000000" };
    const again = new Client({ name: "sdk-test", version: "1.0.0" });
    await again.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }));
    expect(provider.saved?.refresh_token).not.toBe(refreshToken);
    expect(textOf(await again.callTool({ name: "whoami", arguments: {} }))).toBe(`u1 via ${clientId}`);
    await again.close();
  });

  it("refuses the SDK client at once when the user revokes the application: its token and its refresh are dead", async () => {
    const provider = new MemoryOAuthProvider(REDIRECT);
    const jar = new Jar();
    const { client } = await connectThroughOAuth(provider, jar);
    await client.close();
    const clientId = provider.information?.client_id ?? "";
    expect(await endUserGrants(server, "u1", clientId)).toBe(1);
    provider.authorizationUrl = undefined;
    const refused = new Client({ name: "sdk-test", version: "1.0.0" });
    await expect(
      refused.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider })),
    ).rejects.toThrow(UnauthorizedError);
    // The refresh was refused (invalid_grant): the SDK dropped its tokens and asks the user again.
    expect(provider.authorizationUrl).toBeInstanceOf(URL);
    expect(provider.saved).toBeUndefined();
  });

  it("steps up by scope: a tool that needs more answers 403 with the scope, the SDK asks the user for it, and the new token calls the tool", async () => {
    // Registered without refresh_token: the SDK then steps up through the user, not a refresh.
    const provider = new MemoryOAuthProvider(REDIRECT, undefined, ["authorization_code"]);
    const jar = new Jar();
    const { client } = await connectThroughOAuth(provider, jar);
    expect(provider.saved?.scope).toBe("mcp:tools");
    expect(provider.saved?.refresh_token).toBeUndefined();
    provider.authorizationUrl = undefined;
    await expect(client.callTool({ name: "admin-report", arguments: {} })).rejects.toThrow(UnauthorizedError);
    expect(challenges.at(-1)).toContain('error="insufficient_scope"');
    expect(challenges.at(-1)).toContain('scope="mcp:tools mcp:admin"');
    const again = provider.authorizationUrl as URL | undefined;
    expect(again?.searchParams.get("scope")).toBe("mcp:tools mcp:admin");
    const back = await browserWalk(origin, REDIRECT, jar, again as URL);
    await new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }).finishAuth(
      back.searchParams.get("code") ?? "",
    );
    const stepped = new Client({ name: "sdk-test", version: "1.0.0" });
    await stepped.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }));
    expect(textOf(await stepped.callTool({ name: "admin-report", arguments: {} }))).toBe(
      "admin report for u1: mcp:tools mcp:admin",
    );
    await stepped.close();
    await client.close();
  });

  // Last: it spends the registrations this address may make.
  it("counts registrations per client address: past perIp.max the next is 429 with Retry-After, and nothing is registered", async () => {
    const register = () =>
      fetch(`${origin}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
      });
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 6 && !refused; i++) {
      const response = await register();
      statuses.push(response.status);
      if (response.status === 429) refused = response;
    }
    expect(statuses.filter((s) => s === 201).length).toBeLessThan(6);
    if (!refused) throw new Error(`No registration was refused: ${statuses.join(", ")}`);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: string }).error).toBe("too_many_requests");
    const count = (await listClients(server)).length;
    expect((await register()).status).toBe(429);
    expect((await listClients(server)).length).toBe(count);
  });
});
