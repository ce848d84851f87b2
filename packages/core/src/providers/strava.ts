/**
 * Sign in with Strava (OAuth 2). Strava does not share e-mail addresses, so `email` is `null`.
 *
 * - Callback URL: Strava checks only the domain ("Authorization Callback Domain"); register the host
 *   of `<origin>/auth/callback/strava`.
 * - Environment variables: `AUTH_STRAVA_ID`, `AUTH_STRAVA_SECRET`
 *
 * @example
 * ```ts
 * import Strava from "@latchkey/core/providers/strava"
 * Strava({ clientId: process.env.AUTH_STRAVA_ID, clientSecret: process.env.AUTH_STRAVA_SECRET })
 * ```
 * @see https://developers.strava.com/docs/authentication/
 * @module providers/strava
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The authenticated athlete of `GET /api/v3/athlete` (a `DetailedAthlete`). */
export interface StravaProfile {
  id: number;
  username: string | null;
  resource_state: number;
  firstname: string;
  lastname: string;
  bio: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  sex: "M" | "F" | null;
  premium: boolean;
  summit: boolean;
  created_at: string;
  updated_at: string;
  badge_type_id: number;
  weight: number | null;
  /** 62x62 picture. */
  profile_medium: string;
  /** 124x124 picture. */
  profile: string;
  friend: null | string;
  follower: null | string;
  follower_count?: number;
  friend_count?: number;
  measurement_preference?: "feet" | "meters";
  ftp?: number | null;
  [claim: string]: unknown;
}

export default function Strava(options: OAuthUserConfig<StravaProfile> = {}): OAuthConfig<StravaProfile> {
  return {
    id: "strava",
    name: "Strava",
    type: "oauth",
    authorization: {
      url: "https://www.strava.com/oauth/authorize",
      params: { scope: "read", approval_prompt: "auto" },
    },
    token: "https://www.strava.com/oauth/token",
    userinfo: "https://www.strava.com/api/v3/athlete",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return {
        id: String(profile.id),
        name: `${profile.firstname} ${profile.lastname}`.trim(),
        email: null,
        image: profile.profile,
      };
    },
    style: { brandColor: "#fc4c02", bg: "#fc4c02", text: "#ffffff" },
    options,
  };
}
