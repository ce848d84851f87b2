/**
 * Sign in with Reddit (OAuth 2).
 *
 * Reddit does not share e-mail addresses, so `email` is `null`. Reddit documents no PKCE, so the
 * callback is protected by `state`.
 *
 * - Callback URL to register: `<origin>/auth/callback/reddit`
 * - Environment variables: `AUTH_REDDIT_ID`, `AUTH_REDDIT_SECRET`
 *
 * Reddit grants a refresh token only with `duration: "permanent"` in `authorization.params`.
 *
 * @example
 * ```ts
 * import Reddit from "@latchkey/core/providers/reddit"
 * Reddit({ clientId: process.env.AUTH_REDDIT_ID, clientSecret: process.env.AUTH_REDDIT_SECRET })
 * ```
 * @see https://github.com/reddit-archive/reddit/wiki/OAuth2
 * @module providers/reddit
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The account of `GET /api/v1/me` (scope `identity`). */
export interface RedditProfile {
  /** The account id without its `t2_` prefix. */
  id: string;
  name: string;
  /** HTML-escaped (`&amp;`) URL of the avatar. */
  icon_img: string;
  snoovatar_img?: string;
  created: number;
  created_utc: number;
  link_karma: number;
  comment_karma: number;
  total_karma?: number;
  verified: boolean;
  has_verified_email: boolean;
  is_gold?: boolean;
  is_mod?: boolean;
  is_employee?: boolean;
  over_18?: boolean;
  subreddit?: { display_name_prefixed: string; public_description: string; icon_img: string } | null;
  [claim: string]: unknown;
}

export default function Reddit(options: OAuthUserConfig<RedditProfile> = {}): OAuthConfig<RedditProfile> {
  return {
    id: "reddit",
    name: "Reddit",
    type: "oauth",
    authorization: { url: "https://www.reddit.com/api/v1/authorize", params: { scope: "identity" } },
    token: "https://www.reddit.com/api/v1/access_token",
    userinfo: "https://oauth.reddit.com/api/v1/me",
    checks: ["state"],
    profile(profile) {
      const image = (profile.snoovatar_img || profile.icon_img || "").replaceAll("&amp;", "&");
      return { id: profile.id, name: profile.name, email: null, image: image || null };
    },
    style: { brandColor: "#ff4500", bg: "#ff4500", text: "#ffffff" },
    options,
  };
}
