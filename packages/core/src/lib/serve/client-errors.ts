// What a client may be told of an error: its `?error=` value (spec §7.2), from an allow-list.
import { AuthError, type ErrorType } from "../base/errors.js";

/**
 * The value each client-safe error shows as `?error=` (spec §7.2). Anything not listed here is
 * shown as `Configuration`.
 */
const clientErrorValues: Partial<Record<ErrorType, string>> = {
  AccessDenied: "AccessDenied",
  AccountNotLinked: "AccountNotLinked",
  CredentialsSignin: "CredentialsSignin",
  EmailSignInError: "EmailSignin",
  InvalidCheck: "OAuthCallbackError",
  MissingCSRF: "MissingCSRF",
  OAuthAccountNotLinked: "OAuthAccountNotLinked",
  OAuthCallbackError: "OAuthCallbackError",
  OAuthSignInError: "OAuthSignin",
  RateLimited: "RateLimited",
  SignOutError: "SignOutError",
  Verification: "Verification",
  WebAuthnVerificationError: "WebAuthnVerificationError",
};

/** True when the error may be named to the client. */
function isClientError(error: unknown): error is AuthError {
  return error instanceof AuthError && Object.hasOwn(clientErrorValues, error.type);
}

/** The `?error=` value for an error: its public name if allow-listed, `Configuration` otherwise. */
export function clientErrorValue(error: unknown): string {
  return (isClientError(error) && clientErrorValues[error.type]) || "Configuration";
}
