/**
 * The face of lib/serve/: every name the rest of the library uses from this wing. Entry modules
 * import lib/serve/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/serve/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */

export { Auth, getSession } from "./auth.js";
export type { Context } from "./context.js";
export { csrfTokenFor, requireCsrf } from "./csrf-check.js";
export { type GuardOptions, type GuardRequest, guard, mountNoted, noteMount } from "./guard.js";
export { type IncomingRequest, type SessionRequest, serve, sessionCookieOf, sessionRequestOf } from "./pipeline.js";
export {
  type AccountsServerCall,
  type Arrival,
  accountsServerCall,
  beginServerCall,
  type CheckedServerCall,
  formFields,
  internalRequest,
  originOf,
  postServerCall,
  type ServerCall,
  type SignInAuthorizationParams,
  type SwitchedOrganization,
  serverSignIn,
  serverSignOut,
  serverSwitchOrganization,
} from "./server-action.js";
