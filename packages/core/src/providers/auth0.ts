/**
 * Sign in with Auth0 (OpenID Connect). The issuer is your tenant's domain, e.g.
 * `https://example.eu.auth0.com` or a custom domain.
 *
 * - Callback URL to register: `<origin>/auth/callback/auth0`
 * - Environment variables: `AUTH_AUTH0_ID`, `AUTH_AUTH0_SECRET`, `AUTH_AUTH0_ISSUER`
 *
 * @example
 * ```ts
 * import Auth0 from "@latchkey/core/providers/auth0"
 * Auth0({
 *   clientId: process.env.AUTH_AUTH0_ID,
 *   clientSecret: process.env.AUTH_AUTH0_SECRET,
 *   issuer: "https://example.eu.auth0.com",
 * })
 * ```
 * @see https://auth0.com/docs/authenticate/protocols/openid-connect-protocol
 * @module providers/auth0
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The standard claims Auth0 returns for the `openid profile email` scopes. */
export interface Auth0Profile {
  /** `<connection>|<user id>`, e.g. `auth0|64b7...` or `google-oauth2|1057...`. */
  sub: string;
  name: string;
  nickname: string;
  given_name?: string;
  family_name?: string;
  picture: string;
  email: string;
  email_verified: boolean;
  locale?: string;
  updated_at: string;
  org_id?: string;
  [claim: string]: unknown;
}

export default function Auth0(options: OIDCUserConfig<Auth0Profile> = {}): OIDCConfig<Auth0Profile> {
  return {
    id: "auth0",
    name: "Auth0",
    type: "oidc",
    issuer: options.issuer,
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.nickname, email: profile.email, image: profile.picture };
    },
    style: { brandColor: "#eb5424", bg: "#000000", text: "#ffffff" },
    options,
  };
}
