/**
 * The face of lib/config/: every name the rest of the library uses from this wing. Entry modules
 * import lib/config/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/config/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { createActionURL, type Env, setEnvDefaults } from "./env.js";
export type {
  AccessTokensOptions,
  AuthConfig,
  CallbacksOptions,
  EventCallbacks,
  SessionOf,
  SessionOptions,
} from "./options.js";
export { cookiesFor, resolveConfig, sessionStrategyOf } from "./resolve.js";
export type {
  EmailProviderInternal,
  IdTokenRefusalReason,
  InternalProvider,
  RefreshOutcome,
  ResolvedConfig,
  WebAuthnProviderInternal,
} from "./types.js";
