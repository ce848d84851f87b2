/**
 * Sign in with WordPress.com (OAuth 2). The scope is `auth`; the user is read from
 * `GET https://public-api.wordpress.com/rest/v1/me`, which says whether WordPress.com verified
 * the address (`email_verified`). WordPress.com does not support PKCE: `state` is checked.
 *
 * - Callback URL to register (Redirect URLs): `<origin>/auth/callback/wordpress`
 * - Environment variables: `AUTH_WORDPRESS_ID`, `AUTH_WORDPRESS_SECRET`
 *
 * @example
 * ```ts
 * import WordPress from "@latchkey/core/providers/wordpress"
 * WordPress({ clientId: process.env.AUTH_WORDPRESS_ID, clientSecret: process.env.AUTH_WORDPRESS_SECRET })
 * ```
 * @see https://developer.wordpress.com/docs/oauth2/
 * @module providers/wordpress
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /rest/v1/me`. */
export interface WordPressProfile extends Record<string, unknown> {
  ID: number;
  display_name: string;
  username: string;
  email: string;
  email_verified: boolean;
  avatar_URL: string;
  profile_URL: string;
  primary_blog?: number;
  language?: string;
}

export default function WordPress(options: OAuthUserConfig<WordPressProfile> = {}): OAuthConfig<WordPressProfile> {
  return {
    id: "wordpress",
    name: "WordPress.com",
    type: "oauth",
    authorization: { url: "https://public-api.wordpress.com/oauth2/authorize", params: { scope: "auth" } },
    token: "https://public-api.wordpress.com/oauth2/token",
    userinfo: "https://public-api.wordpress.com/rest/v1/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return {
        id: String(profile.ID),
        name: profile.display_name || profile.username || null,
        email: profile.email ?? null,
        image: profile.avatar_URL ?? null,
      };
    },
    style: { brandColor: "#3499cd", bg: "#3499cd", text: "#ffffff" },
    options,
  };
}
