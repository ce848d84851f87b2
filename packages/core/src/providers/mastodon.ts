/**
 * Sign in with a Mastodon server (OAuth 2). The issuer is the server's URL
 * (`https://mastodon.social`): the application is registered on that server, and its endpoints
 * are `/oauth/authorize`, `/oauth/token` and `/api/v1/accounts/verify_credentials` there. The
 * scope is `profile` (Mastodon 4.3 and later); pass `read:accounts` for an older server. Mastodon
 * shares no e-mail address (`email` is `null`).
 *
 * - Callback URL to register (Redirect URI): `<origin>/auth/callback/mastodon`
 * - Environment variables: `AUTH_MASTODON_ID`, `AUTH_MASTODON_SECRET`, `AUTH_MASTODON_ISSUER`
 *
 * @example
 * ```ts
 * import Mastodon from "@latchkey/core/providers/mastodon"
 * Mastodon({ issuer: "https://mastodon.social" })
 * ```
 * @see https://docs.joinmastodon.org/spec/oauth/
 * @module providers/mastodon
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /api/v1/accounts/verify_credentials`. */
export interface MastodonProfile extends Record<string, unknown> {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  locked: boolean;
  bot: boolean;
  created_at: string;
  note: string;
  url: string;
  avatar: string;
  avatar_static: string;
  header: string;
  header_static: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  last_status_at: string | null;
}

export default function Mastodon<P extends MastodonProfile = MastodonProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  const { issuer, ...rest } = options;
  const base = issuer?.replace(/\/+$/, "");
  return {
    id: "mastodon",
    name: "Mastodon",
    type: "oauth",
    // Without an issuer the configuration names the missing endpoints when it is resolved.
    authorization: { url: base ? `${base}/oauth/authorize` : undefined, params: { scope: "profile" } },
    token: base ? `${base}/oauth/token` : undefined,
    userinfo: base ? `${base}/api/v1/accounts/verify_credentials` : undefined,
    profile(profile) {
      return {
        id: profile.id,
        name: profile.display_name || profile.username || null,
        email: null,
        image: profile.avatar_static ?? null,
      };
    },
    style: { brandColor: "#6364ff", bg: "#6364ff", text: "#ffffff" },
    options: rest,
  };
}
