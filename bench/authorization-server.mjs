/**
 * One authorization-server benchmark process, a child of bench/authorization.mjs (or of the
 * harness test) with an IPC channel, as bench/server.mjs is for the session cases. `BENCH_APP`:
 *
 *   latchkey       Express 5 with Latchkey's authorization server (`ExpressAuthorizationServer`,
 *                  a memory store, opaque access tokens, RS256 ID tokens), its sign-in through
 *                  `ExpressAuth` (credentials), /bare (one `res.json`), and /api: a resource server
 *                  route behind `verifyAccessToken` (a JWT access token of a second, in-process
 *                  server, checked offline against its keys, scope `api:read`)
 *   oidc-provider  Express 5 with `oidc-provider` (`app.use(provider.callback())`) configured for the
 *                  same grants: the same client (client_secret_basic, PKCE required, the same
 *                  redirect URI and scopes), opaque access tokens (its default), RS256 ID tokens,
 *                  client credentials on, refresh tokens not rotated for the confidential client
 *                  (as Latchkey does), its own memory adapter over a plain Map; /bare likewise.
 *                  Its memory adapter's default storage is a cache of about 1,000 entries (two
 *                  generations of a `quick-lru` of 1,000): the codes made before a run, and the
 *                  refresh token made at the start, were evicted by the records of the runs
 *                  before them and answered 400 `invalid_grant`. Latchkey's memory store keeps
 *                  everything until it expires, so oidc-provider gets the same: an unbounded Map
 *
 * It listens on 127.0.0.1, port 0, and sends `{ type: "ready", port }`. IPC `{ id, op }`:
 *   stats         → { now, cpu, requests, errors } (as bench/server.mjs)
 *   codes:N       → { bodies }: N authorization codes made for the bench client, each as the token
 *                   request's form body (Latchkey: through its own authorization endpoint with a
 *                   signed-in session; oidc-provider: its `AuthorizationCode` model, a grant and
 *                   the same PKCE challenge), made before a run and never timed
 *   material      → { basic, refreshBody, clientCredentialsBody, accessToken }: the client's Basic
 *                   credentials, a refresh token's form body, a client-credentials body, and (on
 *                   latchkey) the JWT access token of /api
 *   exit          → closes the server, then exits
 */
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import express from "express";
import { SECRET } from "./secret.mjs";

const app = process.env.BENCH_APP ?? "latchkey";
const REDIRECT = "https://rp.example/callback";
const SCOPES = ["openid", "offline_access", "api:read"];
const VERIFIER = randomBytes(32).toString("base64url");
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");
let errors = 0;
let requests = 0;

const web = express();
web.get("/bare", (_req, res) => {
  res.json({ ok: true });
});
// The resource server's routes (latchkey's /api, /api-jose, /api-node) sit where /bare does, in
// front of the authorization server's middleware: what they are compared with is the check, not
// the middleware a request for another path passes through.
const resourceRoutes = express.Router();
web.use(resourceRoutes);
let mount = (_req, _res, next) => next();
web.use((req, res, next) => mount(req, res, next));

const server = createServer(web);
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
server.keepAliveTimeout = 30_000;
server.on("request", () => {
  requests++;
});
const port = server.address().port;
const origin = `http://127.0.0.1:${port}`;

/** The code exchange's form body for `code`. */
const codeBody = (code) =>
  new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
  }).toString();
const basicOf = (id, secret) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

/** What each app gives the IPC operations. */
let codes;
let material;

