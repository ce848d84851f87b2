/**
 * A small OAuth 2 authorization server written for the tests (node:http on 127.0.0.1, port 0).
 * It speaks three dialects:
 * - plain RFC 6749 + PKCE: `/authorize`, `/token`, `/me`;
 * - TikTok-shaped: `/v2/auth/authorize/` (client_key), `/v2/oauth/token/` (client_key in the
 *   body), `/v2/user/info/` (only the `fields` asked for, `{ data: { user }, error }`);
 * - VK-shaped: every URL needs `v`; `/access_token` answers without token_type and with the
 *   e-mail; `/method/users.get` answers `{ response: [user] }`.
 * - HubSpot-shaped: `/oauth/v1/access-tokens/<token>` describes the plain dialect's access token
 *   in the path, without an `Authorization` header, and names the user by e-mail address.
 * The user is the authorization request's `login_hint` (default "ada"); `deny` refuses.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, string>;
  authorization?: string;
}

export interface TestAuthServer {
  origin: string;
  requests: RecordedRequest[];
  /** Makes the next answers of an endpoint (by path) fail with this status and body. */
  failures: Map<string, { status: number; body: unknown }>;
  close(): Promise<void>;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  user: string;
  dialect: "plain" | "tiktok" | "vk";
}

const USERS: Record<string, { id: number; name: string; first: string; last: string; email: string }> = {
  ada: { id: 4242, name: "Ada Lovelace", first: "Ada", last: "Lovelace", email: "Ada@Example.org" },
  ivan: { id: 7, name: "Ivan Petrov", first: "Ivan", last: "Petrov", email: "ivan@vk.example" },
};

const TIKTOK_FIELDS = new Set([
  "open_id",
  "union_id",
  "avatar_url",
  "avatar_url_100",
  "avatar_large_url",
  "display_name",
  "bio_description",
  "profile_deep_link",
  "is_verified",
  "username",
  "follower_count",
  "following_count",
  "likes_count",
  "video_count",
]);

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
}

