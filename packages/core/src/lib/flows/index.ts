/**
 * The face of lib/flows/: every name the rest of the library uses from this wing. Entry modules
 * import lib/flows/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/flows/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { credentialsCallback } from "./credentials.js";
export { emailCodeOptions } from "./email/code.js";
export { emailCallback, sendSignInLink } from "./email/index.js";
export { releaseToProver } from "./identity.js";
export type { IdTokenSubject } from "./oauth/code-exchange.js";
export type { OAuthProvider } from "./oauth/discovery.js";
export { oauthCallback, startOAuth } from "./oauth/index.js";
export { refreshGrant } from "./oauth/refresh.js";
export { secondFactorCallback } from "./second-factor/index.js";
export { endPendingSignIns } from "./second-factor/pending.js";
export {
  canonicalBackupCode,
  enrolmentTicket,
  hashBackupCode,
  newBackupCodeHashes,
  newBackupCodes,
  newTotpSecret,
  openSecret,
  resealIfRetired,
  sealSecret,
  secondFactorMethods,
  secondFactorStore,
} from "./second-factor/secret.js";
export { matchTotp, TOTP_DIGITS, TOTP_PERIOD, timeStep } from "./second-factor/totp.js";
export { noteVerifiedPassword } from "./sign-in-guard.js";
export {
  assertConditionalUI,
  resolveWebAuthnProvider,
  WEBAUTHN_SCRIPT,
  webauthnAdapterMethods,
} from "./webauthn/config.js";
export { webauthnCallback, webauthnOptionsFlow, webauthnScriptResponse } from "./webauthn/index.js";
