/**
 * The protocol half of an OAuth callback: the authorization response is validated, the code is
 * redeemed at the token endpoint, the id_token is validated (OpenID Connect), the profile is read
 * (id_token claims or userinfo) and mapped to a user and an account. Everything that talks to the
 * provider goes through oauth4webapi and the provider's `customFetch`.
 */

import * as o from "oauth4webapi";
import {
  fromBase64url,
  fromUtf8,
  type HashName,
  hmac as hmacOf,
  randomUUID,
  timingSafeEqual,
  toBase64,
  utf8,
} from "#platform";
import type { Account, Profile, TokenSet, User } from "../../../shapes/data.js";
import { errorOf, messageOf } from "../../base/error-of.js";
import { AuthError, InvalidConfiguration, OAuthCallbackError, OAuthProfileParseError } from "../../base/errors.js";
import { escapeForLog } from "../../base/logger.js";
import { fieldOf, textOf } from "../../base/merge.js";
import { defaultProfile } from "../../base/profile.js";
import type { IdTokenRefusalReason } from "../../config/types.js";
import {
  authorizationServer,
  discoveredJwksUri,
  forgetDiscovery,
  httpOptions,
  type OAuthProvider,
  providerFetch,
  TENANT_PLACEHOLDER,
} from "./discovery.js";

/** The verified check values of this callback. */
export interface VerifiedChecks {
  state?: string;
  code_verifier?: string;
  nonce?: string;
}

/** What a successful callback yields. */
export interface OAuthOutcome {
  /** The provider's user profile (id_token claims or userinfo answer). */
  profile: Profile;
  /** The user from `profile()`, with a fresh id (the provider's id is the account's). */
  user: User;
  /** The account with the whole token response: what the callbacks and events receive. */
  account: Account;
  /**
   * The account as it is stored: `provider.account(tokens)` when the provider has one, else the
   * token fields of Auth.js's account schema ({@link storedTokens}).
   */
  storedAccount: Account;
}

/** The client metadata oauth4webapi checks responses against. */
export function clientOf(provider: OAuthProvider): o.Client {
  return { ...(provider.client as o.Client | undefined), client_id: provider.clientId ?? "" };
}

/** The client authentication of the token request (`client_secret_basic` unless configured otherwise). */
export function clientAuthentication(provider: OAuthProvider): o.ClientAuth {
  const method = provider.client?.token_endpoint_auth_method ?? "client_secret_basic";
  if (method === "none") return o.None();
  if (method !== "client_secret_basic" && method !== "client_secret_post") {
    throw new InvalidConfiguration(
      `Provider "${provider.id}": \`client.token_endpoint_auth_method\` must be "client_secret_basic", "client_secret_post" or "none"; received ${JSON.stringify(method)}`,
    );
  }
  if (!provider.clientSecret) {
    throw new InvalidConfiguration(
      `Provider "${provider.id}" has no \`clientSecret\` (AUTH_${provider.id.toUpperCase().replace(/-/g, "_")}_SECRET); set it, or \`client: { token_endpoint_auth_method: "none" }\` for a public client.`,
    );
  }
  return method === "client_secret_post"
    ? o.ClientSecretPost(provider.clientSecret)
    : clientSecretBasic(provider.clientId ?? "", provider.clientSecret);
}

/** RFC 6749 §2.3.1 form encoding, as Auth.js does it. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}

/**
 * `client_secret_basic` with the encoding Auth.js uses. oauth4webapi's own also escapes "-", "."
 * and "_", common in client ids, which servers that skip the decoding step then fail to match.
 */
function clientSecretBasic(clientId: string, clientSecret: string): o.ClientAuth {
  const credentials = toBase64(utf8(`${formEncode(clientId)}:${formEncode(clientSecret)}`));
  return (_as, _client, _body, headers) => {
    headers.set("authorization", `Basic ${credentials}`);
  };
}

/**
 * After a failure that outdated metadata can explain (a moved endpoint, a network error), the next
 * request discovers again. A provider's protocol error answer (such as `invalid_grant`) says
 * nothing about the metadata and keeps it.
 */
export function forgetStaleMetadata(e: unknown, provider: OAuthProvider): void {
  if (e instanceof o.ResponseBodyError || e instanceof o.AuthorizationResponseError || e instanceof AuthError) return;
  forgetDiscovery(provider);
}

/**
 * Turns whatever a protocol step threw into an `OAuthCallbackError` that says what failed. Its
 * message quotes what the provider (or whoever forged its answer) wrote, so it is escaped for a
 * log line whichever logger prints it.
 */
