/**
 * The demo as an authorization server (issue 37): its users sign in to other applications with
 * it. Three clients show the three uses:
 *
 * - a second local application, "Reports" (`partner.ts`), that signs its users in with the demo
 *   ("Sign in with the Latchkey demo": the code flow with PKCE, through Latchkey's generic OIDC
 *   provider, as any relying party would);
 * - a command-line tool (`cli.ts`) that signs in with the device grant and calls the demo's API;
 * - an MCP server at `/mcp` (the MCP TypeScript SDK's `McpServer`), protected by
 *   `verifyAccessToken`, that MCP clients reach by their metadata document or by registering.
 *
 * The server's records are kept in memory: restarting the demo forgets its clients and tokens (a
 * real application gives it `SqlAuthorizationStore` or `RedisAuthorizationStore`).
 */
import type { AuthConfig } from "@latchkey/core";
import { AuthorizationServer, MemoryAuthorizationStore, registerClient } from "@latchkey/core/authorization-server";
import { protectedResourceMetadata, verifyAccessToken } from "@latchkey/core/resource-server";
import { ExpressAuthorizationServer } from "@latchkey/express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import express, { type Request, type Response, type Router } from "express";

/** The scopes of the demo's server: OpenID Connect's, and the MCP server's tools. */
const SCOPES = ["openid", "profile", "email", "offline_access", "mcp:tools"];

export interface DemoAuthorization {
  server: AuthorizationServer;
  /** The command-line tool's client id (a public client: the device grant). */
  cliClientId: string;
  /** Registers the second application, whose callback is `redirectUri`: its client id and secret. */
  registerPartner(redirectUri: string): Promise<{ clientId: string; clientSecret: string }>;
  /** The routes: the server's endpoints, /api/me (for the CLI), /mcp and its resource metadata. */
  routes: Router;
}

/** Checks a request's Bearer token for `options`, answering the refusal (with its challenge) itself. */
async function bearer(req: Request, res: Response, options: Parameters<typeof verifyAccessToken>[1], scopes: string[]) {
  const check = await verifyAccessToken({ headers: { get: (name) => req.get(name) ?? null } }, options, scopes);
  if (check.ok) return check.token;
  res
    .status(check.status)
    .set(check.headers)
    .json(check.body ?? { error: "unauthorized" });
  return null;
}

/** The demo's authorization server for `config`, served at `url`. */
export async function demoAuthorization(config: AuthConfig, url: string): Promise<DemoAuthorization> {
  const mcp = `${url}/mcp`;
  const server = AuthorizationServer({
    issuer: url,
    auth: config,
    store: new MemoryAuthorizationStore(),
    scopes: SCOPES,
    // MCP clients are not registered beforehand: by their metadata document's URL, or by registering.
    clientMetadataDocuments: { scopes: ["openid", "offline_access", "mcp:tools"], resources: [mcp] },
    dynamicRegistration: { scopes: ["openid", "offline_access", "mcp:tools"], resources: [mcp] },
  });
  const cli = await registerClient(server, {
    name: "Latchkey demo CLI",
    tokenEndpointAuthMethod: "none",
    grantTypes: ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"],
    scopes: ["openid", "profile", "email", "offline_access"],
  });

  const routes = express.Router();
  routes.use(ExpressAuthorizationServer(server));
  // The CLI's client id: public, as a native app embeds it.
  routes.get("/cli/client-id", (_req, res) => void res.json({ client_id: cli.client.clientId }));

  // The demo's API for the CLI: who the token's user is (an access token for the issuer).
  const api = { issuer: server, audience: url };
  routes.get("/api/me", async (req, res) => {
    const token = await bearer(req, res, api, ["profile"]);
    if (!token) return;
    const user = await config.adapter?.getUser?.(token.sub);
    res.json({ sub: token.sub, name: user?.name ?? null, email: user?.email ?? null, client: token.client_id });
  });

  // The MCP server: its resource metadata (RFC 9728) and /mcp behind verifyAccessToken.
  const metadata = protectedResourceMetadata({
    resource: mcp,
    authorizationServers: [url],
    scopes: ["mcp:tools"],
    name: "Latchkey demo tools",
  });
  const tools = { issuer: server, audience: mcp, resourceMetadata: `${url}${metadata.path}` };
  routes.get(metadata.path, (_req, res) => void res.json(metadata.document));
  routes.post("/mcp", express.json({ limit: "64kb" }), async (req, res) => {
    const token = await bearer(req, res, tools, ["mcp:tools"]);
    if (!token) return;
    const user = await config.adapter?.getUser?.(token.sub);
    const mcpServer = new McpServer({ name: "latchkey-demo-tools", version: "1.0.0" });
    mcpServer.registerTool(
      "whoami",
      { description: "Who signed in to this MCP client, as the Latchkey demo knows them" },
      async () => ({
        content: [{ type: "text", text: `${user?.name ?? "someone"} <${user?.email ?? "no e-mail"}> (${token.sub})` }],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcpServer.close();
    });
    await mcpServer.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  return {
    server,
    cliClientId: cli.client.clientId,
    async registerPartner(redirectUri) {
      const { client, clientSecret } = await registerClient(server, {
        name: "Reports (a second local app)",
        redirectUris: [redirectUri],
        scopes: ["openid", "profile", "email"],
      });
      return { clientId: client.clientId, clientSecret: clientSecret ?? "" };
    },
    routes,
  };
}
