/**
 * Clients: what may be registered (checked when it is registered, naming the field and the fix),
 * and how a client proves who it is at the token, revocation, introspection and device
 * authorization endpoints (RFC 6749 §2.3, RFC 7523 §3, OAuth 2.1 §2.4).
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { InvalidConfiguration } from "../base/errors.js";
import { documentClient, isDocumentClientId } from "./client-metadata.js";
import type { ServerState } from "./config.js";
import { digest, randomToken, sameText } from "./crypto.js";
import { OAuthError, type ServerRequest } from "./http.js";
import type { Client, ClientAuthMethod, ClientRegistration, GrantType } from "./options.js";
import { type ClientData, dataOf, isClientData, pairId } from "./records.js";
import { redirectUriProblem, resourceProblem } from "./uris.js";

const AUTH_METHODS: readonly ClientAuthMethod[] = [
  "none",
  "client_secret_basic",
  "client_secret_post",
  "private_key_jwt",
];
const GRANT_TYPES: readonly GrantType[] = [
  "authorization_code",
  "refresh_token",
  "client_credentials",
  "urn:ietf:params:oauth:grant-type:device_code",
];
/** Algorithms a client may sign its assertion with: asymmetric only (never `none`, never HS*). */
const ASSERTION_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** The longest an assertion may live: its `jti` is remembered that long. */
const MAX_ASSERTION_SECONDS = 600;
const CLOCK_TOLERANCE = 15;

function fail(message: string): never {
  throw new InvalidConfiguration(message);
}

/**
 * `registration` checked against the server: every field's rules, with the fix named. Answers
 * the client's stored shape without its id and secrets.
 */
export function checkRegistration(
  server: ServerState,
  registration: ClientRegistration,
): Omit<ClientData, "clientId" | "secrets" | "createdAt"> {
  if (typeof registration !== "object" || registration === null) fail("registerClient needs the client's registration");
  const { name, scopes, resources = [], redirectUris = [], postLogoutRedirectUris = [] } = registration;
  if (typeof name !== "string" || !name.trim() || name.length > 200)
    fail("`name` is required: the name the consent page shows (at most 200 characters)");
  const method =
    registration.tokenEndpointAuthMethod ?? (registration.jwks ? "private_key_jwt" : "client_secret_basic");
  if (!AUTH_METHODS.includes(method))
    fail(`\`tokenEndpointAuthMethod\` must be one of ${AUTH_METHODS.join(", ")}; received ${JSON.stringify(method)}`);
  if (method === "private_key_jwt") {
    const keys = registration.jwks?.keys;
    if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== "object" || k === null || "d" in k))
      fail("A `private_key_jwt` client needs `jwks: { keys: [...] }` with its public keys (no private members)");
  } else if (registration.jwks !== undefined) {
    fail("`jwks` is for `private_key_jwt` clients only");
  }
  if (!Array.isArray(redirectUris)) fail("`redirectUris` must be a list");
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri, "redirectUris");
    if (problem) fail(problem);
  }
  if (!Array.isArray(postLogoutRedirectUris)) fail("`postLogoutRedirectUris` must be a list");
  for (const uri of postLogoutRedirectUris) {
    const problem = redirectUriProblem(uri, "postLogoutRedirectUris");
    if (problem) fail(problem);
  }
  const confidential = method !== "none";
  const grantTypes =
    registration.grantTypes ??
    (confidential && redirectUris.length === 0 ? ["client_credentials"] : ["authorization_code", "refresh_token"]);
  if (!Array.isArray(grantTypes) || grantTypes.some((g) => !GRANT_TYPES.includes(g)))
    fail(`\`grantTypes\` must list grants among ${GRANT_TYPES.join(", ")}`);
  if (grantTypes.includes("client_credentials") && !confidential)
    fail("The `client_credentials` grant is for confidential clients only (a public client cannot authenticate)");
  if (grantTypes.includes("authorization_code") && redirectUris.length === 0)
    fail("A client with the `authorization_code` grant needs at least one of `redirectUris`");
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== "string"))
    fail("`scopes` must list the scopes the client may ask for");
  const unknown = scopes.filter((s) => !server.scopes.has(s));
  if (unknown.length)
    fail(`\`scopes\` names ${unknown.join(", ")}, which the server does not know: add them to the server's \`scopes\``);
  if (!Array.isArray(resources)) fail("`resources` must be a list of absolute URIs");
  for (const resource of resources) {
    const problem = resourceProblem(resource);
    if (problem) fail(`\`resources\`: ${problem}`);
  }
  const { backchannelLogoutUri, idTokenSignedResponseAlg, skipConsent = false } = registration;
  if (backchannelLogoutUri !== undefined) {
    const problem = redirectUriProblem(backchannelLogoutUri, "backchannelLogoutUri");
    if (problem || !/^https?:/.test(backchannelLogoutUri))
      fail(problem ?? "`backchannelLogoutUri` must be an https: URL (http: only on loopback)");
  }
  if (idTokenSignedResponseAlg !== undefined && !server.algorithms.includes(idTokenSignedResponseAlg))
    fail(
      `\`idTokenSignedResponseAlg\` must be one of the server's \`signing.algorithms\` (${server.algorithms.join(", ")})`,
    );
  if (typeof skipConsent !== "boolean") fail("`skipConsent` must be true or false");
  return {
    name: name.trim(),
    redirectUris: [...redirectUris],
    postLogoutRedirectUris: [...postLogoutRedirectUris],
    tokenEndpointAuthMethod: method,
    ...(registration.jwks && { jwks: { keys: registration.jwks.keys.map((k) => ({ ...k })) } }),
    grantTypes: [...new Set(grantTypes)],
    scopes: [...new Set(scopes)],
    resources: [...new Set(resources)],
    skipConsent,
    ...(backchannelLogoutUri !== undefined && { backchannelLogoutUri }),
    ...(idTokenSignedResponseAlg !== undefined && { idTokenSignedResponseAlg }),
  };
}

