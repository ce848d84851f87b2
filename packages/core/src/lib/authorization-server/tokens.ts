/**
 * The tokens the server issues and how each is recognised again:
 *
 * - access tokens: a JWT (RFC 9068: `typ: at+jwt`, signed by the current key) or an opaque random
 *   string kept in the store under its digest; both carry the grant (`gid`), refresh family
 *   (`fid`) and client they came from, which is what revoking them is keyed on;
 * - refresh tokens: `<family>.<generation>.<mac>`, the MAC under a key derived from the
 *   application's secret. The store keeps the family and its current generation, never the
 *   token: a token of an older generation with a valid MAC is a stolen copy being reused;
 * - ID tokens (OIDC Core §2) and logout tokens (OIDC Back-Channel Logout §2.4).
 */
import { toBase64url, utf8 } from "#platform";
import type { RevocationEntry } from "../../shapes/revocation.js";
import type { ServerState } from "./config.js";
import { digest, leftHalfDigest, mac, randomToken, sameText } from "./crypto.js";
import type { SigningKey } from "./keys.js";
import type { SigningAlgorithm } from "./options.js";
import type { FamilyData, SignedInAs, TokenClaims } from "./records.js";

/** `acr` of a sign-in: two factors or one (Latchkey's second factor adds `otp` to `amr`). */
export const ACR_TWO_FACTORS = "urn:latchkey:acr:2fa";
export const ACR_ONE_FACTOR = "urn:latchkey:acr:1fa";

export function acrOf(amr: readonly string[]): string {
  return amr.includes("otp") ? ACR_TWO_FACTORS : ACR_ONE_FACTOR;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What an access token is issued for. */
export interface AccessTokenGrant {
  clientId: string;
  /** The user, or for client credentials the client itself. */
  subject: string;
  scopes: string[];
  /** The audiences: the resources asked for, else the issuer. */
  audience: string[];
  signedIn?: SignedInAs;
  grantId?: string;
  familyId?: string;
}

/** The JSON of a JWS part, base64url-encoded (RFC 7515 §7.1). */
const encodedJson = (value: unknown) => toBase64url(utf8(JSON.stringify(value)));

/**
 * A compact JWS of `payload` (RFC 7515 §7.1) signed by `key`, its header `{ alg, kid, typ }`: the
 * signature from `#platform` (`node:crypto`'s synchronous `sign` on Node.js, where `jose`'s
 * `SignJWT` went through Web Crypto's thread pool).
 */
async function signJwt(key: SigningKey, typ: string, payload: Record<string, unknown>): Promise<string> {
  const input = `${encodedJson({ alg: key.alg, kid: key.kid, typ })}.${encodedJson(payload)}`;
  return `${input}.${toBase64url(await key.sign(utf8(input)))}`;
}

/**
 * A new access token for `grant`: the claims, and the token (a signed JWT, or an opaque string
 * whose claims are stored under its digest until it expires).
 */
export async function issueAccessToken(
  server: ServerState,
  grant: AccessTokenGrant,
): Promise<{ token: string; claims: TokenClaims }> {
  const iat = nowSeconds();
  const claims: TokenClaims = {
    iss: server.issuer,
    sub: grant.subject,
    client_id: grant.clientId,
    aud: grant.audience,
    scope: grant.scopes.join(" "),
    iat,
    exp: iat + server.ttl.accessToken,
    jti: randomToken(16),
  };
  if (grant.signedIn) {
    if (grant.signedIn.authTime) claims.auth_time = grant.signedIn.authTime;
    claims.acr = acrOf(grant.signedIn.amr);
    if (grant.signedIn.amr.length) claims.amr = [...grant.signedIn.amr];
  }
  if (grant.grantId) claims.gid = grant.grantId;
  if (grant.familyId) claims.fid = grant.familyId;
  if (server.accessTokenFormat === "opaque") {
    const token = randomToken(32);
    await server.store.set({
      kind: "token",
      id: digest(token),
      data: { ...claims },
      clientId: grant.clientId,
      ...(grant.grantId && { grantId: grant.grantId }),
      ...(grant.signedIn && { userId: grant.signedIn.userId }),
      expiresAt: claims.exp * 1000,
      version: 1,
    });
    return { token, claims };
  }
  const { aud, ...rest } = claims;
  const [alg] = server.algorithms;
  const token = await signJwt(await server.keys.signingKey(alg), "at+jwt", {
    ...rest,
    aud: aud.length === 1 ? aud[0] : aud,
  });
  return { token, claims };
}

const REFRESH = /^([A-Za-z0-9_-]{22})\.([1-9][0-9]{0,8})\.([A-Za-z0-9_-]{43})$/;

/** The refresh token of generation `generation` of family `familyId`. */
export function refreshTokenOf(server: ServerState, familyId: string, generation: number): string {
  const [secret] = server.latchkey().secrets;
  return `${familyId}.${generation}.${mac(secret, "refresh token", `${familyId}.${generation}`)}`;
}

/**
 * The family and generation of a refresh token whose MAC verifies under one of the application's
 * secrets; null for anything else (no store is read for a forged token).
 */
export function openRefreshToken(server: ServerState, token: string): { familyId: string; generation: number } | null {
  const match = REFRESH.exec(token);
  if (!match) return null;
  const [, familyId = "", generationText = "", presented = ""] = match;
  const generation = Number(generationText);
  for (const secret of server.latchkey().secrets) {
    if (sameText(mac(secret, "refresh token", `${familyId}.${generation}`), presented)) return { familyId, generation };
  }
  return null;
}

/** A new refresh-token family for a grant, and its first token. */
export async function newFamily(server: ServerState, family: FamilyData): Promise<{ familyId: string; token: string }> {
  const familyId = randomToken(16);
  await server.store.set({
    kind: "family",
    id: familyId,
    data: { ...family },
    userId: family.userId,
    clientId: family.clientId,
    grantId: family.grantId,
    expiresAt: Date.now() + server.ttl.refreshToken * 1000,
    version: 1,
  });
  return { familyId, token: refreshTokenOf(server, familyId, 1) };
}

/** The ID token's claims that only the server sets: a `claims` callback's value for one of them is dropped. */
const RESERVED_CLAIMS = new Set([
  "iss",
  "sub",
  "aud",
  "exp",
  "iat",
  "nbf",
  "jti",
  "auth_time",
  "nonce",
  "acr",
  "amr",
  "azp",
  "sid",
  "at_hash",
  "c_hash",
  "cnf",
]);

/** A signed ID token (OIDC Core §2) for `clientId`; `claims` adds the user's claims, never a reserved one. */
export async function issueIdToken(
  server: ServerState,
  params: {
    clientId: string;
    alg?: SigningAlgorithm;
    signedIn: SignedInAs;
    nonce?: string;
    accessToken: string;
    claims?: Record<string, unknown>;
  },
): Promise<string> {
  const { signedIn } = params;
  const alg = params.alg ?? server.algorithms[0];
  const key = await server.keys.signingKey(alg);
  const iat = nowSeconds();
  const payload: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params.claims ?? {}))
    if (!RESERVED_CLAIMS.has(name) && value !== undefined) payload[name] = value;
  Object.assign(payload, {
    acr: acrOf(signedIn.amr),
    at_hash: leftHalfDigest(params.accessToken),
  });
  if (signedIn.authTime) payload.auth_time = signedIn.authTime;
  if (signedIn.amr.length) payload.amr = [...signedIn.amr];
  if (params.nonce !== undefined) payload.nonce = params.nonce;
  if (signedIn.sessionId !== undefined) payload.sid = signedIn.sessionId;
  return signJwt(key, "JWT", {
    ...payload,
    iss: server.issuer,
    sub: signedIn.userId,
    aud: params.clientId,
    iat,
    exp: iat + server.ttl.idToken,
  });
}

