/**
 * The face of lib/refresh/: every name the rest of the library uses from this wing. Entry modules
 * import lib/refresh/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/refresh/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */

export {
  type AccessToken,
  type AccessTokenRequest,
  type GetAccessTokenOptions,
  getAccessToken,
} from "./access-token.js";
export { MemoryRefreshStore } from "./memory-store.js";
export { LOCK_TTL_MS } from "./single-flight.js";
export { providerTokensOf } from "./tokens.js";
