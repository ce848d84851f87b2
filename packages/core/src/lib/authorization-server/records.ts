/**
 * The records the server keeps, as typed data: each kind's shape, a guard that checks a stored
 * value before it is used as that shape (a shared store may hold anything), and the ids under
 * which they are kept. Codes, tokens and device codes are kept under their digest.
 */
import { digest } from "./crypto.js";
import type { ClientAuthMethod, ClientJwk, GrantType, SigningAlgorithm } from "./options.js";
import type { AuthorizationRecord } from "./store.js";

export const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === "string");
const isString = (value: unknown): value is string => typeof value === "string";
const isOptional = <T>(value: unknown, guard: (v: unknown) => v is T): value is T | undefined =>
  value === undefined || guard(value);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** A client as stored: its registration, and the digests of its secrets. */
export interface ClientData {
  clientId: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  tokenEndpointAuthMethod: ClientAuthMethod;
  jwks?: { keys: ClientJwk[] };
  grantTypes: GrantType[];
  scopes: string[];
  resources: string[];
  skipConsent: boolean;
  backchannelLogoutUri?: string;
  idTokenSignedResponseAlg?: SigningAlgorithm;
  /** SHA-256 digests of the secrets that authenticate it (two while a rotation's grace runs). */
  secrets: { digest: string; expiresAt?: number }[];
  createdAt: number;
  /** Set for a client known by its metadata document, or registered dynamically. */
  origin?: "document" | "registration";
}

export function isClientData(data: Record<string, unknown>): data is Record<string, unknown> & ClientData {
  return (
    isString(data.clientId) &&
    isString(data.name) &&
    isStrings(data.redirectUris) &&
    isStrings(data.postLogoutRedirectUris) &&
    isString(data.tokenEndpointAuthMethod) &&
    isStrings(data.grantTypes) &&
    isStrings(data.scopes) &&
    isStrings(data.resources) &&
    typeof data.skipConsent === "boolean" &&
    Array.isArray(data.secrets) &&
    isNumber(data.createdAt) &&
    isOptional(data.backchannelLogoutUri, isString) &&
    (data.origin === undefined || data.origin === "document" || data.origin === "registration")
  );
}

/** A user's consent to a client: the scopes and resources granted. */
export interface GrantData {
  grantId: string;
  userId: string;
  clientId: string;
  scopes: string[];
  resources: string[];
  createdAt: number;
}

export function isGrantData(data: Record<string, unknown>): data is Record<string, unknown> & GrantData {
  return (
    isString(data.grantId) &&
    isString(data.userId) &&
    isString(data.clientId) &&
    isStrings(data.scopes) &&
    isStrings(data.resources) &&
    isNumber(data.createdAt)
  );
}

/** How and when the user signed in, as the session said (carried into codes and tokens). */
export interface SignedInAs {
  userId: string;
  /** Epoch seconds. */
  authTime: number;
  amr: string[];
  /** The Latchkey session's id (`sid` of ID tokens and logout tokens). */
  sessionId?: string;
}

function isSignedInAs(data: Record<string, unknown>): boolean {
  return (
    isString(data.userId) && isNumber(data.authTime) && isStrings(data.amr) && isOptional(data.sessionId, isString)
  );
}

/** A validated authorization request waiting for a sign-in or a consent. */
export interface InteractionData {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  resources: string[];
  state?: string;
  nonce?: string;
  codeChallenge: string;
  /** `prompt` values asked for. */
  prompt: string[];
  maxAge?: number;
  /** Epoch seconds: a sign-in before this does not count (`prompt=login`, `max_age`). */
  signInAfter?: number;
  /** The session the browser held when it was sent to sign in again: it does not count. */
  staleSession?: string;
  /** The user the consent page was shown to (the POST must come from that user's session). */
  userId?: string;
  /** Set for a device authorization: the device record's id, instead of a redirect. */
  deviceId?: string;
}

export function isInteractionData(data: Record<string, unknown>): data is Record<string, unknown> & InteractionData {
  return (
    isString(data.clientId) &&
    isString(data.redirectUri) &&
    isStrings(data.scopes) &&
    isStrings(data.resources) &&
    isOptional(data.state, isString) &&
    isOptional(data.nonce, isString) &&
    isString(data.codeChallenge) &&
    isStrings(data.prompt) &&
    isOptional(data.maxAge, isNumber) &&
    isOptional(data.signInAfter, isNumber) &&
    isOptional(data.staleSession, isString) &&
    isOptional(data.userId, isString) &&
    isOptional(data.deviceId, isString)
  );
}

