/**
 * Sign in with osu! (OAuth 2, API v2). osu! shares no e-mail address, so `email` is `null`.
 *
 * - Callback URL to register (Application Callback URLs): `<origin>/auth/callback/osu`
 * - Environment variables: `AUTH_OSU_ID`, `AUTH_OSU_SECRET`
 *
 * @example
 * ```ts
 * import Osu from "@latchkey/core/providers/osu"
 * Osu({ clientId: process.env.AUTH_OSU_ID, clientSecret: process.env.AUTH_OSU_SECRET })
 * ```
 * @see https://osu.ppy.sh/docs/index.html#authorization-code-grant
 * @module providers/osu
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The user of `GET /api/v2/me` (the common fields). */
export interface OsuProfile {
  id: number;
  username: string;
  avatar_url: string;
  country_code: string;
  default_group: string;
  is_active: boolean;
  is_bot: boolean;
  is_deleted: boolean;
  is_online: boolean;
  is_supporter: boolean;
  last_visit: string | null;
  pm_friends_only: boolean;
  profile_colour: string | null;
  cover_url?: string;
  discord?: string | null;
  has_supported?: boolean;
  interests?: string | null;
  join_date?: string;
  location?: string | null;
  max_blocks?: number;
  max_friends?: number;
  occupation?: string | null;
  playmode?: "osu" | "taiko" | "fruits" | "mania";
  playstyle?: string[];
  post_count?: number;
  profile_order?: string[];
  title?: string | null;
  twitter?: string | null;
  website?: string | null;
  country?: { code: string; name: string };
  cover?: { custom_url: string | null; url: string; id: string | null };
  is_restricted?: boolean;
  [claim: string]: unknown;
}

export default function Osu(options: OAuthUserConfig<OsuProfile> = {}): OAuthConfig<OsuProfile> {
  return {
    id: "osu",
    name: "osu!",
    type: "oauth",
    authorization: { url: "https://osu.ppy.sh/oauth/authorize", params: { scope: "identify" } },
    token: "https://osu.ppy.sh/oauth/token",
    userinfo: "https://osu.ppy.sh/api/v2/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return { id: String(profile.id), name: profile.username, email: null, image: profile.avatar_url };
    },
    style: { brandColor: "#ff66aa", bg: "#ff66aa", text: "#ffffff" },
    options,
  };
}
