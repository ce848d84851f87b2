/**
 * The token endpoint (OAuth 2.1 §3.2): the authorization code grant with PKCE, refresh tokens
 * (rotated for public clients, a reused one ending its family), client credentials, and the device
 * code grant (RFC 8628 §3.4).
 */
import type { ResponseInternal } from "../../shapes/data.js";
import { refuseBanned } from "../admin/config.js";
import { AccessDenied, AdapterError } from "../base/errors.js";
import { authenticateClient } from "./clients.js";
import type { ServerState } from "./config.js";
import { digest, sameText } from "./crypto.js";
import { grantStands } from "./grants.js";
import { json, OAuthError, type ServerRequest, scopesOf } from "./http.js";
import {
  type ClientData,
  type DeviceData,
  dataOf,
  type FamilyData,
  isCodeData,
  isDeviceData,
  isFamilyData,
  isSpentCodeData,
  type SignedInAs,
} from "./records.js";
import {
  issueAccessToken,
  issueIdToken,
  newFamily,
  openRefreshToken,
  refreshTokenOf,
  revokeAccessTokens,
} from "./tokens.js";
import { resourceProblem } from "./uris.js";

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** How long an exchanged code is remembered, so that a replay of it revokes what it gave. */
const SPENT_CODE_MS = 10 * 60_000;

const invalidGrant = (description: string) => new OAuthError("invalid_grant", description);

/**
 * Whether the user is banned (the configuration's `admin`): every user grant (a code, a refresh,
 * an approved device) asks before issuing, so what a client got before a ban mints nothing after
 * it. An admin store that cannot be read refuses too: logged, and answered 503.
 */
async function banned(server: ServerState, userId: string): Promise<boolean> {
  try {
    await refuseBanned(server.auth, userId);
    return false;
  } catch (e) {
    if (e instanceof AccessDenied) return true;
    if (!(e instanceof AdapterError)) throw e;
    server.latchkey().logger.error(e);
    throw new OAuthError("temporarily_unavailable", "Try again in a moment", 503, { "retry-after": "5" });
  }
}

/** The resources a token request asks for, each among `allowed` (RFC 8707 §2.2): all of them when none is named. */
function resourcesOf(req: ServerRequest, allowed: readonly string[]): string[] {
  const asked = [...new Set(req.body.all("resource"))];
  for (const resource of asked) {
    const problem = resourceProblem(resource);
    if (problem) throw new OAuthError("invalid_target", problem);
    if (!allowed.includes(resource)) throw new OAuthError("invalid_target", `No token may be issued for ${resource}`);
  }
  return asked.length ? asked : [...allowed];
}

/** The scopes a token request asks for, each among `allowed` (a narrower token is fine): all of them when none is named. */
function scopesAsked(req: ServerRequest, allowed: readonly string[]): string[] {
  const asked = scopesOf(req.body.one("scope"));
  const refused = asked.filter((s) => !allowed.includes(s));
  if (refused.length) throw new OAuthError("invalid_scope", `Not granted: ${refused.join(" ")}`);
  return asked.length ? asked : [...allowed];
}

/** The token response for a user's grant: an access token, a refresh token when the client may refresh, an ID token for `openid`. */
async function userTokens(
  server: ServerState,
  client: ClientData,
  params: {
    grantId: string;
    signedIn: SignedInAs;
    scopes: string[];
    resources: string[];
    nonce?: string;
    /** The refresh family the tokens continue (a refresh), or undefined to start one. */
    family?: { familyId: string; token?: string };
  },
): Promise<{ body: Record<string, unknown>; familyId?: string; jti: string }> {
  const { grantId, signedIn, scopes } = params;
  let familyId = params.family?.familyId;
  let refreshToken = params.family?.token;
  if (!params.family && client.grantTypes.includes("refresh_token")) {
    const family: FamilyData = {
      ...signedIn,
      clientId: client.clientId,
      grantId,
      scopes,
      resources: params.resources,
      rotates: client.tokenEndpointAuthMethod === "none",
    };
    ({ familyId, token: refreshToken } = await newFamily(server, family));
  }
  const audience = params.resources.length ? params.resources : [server.issuer];
  const { token, claims } = await issueAccessToken(server, {
    clientId: client.clientId,
    subject: signedIn.userId,
    scopes,
    audience,
    signedIn,
    grantId,
    ...(familyId !== undefined && { familyId }),
  });
  const body: Record<string, unknown> = {
    access_token: token,
    token_type: "Bearer",
    expires_in: server.ttl.accessToken,
    scope: scopes.join(" "),
  };
  if (refreshToken !== undefined) body.refresh_token = refreshToken;
  if (scopes.includes("openid")) {
    const user = await server.auth.adapter?.getUser?.(signedIn.userId);
    if (!user) throw invalidGrant("The user no longer exists");
    body.id_token = await issueIdToken(server, {
      clientId: client.clientId,
      // The claims UserInfo gives for these scopes (OIDC Core §5.4 leaves them to UserInfo when an
      // access token is issued; relying parties that read only the ID token, as Auth.js's, need them).
      claims: await server.claims({ user, scopes, clientId: client.clientId }),
      ...(client.idTokenSignedResponseAlg && { alg: client.idTokenSignedResponseAlg }),
      signedIn,
      ...(params.nonce !== undefined && { nonce: params.nonce }),
      accessToken: token,
    });
  }
  return { body, ...(familyId !== undefined && { familyId }), jti: claims.jti };
}

