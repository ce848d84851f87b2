/**
 * The endpoints that read tokens back: revocation (RFC 7009), introspection (RFC 7662), UserInfo
 * (OIDC Core §5.3), the JWKS, and the metadata document (RFC 8414, OIDC Discovery).
 */
import type { ResponseInternal } from "../../shapes/data.js";
import { liveAccessToken, openAccessToken } from "./access-token.js";
import { authenticateClient } from "./clients.js";
import type { ServerState } from "./config.js";
import { digest } from "./crypto.js";
import { grantStands } from "./grants.js";
import { corsHeaders, json, OAuthError, type ServerRequest } from "./http.js";
import { dataOf, isFamilyData } from "./records.js";
import { endFamily } from "./token.js";
import { ACR_ONE_FACTOR, ACR_TWO_FACTORS, openRefreshToken, revokeAccessTokens } from "./tokens.js";

/** The live refresh family a refresh token names, with the token's generation current. */
async function liveFamily(server: ServerState, token: string) {
  const opened = openRefreshToken(server, token);
  if (!opened) return null;
  const record = await server.store.get("family", opened.familyId);
  const family = dataOf(record, isFamilyData);
  if (!record || !family || record.version !== opened.generation) return null;
  return { familyId: opened.familyId, family, expiresAt: record.expiresAt };
}

/**
 * `POST <path>/revoke` (RFC 7009): the client's own refresh token ends its whole family, its own
 * access token is refused from then on. A token that is unknown, expired or another client's is
 * answered 200 like any other: the answer tells nothing about it.
 */
export async function revoke(server: ServerState, req: ServerRequest): Promise<ResponseInternal> {
  const client = await authenticateClient(server, req);
  const token = req.body.one("token");
  if (token === undefined) throw new OAuthError("invalid_request", "token is required");
  const refresh = openRefreshToken(server, token);
  if (refresh) {
    const family = dataOf(await server.store.get("family", refresh.familyId), isFamilyData);
    if (family?.clientId === client.clientId) await endFamily(server, refresh.familyId);
    return json({}, 200, corsHeaders);
  }
  const opened = await openAccessToken(server, token);
  if (opened && opened.claims.client_id === client.clientId) {
    if (opened.opaque) {
      await server.store.delete("token", digest(token));
    } else {
      if (!server.revocation)
        throw new OAuthError(
          "unsupported_token_type",
          "JWT access tokens cannot be revoked here (the server keeps no revocation list); they expire on their own",
        );
      await revokeAccessTokens(server, { token: opened.claims.jti });
    }
  }
  return json({}, 200, corsHeaders);
}

/**
 * `POST <path>/introspect` (RFC 7662): for authenticated clients only (§2.1), about tokens they
 * hold or that are meant for them: the token's own client, or a client whose resources the
 * token's audience names. Any other token is `{ active: false }`, as an unknown one is (§4).
 */
export async function introspect(server: ServerState, req: ServerRequest): Promise<ResponseInternal> {
  const client = await authenticateClient(server, req);
  if (client.tokenEndpointAuthMethod === "none")
    throw new OAuthError("invalid_client", "Introspection is for clients that authenticate", 401);
  const token = req.body.one("token");
  if (token === undefined) throw new OAuthError("invalid_request", "token is required");
  const inactive = json({ active: false });
  const family = await liveFamily(server, token);
  if (family) {
    if (family.family.clientId !== client.clientId || !(await grantStands(server, family.family.grantId)))
      return inactive;
    return json({
      active: true,
      token_type: "refresh_token",
      client_id: family.family.clientId,
      sub: family.family.userId,
      scope: family.family.scopes.join(" "),
      iss: server.issuer,
      ...(family.expiresAt !== undefined && { exp: Math.floor(family.expiresAt / 1000) }),
    });
  }
  const claims = await liveAccessToken(server, token);
  if (!claims) return inactive;
  const mine = claims.client_id === client.clientId || claims.aud.some((aud) => client.resources.includes(aud));
  if (!mine) return inactive;
  const { gid: _grant, fid: _family, ...shown } = claims;
  return json({
    active: true,
    token_type: "Bearer",
    ...shown,
    aud: claims.aud.length === 1 ? claims.aud[0] : claims.aud,
  });
}

/** A Bearer error (RFC 6750 §3), answered with its challenge. */
function bearerError(
  error: "invalid_request" | "invalid_token" | "insufficient_scope",
  description: string,
): OAuthError {
  const status = error === "insufficient_scope" ? 403 : error === "invalid_request" ? 400 : 401;
  return new OAuthError(error, description, status, {
    "WWW-Authenticate": `Bearer error="${error}", error_description="${description}"`,
  });
}

