/**
 * For resource servers (an API, an MCP server) that accept the access tokens of a Latchkey
 * authorization server: `verifyAccessToken(request, options, scopes)` checks a request's Bearer
 * token offline against the issuer's JWKS (RFC 9068), with Latchkey's instant revocation when the
 * resource server shares the authorization server's revocation store, and answers the
 * `WWW-Authenticate` challenge of a refusal (RFC 6750, with RFC 9728's `resource_metadata`).
 * Framework-neutral: it reads only the request's headers.
 *
 * @example
 * ```ts
 * import { verifyAccessToken } from "@latchkey/core/resource-server"
 * const api = { issuer: "https://app.example", audience: "https://api.example" }
 * const check = await verifyAccessToken(request, api, ["reports:read"])
 * if (!check.ok) return new Response(JSON.stringify(check.body), { status: check.status, headers: check.headers })
 * ```
 * @module resource-server
 */
export {
  type AccessTokenCheck,
  type AccessTokenClaims,
  type AccessTokenOptions,
  protectedResourceMetadata,
  verifyAccessToken,
} from "./lib/authorization-server/index.js";
