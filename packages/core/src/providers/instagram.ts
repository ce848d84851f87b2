/**
 * Sign in with Instagram (OAuth 2, the Instagram API with Instagram Login). The scope is
 * `instagram_business_basic`; the user is read from
 * `GET https://graph.instagram.com/me?fields=user_id,username,name,profile_picture_url`. Instagram
 * shares no e-mail address (`email` is `null`). The client authenticates with
 * `client_secret_post`; Instagram does not support PKCE, so `state` is checked.
 *
 * - Callback URL to register (OAuth redirect URIs, https only): `<origin>/auth/callback/instagram`
 * - Environment variables: `AUTH_INSTAGRAM_ID`, `AUTH_INSTAGRAM_SECRET`
 *
 * @example
 * ```ts
 * import Instagram from "@latchkey/core/providers/instagram"
 * Instagram({ clientId: process.env.AUTH_INSTAGRAM_ID, clientSecret: process.env.AUTH_INSTAGRAM_SECRET })
 * ```
 * @see https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 * @module providers/instagram
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /me` with the fields asked for. */
export interface InstagramProfile extends Record<string, unknown> {
  /** The app-scoped id of the user. */
  id: string;
  /** The Instagram professional account id. */
  user_id?: string;
  username: string;
  name?: string;
  profile_picture_url?: string;
  account_type?: string;
}

export default function Instagram(options: OAuthUserConfig<InstagramProfile> = {}): OAuthConfig<InstagramProfile> {
  return {
    id: "instagram",
    name: "Instagram",
    type: "oauth",
    authorization: { url: "https://www.instagram.com/oauth/authorize", params: { scope: "instagram_business_basic" } },
    token: "https://api.instagram.com/oauth/access_token",
    userinfo: "https://graph.instagram.com/me?fields=id,user_id,username,name,profile_picture_url",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.name || profile.username || null,
        email: null,
        image: profile.profile_picture_url ?? null,
      };
    },
    style: { brandColor: "#e1306c", bg: "#ffffff", text: "#000000" },
    options,
  };
}