export function callbackError(e: unknown, provider: OAuthProvider, step: string): AuthError {
  if (e instanceof AuthError) return e;
  const callbackFailure = (message: string, cause: Record<string, unknown>) =>
    new OAuthCallbackError(escapeForLog(message), cause);
  const base = { provider: provider.id, step };
  if (e instanceof o.AuthorizationResponseError) {
    const details = Object.fromEntries(e.cause.entries());
    const description = e.error_description ? ` (${e.error_description})` : "";
    return callbackFailure(
      `Provider "${provider.id}" answered the authorization request with the error "${e.error}"${description}`,
      {
        ...base,
        ...details,
      },
    );
  }
  if (e instanceof o.ResponseBodyError) {
    const description = e.error_description ? ` (${e.error_description})` : "";
    return callbackFailure(
      `Provider "${provider.id}" refused the ${step} with the error "${e.error}"${description}, HTTP ${e.status}`,
      { ...base, err: e, error: e.error, error_description: e.error_description, status: e.status },
    );
  }
  if (e instanceof o.WWWAuthenticateChallengeError) {
    const challenge = e.cause[0];
    return callbackFailure(
      `Provider "${provider.id}" refused the ${step} (HTTP ${e.status}): ${challenge?.parameters.error ?? "challenge"} ${challenge?.parameters.error_description ?? ""}`.trimEnd(),
      { ...base, err: e, status: e.status },
    );
  }
  const err = e instanceof Error ? e : new Error(String(e));
  const code = textOf(fieldOf(err, "code")) ?? (textOf(fieldOf(err.cause, "code")) || "");
  const unreachable = err.name === "TimeoutError" || err.name === "AbortError" || err.message === "fetch failed";
  const why = unreachable
    ? `could not be reached${code ? ` (${code})` : ""}`
    : `failed: ${err.message}${code ? ` [${code}]` : ""}`;
  return callbackFailure(`The ${step} for provider "${provider.id}" ${why}`, { ...base, err });
}

/**
 * The token endpoint's answer after the provider's own fix for what it gets wrong (`token.conform`,
 * such as Twitch's `scope` array), for the code redemption and the refresh alike.
 *
 * @example
 * ```ts
 * const response = await conformed(provider, await o.refreshTokenGrantRequest(...))
 * ```
 */
export async function conformed(provider: OAuthProvider, response: Response): Promise<Response> {
  if (!provider.token?.conform) return response;
  return (await provider.token.conform(response.clone())) ?? response;
}

/** A plain token set: `token_type` lowercased, `expires_at` computed from `expires_in`. */
export function normalizeTokens(raw: object): TokenSet {
  const tokens: TokenSet = { ...raw };
  if (typeof tokens.token_type === "string") tokens.token_type = tokens.token_type.toLowerCase();
  if (tokens.expires_in !== undefined && tokens.expires_in !== null) {
    const expiresIn = Number(tokens.expires_in);
    if (Number.isFinite(expiresIn)) {
      tokens.expires_in = expiresIn;
      tokens.expires_at = Math.floor(Date.now() / 1000) + Math.floor(expiresIn);
    }
  }
  return tokens;
}

/** A token endpoint response made of a token set, so a custom token request's id_token is validated like any other. */
function asTokenResponse(tokens: TokenSet): Response {
  const body = { token_type: "bearer", ...tokens };
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
}

/**
 * Validates the authorization response `params`, redeems the code, reads the profile and maps
 * it. `checks` are the values already verified from the check cookies. Throws `OAuthCallbackError`
 * for everything the provider did wrong or refused (its cause says what), `OAuthProfileParseError`
 * when `profile()` fails.
 */