/** An authorization code's grant, until it is exchanged. */
export interface CodeData extends SignedInAs {
  clientId: string;
  grantId: string;
  redirectUri: string;
  scopes: string[];
  resources: string[];
  codeChallenge: string;
  nonce?: string;
}

export function isCodeData(data: Record<string, unknown>): data is Record<string, unknown> & CodeData {
  return (
    isSignedInAs(data) &&
    isString(data.clientId) &&
    isString(data.grantId) &&
    isString(data.redirectUri) &&
    isStrings(data.scopes) &&
    isStrings(data.resources) &&
    isString(data.codeChallenge) &&
    isOptional(data.nonce, isString)
  );
}

/** What an exchanged code led to, kept a while so that a replay revokes it (OAuth 2.1 §4.1.3). */
export interface SpentCodeData {
  grantId: string;
  familyId?: string;
  accessTokenJti: string;
}

export function isSpentCodeData(data: Record<string, unknown>): data is Record<string, unknown> & SpentCodeData {
  return isString(data.grantId) && isOptional(data.familyId, isString) && isString(data.accessTokenJti);
}

/**
 * A refresh-token family: every refresh token issued from one grant to one client. The record's
 * version is the generation of the one refresh token that is valid (public clients rotate it).
 */
export interface FamilyData extends SignedInAs {
  clientId: string;
  grantId: string;
  scopes: string[];
  resources: string[];
  /** Rotated at each use (public clients, OAuth 2.1 §4.3.1). */
  rotates: boolean;
}

export function isFamilyData(data: Record<string, unknown>): data is Record<string, unknown> & FamilyData {
  return (
    isSignedInAs(data) &&
    isString(data.clientId) &&
    isString(data.grantId) &&
    isStrings(data.scopes) &&
    isStrings(data.resources) &&
    typeof data.rotates === "boolean"
  );
}

/** An opaque access token's claims, as introspection answers them (RFC 7662 §2.2). */
export interface TokenClaims {
  iss: string;
  sub: string;
  client_id: string;
  aud: string[];
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  auth_time?: number;
  acr?: string;
  amr?: string[];
  /** The grant, refresh family and client of the token: what its revocation is keyed on. */
  gid?: string;
  fid?: string;
}

export function isTokenClaims(data: Record<string, unknown>): data is Record<string, unknown> & TokenClaims {
  return (
    isString(data.iss) &&
    isString(data.sub) &&
    isString(data.client_id) &&
    isStrings(data.aud) &&
    isString(data.scope) &&
    isNumber(data.iat) &&
    isNumber(data.exp) &&
    isString(data.jti)
  );
}

/** A device authorization (RFC 8628) waiting for its user, then for its poll. */
export interface DeviceData {
  clientId: string;
  scopes: string[];
  resources: string[];
  userCode: string;
  status: "pending" | "approved" | "denied";
  /** Epoch milliseconds when the codes expire (the record is kept a while longer, to say `expired_token`). */
  expiresAt: number;
  /** Seconds the device must wait between polls (raised by `slow_down`). */
  interval: number;
  /** Epoch milliseconds of the last poll. */
  lastPolledAt?: number;
  /** Set once approved. */
  grantId?: string;
  signedIn?: SignedInAs;
}

export function isDeviceData(data: Record<string, unknown>): data is Record<string, unknown> & DeviceData {
  return (
    isString(data.clientId) &&
    isStrings(data.scopes) &&
    isStrings(data.resources) &&
    isString(data.userCode) &&
    (data.status === "pending" || data.status === "approved" || data.status === "denied") &&
    isNumber(data.expiresAt) &&
    isNumber(data.interval) &&
    isOptional(data.lastPolledAt, isNumber) &&
    isOptional(data.grantId, isString)
  );
}

/** A record's data, typed by `guard`, or null when it is absent or not of that shape. */
export function dataOf<T>(
  record: AuthorizationRecord | null,
  guard: (data: Record<string, unknown>) => data is Record<string, unknown> & T,
): T | null {
  return record && guard(record.data) ? record.data : null;
}

/** The id a pair of values is kept under (a digest: ids stay short whatever the values hold). */
export function pairId(a: string, b: string): string {
  return digest(`${a}\u0000${b}`);
}
