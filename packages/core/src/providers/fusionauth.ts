/**
 * Sign in with FusionAuth (OpenID Connect). The issuer is your instance's URL, e.g.
 * `https://auth.example.com` (with a tenant-specific issuer if the tenant sets one).
 *
 * - Callback URL to register (Authorized redirect URLs): `<origin>/auth/callback/fusionauth`
 * - Environment variables: `AUTH_FUSIONAUTH_ID`, `AUTH_FUSIONAUTH_SECRET`, `AUTH_FUSIONAUTH_ISSUER`
 *
 * With several tenants, pass `tenantId`; it is sent with the authorization request.
 *
 * @example
 * ```ts
 * import FusionAuth from "@latchkey/core/providers/fusionauth"
 * FusionAuth({
 *   clientId: process.env.AUTH_FUSIONAUTH_ID,
 *   clientSecret: process.env.AUTH_FUSIONAUTH_SECRET,
 *   issuer: "https://auth.example.com",
 * })
 * ```
 * @see https://fusionauth.io/docs/lifecycle/authenticate-users/oauth/endpoints
 * @module providers/fusionauth
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a FusionAuth ID token and userinfo endpoint. */
export interface FusionAuthProfile {
  aud: string;
  exp: number;
  iat: number;
  iss: string;
  sub: string;
  jti?: string;
  authenticationType: string;
  email: string;
  email_verified: boolean;
  preferred_username?: string;
  name?: string;
  given_name?: string;
  middle_name?: string;
  family_name?: string;
  picture?: string;
  phone_number?: string;
  birthdate?: string;
  at_hash?: string;
  c_hash?: string;
  nonce?: string;
  sid?: string;
  applicationId?: string;
  roles?: string[];
  tid?: string;
  auth_time?: number;
  [claim: string]: unknown;
}

export interface FusionAuthOptions extends OIDCUserConfig<FusionAuthProfile> {
  /** The tenant, when the instance has more than one. */
  tenantId?: string;
}

export default function FusionAuth(options: FusionAuthOptions = {}): OIDCConfig<FusionAuthProfile> {
  return {
    id: "fusionauth",
    name: "FusionAuth",
    type: "oidc",
    issuer: options.issuer,
    authorization: { params: { scope: "openid offline_access email profile", tenantId: options.tenantId } },
    profile(profile) {
      const joined = [profile.given_name, profile.family_name].filter(Boolean).join(" ");
      return {
        id: profile.sub,
        name: profile.name ?? (joined || profile.preferred_username) ?? null,
        email: profile.email,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#f58320", bg: "#000000", text: "#ffffff" },
    options,
  };
}