/** A logout token (OIDC Back-Channel Logout §2.4) telling `clientId` that the user's session ended. */
export async function issueLogoutToken(
  server: ServerState,
  params: { clientId: string; userId: string; sessionId?: string },
): Promise<string> {
  const [alg] = server.algorithms;
  const iat = nowSeconds();
  return signJwt(await server.keys.signingKey(alg), "logout+jwt", {
    events: { "http://schemas.openid.net/event/backchannel-logout": {} },
    ...(params.sessionId !== undefined && { sid: params.sessionId }),
    iss: server.issuer,
    sub: params.userId,
    aud: params.clientId,
    iat,
    exp: iat + 120,
    jti: randomToken(16),
  });
}

/**
 * What a revoked thing's entry in the access-token revocation list is named (`kind`, `id`), and
 * how a token is looked up in it: a single token by `jti`, a refresh family's tokens by `fid`, a
 * grant's and a client's tokens issued before the revocation by `gid` and `client_id`.
 */
export type Revoked = { token: string } | { family: string } | { grant: string } | { client: string };

/**
 * Adds the entry that refuses the access tokens of `revoked` to the revocation list (when the
 * server has one): they are refused at once by every resource server verifying with it. Lives
 * as long as the tokens it refuses can, and three minutes more.
 */
export async function revokeAccessTokens(server: ServerState, revoked: Revoked): Promise<void> {
  const revocation = server.revocation;
  if (!revocation) return;
  await revocation.list.start();
  const now = Date.now();
  const expiresAt = now + (server.ttl.accessToken + 15) * 1000 + 3 * 60_000;
  let entry: RevocationEntry;
  if ("token" in revoked) entry = { kind: "session", id: `token:${revoked.token}`, before: now, expiresAt };
  else if ("family" in revoked) entry = { kind: "session", id: `family:${revoked.family}`, before: now, expiresAt };
  else if ("grant" in revoked) entry = { kind: "user", id: `grant:${revoked.grant}`, before: now, expiresAt };
  else entry = { kind: "user", id: `client:${revoked.client}`, before: now, expiresAt };
  await revocation.list.add(entry);
}

/** The claims of a verified access token as the revocation list reads them. */
export interface RevocableClaims {
  jti?: unknown;
  fid?: unknown;
  gid?: unknown;
  client_id?: unknown;
  iat?: unknown;
}

/**
 * Whether `claims` name a token the revocation list refuses: its own entry, its family's, or a
 * grant or client revocation made at or after it was issued. "unavailable" when the list cannot
 * be known to be current (the caller refuses the token then).
 */
export function accessTokenVerdict(
  list: NonNullable<ServerState["revocation"]>["list"],
  claims: RevocableClaims,
): "valid" | "revoked" | "unavailable" {
  const iat = typeof claims.iat === "number" ? claims.iat : undefined;
  const asks: { sid?: string; sub?: string; iat?: number }[] = [];
  if (typeof claims.jti === "string") asks.push({ sid: `token:${claims.jti}` });
  if (typeof claims.fid === "string") asks.push({ sid: `family:${claims.fid}` });
  if (typeof claims.gid === "string") asks.push({ sub: `grant:${claims.gid}`, iat });
  if (typeof claims.client_id === "string") asks.push({ sub: `client:${claims.client_id}`, iat });
  for (const ask of asks) {
    const verdict = list.verdict(ask, true);
    if (verdict !== "valid") return verdict;
  }
  return "valid";
}
