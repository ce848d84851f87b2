/**
 * Sign in with Threads (OAuth 2, the Threads API). The scope is `threads_basic`; the user is read
 * from `GET https://graph.threads.net/v1.0/me?fields=id,username,name,threads_profile_picture_url`.
 * Threads shares no e-mail address (`email` is `null`). The client authenticates with
 * `client_secret_post`; Threads does not support PKCE, so `state` is checked.
 *
 * - Callback URL to register (Redirect Callback URLs, https only): `<origin>/auth/callback/threads`
 * - Environment variables: `AUTH_THREADS_ID`, `AUTH_THREADS_SECRET`
 *
 * @example
 * ```ts
 * import Threads from "@latchkey/core/providers/threads"
 * Threads({ clientId: process.env.AUTH_THREADS_ID, clientSecret: process.env.AUTH_THREADS_SECRET })
 * ```
 * @see https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
 * @module providers/threads
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** A Threads user, as `GET /me` answers it (next-auth's type wraps it in `data`; both are read). */
export interface ThreadsProfile extends Record<string, unknown> {
  id?: string;
  username?: string;
  name?: string;
  threads_profile_picture_url?: string;
  threads_biography?: string;
  data?: { id: string; username?: string; threads_profile_picture_url?: string; threads_biography?: string };
}

export default function Threads(options: OAuthUserConfig<ThreadsProfile> = {}): OAuthConfig<ThreadsProfile> {
  return {
    id: "threads",
    name: "Threads",
    type: "oauth",
    authorization: { url: "https://threads.net/oauth/authorize", params: { scope: "threads_basic" } },
    token: "https://graph.threads.net/oauth/access_token",
    userinfo: "https://graph.threads.net/v1.0/me?fields=id,username,name,threads_profile_picture_url",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      const user = profile.data ?? profile;
      return {
        id: String(user.id),
        name: ("name" in user && typeof user.name === "string" && user.name) || user.username || null,
        email: null,
        image: user.threads_profile_picture_url || null,
      };
    },
    style: { brandColor: "#000000", bg: "#000000", text: "#ffffff" },
    options,
  };
}
