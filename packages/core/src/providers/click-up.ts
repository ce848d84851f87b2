/**
 * Sign in with ClickUp (OAuth 2). The user is read from `GET https://api.clickup.com/api/v2/user`.
 * ClickUp does not support PKCE: `state` is checked.
 *
 * - Callback URL to register (Redirect URL(s)): `<origin>/auth/callback/click-up`
 * - Environment variables: `AUTH_CLICK_UP_ID`, `AUTH_CLICK_UP_SECRET`
 *
 * @example
 * ```ts
 * import ClickUp from "@latchkey/core/providers/click-up"
 * ClickUp({ clientId: process.env.AUTH_CLICK_UP_ID, clientSecret: process.env.AUTH_CLICK_UP_SECRET })
 * ```
 * @see https://clickup.com/api/developer-portal/authentication/
 * @module providers/click-up
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /api/v2/user`. */
export interface ClickUpProfile {
  user: {
    id: number;
    username: string;
    email?: string;
    color: string;
    profilePicture: string;
    [field: string]: unknown;
  };
}

export default function ClickUp(options: OAuthUserConfig<ClickUpProfile> = {}): OAuthConfig<ClickUpProfile> {
  return {
    id: "click-up",
    name: "ClickUp",
    type: "oauth",
    authorization: { url: "https://app.clickup.com/api" },
    token: "https://api.clickup.com/api/v2/oauth/token",
    userinfo: "https://api.clickup.com/api/v2/user",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      const { user } = profile;
      return {
        id: String(user.id),
        name: user.username ?? null,
        email: user.email ?? null,
        image: user.profilePicture ?? null,
      };
    },
    style: { brandColor: "#7b68ee", bg: "#24292f", text: "#ffffff" },
    options,
  };
}
