/**
 * Sign in with IdentityServer4 (OpenID Connect). The issuer is the server's URL.
 *
 * - Callback URL to register (the client's RedirectUris): `<origin>/auth/callback/identity-server4`
 * - Environment variables: `AUTH_IDENTITY_SERVER4_ID`, `AUTH_IDENTITY_SERVER4_SECRET`,
 *   `AUTH_IDENTITY_SERVER4_ISSUER`
 *
 * @example
 * ```ts
 * import IdentityServer4 from "@latchkey/core/providers/identity-server4"
 * IdentityServer4({ issuer: "https://identity.example.com" })
 * ```
 * @see https://identityserver4.readthedocs.io/en/latest/
 * @module providers/identity-server4
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of an IdentityServer4 ID token with the `profile` and `email` scopes. */
export interface IdentityServer4Profile extends Record<string, unknown> {
  sub: string;
  name?: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  picture?: string;
}

export default function IdentityServer4(
  options: OIDCUserConfig<IdentityServer4Profile> = {},
): OIDCConfig<IdentityServer4Profile> {
  return {
    id: "identity-server4",
    name: "IdentityServer4",
    type: "oidc",
    issuer: options.issuer,
    profile: defaultProfile,
    style: { brandColor: "#4a90d9", bg: "#ffffff", text: "#000000" },
    options,
  };
}
