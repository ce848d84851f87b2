/**
 * A real OpenID Provider for the tests: the `oidc-provider` package on 127.0.0.1, port 0. Logins
 * are completed without a browser by a programmatic interaction: the account is the request's
 * `login_hint` (default "alice"); `login_hint=deny` makes the provider answer `access_denied`.
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** The claims of the test users. */
const ACCOUNTS: Record<string, { name: string; email: string; picture?: string }> = {
  alice: { name: "Alice Liddell", email: "Alice@Example.com", picture: "https://img.example/alice.png" },
  bob: { name: "Bob Builder", email: "bob@example.com" },
};

export interface ClientMetadata {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: "client_secret_basic" | "client_secret_post" | "none";
  response_types?: string[];
  grant_types?: string[];
  [key: string]: unknown;
}

export interface TestOP {
  issuer: string;
  port: number;
  /** Every request the provider received: method and path. */
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

// oidc-provider ships no types; the little the harness uses is described here.
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, string | undefined>;
    session?: { accountId?: string };
    grantId?: string;
  }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: unknown,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: {
    new (init: { accountId?: string; clientId?: string }): OidcGrant;
    find(id: string): Promise<OidcGrant | undefined>;
  };
  on(event: string, listener: (...args: unknown[]) => void): void;
}
interface OidcGrant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

async function interaction(op: OidcProvider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await op.interactionDetails(req, res);
  const { prompt, params } = details;
  const hint = params.login_hint ?? "alice";
  if (hint === "deny") {
    await op.interactionFinished(
      req,
      res,
      { error: "access_denied", error_description: "The user declined" },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (prompt.name === "login") {
    await op.interactionFinished(req, res, { login: { accountId: hint } }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = details.session?.accountId;
  const grant = details.grantId
    ? await op.Grant.find(details.grantId)
    : new op.Grant({ accountId, clientId: params.client_id });
  if (!grant) throw new Error("grant not found");
  const missing = prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(resource, scopes.join(" "));
  const grantId = await grant.save();
  await op.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * Starts an OpenID Provider with `clients`. `conformIdTokenClaims: false` (the default here) puts
 * the profile and e-mail claims into the id_token, as most public providers do. `accounts` adds
 * users (login_hint) whose claims are given as is; `email_verified` is true unless they say so.
 * `idTokenSigningAlgs` is what the provider may sign id_tokens with and advertises (default
 * oidc-provider's: asymmetric only); add "HS256" to behave like Keycloak or Auth0, which sign with
 * the client secret for a client registered with `id_token_signed_response_alg: "HS256"`.
 */
export async function startOP(
  clients: ClientMetadata[],
  options: {
    conformIdTokenClaims?: boolean;
    accounts?: Record<string, Record<string, unknown>>;
    idTokenSigningAlgs?: string[];
    /**
     * Issue a refresh token with every code (whatever the scope and prompt) and rotate it on each
     * use, as providers with reuse detection do: a rotated refresh token presented again is
     * refused with `invalid_grant`, and oidc-provider then revokes the whole grant.
     */
    refreshTokens?: boolean;
    /** Scopes and the claims each grants, instead of the default `openid`, `email` and `profile`. */
    claims?: Record<string, string[]>;
    /**
     * Answer UserInfo as a signed JWT (`application/jwt`, OIDC Core §5.3.2) to clients registered
     * with `userinfo_signed_response_alg`, as BankID does.
     */
    jwtUserinfo?: boolean;
  } = {},
): Promise<TestOP> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const op = new (Provider as unknown as new (issuer: string, config: unknown) => OidcProvider)(issuer, {
    clients,
    jwks: { keys: [{ ...key, kid: "test-key", use: "sig", alg: "RS256" }] },
    cookies: { keys: ["oidc-provider-test-cookie-key-0123456789"] },
    claims: options.claims ?? {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name", "picture", "preferred_username"],
    },
    conformIdTokenClaims: options.conformIdTokenClaims ?? false,
    ...(options.idTokenSigningAlgs ? { enabledJWA: { idTokenSigningAlgValues: options.idTokenSigningAlgs } } : {}),
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: !!options.refreshTokens },
      jwtUserinfo: { enabled: !!options.jwtUserinfo },
    },
    ...(options.refreshTokens ? { issueRefreshToken: () => true, rotateRefreshToken: true } : {}),
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
    async findAccount(_ctx: unknown, id: string) {
      const account = options.accounts?.[id] ?? ACCOUNTS[id];
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, email_verified: true, ...account }) };
    },
  });
  const requests: TestOP["requests"] = [];
  const handle = op.callback();
  server.on("request", (req, res) => {
    requests.push({ method: req.method ?? "GET", path: (req.url ?? "").split("?")[0] as string });
    if (req.url?.startsWith("/interaction/")) {
      interaction(op, req, res).catch((e) => {
        res.statusCode = 500;
        res.end(String(e));
      });
      return;
    }
    handle(req, res);
  });
  return {
    issuer,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
