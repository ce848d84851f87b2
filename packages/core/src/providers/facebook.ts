/**
 * Sign in with Facebook (OAuth 2, Graph API).
 *
 * - Callback URL to register: `<origin>/auth/callback/facebook`
 * - Environment variables: `AUTH_FACEBOOK_ID`, `AUTH_FACEBOOK_SECRET`
 *
 * @example
 * ```ts
 * import Facebook from "@latchkey/core/providers/facebook"
 * Facebook({ clientId: process.env.AUTH_FACEBOOK_ID, clientSecret: process.env.AUTH_FACEBOOK_SECRET })
 * ```
 * @see https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow
 * @module providers/facebook
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** A picture of the Graph API. */
export interface FacebookPicture {
  data: { height: number; width: number; is_silhouette: boolean; url: string };
}

/** The user of the Graph API (`GET /me?fields=id,name,email,picture`). */
export interface FacebookProfile {
  id: string;
  name: string;
  /** Absent when the user has no confirmed address or declined the `email` permission. */
  email?: string;
  first_name?: string;
  last_name?: string;
  picture: FacebookPicture;
  [claim: string]: unknown;
}

export default function Facebook(options: OAuthUserConfig<FacebookProfile> = {}): OAuthConfig<FacebookProfile> {
  return {
    id: "facebook",
    name: "Facebook",
    type: "oauth",
    authorization: { url: "https://www.facebook.com/v19.0/dialog/oauth", params: { scope: "email" } },
    token: "https://graph.facebook.com/v19.0/oauth/access_token",
    userinfo: "https://graph.facebook.com/v19.0/me?fields=id,name,email,picture.type(large)",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.id, name: profile.name, email: profile.email ?? null, image: profile.picture.data.url };
    },
    style: { brandColor: "#0866ff", bg: "#0866ff", text: "#ffffff" },
    options,
  };
}