export async function completeAuthorization(
  provider: OAuthProvider,
  params: URLSearchParams,
  checks: VerifiedChecks,
  redirectUri: string,
): Promise<OAuthOutcome> {
  const isOidc = provider.type === "oidc";
  const customToken = provider.token?.request;
  const customUserinfo = provider.userinfo?.request;
  const wantsUserinfo = isOidc ? provider.idToken === false || provider.userinfo !== undefined : true;

  let as: o.AuthorizationServer;
  try {
    as = await authorizationServer(provider, { token: !customToken, userinfo: wantsUserinfo && !customUserinfo });
  } catch (e) {
    throw callbackError(e, provider, "discovery request");
  }
  const client = clientOf(provider);

  // RFC 9207 `iss` can only be compared with an issuer we know; a made-up one would refuse it.
  const response = new URLSearchParams(params);
  if (!provider.issuer && !provider.wellKnown) response.delete("iss");
  let callbackParams: URLSearchParams;
  try {
    callbackParams = o.validateAuthResponse(as, client, response, checks.state ?? o.skipStateCheck);
  } catch (e) {
    throw callbackError(e, provider, "authorization response");
  }

  let tokens: TokenSet;
  let idClaims: o.IDToken | undefined;
  try {
    let tokenResponse: Response;
    if (customToken) {
      const { tokens: custom } = await customToken({
        params: Object.fromEntries(callbackParams),
        checks,
        provider,
        redirect_uri: redirectUri,
        fetch: providerFetch(provider),
      });
      tokenResponse = asTokenResponse(normalizeTokens(custom));
    } else {
      const auth = clientAuthentication(provider);
      const additionalParameters: Record<string, string> = {};
      for (const [key, value] of Object.entries(provider.token?.params ?? {})) {
        if (value !== undefined && value !== null) additionalParameters[key] = String(value);
      }
      tokenResponse = await o.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        callbackParams,
        redirectUri,
        checks.code_verifier ?? o.nopkce,
        {
          ...httpOptions<"POST", URLSearchParams>(provider, as.token_endpoint),
          additionalParameters,
        },
      );
    }
    tokenResponse = await conformed(provider, tokenResponse);
    if (customToken && !isOidc) {
      tokens = normalizeTokens((await tokenResponse.json()) as Record<string, unknown>);
    } else {
      const tokenIssuer = await issuerForIdToken(as, tokenResponse);
      const processed = await o.processAuthorizationCodeResponse(tokenIssuer, client, tokenResponse, {
        expectedNonce: checks.nonce ?? o.expectNoNonce,
        requireIdToken: isOidc,
      });
      idClaims = await verifyIdToken(provider, tokenIssuer, tokenResponse, processed).catch((e: unknown) => {
        throw e instanceof IdTokenRefusal
          ? new OAuthCallbackError(e.message, { provider: provider.id, step: "id_token", reason: e.reason })
          : e;
      });
      tokens = normalizeTokens({ ...processed });
    }
  } catch (e) {
    forgetStaleMetadata(e, provider);
    throw callbackError(e, provider, "token request");
  }

  let profile: Profile;
  try {
    if (isOidc && !wantsUserinfo) {
      profile = { ...(idClaims as Profile) };
      // Apple posts the user's name once, as JSON in a `user` field of its form_post callback; the
      // id_token never carries it. It is unsigned (anyone can post it), so only its name is kept:
      // an e-mail in it must never reach the profile.
      const posted = parsePostedUser(params.get("user"));
      if (posted && profile.user === undefined) profile.user = posted;
    } else if (customUserinfo) {
      const answer = await customUserinfo({ tokens, provider, fetch: providerFetch(provider) });
      if (!answer || typeof answer !== "object") throw new Error("the custom userinfo request returned no profile");
      profile = answer;
    } else {
      const accessToken = tokens.access_token;
      if (typeof accessToken !== "string")
        throw new Error("the token response has no access_token to read the profile with");
      const userinfo = await o.userInfoRequest(
        as,
        client,
        accessToken,
        httpOptions<"GET", undefined>(provider, as.userinfo_endpoint),
      );
      if (isOidc && idClaims) {
        // A signed answer (`application/jwt`, OIDC Core §5.3.2) has its claims checked by
        // oauth4webapi and its signature here, as an id_token's.
        const signed = isJwt(userinfo) ? await userinfo.clone().text() : undefined;
        profile = (await o.processUserInfoResponse(as, client, idClaims.sub, userinfo)) as Profile;
        if (signed !== undefined) await verifyJwsSignature(provider, as, userinfo, signed, "signed userinfo");
      } else {
        profile = await plainUserinfo(userinfo);
      }
    }
  } catch (e) {
    if (e instanceof IdTokenRefusal)
      throw new OAuthCallbackError(e.message, { provider: provider.id, step: "userinfo", reason: e.reason });
    forgetStaleMetadata(e, provider);
    throw callbackError(e, provider, "userinfo request");
  }

  return mapProfile(provider, profile, tokens);
}

/** Whether an answer is a JWT (`application/jwt`), as a signed UserInfo answer is. */
function isJwt(response: Response): boolean {
  return response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() === "application/jwt";
}

