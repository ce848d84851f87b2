// AuthError and its closed union of types (the public face is errors.ts, whose documentation says
// how callers use them). Here, below every wing, because every layer throws them: a provider, a
// store, a flow.

/** Every `type` an `AuthError` can have. */
export type ErrorType =
  | "AuthError"
  | "AccessDenied"
  | "AccessTokenError"
  | "AccountNotLinked"
  | "AdapterError"
  | "CallbackRouteError"
  | "CookieTooLarge"
  | "CredentialsSignin"
  | "DuplicateConditionalUI"
  | "EmailSignInError"
  | "ErrorPageLoop"
  | "EventError"
  | "ExperimentalFeatureNotEnabled"
  | "IdTokenRefused"
  | "InvalidCallbackUrl"
  | "InvalidCheck"
  | "InvalidConfiguration"
  | "InvalidEndpoints"
  | "InvalidProvider"
  | "JWTSessionError"
  | "MissingAdapter"
  | "MissingAdapterMethods"
  | "MissingAuthorize"
  | "MissingCSRF"
  | "MissingSecret"
  | "MissingWebAuthnAutocomplete"
  | "OAuthAccountNotLinked"
  | "OAuthCallbackError"
  | "OAuthProfileParseError"
  | "OAuthSignInError"
  | "RateLimited"
  | "RefreshTokenRevoked"
  | "ResponseAlreadySent"
  | "SessionCookieTooLarge"
  | "SessionTokenError"
  | "SignOutError"
  | "UnknownAction"
  | "UnsupportedStrategy"
  | "UntrustedHost"
  | "Verification"
  | "WebAuthnVerificationError";

/** The page an error sends the user to: the sign-in page (with `?error=`) or the error page. */
export type ErrorPageKind = "signIn" | "error";

/** What `cause` holds: the original error under `err`, and any details. */
export type ErrorCause = Record<string, unknown> & { err?: Error };

/**
 * Base class of every error Latchkey throws or logs. Each subclass names its `type` twice: a
 * static (Auth.js's shape; the constructor copies it to the instance) and a `declare`d literal
 * type, which emits nothing but lets `instanceof` narrow `error.type`.
 */
export class AuthError extends Error {
  /** The stable identifier of the error. */
  readonly type: ErrorType;
  /** Which page the user is sent to. */
  readonly kind: ErrorPageKind;
  declare cause?: ErrorCause;

  /**
   * @param message a message, the original error, or `ErrorOptions`.
   * @param options `ErrorOptions`, or the original error.
   */
  constructor(message?: string | Error | ErrorCause, options?: Error | ErrorCause | { cause?: ErrorCause }) {
    let text: string | undefined;
    let cause: ErrorCause | undefined;
    if (message instanceof Error) {
      text = message.message;
      cause = { err: message, ...(options as ErrorCause | undefined) };
    } else if (typeof message === "string") {
      text = message;
      if (options instanceof Error) cause = { err: options };
      else if (options && "cause" in options) cause = options.cause as ErrorCause;
      else if (options) cause = options as ErrorCause;
    } else if (message) {
      cause = "cause" in message ? (message.cause as ErrorCause) : message;
    }
    super(text, cause ? { cause } : undefined);
    const ctor = new.target as unknown as { type?: ErrorType; kind?: ErrorPageKind };
    this.name = new.target.name;
    this.type = ctor.type ?? "AuthError";
    this.kind = ctor.kind ?? "error";
    if (cause) this.cause = cause;
  }
}

/** A failed sign-in attempt: the user goes back to the sign-in page. */
export class SignInError extends AuthError {
  static kind: ErrorPageKind = "signIn";
}

/** The `signIn` callback refused the user, or threw. */
export class AccessDenied extends AuthError {
  static type = "AccessDenied" as const;
  declare readonly type: "AccessDenied";
}
/**
 * `getAccessToken` could not give a token for a reason that may pass: the provider could not be
 * reached or answered with an error other than `invalid_grant`, or the shared store failed.
 * Retrying later may succeed; `cause` says what failed.
 */
export class AccessTokenError extends AuthError {
  static type: ErrorType = "AccessTokenError";
}

/**
 * `getAccessToken` did not refresh because the response can no longer carry the re-issued JWT
 * session cookie (its headers were sent): the provider would rotate the refresh token and the new
 * one, kept only in that cookie, would be lost. Call `getAccessToken` before the response starts.
 */
export class ResponseAlreadySent extends AccessTokenError {
  static override type = "ResponseAlreadySent" as const;
  declare readonly type: "ResponseAlreadySent";
}

/**
 * `getAccessToken` refused a refresh answer because of its id_token (OpenID Connect Core §12.2):
 * its signature does not verify with the provider's keys, a claim is missing or wrong (`iss`,
 * `aud`, `exp`), its `iat` lies in the future, or it names another user (`sub`) than the account.
 * Nothing of the answer is kept: neither its access token nor its refresh token. `cause.reason`
 * says which check failed (`signature`, `claims`, `iat`, `sub`, `iss`). A provider does not send
 * such an answer; something between it and the application may (a proxy, a compromised
 * endpoint): log it, and ask the user to sign in again if it persists.
 */
