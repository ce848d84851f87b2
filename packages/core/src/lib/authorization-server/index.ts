/**
 * The face of lib/authorization-server/: every name the rest of the library uses from this wing. Entry modules
 * import lib/authorization-server/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/authorization-server/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { describeWith, type ServableServer, serveAuthorization } from "./incoming.js";
export {
  type AccessTokenCheck,
  type AccessTokenClaims,
  type AccessTokenOptions,
  protectedResourceMetadata,
  verifyAccessToken,
} from "./resource-server.js";
export {
  type AuthorizationRecord,
  type AuthorizationRecordFilter,
  type AuthorizationRecordKind,
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
} from "./server.js";
export { AuthorizationServer } from "./with-sessions.js";