/**
 * Ends what a replayed code gave (OAuth 2.1 §4.1.3: a code used twice revokes the tokens issued
 * from it): its refresh family and its access token.
 */
async function revokeSpentCode(server: ServerState, codeDigest: string): Promise<void> {
  const spent = dataOf(await server.store.take("spent-code", codeDigest), isSpentCodeData);
  if (!spent) return;
  server
    .latchkey()
    .logger.warn(
      "authorization-code-replayed",
      "An authorization code was presented twice: the tokens issued from it are revoked",
    );
  if (spent.familyId) {
    await server.store.delete("family", spent.familyId);
    await revokeAccessTokens(server, { family: spent.familyId });
  }
  await revokeAccessTokens(server, { token: spent.accessTokenJti });
}

async function authorizationCode(
  server: ServerState,
  req: ServerRequest,
  client: ClientData,
): Promise<ResponseInternal> {
  const code = req.body.one("code");
  const verifier = req.body.one("code_verifier");
  const redirectUri = req.body.one("redirect_uri");
  if (code === undefined) throw new OAuthError("invalid_request", "code is required");
  if (verifier === undefined || !VERIFIER.test(verifier))
    throw new OAuthError("invalid_request", "code_verifier is required (PKCE, 43 to 128 characters)");
  const codeDigest = digest(code);
  // Taken, not read: of two exchanges at once, one gets the code.
  const data = dataOf(await server.store.take("code", codeDigest), isCodeData);
  if (!data) {
    await revokeSpentCode(server, codeDigest);
    throw invalidGrant("The code is invalid, expired or already used");
  }
  if (data.clientId !== client.clientId) throw invalidGrant("The code was issued to another client");
  if (redirectUri !== undefined ? redirectUri !== data.redirectUri : client.redirectUris.length !== 1)
    throw invalidGrant("redirect_uri does not match the authorization request");
  const challenge = digest(verifier);
  if (!sameText(challenge, data.codeChallenge)) throw invalidGrant("code_verifier does not match the code_challenge");
  if (!(await grantStands(server, data.grantId))) throw invalidGrant("The grant was revoked");
  if (await banned(server, data.userId)) throw invalidGrant("The user may not sign in");
  const resources = resourcesOf(req, data.resources);
  const signedIn: SignedInAs = {
    userId: data.userId,
    authTime: data.authTime,
    amr: data.amr,
    ...(data.sessionId !== undefined && { sessionId: data.sessionId }),
  };
  const issued = await userTokens(server, client, {
    grantId: data.grantId,
    signedIn,
    scopes: data.scopes,
    resources,
    ...(data.nonce !== undefined && { nonce: data.nonce }),
  });
  await server.store.set({
    kind: "spent-code",
    id: codeDigest,
    data: { grantId: data.grantId, accessTokenJti: issued.jti, ...(issued.familyId && { familyId: issued.familyId }) },
    clientId: client.clientId,
    grantId: data.grantId,
    expiresAt: Date.now() + SPENT_CODE_MS,
    version: 1,
  });
  return json(issued.body);
}

/** Ends a refresh family: its record, and its access tokens on the revocation list. */
export async function endFamily(server: ServerState, familyId: string): Promise<void> {
  await server.store.delete("family", familyId);
  await revokeAccessTokens(server, { family: familyId });
}