/** Reads a plain OAuth 2 userinfo answer: a JSON object with status 200. */
async function plainUserinfo(response: Response): Promise<Profile> {
  if (response.status !== 200) {
    const text = await response.text().catch(() => "");
    throw new Error(`the userinfo endpoint answered HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`);
  }
  const body = (await response.json()) as unknown;
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new Error("the userinfo endpoint answered something other than a JSON object");
  return body as Profile;
}

/** Runs `profile()` and builds the user and the account (spec §2.3). */
async function mapProfile(provider: OAuthProvider, profile: Profile, tokens: TokenSet): Promise<OAuthOutcome> {
  let mapped: User;
  try {
    mapped = await (provider.profile ?? defaultProfile)(profile, tokens);
  } catch (e) {
    throw new OAuthProfileParseError(`The profile() of provider "${provider.id}" threw: ${messageOf(e)}`, {
      err: errorOf(e),
      provider: provider.id,
    });
  }
  const accountId = mapped?.id;
  if (accountId === undefined || accountId === null || accountId === "") {
    throw new OAuthProfileParseError(
      `The profile() of provider "${provider.id}" returned no \`id\`; map the provider's user id to \`id\`.`,
      {
        provider: provider.id,
        profileKeys: Object.keys(profile ?? {}),
      },
    );
  }
  const providerAccountId = String(accountId);
  // As in Auth.js: the user gets its own id; the provider's id identifies the account.
  const user: User = {
    ...mapped,
    id: randomUUID(),
    email: typeof mapped.email === "string" ? mapped.email.toLowerCase() : mapped.email,
  };
  const identity = { provider: provider.id, type: provider.type, providerAccountId };
  const account: Account = { ...tokens, ...identity };
  const storedAccount: Account = {
    ...(provider.account ? provider.account(tokens) : storedTokens(tokens)),
    ...identity,
  };
  return { profile, user, account, storedAccount };
}

/** The token fields of an account as Auth.js's adapters' schemas have them. */
const STORED_TOKEN_FIELDS = [
  "access_token",
  "id_token",
  "refresh_token",
  "expires_at",
  "scope",
  "token_type",
  "session_state",
] as const;

/**
 * The token fields an account stores when its provider has no `account()` callback, the same as
 * Auth.js stores: the columns of Auth.js's account schema, those the provider did not send left
 * out. The rest of the token response (`expires_in`, a provider's own fields) reaches the
 * callbacks and events, never the adapter: Auth.js's adapters (Prisma's first) refuse a field
 * their schema lacks.
 *
 * @example
 * ```ts
 * storedTokens({ access_token: "gho_1", token_type: "bearer", expires_in: 3600, expires_at: 1767225600 })
 * // { access_token: "gho_1", token_type: "bearer", expires_at: 1767225600 }
 * ```
 */
function storedTokens(tokens: TokenSet): Partial<TokenSet> {
  const stored: Record<string, unknown> = {};
  for (const field of STORED_TOKEN_FIELDS) {
    if (tokens[field] !== undefined) stored[field] = tokens[field];
  }
  return stored as Partial<TokenSet>;
}

/** An id_token that must not be accepted: `reason` says which check it failed. */
export class IdTokenRefusal extends Error {
  constructor(
    readonly reason: IdTokenRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = "IdTokenRefusal";
  }
}

/** Who an id_token is about: what a refreshed one must repeat of the sign-in's (OIDC Core §12.2). */
export interface IdTokenSubject {
  sub: string;
  /** Known when the sign-in's id_token was kept; else the configured issuer is what is compared. */
  iss?: string;
}

/**
 * How far ahead of our clock an id_token's `iat` may be (OIDC Core §3.1.3.7 item 10 leaves the
 * window to the client): a provider whose clock runs a little fast still signs in; a token "issued"
 * later than that is forged, or made by a clock nobody should trust.
 */
const MAX_IAT_AHEAD_SECONDS = 300;

/**
 * The one check of an id_token a token endpoint answered, at sign-in and at refresh alike, after
 * oauth4webapi validated its claims (`iss`, `aud`, `azp`, `exp` present and not past, `iat`,
 * `sub`, and at sign-in the `nonce`): its signature (see `verifyIdTokenSignature`), an `iat` at most
 * {@link MAX_IAT_AHEAD_SECONDS} ahead, and, for a refreshed one, the `sub` (and `iss`, when known)
 * of the sign-in's (OIDC Core §12.2). Returns the claims, or undefined when the answer has no
 * id_token. Throws `IdTokenRefusal` for a token to refuse; the caller turns it into its own error.
 *
 * @example
 * ```ts
 * const claims = await verifyIdToken(provider, as, response, processed, { sub: "248289761001" })
 * ```
 */
