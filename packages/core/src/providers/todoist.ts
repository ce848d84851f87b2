/**
 * Sign in with Todoist (OAuth 2). The scope is `data:read`; the user is read from Todoist's API v1,
 * `GET https://api.todoist.com/api/v1/user`. The client authenticates with `client_secret_post`;
 * Todoist does not support PKCE, so `state` is checked.
 *
 * - Callback URL to register (OAuth redirect URL): `<origin>/auth/callback/todoist`
 * - Environment variables: `AUTH_TODOIST_ID`, `AUTH_TODOIST_SECRET`
 *
 * @example
 * ```ts
 * import Todoist from "@latchkey/core/providers/todoist"
 * Todoist({ clientId: process.env.AUTH_TODOIST_ID, clientSecret: process.env.AUTH_TODOIST_SECRET })
 * ```
 * @see https://developer.todoist.com/guides/#authorization
 * @module providers/todoist
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /api/v1/user`. */
export interface TodoistProfile extends Record<string, unknown> {
  id: string;
  email: string;
  full_name: string;
  avatar_big?: string | null;
}

export default function Todoist<P extends TodoistProfile = TodoistProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "todoist",
    name: "Todoist",
    type: "oauth",
    authorization: { url: "https://todoist.com/oauth/authorize", params: { scope: "data:read" } },
    token: "https://todoist.com/oauth/access_token",
    userinfo: "https://api.todoist.com/api/v1/user",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.full_name ?? null,
        email: profile.email ?? null,
        image: profile.avatar_big ?? null,
      };
    },
    style: { brandColor: "#e44332", bg: "#e44332", text: "#000000" },
    options,
  };
}
