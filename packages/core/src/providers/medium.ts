/**
 * Sign in with Medium (OAuth 2). The scope is `basicProfile`; the user is read from
 * `GET https://api.medium.com/v1/me`, its `data`. Medium shares no e-mail address (`email` is
 * `null`) and no longer issues new integration tokens, but existing applications sign in. Medium
 * does not support PKCE: `state` is checked.
 *
 * - Callback URL to register: `<origin>/auth/callback/medium`
 * - Environment variables: `AUTH_MEDIUM_ID`, `AUTH_MEDIUM_SECRET`
 *
 * @example
 * ```ts
 * import Medium from "@latchkey/core/providers/medium"
 * Medium({ clientId: process.env.AUTH_MEDIUM_ID, clientSecret: process.env.AUTH_MEDIUM_SECRET })
 * ```
 * @see https://github.com/Medium/medium-api-docs
 * @module providers/medium
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /v1/me`. */
export interface MediumProfile extends Record<string, unknown> {
  data: { id: string; username: string; name: string; url: string; imageUrl: string };
}

export default function Medium(options: OAuthUserConfig<MediumProfile> = {}): OAuthConfig<MediumProfile> {
  return {
    id: "medium",
    name: "Medium",
    type: "oauth",
    authorization: { url: "https://medium.com/m/oauth/authorize", params: { scope: "basicProfile" } },
    token: "https://api.medium.com/v1/tokens",
    userinfo: "https://api.medium.com/v1/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile({ data }) {
      return { id: data.id, name: data.name ?? data.username ?? null, email: null, image: data.imageUrl ?? null };
    },
    style: { brandColor: "#000000", bg: "#000000", text: "#ffffff" },
    options,
  };
}