export async function verifyIdToken(
  provider: OAuthProvider,
  as: o.AuthorizationServer,
  response: Response,
  processed: o.TokenEndpointResponse,
  expected?: IdTokenSubject,
): Promise<o.IDToken | undefined> {
  const claims = o.getValidatedIdTokenClaims(processed);
  if (!claims) return undefined;
  const refuse = (reason: IdTokenRefusalReason, why: string) =>
    new IdTokenRefusal(reason, `The id_token of provider "${provider.id}" was refused: ${why}`);
  await verifyJwsSignature(provider, as, response, processed.id_token as string, "id_token");
  const now = Math.floor(Date.now() / 1000);
  if (claims.iat > now + MAX_IAT_AHEAD_SECONDS) {
    throw refuse(
      "iat",
      `it says it was issued ${claims.iat - now} s from now (iat); a provider's clock may be ahead by ${MAX_IAT_AHEAD_SECONDS} s at most`,
    );
  }
  if (expected && claims.sub !== expected.sub) {
    throw refuse("sub", "it names another user (sub) than the account it refreshes (OpenID Connect Core §12.2)");
  }
  if (expected?.iss !== undefined && claims.iss !== expected.iss) {
    throw refuse("iss", "another issuer (iss) made it than the account's sign-in id_token (OpenID Connect Core §12.2)");
  }
  return claims;
}

/** The id_token algorithms keyed by the client secret, and their hashes. */
const HMAC_ALGORITHMS = new Map<string, HashName>([
  ["HS256", "sha256"],
  ["HS384", "sha384"],
  ["HS512", "sha512"],
]);

/**
 * Verifies the signature of a JWS the provider answered, whose claims oauth4webapi has already
 * validated: an id_token, or a signed UserInfo answer (OIDC Core §5.3.2, `application/jwt`, as
 * BankID sends it). Throws `IdTokenRefusal` (reason `signature`) when it must be refused.
 *
 * TLS already authenticates the provider's endpoints (OIDC Core §3.1.3.7 item 6), but the
 * signature is checked too (RFC 8725 §3.1, ASVS V3.5.3): an endpoint behind a compromised proxy,
 * or a provider whose TLS is terminated elsewhere, cannot hand us forged claims.
 *
 * - `none` (or no readable `alg`) is refused, whatever the provider advertises.
 * - `HS256` / `HS384` / `HS512` is accepted only when the provider is configured for it
 *   (`client.id_token_signed_response_alg`), and then checked with the octets of the client
 *   secret as the HMAC key (OIDC Core §10.1). Otherwise it is refused: a provider that merely
 *   advertises HS256 (Keycloak and Auth0 do) must not let whoever alters the token response choose
 *   an algorithm nobody checks.
 * - Anything else is checked against the provider's published keys (`jwks_uri`, fetched through
 *   `customFetch` and cached by oauth4webapi); a provider that publishes none cannot be verified,
 *   so its id_token is refused.
 */
async function verifyJwsSignature(...args: Parameters<typeof checkJwsSignature>): Promise<void> {
  const [provider, , , , what] = args;
  try {
    await checkJwsSignature(...args);
  } catch (e) {
    // A signature that does not verify, a key the provider does not publish, an algorithm we do
    // not check: the token is refused. The keys not being reachable says nothing about the token.
    const bad =
      e instanceof o.UnsupportedOperationError ||
      (e instanceof o.OperationProcessingError &&
        (e.code === o.KEY_SELECTION || /signature verification failed/.test(e.message)));
    if (!bad) throw e;
    throw new IdTokenRefusal(
      "signature",
      `The ${what} of provider "${provider.id}" was refused: its signature does not verify with the provider's keys (${e.message})`,
    );
  }
}

