/**
 * Sign in with Zoom (OAuth 2, a user-managed OAuth app).
 *
 * - Callback URL to register (Redirect URL and allow list): `<origin>/auth/callback/zoom`
 * - Environment variables: `AUTH_ZOOM_ID`, `AUTH_ZOOM_SECRET`
 *
 * The app needs the `user:read:user` scope (older apps: `user:read`).
 *
 * @example
 * ```ts
 * import Zoom from "@latchkey/core/providers/zoom"
 * Zoom({ clientId: process.env.AUTH_ZOOM_ID, clientSecret: process.env.AUTH_ZOOM_SECRET })
 * ```
 * @see https://developers.zoom.us/docs/integrations/oauth/
 * @module providers/zoom
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The user of `GET /v2/users/me`. */
export interface ZoomProfile {
  id: string;
  first_name: string;
  last_name: string;
  display_name?: string;
  email: string;
  /** 1 basic, 2 licensed, 4 unassigned without Meetings, 99 none. */
  type: number;
  role_name: string;
  role_id?: string;
  pmi: number;
  use_pmi: boolean;
  personal_meeting_url: string;
  timezone: string;
  verified: number;
  dept: string;
  created_at: string;
  last_login_time: string;
  last_client_version?: string;
  pic_url?: string;
  host_key?: string;
  jid: string;
  group_ids?: string[];
  im_group_ids?: string[];
  account_id: string;
  account_number?: number;
  language: string;
  phone_country?: string;
  phone_number?: string;
  status: "pending" | "active" | "inactive";
  job_title?: string;
  location?: string;
  login_types?: number[];
  cluster?: string;
  user_created_at?: string;
  [claim: string]: unknown;
}

export default function Zoom(options: OAuthUserConfig<ZoomProfile> = {}): OAuthConfig<ZoomProfile> {
  return {
    id: "zoom",
    name: "Zoom",
    type: "oauth",
    authorization: { url: "https://zoom.us/oauth/authorize", params: {} },
    token: "https://zoom.us/oauth/token",
    userinfo: "https://api.zoom.us/v2/users/me",
    profile(profile) {
      const name = profile.display_name || `${profile.first_name} ${profile.last_name}`.trim();
      return { id: profile.id, name: name || null, email: profile.email, image: profile.pic_url ?? null };
    },
    style: { brandColor: "#0b5cff", bg: "#0b5cff", text: "#ffffff" },
    options,
  };
}
