/**
 * The face of lib/base/: every name the rest of the library uses from this wing. Entry modules
 * import lib/base/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/base/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { type AdapterMethod, type AdapterWith, adapterFor, hasMethods, withMethods } from "./adapter-for.js";
export {
  type Application,
  applicationOf,
  held,
  processWide,
  secretFingerprint,
  separateProcessesLikely,
  shellConfig,
  slot,
  trimBasePath,
} from "./application.js";
export { atHand, isThenable } from "./awaitable.js";
export { errorOf, messageOf } from "./error-of.js";
export {
  AccessDenied,
  AccessTokenError,
  AccountNotLinked,
  AdapterError,
  AuthError,
  CallbackRouteError,
  CookieTooLarge,
  CredentialsSignin,
  DuplicateConditionalUI,
  EmailSignInError,
  type ErrorCause,
  type ErrorPageKind,
  ErrorPageLoop,
  type ErrorType,
  EventError,
  ExperimentalFeatureNotEnabled,
  IdTokenRefused,
  InvalidCallbackUrl,
  InvalidCheck,
  InvalidConfiguration,
  InvalidEndpoints,
  InvalidProvider,
  JWTSessionError,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingCSRF,
  MissingSecret,
  MissingWebAuthnAutocomplete,
  OAuthAccountNotLinked,
  OAuthCallbackError,
  OAuthProfileParseError,
  OAuthSignInError,
  RateLimited,
  RefreshTokenRevoked,
  ResponseAlreadySent,
  SessionCookieTooLarge,
  SessionTokenError,
  SignInError,
  SignOutError,
  UnknownAction,
  UnsupportedStrategy,
  UntrustedHost,
  Verification,
  WebAuthnVerificationError,
} from "./errors.js";
export { foldIdentifier } from "./fold-identifier.js";
export { derivedOnce } from "./key-cache.js";
export {
  createLogger,
  escapeForLog,
  type StructuredLog,
  structuredLogger,
  type WarningCode,
  warnOnce,
} from "./logger.js";
export { fieldOf, isPlainObject, merge, textOf } from "./merge.js";
export { defaultProfile } from "./profile.js";
export {
  customFetch,
  defaultRelyingPartyMark,
  raw,
  simpleWebAuthnLoader,
  skipCSRFCheck,
  smtpSender,
} from "./symbols.js";