async function checkJwsSignature(
  provider: OAuthProvider,
  as: o.AuthorizationServer,
  response: Response,
  jws: string,
  what: "id_token" | "signed userinfo",
): Promise<void> {
  const alg = idTokenAlg(jws);
  const setting = what === "id_token" ? "id_token_signed_response_alg" : "userinfo_signed_response_alg";
  const configured = provider.client?.[setting];
  const refuse = (why: string) =>
    new IdTokenRefusal("signature", `The ${what} of provider "${provider.id}" was refused: ${why}`);
  if (alg === "" || alg.toLowerCase() === "none") throw refuse("it is not signed (alg none)");
  const hmac = HMAC_ALGORITHMS.get(alg);
  if (hmac || alg.startsWith("HS")) {
    if (!hmac || configured !== alg) {
      throw refuse(
        `it is signed with ${alg} (an HMAC keyed by the client secret), which this client is not configured for. If the provider really signs them with the client secret, set \`client: { ${setting}: "${alg}" }\` on the provider.`,
      );
    }
    if (!provider.clientSecret) {
      throw new InvalidConfiguration(
        `Provider "${provider.id}" expects ${alg} in its ${what}, keyed by the client secret, but has no \`clientSecret\`.`,
      );
    }
    const [header = "", payload = "", signature = ""] = jws.split(".");
    const expected = hmacOf(hmac, provider.clientSecret, `${header}.${payload}`);
    const received = fromBase64url(signature);
    if (!timingSafeEqual(received, expected)) {
      throw refuse(`its ${alg} signature does not verify with the client secret`);
    }
    return;
  }
  // Endpoints given explicitly skip discovery; the keys are then discovered from the issuer now.
  let jwksUri = as.jwks_uri;
  if (!jwksUri) {
    try {
      jwksUri = await discoveredJwksUri(provider);
    } catch (e) {
      throw callbackError(e, provider, "discovery request");
    }
  }
  if (!jwksUri) {
    throw refuse(
      provider.issuer || provider.wellKnown
        ? `it is signed with ${alg}, and the discovery document of \`${provider.wellKnown ?? provider.issuer}\` names no keys (\`jwks_uri\`) to check it against. Ask the provider where its signing keys are published, or configure the provider without the \`openid\` scope so no id_token is sent`
        : `it is signed with ${alg}, and the provider has no \`issuer\` to discover its keys (\`jwks_uri\`) from: give the provider its \`issuer\` (the \`iss\` of its id_tokens; its keys are then read from \`<issuer>/.well-known/openid-configuration\`)`,
    );
  }
  await o.validateApplicationLevelSignature(
    { ...as, jwks_uri: jwksUri },
    response,
    httpOptions<"GET", undefined>(provider, jwksUri),
  );
}

/** The `alg` of a compact JWS header, or "" when it cannot be read. */
function idTokenAlg(idToken: string | undefined): string {
  try {
    const header = JSON.parse(fromUtf8(fromBase64url(idToken?.split(".")[0] ?? ""))) as {
      alg?: unknown;
    };
    return typeof header.alg === "string" ? header.alg : "";
  } catch {
    return "";
  }
}

/** The `name` of a posted `user` field (at most 4 KB) as `{ name }`, or undefined; nothing else is read. */
function parsePostedUser(value: string | null): { name: Record<string, unknown> } | undefined {
  if (!value || value.length > 4096) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
    const name = Object.hasOwn(parsed, "name") ? fieldOf(parsed, "name") : undefined;
    if (!name || typeof name !== "object" || Array.isArray(name)) return undefined;
    const out: Record<string, unknown> = {};
    for (const part of ["firstName", "middleName", "lastName"]) {
      const v = fieldOf(name, part);
      if (typeof v === "string" && Object.hasOwn(name, part)) out[part] = v;
    }
    return { name: out };
  } catch {
    return undefined;
  }
}

/**
 * The authorization server to check an id_token against. For a templated issuer (Microsoft
 * Entra's multi-tenant endpoints) it is the template filled with the tenant the token names in
 * `tid`: any tenant may sign in, but the token's `iss` must be that tenant's issuer, and its
 * signature is still checked against the provider's published keys.
 */
export async function issuerForIdToken(as: o.AuthorizationServer, response: Response): Promise<o.AuthorizationServer> {
  if (!as.issuer.includes(TENANT_PLACEHOLDER)) return as;
  let tid: unknown;
  try {
    const body = (await response.clone().json()) as { id_token?: string };
    // A refresh answer may carry no id_token: then there is no issuer to check.
    if (body.id_token === undefined) return as;
    tid = JSON.parse(fromUtf8(fromBase64url(body.id_token?.split(".")[1] ?? ""))).tid;
  } catch {
    tid = undefined;
  }
  if (typeof tid !== "string" || !/^[0-9a-fA-F-]{1,64}$/.test(tid)) {
    throw new Error("the id_token of a multi-tenant issuer names no valid tenant (`tid`)");
  }
  return { ...as, issuer: as.issuer.replace(TENANT_PLACEHOLDER, tid) };
}
