/**
 * Sign in with Beyond Identity (OpenID Connect, passwordless). The issuer is the application's,
 * `https://auth-<region>.beyondidentity.com/v1/tenants/<tenant>/realms/<realm>/applications/<application>`,
 * as the Admin Console shows it.
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/beyondidentity`
 * - Environment variables: `AUTH_BEYONDIDENTITY_ID`, `AUTH_BEYONDIDENTITY_SECRET`,
 *   `AUTH_BEYONDIDENTITY_ISSUER`
 *
 * @example
 * ```ts
 * import BeyondIdentity from "@latchkey/core/providers/beyondidentity"
 * BeyondIdentity({ issuer: process.env.AUTH_BEYONDIDENTITY_ISSUER })
 * ```
 * @see https://developer.beyondidentity.com/docs/integrate-with-nextauth
 * @module providers/beyondidentity
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Beyond Identity ID token. */
export interface BeyondIdentityProfile {
  /** The user's id. */
  sub: string;
  name: string;
  preferred_username: string;
  email: string;
  [claim: string]: unknown;
}

export default function BeyondIdentity(
  options: OIDCUserConfig<BeyondIdentityProfile> = {},
): OIDCConfig<BeyondIdentityProfile> {
  return {
    id: "beyondidentity",
    name: "Beyond Identity",
    type: "oidc",
    issuer: options.issuer,
    profile: defaultProfile,
    style: { brandColor: "#5077c5", bg: "#5077c5", text: "#ffffff" },
    options,
  };
}