/** The Bearer token of a request: the `Authorization` header, or a form body's `access_token` (RFC 6750 §2.1–2.2), never both. */
function bearerToken(req: ServerRequest): string {
  const header = req.headers.get("authorization");
  const fromHeader = header && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
  const fromBody = req.method === "POST" ? req.body.one("access_token") : undefined;
  if (fromHeader !== undefined && fromBody !== undefined) throw bearerError("invalid_request", "Send the token once");
  const token = fromHeader ?? fromBody;
  if (!token) {
    throw new OAuthError("invalid_request", "A Bearer token is required", 401, {
      "WWW-Authenticate": 'Bearer realm="userinfo"',
    });
  }
  return token;
}

/**
 * `GET|POST <path>/userinfo`: the claims of the token's user for its scopes. Only a token meant
 * for the issuer (its audience) with `openid` is accepted: a token for another resource is not
 * replayed here.
 */
export async function userinfo(server: ServerState, req: ServerRequest): Promise<ResponseInternal> {
  const claims = await liveAccessToken(server, bearerToken(req));
  if (!claims?.aud.includes(server.issuer) || claims.sub === claims.client_id)
    throw bearerError("invalid_token", "The access token is invalid, expired or not meant for UserInfo");
  const scopes = claims.scope.split(" ");
  if (!scopes.includes("openid")) throw bearerError("insufficient_scope", "The token was not granted openid");
  const user = await server.auth.adapter?.getUser?.(claims.sub);
  if (!user) throw bearerError("invalid_token", "The token's user no longer exists");
  const given = await server.claims({ user, scopes, clientId: claims.client_id });
  return json({ ...given, sub: claims.sub }, 200, corsHeaders);
}

/** `GET <path>/jwks`: the public keys, the next one included; cacheable for a few minutes. */
export async function jwks(server: ServerState): Promise<ResponseInternal> {
  return {
    status: 200,
    headers: { "Content-Type": "application/json", "Cache-Control": "public, max-age=300", ...corsHeaders },
    body: { ...(await server.keys.jwks()) },
  };
}

/** The metadata document (RFC 8414 §2, OIDC Discovery §3): one document at every path that names it. */
export function metadata(server: ServerState): ResponseInternal {
  const { endpoints } = server;
  const authMethods = ["client_secret_basic", "client_secret_post", "private_key_jwt"];
  const assertionAlgorithms = ["RS256", "PS256", "ES256", "EdDSA"];
  return {
    status: 200,
    headers: { "Content-Type": "application/json", "Cache-Control": "public, max-age=300", ...corsHeaders },
    body: {
      issuer: server.issuer,
      authorization_endpoint: endpoints.authorization,
      token_endpoint: endpoints.token,
      jwks_uri: endpoints.jwks,
      userinfo_endpoint: endpoints.userinfo,
      revocation_endpoint: endpoints.revocation,
      introspection_endpoint: endpoints.introspection,
      device_authorization_endpoint: endpoints.deviceAuthorization,
      end_session_endpoint: endpoints.endSession,
      scopes_supported: [...server.scopes],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: [
        "authorization_code",
        "refresh_token",
        "client_credentials",
        "urn:ietf:params:oauth:grant-type:device_code",
      ],
      token_endpoint_auth_methods_supported: ["none", ...authMethods],
      token_endpoint_auth_signing_alg_values_supported: assertionAlgorithms,
      revocation_endpoint_auth_methods_supported: ["none", ...authMethods],
      revocation_endpoint_auth_signing_alg_values_supported: assertionAlgorithms,
      introspection_endpoint_auth_methods_supported: authMethods,
      introspection_endpoint_auth_signing_alg_values_supported: assertionAlgorithms,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: [...server.algorithms],
      acr_values_supported: [ACR_ONE_FACTOR, ACR_TWO_FACTORS],
      claims_supported: [
        "sub",
        "iss",
        "aud",
        "exp",
        "iat",
        "auth_time",
        "nonce",
        "acr",
        "amr",
        "sid",
        "name",
        "picture",
        "email",
        "email_verified",
      ],
      prompt_values_supported: ["none", "login", "consent", "select_account"],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      ...(server.registration && { registration_endpoint: endpoints.registration }),
      ...(server.documents && { client_id_metadata_document_supported: true }),
    },
  };
}
