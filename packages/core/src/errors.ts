/**
 * Errors of Latchkey. Every error is an `AuthError` with a stable `type` from a closed union, so
 * callers can `switch (error.type)`. Only the types in an allow-list ever reach a URL (as
 * `?error=`); every other error is shown as `Configuration` and logged in full on the server.
 *
 * @example
 * ```ts
 * import { AuthError } from "@latchkey/core/errors"
 * logger: { error(e) { if (e instanceof AuthError && e.type === "AdapterError") alert(e) } }
 * ```
 * @module errors
 */

export type { ErrorCause, ErrorPageKind, ErrorType } from "./lib/base/index.js";
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
  ErrorPageLoop,
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
} from "./lib/base/index.js";
