/**
 * Sign-in with passkeys: discoverable, user-verified WebAuthn credentials. **Experimental**: turn
 * it on with `experimental: { enableWebAuthn: true }`, configure an adapter that stores
 * authenticators, and install the optional peer `@simplewebauthn/server` (v13; v9, which
 * `next-auth` v5 applications have, works too).
 *
 * @example
 * ```ts
 * import Passkey from "@latchkey/core/providers/passkey"
 * Auth(request, { adapter, experimental: { enableWebAuthn: true }, providers: [Passkey] })
 * ```
 * @module providers/passkey
 */
import WebAuthn, { DEFAULT_WEBAUTHN_TIMEOUT, type WebAuthnProvider, type WebAuthnUserConfig } from "./webauthn.js";

export type { WebAuthnConfig, WebAuthnProvider, WebAuthnUserConfig } from "./webauthn.js";

/**
 * Makes a passkey provider: a WebAuthn provider with the id `passkey` that requires resident
 * (discoverable) credentials and user verification, on registration and on every sign-in.
 *
 * @example
 * ```ts
 * Passkey({ relyingParty: { name: "My App" } })
 * ```
 */
export default function Passkey(options: WebAuthnUserConfig = {}): WebAuthnProvider {
  return {
    ...WebAuthn(options),
    id: "passkey",
    name: "Passkey",
    authenticationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT, userVerification: "required" },
    registrationOptions: {
      timeout: DEFAULT_WEBAUTHN_TIMEOUT,
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
    },
    verifyAuthenticationOptions: { requireUserVerification: true },
    verifyRegistrationOptions: { requireUserVerification: true },
    options,
  };
}