if (app === "latchkey") {
  const core = await import("@latchkey/core/authorization-server");
  const { MemoryAdapter } = await import("@latchkey/core/memory-adapter");
  const { verifyAccessToken } = await import("@latchkey/core/resource-server");
  const { ExpressAuth, ExpressAuthorizationServer } = await import("@latchkey/express");
  const { default: Credentials } = await import("@latchkey/express/providers/credentials");
  const adapter = MemoryAdapter();
  await adapter.createUser({ id: "u1", name: "Ada Lovelace", email: "ada@example.com", emailVerified: null });
  const config = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" },
    logger: {
      error: (e) => {
        errors++;
        if (process.env.BENCH_DEBUG) console.error(e);
      },
      warn() {},
      debug() {},
    },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: async ({ username, password }) =>
          username === "ada" && password === "lovelace"
            ? { id: "u1", name: "Ada Lovelace", email: "ada@example.com" }
            : null,
      }),
    ],
  };
  const authorizationServer = core.AuthorizationServer({
    issuer: origin,
    auth: config,
    store: new core.MemoryAuthorizationStore(),
    scopes: SCOPES,
    accessTokenFormat: "opaque",
    ttl: { authorizationCode: 600 },
  });
  const { client, clientSecret } = await core.registerClient(authorizationServer, {
    name: "Bench",
    redirectUris: [REDIRECT],
    tokenEndpointAuthMethod: "client_secret_basic",
    grantTypes: ["authorization_code", "refresh_token", "client_credentials"],
    scopes: SCOPES,
    skipConsent: true,
  });
  const basic = basicOf(client.clientId, clientSecret);
  const authRouter = express.Router();
  authRouter.use("/auth", ExpressAuth(config));
  const served = ExpressAuthorizationServer(authorizationServer);
  mount = (req, res, next) => served(req, res, (error) => (error ? next(error) : authRouter(req, res, next)));

  // The resource server: JWT access tokens of a second server (its keys in this process), for /api.
  const audience = `${origin}/api`;
  const tokens = core.AuthorizationServer({
    issuer: `${origin}/jwt`,
    auth: config,
    store: new core.MemoryAuthorizationStore(),
    scopes: ["api:read"],
    // The token /api checks is fetched once: it must outlive a whole run on a loaded machine (a run
    // of 11 minutes at load 25 outlived the default 10 and stopped on /api's rightful 401).
    ttl: { accessToken: 3600 },
  });
  const service = await core.registerClient(tokens, {
    name: "Service",
    tokenEndpointAuthMethod: "client_secret_basic",
    grantTypes: ["client_credentials"],
    scopes: ["api:read"],
    resources: [audience],
  });
  const api = { issuer: tokens, audience };
  resourceRoutes.get("/api", async (req, res) => {
    const check = await verifyAccessToken({ headers: { get: (name) => req.get(name) ?? null } }, api, ["api:read"]);
    if (!check.ok) return res.status(check.status).set(check.headers).json(check.body);
    res.json({ ok: true, sub: check.token.sub });
  });
  // What the signature alone costs, behind the same middleware as /api (what bounds /api's ratio):
  // jose's jwtVerify against the same keys (Web Crypto, as verifyAccessToken uses it), and Node's
  // synchronous crypto.verify of the same signature with a KeyObject imported once.
  const { createLocalJWKSet, jwtVerify } = await import("jose");
  const { createPublicKey, verify } = await import("node:crypto");
  const { keys } = await (await tokens.fetch(new Request(`${origin}/jwt/oauth/jwks`))).json();
  const jwks = createLocalJWKSet({ keys });
  const bearer = (req) => (req.get("authorization") ?? "").replace(/^Bearer /, "");
  resourceRoutes.get("/api-jose", async (req, res) => {
    try {
      const { payload } = await jwtVerify(bearer(req), jwks, { audience, typ: "at+jwt", algorithms: ["RS256"] });
      res.json({ ok: true, sub: payload.sub });
    } catch {
      res.status(401).json({ ok: false });
    }
  });
  const publicKeys = new Map(keys.map((k) => [k.kid, createPublicKey({ key: k, format: "jwk" })]));
  resourceRoutes.get("/api-node", (req, res) => {
    const [header, payload, signature] = bearer(req).split(".");
    const key = publicKeys.get(JSON.parse(Buffer.from(header ?? "", "base64url").toString()).kid);
    const signed = Buffer.from(`${header}.${payload}`);
    if (!key || !signature || !verify("RSA-SHA256", signed, key, Buffer.from(signature, "base64url")))
      return res.status(401).json({ ok: false });
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    if (claims.aud !== audience || claims.exp * 1000 < Date.now()) return res.status(401).json({ ok: false });
    res.json({ ok: true, sub: claims.sub });
  });

  // A signed-in browser's session cookie, through Latchkey's own sign-in.
  const jar = new Map();
  const keep = (response) => {
    for (const c of response.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return response;
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const { csrfToken } = await keep(await fetch(`${origin}/auth/csrf`)).json();
  keep(
    await fetch(`${origin}/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie() },
      body: new URLSearchParams({ csrfToken, username: "ada", password: "lovelace" }).toString(),
    }),
  );
  const authorizeUrl = (scope) =>
    `${origin}/oauth/authorize?${new URLSearchParams({
      client_id: client.clientId,
      response_type: "code",
      redirect_uri: REDIRECT,
      scope,
      code_challenge: CHALLENGE,
      code_challenge_method: "S256",
      state: "bench",
    })}`;
  const oneCode = async (scope = "openid") => {
    const response = await fetch(authorizeUrl(scope), { redirect: "manual", headers: { cookie: cookie() } });
    const code = new URL(response.headers.get("location") ?? "", origin).searchParams.get("code");
    if (!code) throw new Error(`No code from Latchkey's authorization endpoint (${response.status})`);
    return code;
  };
  codes = async (n) => {
    const bodies = [];
    for (let i = 0; i < n; i += 10) {
      const batch = await Promise.all(Array.from({ length: Math.min(10, n - i) }, () => oneCode()));
      bodies.push(...batch.map(codeBody));
    }
    return bodies;
  };
  material = async () => {
    const exchanged = await fetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
      body: codeBody(await oneCode("openid offline_access")),
    });
    const { refresh_token } = await exchanged.json();
    const jwt = await tokens.fetch(
      new Request(`${origin}/jwt/oauth/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: basicOf(service.client.clientId, service.clientSecret),
        },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          scope: "api:read",
          resource: audience,
        }).toString(),
      }),
    );
    return {
      basic,
      refreshBody: new URLSearchParams({ grant_type: "refresh_token", refresh_token }).toString(),
      clientCredentialsBody: new URLSearchParams({ grant_type: "client_credentials", scope: "api:read" }).toString(),
      accessToken: (await jwt.json()).access_token,
    };
  };
} else if (app === "oidc-provider") {
  const { default: Provider } = await import("oidc-provider");
  // Not exported by name in its package: the adapter module's own hook for its storage (8.x).
  const { setStorage } = await import("oidc-provider/lib/adapters/memory_adapter.js");
  setStorage(new Map());
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "bench", alg: "RS256", use: "sig" };
  const clientSecret = randomBytes(32).toString("base64url");
  const provider = new Provider(origin, {
    clients: [
      {
        client_id: "bench",
        client_secret: clientSecret,
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token", "client_credentials"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
        scope: SCOPES.join(" "),
      },
    ],
    scopes: SCOPES,
    jwks: { keys: [jwk] },
    features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
    pkce: { required: () => true },
    rotateRefreshToken: false,
    findAccount: async (_ctx, accountId) => ({ accountId, claims: async () => ({ sub: accountId }) }),
    cookies: { keys: [SECRET] },
  });
  provider.on("server_error", () => errors++);
  mount = provider.callback();
  const benchClient = await provider.Client.find("bench");
  const newCode = async (scope) => {
    const grant = new provider.Grant({ accountId: "u1", clientId: "bench" });
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    const code = new provider.AuthorizationCode({
      client: benchClient,
      accountId: "u1",
      grantId,
      scope,
      redirectUri: REDIRECT,
      codeChallenge: CHALLENGE,
      codeChallengeMethod: "S256",
      authTime: Math.floor(Date.now() / 1000),
    });
    return code.save();
  };
  const basic = basicOf("bench", clientSecret);
  codes = async (n) => {
    const bodies = [];
    for (let i = 0; i < n; i++) bodies.push(codeBody(await newCode("openid")));
    return bodies;
  };
  material = async () => {
    const exchanged = await fetch(`${origin}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
      body: codeBody(await newCode("openid offline_access")),
    });
    const answer = await exchanged.json();
    if (!answer.refresh_token) throw new Error(`oidc-provider gave no refresh token: ${JSON.stringify(answer)}`);
    return {
      basic,
      refreshBody: new URLSearchParams({ grant_type: "refresh_token", refresh_token: answer.refresh_token }).toString(),
      clientCredentialsBody: new URLSearchParams({ grant_type: "client_credentials", scope: "api:read" }).toString(),
    };
  };
} else {
  throw new Error(`Unknown BENCH_APP ${app}`);
}

function send(message) {
  if (process.send) process.send(message);
  else console.log(JSON.stringify(message));
}

let exiting = false;
async function exit(code) {
  if (exiting) return;
  exiting = true;
  server.closeAllConnections?.();
  await new Promise((resolve) => server.close(() => resolve()));
  process.exit(code);
}

process.on("message", async (message) => {
  const { id, op } = message ?? {};
  try {
    if (op === "stats") {
      const now = Number(process.hrtime.bigint() / 1000n);
      send({ id, now, cpu: process.cpuUsage(), requests, errors, heapUsed: process.memoryUsage().heapUsed });
    } else if (typeof op === "string" && op.startsWith("codes:")) {
      send({ id, bodies: await codes(Number(op.slice(6))) });
    } else if (op === "material") {
      send({ id, ...(await material()) });
    } else if (op === "exit") {
      void exit(0);
    }
  } catch (e) {
    send({ id, error: String(e?.stack ?? e) });
  }
});
process.on("disconnect", () => void exit(0));
process.on("SIGTERM", () => void exit(0));
send({ type: "ready", port });
