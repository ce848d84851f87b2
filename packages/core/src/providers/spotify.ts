/**
 * Sign in with Spotify (OAuth 2, Web API).
 *
 * - Callback URL to register: `<origin>/auth/callback/spotify`
 * - Environment variables: `AUTH_SPOTIFY_ID`, `AUTH_SPOTIFY_SECRET`
 *
 * @example
 * ```ts
 * import Spotify from "@latchkey/core/providers/spotify"
 * Spotify({ clientId: process.env.AUTH_SPOTIFY_ID, clientSecret: process.env.AUTH_SPOTIFY_SECRET })
 * ```
 * @see https://developer.spotify.com/documentation/web-api/tutorials/code-pkce-flow
 * @module providers/spotify
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

export interface SpotifyImage {
  url: string;
  height: number | null;
  width: number | null;
}

/** The current user of the Spotify Web API (`GET /v1/me`). */
export interface SpotifyProfile {
  id: string;
  display_name: string | null;
  /** Needs the `user-read-email` scope. */
  email: string;
  /** Needs the `user-read-private` scope. */
  country?: string;
  product?: "premium" | "free" | "open" | string;
  explicit_content?: { filter_enabled: boolean; filter_locked: boolean };
  external_urls: { spotify: string };
  followers: { href: string | null; total: number };
  href: string;
  images: SpotifyImage[];
  type: "user";
  uri: string;
  [claim: string]: unknown;
}

export default function Spotify(options: OAuthUserConfig<SpotifyProfile> = {}): OAuthConfig<SpotifyProfile> {
  return {
    id: "spotify",
    name: "Spotify",
    type: "oauth",
    authorization: { url: "https://accounts.spotify.com/authorize", params: { scope: "user-read-email" } },
    token: "https://accounts.spotify.com/api/token",
    userinfo: "https://api.spotify.com/v1/me",
    profile(profile) {
      return {
        id: profile.id,
        name: profile.display_name,
        email: profile.email,
        image: profile.images[0]?.url ?? null,
      };
    },
    style: { brandColor: "#1db954", bg: "#000000", text: "#1ed760" },
    options,
  };
}