/** Starts the server; `clients` maps a client id (or TikTok client key) to its secret and redirect URIs. */
export async function startAuthServer(
  clients: Record<string, { secret: string; redirectUris: string[] }>,
): Promise<TestAuthServer> {
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, Grant>();
  const requests: RecordedRequest[] = [];
  const failures = new Map<string, { status: number; body: unknown }>();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function authorize(res: ServerResponse, query: Record<string, string>, dialect: Grant["dialect"]) {
    const clientId = dialect === "tiktok" ? query.client_key : query.client_id;
    const client = clientId ? clients[clientId] : undefined;
    if (!client || !query.redirect_uri || !client.redirectUris.includes(query.redirect_uri)) {
      return send(res, 400, { error: "invalid_client_or_redirect_uri" });
    }
    const back = new URL(query.redirect_uri);
    if (query.state) back.searchParams.set("state", query.state);
    if (query.response_type !== "code") {
      back.searchParams.set("error", "unsupported_response_type");
    } else if (query.login_hint === "deny") {
      back.searchParams.set("error", "access_denied");
      back.searchParams.set("error_description", "The user said no");
    } else {
      const code = randomBytes(16).toString("hex");
      const challenge = query.code_challenge_method === "S256" ? query.code_challenge : undefined;
      grants.set(code, {
        clientId,
        redirectUri: query.redirect_uri,
        challenge,
        user: query.login_hint ?? "ada",
        dialect,
      } as Grant);
      back.searchParams.set("code", code);
    }
    res.writeHead(302, { location: back.href });
    res.end();
  }

  function token(req: IncomingMessage, res: ServerResponse, body: Record<string, string>, dialect: Grant["dialect"]) {
    let clientId: string | undefined;
    let secret: string | undefined;
    const basic = req.headers.authorization?.match(/^Basic (.+)$/)?.[1];
    if (basic) {
      const [id = "", pw = ""] = Buffer.from(basic, "base64").toString("utf8").split(":");
      clientId = decodeURIComponent(id.replace(/\+/g, " "));
      secret = decodeURIComponent(pw.replace(/\+/g, " "));
    } else {
      clientId = dialect === "tiktok" ? body.client_key : body.client_id;
      secret = body.client_secret;
    }
    const client = clientId ? clients[clientId] : undefined;
    if (!client || client.secret !== secret)
      return send(res, 401, { error: "invalid_client", error_description: "Client authentication failed" });
    if (body.grant_type !== "authorization_code") return send(res, 400, { error: "unsupported_grant_type" });
    const grant = grants.get(body.code ?? "");
    grants.delete(body.code ?? "");
    if (!grant || grant.clientId !== clientId || grant.redirectUri !== body.redirect_uri) {
      return send(res, 400, {
        error: "invalid_grant",
        error_description: "The code is unknown, used, or for another client",
      });
    }
    if (grant.challenge) {
      const computed = createHash("sha256")
        .update(body.code_verifier ?? "")
        .digest("base64url");
      if (computed !== grant.challenge)
        return send(res, 400, { error: "invalid_grant", error_description: "PKCE verification failed" });
    }
    const accessToken = randomBytes(16).toString("hex");
    tokens.set(accessToken, grant);
    const user = USERS[grant.user] ?? (USERS.ada as (typeof USERS)[string]);
    if (dialect === "vk")
      return send(res, 200, { access_token: accessToken, expires_in: 86400, user_id: user.id, email: user.email });
    if (dialect === "tiktok") {
      return send(res, 200, {
        access_token: accessToken,
        expires_in: 86400,
        open_id: `tt-${grant.user}`,
        refresh_expires_in: 31536000,
        refresh_token: "tt-refresh",
        scope: "user.info.basic,user.info.profile",
        token_type: "Bearer",
      });
    }
    return send(res, 200, {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: "plain-refresh",
      scope: "read profile",
      authorization_details: [{ type: "account_information", actions: ["read"] }],
    });
  }

  function bearer(req: IncomingMessage): Grant | undefined {
    const value = req.headers.authorization?.match(/^Bearer (.+)$/i)?.[1];
    return value ? tokens.get(value) : undefined;
  }

  server.on("request", async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", origin);
    const query = Object.fromEntries(url.searchParams);
    const body = req.method === "POST" ? await readBody(req) : {};
    requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      query,
      body,
      authorization: req.headers.authorization,
    });
    const failure = failures.get(url.pathname);
    if (failure) return send(res, failure.status, failure.body);
    const vkVersionMissing = url.pathname.startsWith("/vk/") && !query.v;
    if (vkVersionMissing)
      return send(res, 400, { error: { error_code: 8, error_msg: "Invalid request: v is required" } });

    const tokenInfo = /^\/oauth\/v1\/access-tokens\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && tokenInfo) {
      const grant = tokens.get(decodeURIComponent(tokenInfo[1] as string));
      if (!grant) return send(res, 404, { status: "error", message: "The OAuth token used for this call is invalid." });
      const user = USERS[grant.user] as (typeof USERS)[string];
      return send(res, 200, {
        token: tokenInfo[1],
        user: user.email,
        hub_domain: "example-7123.com",
        scopes: ["oauth"],
        hub_id: 7123456,
        app_id: 456789,
        expires_in: 1800,
        user_id: user.id,
        token_type: "access",
      });
    }

    switch (`${req.method} ${url.pathname}`) {
      case "GET /authorize":
        return authorize(res, query, "plain");
      case "POST /token":
        return token(req, res, body, "plain");
      case "GET /me": {
        const grant = bearer(req);
        if (!grant)
          return send(res, 401, { error: "invalid_token" }, { "www-authenticate": 'Bearer error="invalid_token"' });
        const user = USERS[grant.user] as (typeof USERS)[string];
        return send(res, 200, {
          id: user.id,
          name: user.name,
          email: user.email,
          picture: `https://img.example/${grant.user}.png`,
        });
      }
      case "GET /v2/auth/authorize/":
        return authorize(res, query, "tiktok");
      case "POST /v2/oauth/token/":
        return token(req, res, body, "tiktok");
      case "GET /v2/user/info/": {
        const grant = bearer(req);
        if (!grant)
          return send(res, 401, {
            data: {},
            error: { code: "access_token_invalid", message: "bad token", log_id: "l1" },
          });
        const fields = (query.fields ?? "").split(",").filter(Boolean);
        if (fields.length === 0 || fields.some((f) => !TIKTOK_FIELDS.has(f))) {
          return send(res, 400, { data: {}, error: { code: "invalid_params", message: "fields", log_id: "l2" } });
        }
        const all: Record<string, unknown> = {
          open_id: `tt-${grant.user}`,
          union_id: `tt-union-${grant.user}`,
          avatar_url: "https://tiktok.example/avatar.jpg",
          display_name: "Ada on TikTok",
          username: "ada.tt",
          follower_count: 12,
        };
        const user = Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]]));
        return send(res, 200, { data: { user }, error: { code: "ok", message: "", log_id: "l3" } });
      }
      case "GET /vk/authorize":
        return authorize(res, query, "vk");
      case "POST /vk/access_token":
        return token(req, res, body, "vk");
      case "GET /vk/method/users.get": {
        const grant = bearer(req);
        if (!grant) return send(res, 200, { error: { error_code: 5, error_msg: "User authorization failed" } });
        const user = USERS[grant.user] as (typeof USERS)[string];
        const fields = (query.fields ?? "").split(",");
        const profile: Record<string, unknown> = {
          id: user.id,
          first_name: user.first,
          last_name: user.last,
          is_closed: false,
          can_access_closed: true,
        };
        if (fields.includes("photo_100")) profile.photo_100 = `https://vk.example/${grant.user}_100.jpg`;
        return send(res, 200, { response: [profile] });
      }
      default:
        return send(res, 404, { error: "not_found" });
    }
  });

  return {
    origin,
    requests,
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