export class IdTokenRefused extends AccessTokenError {
  static override type = "IdTokenRefused" as const;
  declare readonly type: "IdTokenRefused";
}

/** The passkey belongs to no account, or to another user. */
export class AccountNotLinked extends SignInError {
  static type = "AccountNotLinked" as const;
  declare readonly type: "AccountNotLinked";
}
/** An adapter method failed. The user sees `Configuration`; the cause is logged. */
export class AdapterError extends AuthError {
  static type = "AdapterError" as const;
  declare readonly type: "AdapterError";
}
/** An unexpected failure in a callback route. */
export class CallbackRouteError extends AuthError {
  static type = "CallbackRouteError" as const;
  declare readonly type: "CallbackRouteError";
}
/**
 * Throw from a credentials provider's `authorize` to refuse a sign-in. `code` reaches the URL
 * (`?error=CredentialsSignin&code=...`), so it must not say which field was wrong.
 *
 * @example
 * ```ts
 * class Locked extends CredentialsSignin { code = "locked" }
 * ```
 */
export class CredentialsSignin extends SignInError {
  static type = "CredentialsSignin" as const;
  declare readonly type: "CredentialsSignin";
  /** Shown in the URL. @default "credentials" */
  code = "credentials";
}
/** More than one WebAuthn provider asks for conditional UI. */
export class DuplicateConditionalUI extends AuthError {
  static type = "DuplicateConditionalUI" as const;
  declare readonly type: "DuplicateConditionalUI";
}
/** The verification e-mail could not be sent. */
export class EmailSignInError extends SignInError {
  static type = "EmailSignInError" as const;
  declare readonly type: "EmailSignInError";
}
/**
 * A configuration error would redirect to `pages.error`, but the request came from that page
 * (its `callbackUrl` is the error page: the page requires a session). Logged, and the built-in
 * error page is shown instead of redirecting in a loop.
 */
export class ErrorPageLoop extends AuthError {
  static type = "ErrorPageLoop" as const;
  declare readonly type: "ErrorPageLoop";
}
/** An event handler threw; logged only. */
export class EventError extends AuthError {
  static type = "EventError" as const;
  declare readonly type: "EventError";
}
/** An experimental provider is configured without its `experimental` flag. */
export class ExperimentalFeatureNotEnabled extends AuthError {
  static type = "ExperimentalFeatureNotEnabled" as const;
  declare readonly type: "ExperimentalFeatureNotEnabled";
}
/**
 * Never thrown by Latchkey: an invalid `callbackUrl` is ignored (the default redirect is used),
 * where Auth.js answers 500. Exported so that code written for Auth.js that names it keeps loading.
 * @deprecated Nothing to catch; remove the checks that name it.
 */
export class InvalidCallbackUrl extends AuthError {
  static type = "InvalidCallbackUrl" as const;
  declare readonly type: "InvalidCallbackUrl";
}
/** An OAuth check (state, PKCE, nonce) or the WebAuthn challenge failed. */
export class InvalidCheck extends SignInError {
  static type = "InvalidCheck" as const;
  declare readonly type: "InvalidCheck";
}
/** An option has a wrong value; the message names the option and the fix. */
export class InvalidConfiguration extends AuthError {
  static type = "InvalidConfiguration" as const;
  declare readonly type: "InvalidConfiguration";
}
/** A provider's endpoints are missing or not URLs. */
export class InvalidEndpoints extends AuthError {
  static type = "InvalidEndpoints" as const;
  declare readonly type: "InvalidEndpoints";
}
/** No provider with that id, or one of a kind the action cannot use. */
export class InvalidProvider extends AuthError {
  static type = "InvalidProvider" as const;
  declare readonly type: "InvalidProvider";
}
/** A session JWT could not be read or written. */
export class JWTSessionError extends AuthError {
  static type = "JWTSessionError" as const;
  declare readonly type: "JWTSessionError";
}
/** A feature needs an adapter and none is configured. */
export class MissingAdapter extends AuthError {
  static type = "MissingAdapter" as const;
  declare readonly type: "MissingAdapter";
}
/** The adapter lacks methods a configured feature needs. */
export class MissingAdapterMethods extends AuthError {
  static type = "MissingAdapterMethods" as const;
  declare readonly type: "MissingAdapterMethods";
}
/** A credentials provider has no `authorize`. */
export class MissingAuthorize extends AuthError {
  static type = "MissingAuthorize" as const;
  declare readonly type: "MissingAuthorize";
}
/** A POST came without a valid CSRF token. */
export class MissingCSRF extends SignInError {
  static type = "MissingCSRF" as const;
  declare readonly type: "MissingCSRF";
}
/** No secret, or one too short. */
export class MissingSecret extends AuthError {
  static type = "MissingSecret" as const;
  declare readonly type: "MissingSecret";
}
/** A WebAuthn form field lacks `autocomplete="webauthn"`. */
export class MissingWebAuthnAutocomplete extends AuthError {
  static type = "MissingWebAuthnAutocomplete" as const;
  declare readonly type: "MissingWebAuthnAutocomplete";
}
/** The e-mail of this OAuth account already belongs to another user. */
export class OAuthAccountNotLinked extends SignInError {
  static type = "OAuthAccountNotLinked" as const;
  declare readonly type: "OAuthAccountNotLinked";
}
/** The provider answered the callback with an error, or the token exchange failed. */
export class OAuthCallbackError extends SignInError {
  static type = "OAuthCallbackError" as const;
  declare readonly type: "OAuthCallbackError";
}
/** The provider's profile could not be mapped to a user. */
export class OAuthProfileParseError extends AuthError {
  static type = "OAuthProfileParseError" as const;
  declare readonly type: "OAuthProfileParseError";
}
/** The authorization request could not be made (discovery failed, bad endpoints). */
export class OAuthSignInError extends SignInError {
  static type = "OAuthSignInError" as const;
  declare readonly type: "OAuthSignInError";
}
/** Too many attempts; try again later. */
export class RateLimited extends SignInError {
  static type = "RateLimited" as const;
  declare readonly type: "RateLimited";
  /** Seconds until the next attempt is allowed. */
  retryAfter = 60;
}
/** A database session could not be read. */
/**
 * `getAccessToken` has no access token to give and none can be had without the user: the provider
 * refused the refresh token for good (`invalid_grant`: revoked, expired, or reused), the account
 * was marked so by an earlier refresh, or there is no refresh token (or no account) at all. The
 * application asks the user to sign in with the provider again. `cause.reason` says which.
 * `cookies` holds the session cookie to set (JWT sessions: the token marked revoked).
 */