/** A client as the admin API shows it: never its secrets' digests. */
export function publicClient(data: ClientData): Client {
  const { secrets: _secrets, ...client } = data;
  return { ...client, confidential: data.tokenEndpointAuthMethod !== "none" };
}

/** Whether a client authenticates with a shared secret. */
export const usesSecret = (method: ClientAuthMethod) =>
  method === "client_secret_basic" || method === "client_secret_post";

/** A new client secret and what is stored of it. */
export async function newSecret(): Promise<{ secret: string; digest: string }> {
  const secret = randomToken(32);
  return { secret, digest: digest(secret) };
}

/** The stored client `clientId`, or null. */
export async function loadClient(server: ServerState, clientId: string): Promise<ClientData | null> {
  if (server.documents && isDocumentClientId(clientId))
    return documentClient(server.documents, clientId, server.latchkey().logger);
  if (clientId.length > 200) return null;
  return dataOf(await server.store.get("client", clientId), isClientData);
}

const invalidClient = (basic: boolean) =>
  new OAuthError(
    "invalid_client",
    "Client authentication failed",
    401,
    basic ? { "WWW-Authenticate": 'Basic realm="oauth", charset="UTF-8"' } : {},
  );

/** `Authorization: Basic` credentials (RFC 6749 §2.3.1: each part form-urlencoded), or undefined. */
function basicCredentials(header: string | null): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const invalid = () => new OAuthError("invalid_request", "The Authorization header is not valid Basic credentials");
  let text: string;
  try {
    const bytes = Uint8Array.from(atob(header.slice(6).trim()), (c) => c.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid();
  }
  const colon = text.indexOf(":");
  if (colon < 0) throw invalid();
  try {
    const plus = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: plus(text.slice(0, colon)), secret: plus(text.slice(colon + 1)) };
  } catch {
    throw invalid();
  }
}

/** Whether `secret` is one of the client's live secrets. */
async function secretMatches(client: ClientData, secret: string): Promise<boolean> {
  const presented = digest(secret);
  const now = Date.now();
  let found = false;
  for (const stored of client.secrets) {
    if (typeof stored?.digest !== "string" || (stored.expiresAt !== undefined && stored.expiresAt <= now)) continue;
    if (sameText(stored.digest, presented)) found = true;
  }
  return found;
}

