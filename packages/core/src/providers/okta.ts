/**
 * Sign in with Okta (OpenID Connect). The issuer is your Okta org or one of its authorization
 * servers, e.g. `https://example.okta.com` or `https://example.okta.com/oauth2/default`.
 *
 * - Callback URL to register: `<origin>/auth/callback/okta`
 * - Environment variables: `AUTH_OKTA_ID`, `AUTH_OKTA_SECRET`, `AUTH_OKTA_ISSUER`
 *
 * @example
 * ```ts
 * import Okta from "@latchkey/core/providers/okta"
 * Okta({
 *   clientId: process.env.AUTH_OKTA_ID,
 *   clientSecret: process.env.AUTH_OKTA_SECRET,
 *   issuer: "https://example.okta.com/oauth2/default",
 * })
 * ```
 * @see https://developer.okta.com/docs/reference/api/oidc/
 * @module providers/okta
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of Okta's ID token and `/v1/userinfo`. */
export interface OktaProfile {
  iss: string;
  ver?: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  jti?: string;
  auth_time?: number;
  amr?: string[];
  idp?: string;
  nonce?: string;
  name: string;
  nickname?: string;
  preferred_username: string;
  given_name?: string;
  middle_name?: string;
  family_name?: string;
  email: string;
  email_verified?: boolean;
  profile?: string;
  zoneinfo?: string;
  locale?: string;
  address?: Record<string, string>;
  phone_number?: string;
  picture?: string;
  website?: string;
  gender?: string;
  birthdate?: string;
  updated_at?: number;
  at_hash?: string;
  c_hash?: string;
  groups?: string[];
  [claim: string]: unknown;
}

export default function Okta(options: OIDCUserConfig<OktaProfile> = {}): OIDCConfig<OktaProfile> {
  return {
    id: "okta",
    name: "Okta",
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
    style: { brandColor: "#007dc1", bg: "#007dc1", text: "#ffffff" },
    options,
  };
}
