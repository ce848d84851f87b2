/**
 * Sign in with Trakt (OAuth 2). Trakt's API wants two headers besides the token, which the user
 * request sends: `trakt-api-version: 2` and `trakt-api-key: <client id>`; the user is read from
 * `GET https://api.trakt.tv/users/me?extended=full`. Trakt shares no e-mail address (`email` is
 * `null`); the image is the avatar Trakt hosts. Trakt does not support PKCE: `state` is checked.
 *
 * - Callback URL to register (Redirect uri): `<origin>/auth/callback/trakt`
 * - Environment variables: `AUTH_TRAKT_ID`, `AUTH_TRAKT_SECRET`
 *
 * @example
 * ```ts
 * import Trakt from "@latchkey/core/providers/trakt"
 * Trakt({ clientId: process.env.AUTH_TRAKT_ID, clientSecret: process.env.AUTH_TRAKT_SECRET })
 * ```
 * @see https://trakt.docs.apiary.io/#reference/authentication-oauth
 * @module providers/trakt
 */
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /users/me?extended=full`. */
export interface TraktUser extends Record<string, unknown> {
  username: string;
  private: boolean;
  name: string;
  vip: boolean;
  vip_ep: boolean;
  ids: { slug: string; uuid?: string };
  joined_at: string;
  location: string | null;
  about: string | null;
  gender: string | null;
  age: number | null;
  images: { avatar: { full: string } };
}

const USER_URL = "https://api.trakt.tv/users/me?extended=full";

export default function Trakt<P extends TraktUser = TraktUser>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "trakt",
    name: "Trakt",
    type: "oauth",
    authorization: { url: "https://trakt.tv/oauth/authorize" },
    token: "https://api.trakt.tv/oauth/token",
    userinfo: {
      url: USER_URL,
      async request({ tokens, provider, fetch: fetchFn }) {
        const response = await fetchFn(provider.userinfo?.url ?? USER_URL, {
          headers: {
            Authorization: `Bearer ${tokens.access_token}`,
            "Content-Type": "application/json",
            "trakt-api-version": "2",
            "trakt-api-key": provider.clientId ?? "",
          },
        });
        if (!response.ok) throw new Error(`Trakt: GET /users/me answered ${response.status}`);
        return (await response.json()) as Profile;
      },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return {
        id: profile.ids.slug,
        name: profile.name || profile.username || null,
        email: null,
        image: profile.images?.avatar?.full ?? null,
      };
    },
    style: { brandColor: "#ed2224", bg: "#ed2224", text: "#ffffff" },
    options,
  };
}
