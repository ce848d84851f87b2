/**
 * A second factor: time-based one-time codes (TOTP, RFC 6238) from an authenticator app, with
 * single-use backup codes. Latchkey extension (Auth.js has no second factor).
 *
 * With this provider configured, a user who has confirmed a TOTP enrolment
 * (`@latchkey/core/second-factor`) gets no session from their first factor (password, OAuth,
 * magic link, passkey): they get a short-lived sealed "pending" cookie and are sent to
 * `GET <basePath>/callback/<id>` (the built-in code page, or `pages.secondFactor`), which posts
 * the code with the CSRF token to `POST <basePath>/callback/<id>`. The session then records both
 * factors in `token.amr` (for example `["pwd", "otp"]`). Users without a second factor sign in as
 * before. The adapter must implement the second-factor methods (`getSecondFactor`,
 * `setSecondFactor`, `deleteSecondFactor`, `useSecondFactorStep`, `useBackupCode`).
 *
 * @example
 * ```ts
 * import TOTP from "@latchkey/core/providers/totp"
 * Auth(request, { adapter, providers: [Credentials({ ... }), TOTP({ issuer: "Acme" })] })
 * ```
 * @module providers/totp
 */

/** What the application may set on the TOTP provider. */
export interface TOTPUserConfig {
  /** The provider id: the code form posts to `<basePath>/callback/<id>`. @default "totp" */
  id?: string;
  /** @default "Authenticator app" */
  name?: string;
  /** The issuer the authenticator app shows next to the account. @default "Latchkey" */
  issuer?: string;
  /** Seconds the pending cookie (first factor done, code not yet given) lives. @default 300 */
  pendingMaxAge?: number;
}

/** The TOTP provider, as resolved. */
export interface TOTPConfig {
  id: string;
  name: string;
  type: "totp";
  issuer: string;
  pendingMaxAge: number;
  options?: TOTPUserConfig;
}

/**
 * Makes the TOTP second-factor provider.
 *
 * @example
 * ```ts
 * providers: [GitHub, TOTP({ issuer: "Acme", pendingMaxAge: 300 })]
 * ```
 */
export default function TOTP(options: TOTPUserConfig = {}): TOTPConfig {
  return {
    id: "totp",
    name: "Authenticator app",
    type: "totp",
    issuer: "Latchkey",
    pendingMaxAge: 300,
    options,
  };
}
