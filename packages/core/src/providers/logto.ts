/**
 * Sign in with Logto (OpenID Connect). The issuer is the tenant's, `https://<tenant>.logto.app/oidc`
 * (or a self-hosted Logto's `<endpoint>/oidc`). The scope asks for a refresh token too
 * (`offline_access openid email profile`).
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/logto`
 * - Environment variables: `AUTH_LOGTO_ID`, `AUTH_LOGTO_SECRET`, `AUTH_LOGTO_ISSUER`
 *
 * @example
 * ```ts
 * import Logto from "@latchkey/core/providers/logto"
 * Logto({ issuer: "https://acme.logto.app/oidc" })
 * ```
 * @see https://docs.logto.io/quick-starts/next-auth
 * @module providers/logto
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Logto ID token (the `profile` and `email` scopes; the rest with their scope). */
export interface LogtoProfile {
  sub: string;
  name: string;
  username: string;
  picture: string;
  email: string;
  email_verified: boolean;
  phone_number: string;
  phone_number_verified: boolean;
  address: string;
  custom_data: object;
  identities: object;
  sso_identities: object[];
  organizations: string[];
  organization_data: object[];
  organization_roles: string[];
  [claim: string]: unknown;
}

export default function Logto(options: OIDCUserConfig<LogtoProfile> = {}): OIDCConfig<LogtoProfile> {
  return {
    id: "logto",
    name: "Logto",
    type: "oidc",
    issuer: options.issuer,
    authorization: { params: { scope: "offline_access openid email profile" } },
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.username ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#5d34f2", bg: "#5d34f2", text: "#ffffff" },
    options,
  };
}