/**
 * A `private_key_jwt` assertion verified (RFC 7523 §3): signed by one of the client's keys with an
 * asymmetric algorithm, `iss` and `sub` the client, `aud` the issuer or the token endpoint, `exp`
 * within {@link MAX_ASSERTION_SECONDS}, and a `jti` never seen before (a replay is refused).
 */
async function assertionMatches(server: ServerState, client: ClientData, assertion: string): Promise<boolean> {
  if (!client.jwks) return false;
  try {
    const { alg } = decodeProtectedHeader(assertion);
    if (typeof alg !== "string" || !ASSERTION_ALGORITHMS.includes(alg)) return false;
    const { payload } = await jwtVerify(
      assertion,
      createLocalJWKSet({ keys: client.jwks.keys.map((k) => ({ ...k })) }),
      {
        issuer: client.clientId,
        subject: client.clientId,
        audience: [server.issuer, server.endpoints.token],
        algorithms: ASSERTION_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE,
        requiredClaims: ["exp", "jti"],
      },
    );
    const { exp, jti } = payload;
    const now = Math.floor(Date.now() / 1000);
    if (typeof exp !== "number" || typeof jti !== "string" || !jti || jti.length > 200) return false;
    if (exp - now > MAX_ASSERTION_SECONDS) return false;
    return await server.store.add({
      kind: "jti",
      id: pairId(client.clientId, jti),
      data: {},
      clientId: client.clientId,
      expiresAt: (exp + CLOCK_TOLERANCE) * 1000,
      version: 1,
    });
  } catch {
    return false;
  }
}

/**
 * The client of a request to the token, revocation, introspection or device authorization
 * endpoint, authenticated by the one method it registered. More than one method at once is
 * `invalid_request` (RFC 6749 §2.3); an unknown client, a wrong secret or assertion, or a method
 * other than the registered one is `invalid_client` (401), and never says which.
 */
export async function authenticateClient(server: ServerState, req: ServerRequest): Promise<ClientData> {
  const basic = basicCredentials(req.headers.get("authorization"));
  const bodyId = req.body.one("client_id");
  const bodySecret = req.body.one("client_secret");
  const assertionType = req.body.one("client_assertion_type");
  const assertion = req.body.one("client_assertion");
  const methods = [basic, bodySecret, assertion ?? assertionType].filter((m) => m !== undefined).length;
  if (methods > 1) throw new OAuthError("invalid_request", "Use one client authentication method per request");
  if (basic && bodyId !== undefined && bodyId !== basic.id)
    throw new OAuthError("invalid_request", "client_id does not match the Authorization header");
  if (assertion !== undefined && assertionType !== ASSERTION_TYPE)
    throw new OAuthError("invalid_request", `client_assertion_type must be ${ASSERTION_TYPE}`);
  let clientId = basic?.id ?? bodyId;
  if (clientId === undefined && assertion !== undefined) {
    // RFC 7523 §3: without client_id, the client is the assertion's `sub` (verified below).
    try {
      const { sub } = decodeJwt(assertion);
      if (typeof sub === "string") clientId = sub;
    } catch {
      throw invalidClient(false);
    }
  }
  if (clientId === undefined) throw new OAuthError("invalid_client", "The client is not identified", 401);
  const client = await loadClient(server, clientId);
  if (!client) throw invalidClient(!!basic);
  const method = client.tokenEndpointAuthMethod;
  let ok: boolean;
  if (basic) ok = method === "client_secret_basic" && (await secretMatches(client, basic.secret));
  else if (bodySecret !== undefined) ok = method === "client_secret_post" && (await secretMatches(client, bodySecret));
  else if (assertion !== undefined)
    ok = method === "private_key_jwt" && (await assertionMatches(server, client, assertion));
  else ok = method === "none";
  if (!ok) throw invalidClient(!!basic);
  return client;
}