async function refreshToken(server: ServerState, req: ServerRequest, client: ClientData): Promise<ResponseInternal> {
  const token = req.body.one("refresh_token");
  if (token === undefined) throw new OAuthError("invalid_request", "refresh_token is required");
  const opened = openRefreshToken(server, token);
  if (!opened) throw invalidGrant("The refresh token is invalid");
  const record = await server.store.get("family", opened.familyId);
  const family = dataOf(record, isFamilyData);
  if (!record || !family) throw invalidGrant("The refresh token is invalid, expired or revoked");
  if (family.clientId !== client.clientId) throw invalidGrant("The refresh token was issued to another client");
  if (opened.generation !== record.version) {
    // RFC 9700 §4.14.2: a rotated-out token presented again means two parties hold the family.
    server
      .latchkey()
      .logger.warn("refresh-token-reused", "A rotated refresh token was used again: its family is revoked");
    await endFamily(server, opened.familyId);
    throw invalidGrant("The refresh token was already used");
  }
  if (!(await grantStands(server, family.grantId))) {
    await endFamily(server, opened.familyId);
    throw invalidGrant("The grant was revoked");
  }
  // Before the family moves on: a store outage leaves the token usable once it answers.
  if (await banned(server, family.userId)) {
    await endFamily(server, opened.familyId);
    throw invalidGrant("The user may not sign in");
  }
  const scopes = scopesAsked(req, family.scopes);
  const resources = resourcesOf(req, family.resources);
  let next: string | undefined;
  if (family.rotates) {
    // Of two refreshes with one token at once, one moves the family on; the other is a reuse.
    const moved = await server.store.swap({ ...record, version: record.version + 1 });
    if (!moved) {
      await endFamily(server, opened.familyId);
      throw invalidGrant("The refresh token was already used");
    }
    next = refreshTokenOf(server, opened.familyId, record.version + 1);
  }
  const issued = await userTokens(server, client, {
    grantId: family.grantId,
    signedIn: family,
    scopes,
    resources,
    family: { familyId: opened.familyId, ...(next !== undefined && { token: next }) },
  });
  return json(issued.body);
}

async function clientCredentials(
  server: ServerState,
  req: ServerRequest,
  client: ClientData,
): Promise<ResponseInternal> {
  if (client.tokenEndpointAuthMethod === "none")
    throw new OAuthError("unauthorized_client", "A public client cannot use client credentials");
  const userScopes = new Set(["openid", "offline_access"]);
  const scopes = scopesAsked(
    req,
    client.scopes.filter((s) => !userScopes.has(s)),
  );
  const resources = resourcesOf(req, client.resources);
  const { token } = await issueAccessToken(server, {
    clientId: client.clientId,
    subject: client.clientId,
    scopes,
    audience: resources.length ? resources : [server.issuer],
  });
  return json({
    access_token: token,
    token_type: "Bearer",
    expires_in: server.ttl.accessToken,
    scope: scopes.join(" "),
  });
}

async function deviceCode(server: ServerState, req: ServerRequest, client: ClientData): Promise<ResponseInternal> {
  const code = req.body.one("device_code");
  if (code === undefined) throw new OAuthError("invalid_request", "device_code is required");
  const id = digest(code);
  const record = await server.store.get("device", id);
  const device = dataOf(record, isDeviceData);
  if (!record || !device || device.clientId !== client.clientId) throw invalidGrant("The device code is invalid");
  const now = Date.now();
  if (device.expiresAt <= now) throw new OAuthError("expired_token", "The device code expired");
  if (device.status === "denied") {
    await server.store.delete("device", id);
    throw new OAuthError("access_denied", "The user denied the request");
  }
  if (device.status === "approved") {
    // Taken: of two polls at once, one gets the tokens.
    const taken = dataOf(await server.store.take("device", id), isDeviceData);
    if (!taken?.signedIn || !taken.grantId) throw invalidGrant("The device code was already used");
    if (!(await grantStands(server, taken.grantId))) throw invalidGrant("The grant was revoked");
    if (await banned(server, taken.signedIn.userId)) throw invalidGrant("The user may not sign in");
    const issued = await userTokens(server, client, {
      grantId: taken.grantId,
      signedIn: taken.signedIn,
      scopes: taken.scopes,
      resources: taken.resources,
    });
    return json(issued.body);
  }
  // Pending: a poll sooner than the interval (or two at once) is told to slow down, for good (RFC 8628 §3.5).
  const early = device.lastPolledAt !== undefined && now - device.lastPolledAt < device.interval * 1000;
  const next: DeviceData = { ...device, lastPolledAt: now, interval: early ? device.interval + 5 : device.interval };
  const moved = await server.store.swap({ ...record, data: { ...next }, version: record.version + 1 });
  if (early || !moved) throw new OAuthError("slow_down", `Poll at most every ${next.interval} seconds`);
  throw new OAuthError("authorization_pending", "The user has not answered yet");
}

/** `POST <path>/token`. */
export async function token(server: ServerState, req: ServerRequest): Promise<ResponseInternal> {
  const grantType = req.body.one("grant_type");
  if (grantType === undefined) throw new OAuthError("invalid_request", "grant_type is required");
  const client = await authenticateClient(server, req);
  const allowed = (type: string) => client.grantTypes.some((g) => g === type);
  switch (grantType) {
    case "authorization_code":
      if (!allowed(grantType)) break;
      return authorizationCode(server, req, client);
    case "refresh_token":
      if (!allowed(grantType)) break;
      return refreshToken(server, req, client);
    case "client_credentials":
      if (!allowed(grantType)) break;
      return clientCredentials(server, req, client);
    case DEVICE_GRANT:
      if (!allowed(grantType)) break;
      return deviceCode(server, req, client);
    default:
      throw new OAuthError("unsupported_grant_type", `The grant ${grantType} is not supported`);
  }
  throw new OAuthError("unauthorized_client", `The client may not use the ${grantType} grant`);
}
