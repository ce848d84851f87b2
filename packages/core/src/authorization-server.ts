/**
 * Latchkey as an OAuth 2.1 authorization server and OpenID Provider for the application's users:
 * its own API called by a mobile app or a CLI, other services that accept its tokens, partners'
 * apps that "sign in with" it. Users sign in with Latchkey (their sessions, second factor and
 * revocation); the server adds the authorization code grant with PKCE, refresh tokens with reuse
 * detection, client credentials, the device grant, ID tokens, UserInfo, JWT (RFC 9068) or opaque
 * access tokens, revocation, introspection and RP-initiated and back-channel logout. Off unless
 * the application makes one.
 *
 * @example
 * ```ts
 * import { AuthorizationServer, MemoryAuthorizationStore, registerClient } from "@latchkey/core/authorization-server"
 * import { ExpressAuth, ExpressAuthorizationServer } from "@latchkey/express"
 *
 * const server = AuthorizationServer({ issuer: "https://app.example", auth: config, store: new MemoryAuthorizationStore() })
 * app.use(ExpressAuthorizationServer(server))   // /.well-known/*, /oauth/*
 * app.use("/auth", ExpressAuth(config))
 * const { client, clientSecret } = await registerClient(server, {
 *   name: "Reports", redirectUris: ["https://reports.example/callback"], scopes: ["openid", "email"],
 * })
 * ```
 * @module authorization-server
 */

export {
  type AuthorizationRecord,
  type AuthorizationRecordFilter,
  type AuthorizationRecordKind,
  AuthorizationServer,
  type AuthorizationServerOptions,
  type AuthorizationStore,
  type AuthorizedApp,
  authorizedApps,
  type ClaimsParams,
  type Client,
  type ClientAuthMethod,
  type ClientJwk,
  type ClientRegistration,
  type ConsentDetails,
  consentDetails,
  endUserGrants,
  type GrantType,
  getClient,
  listClients,
  MemoryAuthorizationStore,
  registerClient,
  removeClient,
  revokeAuthorizedApp,
  rotateClientSecret,
  type SigningAlgorithm,
  updateClient,
} from "./lib/authorization-server/index.js";
