/**
 * Sign in with authentik (OpenID Connect). The issuer is the application's provider URL,
 * `https://<host>/application/o/<application slug>/`.
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/authentik`
 * - Environment variables: `AUTH_AUTHENTIK_ID`, `AUTH_AUTHENTIK_SECRET`, `AUTH_AUTHENTIK_ISSUER`
 *
 * @example
 * ```ts
 * import Authentik from "@latchkey/core/providers/authentik"
 * Authentik({
 *   clientId: process.env.AUTH_AUTHENTIK_ID,
 *   clientSecret: process.env.AUTH_AUTHENTIK_SECRET,
 *   issuer: "https://id.example.com/application/o/intranet/",
 * })
 * ```
 * @see https://docs.goauthentik.io/docs/add-secure-apps/providers/oauth2/
 * @module providers/authentik
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims authentik returns with its default scope mappings. */
export interface AuthentikProfile {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  auth_time: number;
  acr?: string;
  c_hash?: string;
  nonce?: string;
  at_hash?: string;
  email: string;
  email_verified: boolean;
  name: string;
  given_name: string;
  family_name?: string;
  preferred_username: string;
  nickname: string;
  groups: string[];
  picture?: string;
  [claim: string]: unknown;
}

export default function Authentik(options: OIDCUserConfig<AuthentikProfile> = {}): OIDCConfig<AuthentikProfile> {
  return {
    id: "authentik",
    name: "authentik",
    type: "oidc",
    issuer: options.issuer,
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username,
        email: profile.email,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#fd4b2d", bg: "#fd4b2d", text: "#ffffff" },
    options,
  };
}