export class RefreshTokenRevoked extends AuthError {
  static type: ErrorType = "RefreshTokenRevoked";
  /** Cookies the response should set (a JWT session re-issued with the mark); may be empty. */
  cookies: import("../../shapes/data.js").Cookie[] = [];
  /** The same cookies as `Set-Cookie` header values. */
  setCookie: string[] = [];
}

export class SessionTokenError extends AuthError {
  static type = "SessionTokenError" as const;
  declare readonly type: "SessionTokenError";
}

/**
 * A cookie was not written because, with all its chunks, it would be larger than its bound: a
 * browser would send it back with every request it matches, and Node refuses request headers
 * over 16 KiB with 431 (sign-out included), which would lock the user out until it expires.
 * The message names the cookie and the fix. `SessionCookieTooLarge` is the session cookie's.
 *
 * @example
 * ```ts
 * logger: { error(e) { if (e instanceof CookieTooLarge) alertOperator(e.message) } }
 * ```
 */
export class CookieTooLarge extends AuthError {
  static type: ErrorType = "CookieTooLarge";
}

/**
 * A JWT session cookie was not written because, with all its chunks, it would be larger than the
 * server accepts back in a request (Node refuses request headers over 16 KiB with 431, sign-out
 * included): usually provider tokens kept in the session (`accessTokens: { jwt: true }`). The
 * previous cookie stays. Fix: database sessions (provider tokens on the account record), or keep
 * fewer or smaller tokens in the session token.
 */
export class SessionCookieTooLarge extends CookieTooLarge {
  static override type = "SessionCookieTooLarge" as const;
  declare readonly type: "SessionCookieTooLarge";
}
/**
 * A sign-out or a revocation did not happen: the store (the revocation store of JWT sessions, or
 * the adapter of database sessions) did not confirm it in time. Nothing was reported as done: the
 * session goes on (its cookie is kept), and trying again is safe. `POST /signout` answers it with
 * the error page (`?error=SignOutError`, 503), or to scripts with `503 {"error":"SignOutError","url"}`.
 */
export class SignOutError extends AuthError {
  static type = "SignOutError" as const;
  declare readonly type: "SignOutError";
}
/** The path names no action, or the method does not fit it. */
export class UnknownAction extends AuthError {
  static type = "UnknownAction" as const;
  declare readonly type: "UnknownAction";
}
/** A provider cannot work with the configured session strategy. */
export class UnsupportedStrategy extends AuthError {
  static type = "UnsupportedStrategy" as const;
  declare readonly type: "UnsupportedStrategy";
}
/** The request's host is not trusted (`trustHost` is off and no `AUTH_URL` is set). */
export class UntrustedHost extends AuthError {
  static type = "UntrustedHost" as const;
  declare readonly type: "UntrustedHost";
}
/** The e-mail link is unknown, used, expired or for another address. */
export class Verification extends AuthError {
  static type = "Verification" as const;
  declare readonly type: "Verification";
}
/** A passkey registration or assertion failed verification. */
export class WebAuthnVerificationError extends SignInError {
  static type = "WebAuthnVerificationError" as const;
  declare readonly type: "WebAuthnVerificationError";
}
