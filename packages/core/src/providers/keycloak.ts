/**
 * Sign in with Keycloak (OpenID Connect). The issuer is the realm's URL,
 * `https://<host>/realms/<realm>` (`/auth/realms/<realm>` on Keycloak 16 and older).
 *
 * - Callback URL to register (Valid redirect URIs): `<origin>/auth/callback/keycloak`
 * - Environment variables: `AUTH_KEYCLOAK_ID`, `AUTH_KEYCLOAK_SECRET`, `AUTH_KEYCLOAK_ISSUER`
 *
 * @example
 * ```ts
 * import Keycloak from "@latchkey/core/providers/keycloak"
 * Keycloak({
 *   clientId: process.env.AUTH_KEYCLOAK_ID,
 *   clientSecret: process.env.AUTH_KEYCLOAK_SECRET,
 *   issuer: "https://sso.example.com/realms/staff",
 * })
 * ```
 * @see https://www.keycloak.org/docs/latest/securing_apps/#_oidc
 * @module providers/keycloak
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Keycloak ID token with the default client scopes. */
export interface KeycloakProfile {
  exp: number;
  iat: number;
  auth_time?: number;
  jti: string;
  iss: string;
  aud: string;
  sub: string;
  typ: "ID";
  azp: string;
  session_state?: string;
  sid?: string;
  at_hash?: string;
  acr?: string;
  email_verified: boolean;
  name?: string;
  preferred_username: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  picture?: string;
  user?: unknown;
  [claim: string]: unknown;
}

export default function Keycloak(options: OIDCUserConfig<KeycloakProfile> = {}): OIDCConfig<KeycloakProfile> {
  return {
    id: "keycloak",
    name: "Keycloak",
    type: "oidc",
    issuer: options.issuer,
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#4d4d4d", bg: "#ffffff", text: "#000000" },
    options,
  };
}
