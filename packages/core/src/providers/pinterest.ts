/**
 * Sign in with Pinterest (OAuth 2, API v5). Pinterest shares no e-mail address, so `email` is
 * `null`.
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/pinterest`
 * - Environment variables: `AUTH_PINTEREST_ID` (App id), `AUTH_PINTEREST_SECRET`
 *
 * @example
 * ```ts
 * import Pinterest from "@latchkey/core/providers/pinterest"
 * Pinterest({ clientId: process.env.AUTH_PINTEREST_ID, clientSecret: process.env.AUTH_PINTEREST_SECRET })
 * ```
 * @see https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/
 * @module providers/pinterest
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The account of `GET /v5/user_account`. */
export interface PinterestProfile {
  id?: string;
  account_type: "PINNER" | "BUSINESS";
  username: string;
  profile_image: string;
  website_url: string | null;
  business_name?: string | null;
  about?: string;
  board_count?: number;
  pin_count?: number;
  follower_count?: number;
  following_count?: number;
  monthly_views?: number;
  [claim: string]: unknown;
}

export default function Pinterest(options: OAuthUserConfig<PinterestProfile> = {}): OAuthConfig<PinterestProfile> {
  return {
    id: "pinterest",
    name: "Pinterest",
    type: "oauth",
    authorization: { url: "https://www.pinterest.com/oauth/", params: { scope: "user_accounts:read" } },
    token: "https://api.pinterest.com/v5/oauth/token",
    userinfo: "https://api.pinterest.com/v5/user_account",
    checks: ["state"],
    profile(profile) {
      return {
        id: profile.id ?? profile.username,
        name: profile.business_name || profile.username,
        email: null,
        image: profile.profile_image,
      };
    },
    style: { brandColor: "#e60023", bg: "#e60023", text: "#ffffff" },
    options,
  };
}
