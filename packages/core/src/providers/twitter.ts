/**
 * Sign in with X (formerly Twitter) over OAuth 2.0 with PKCE (X API v2).
 *
 * - Callback URL to register: `<origin>/auth/callback/twitter`
 * - Environment variables: `AUTH_TWITTER_ID`, `AUTH_TWITTER_SECRET` (the OAuth 2.0 client id and
 *   secret of the app, not the API key of OAuth 1.0a)
 *
 * X gives the e-mail address only to apps allowed to ask for it: add the scope `users.email` and the
 * user field `confirmed_email` to read it; otherwise `email` is `null`.
 *
 * @example
 * ```ts
 * import Twitter from "@latchkey/core/providers/twitter"
 * Twitter({ clientId: process.env.AUTH_TWITTER_ID, clientSecret: process.env.AUTH_TWITTER_SECRET })
 * ```
 * @see https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code
 * @module providers/twitter
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /2/users/me`. */
export interface TwitterProfile {
  data: {
    id: string;
    name: string;
    username: string;
    profile_image_url?: string;
    /** Needs the `users.email` scope and the `confirmed_email` user field. */
    confirmed_email?: string;
    created_at?: string;
    description?: string;
    location?: string;
    pinned_tweet_id?: string;
    protected?: boolean;
    url?: string;
    verified?: boolean;
    verified_type?: "blue" | "business" | "government" | "none";
    public_metrics?: { followers_count: number; following_count: number; tweet_count: number; listed_count: number };
    entities?: Record<string, unknown>;
  };
  includes?: Record<string, unknown>;
  errors?: Array<{ title: string; detail?: string; type: string }>;
  [claim: string]: unknown;
}

export default function Twitter(options: OAuthUserConfig<TwitterProfile> = {}): OAuthConfig<TwitterProfile> {
  return {
    id: "twitter",
    name: "X",
    type: "oauth",
    authorization: {
      url: "https://x.com/i/oauth2/authorize",
      params: { scope: "users.read tweet.read offline.access" },
    },
    token: "https://api.x.com/2/oauth2/token",
    userinfo: "https://api.x.com/2/users/me?user.fields=profile_image_url",
    checks: ["pkce", "state"],
    profile({ data }) {
      return {
        id: data.id,
        name: data.name,
        email: data.confirmed_email ?? null,
        image: data.profile_image_url ?? null,
      };
    },
    style: { brandColor: "#000000", bg: "#000000", text: "#ffffff" },
    options,
  };
}
