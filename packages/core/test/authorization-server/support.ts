/**
 * What the authorization server's tests share: an application (Latchkey with a memory adapter
 * and credentials sign-in, JWT sessions with revocation) with its server, requests sent to the
 * server in process through `server.fetch`, a browser's walk through sign-in and consent, and
 * PKCE pairs.
 */
import { base64url, createLocalJWKSet, type JWTPayload, jwtVerify } from "jose";
import { expect } from "vitest";
import {
  AuthorizationServer,
  type AuthorizationServerOptions,
  type ClientRegistration,
  MemoryAuthorizationStore,
  registerClient,
} from "../../src/authorization-server.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import type { AuthConfig } from "../../src/types.js";
import { CookieJar, call, makeConfig, ORIGIN, recordingLogger, signIn } from "../helpers.js";

export { CookieJar, ORIGIN };

export interface App {
  config: AuthConfig;
  server: AuthorizationServer;
  store: MemoryAuthorizationStore;
  logged: ReturnType<typeof recordingLogger>;
}

/** An application whose users sign in with credentials ("ada" / "lovelace", user u1), and its server. */
export async function makeApp(
  options: Partial<AuthorizationServerOptions> = {},
  configOverrides: Partial<AuthConfig> = {},
): Promise<App> {
  const logged = recordingLogger();
  const adapter = MemoryAdapter();
  await adapter.createUser?.({
    id: "u1",
    name: "Ada Lovelace",
    email: "ada@example.com",
    emailVerified: new Date(0),
    image: "https://img.example/ada.png",
  });
  await adapter.createUser?.({ id: "u2", name: "Grace Hopper", email: "grace@example.com", emailVerified: null });
  const config = makeConfig({
    adapter,
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: async ({ username, password }) => {
          if (password !== "lovelace") return null;
          if (username === "ada") return { id: "u1", name: "Ada Lovelace", email: "ada@example.com" };
          if (username === "grace") return { id: "u2", name: "Grace Hopper", email: "grace@example.com" };
          return null;
        },
      }),
    ],
    session: { strategy: "jwt", revocation: true },
    logger: logged.logger,
    ...configOverrides,
  });
  const store = new MemoryAuthorizationStore();
  const server = AuthorizationServer({
    issuer: ORIGIN,
    auth: config,
    store,
    scopes: ["openid", "profile", "email", "offline_access", "reports:read", "reports:write"],
    ...options,
  });
  return { config, server, store, logged };
}

export interface Send {
  method?: string;
  form?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  jar?: CookieJar;
}

/** One request to the server in process (the cookies of its answer applied to `jar`). */
export async function send(app: App, path: string, options: Send = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.jar?.cookies.size) headers.set("cookie", options.jar.header());
  let body: string | undefined;
  if (options.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(options.form))
      for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
    body = params.toString();
  }
  const url = path.startsWith("http") ? path : `${ORIGIN}${path}`;
  const response = await app.server.fetch(
    new Request(url, { method: options.method ?? (body !== undefined ? "POST" : "GET"), headers, body }),
  );
  if (!response) throw new Error(`${path} is not a path of the server`);
  options.jar?.apply(response);
  return response;
}

/** A PKCE pair (RFC 7636, S256). */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url.encode(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  return { verifier, challenge };
}

/** A public client (a native or browser app) with the given registration over sensible defaults. */
export async function publicClient(app: App, overrides: Partial<ClientRegistration> = {}) {
  const { client } = await registerClient(app.server, {
    name: "Reports app",
    redirectUris: ["https://reports.example/callback"],
    tokenEndpointAuthMethod: "none",
    scopes: ["openid", "profile", "email", "offline_access", "reports:read"],
    resources: ["https://api.example"],
    ...overrides,
  });
  return client;
}

/** A browser signed in as "ada" (u1), or as "grace" (u2). */
export async function signedInBrowser(app: App, jar = new CookieJar(), username = "ada"): Promise<CookieJar> {
  const { response } = await signIn(app.config, jar, { username });
  expect(response.status).toBe(302);
  return jar;
}

/** The query of an authorization request for `clientId` with PKCE, state and nonce. */
export function authorizationQuery(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    client_id: clientId,
    response_type: "code",
    redirect_uri: "https://reports.example/callback",
    scope: "openid email offline_access",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "state-123",
    nonce: "nonce-456",
    ...extra,
  }).toString();
}

/** The hidden fields of the consent page's form (its interaction and CSRF token). */
export function consentFields(html: string): { interaction: string; csrfToken: string } {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const interaction = field("interaction");
  const csrfToken = field("csrfToken");
  if (!interaction || !csrfToken) throw new Error("The page is not the consent page");
  return { interaction, csrfToken };
}

/**
 * A signed-in browser's walk from an authorization request to the client's redirect URI:
 * consents when asked. Answers the redirect's URL.
 */
export async function authorizeInBrowser(app: App, jar: CookieJar, query: string, decision = "allow"): Promise<URL> {
  let response = await send(app, `/oauth/authorize?${query}`, { jar });
  if (response.status === 200) {
    const fields = consentFields(await response.text());
    response = await send(app, "/oauth/consent", { jar, form: { ...fields, decision } });
  }
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location") ?? "");
}

/** A code for `clientId` through a signed-in browser, and its PKCE verifier. */
export async function codeFor(app: App, clientId: string, jar: CookieJar, extra: Record<string, string> = {}) {
  const { verifier, challenge } = await pkce();
  const back = await authorizeInBrowser(app, jar, authorizationQuery(clientId, challenge, extra));
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`No code: ${back.href}`);
  return { code, verifier, back };
}

/** Exchanges a code at the token endpoint as a public client. */
export function exchange(
  app: App,
  clientId: string,
  code: string,
  verifier: string,
  extra: Record<string, string | string[]> = {},
) {
  return send(app, "/oauth/token", {
    form: {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: "https://reports.example/callback",
      client_id: clientId,
      ...extra,
    },
  });
}

/** A JWT verified against the server's published JWKS. */
export async function verifyWithJwks(
  app: App,
  token: string,
  options: Parameters<typeof jwtVerify>[2] = {},
): Promise<JWTPayload> {
  const keys = (await (await send(app, "/oauth/jwks")).json()) as Parameters<typeof createLocalJWKSet>[0];
  const { payload } = await jwtVerify(token, createLocalJWKSet(keys), { issuer: ORIGIN, ...options });
  return payload;
}

/** Latchkey's own answer to who is signed in, for checking that a logout ended the session. */
export async function sessionOf(app: App, jar: CookieJar): Promise<unknown> {
  const response = await call(app.config, "/auth/session", { jar });
  return response.json();
}

/** An application with a public client and a browser signed in as "ada". */
export async function signedInClient(
  options: Partial<AuthorizationServerOptions> = {},
  client: Partial<ClientRegistration> = {},
) {
  const app = await makeApp(options);
  const registered = await publicClient(app, client);
  return { app, client: registered, jar: await signedInBrowser(app) };
}

/** The tokens of a code flow for `clientId` through the signed-in browser `jar`. */
export async function tokensFor(app: App, clientId: string, jar: CookieJar, extra: Record<string, string> = {}) {
  const { code, verifier } = await codeFor(app, clientId, jar, extra);
  const response = await exchange(app, clientId, code, verifier);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, string>;
}

/** The `error` of an OAuth error answer. */
export const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error;
