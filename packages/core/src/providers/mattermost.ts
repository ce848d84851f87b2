/**
 * Sign in with a Mattermost server (OAuth 2). The issuer is the server's URL
 * (`https://chat.example.com`); its endpoints are `/oauth/authorize`, `/oauth/access_token` and
 * `/api/v4/users/me` there. The client authenticates with `client_secret_post`; Mattermost does
 * not support PKCE, so `state` is checked. Mattermost says whether it verified the address
 * (`email_verified`).
 *
 * - Callback URL to register (Callback URLs): `<origin>/auth/callback/mattermost`
 * - Environment variables: `AUTH_MATTERMOST_ID`, `AUTH_MATTERMOST_SECRET`, `AUTH_MATTERMOST_ISSUER`
 *
 * @example
 * ```ts
 * import Mattermost from "@latchkey/core/providers/mattermost"
 * Mattermost({ issuer: "https://chat.example.com" })
 * ```
 * @see https://developers.mattermost.com/integrate/apps/authentication/oauth2/
 * @module providers/mattermost
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /api/v4/users/me`. */
export interface MattermostProfile {
  id: string;
  create_at: number;
  update_at: number;
  delete_at: number;
  username: string;
  auth_data: string;
  auth_service: string;
  email: string;
  email_verified: boolean;
  nickname: string;
  first_name: string;
  last_name: string;
  position: string;
  roles: string;
  locale: string;
  [field: string]: unknown;
}

export default function Mattermost<P extends MattermostProfile = MattermostProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  const { issuer, ...rest } = options;
  const base = issuer?.replace(/\/+$/, "");
  return {
    id: "mattermost",
    name: "Mattermost",
    type: "oauth",
    // Without an issuer the configuration names the missing endpoints when it is resolved.
    authorization: { url: base ? `${base}/oauth/authorize` : undefined },
    token: base ? `${base}/oauth/access_token` : undefined,
    userinfo: base ? `${base}/api/v4/users/me` : undefined,
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      const full = [profile.first_name, profile.last_name].filter(Boolean).join(" ");
      return { id: profile.id, name: profile.username ?? (full || null), email: profile.email ?? null, image: null };
    },
    style: { brandColor: "#1e325c", bg: "#000000", text: "#ffffff" },
    options: rest,
  };
}
