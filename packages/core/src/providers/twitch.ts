/**
 * Sign in with Twitch (OpenID Connect, discovered from `https://id.twitch.tv/oauth2`).
 *
 * Twitch's token response lists `scope` as a JSON array; `token.conform` turns it into the
 * space-separated string RFC 6749 asks for.
 *
 * - Callback URL to register: `<origin>/auth/callback/twitch`
 * - Environment variables: `AUTH_TWITCH_ID`, `AUTH_TWITCH_SECRET`
 *
 * @example
 * ```ts
 * import Twitch from "@latchkey/core/providers/twitch"
 * Twitch({ clientId: process.env.AUTH_TWITCH_ID, clientSecret: process.env.AUTH_TWITCH_SECRET })
 * ```
 * @see https://dev.twitch.tv/docs/authentication/getting-tokens-oidc/
 * @module providers/twitch
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims Twitch puts in the ID token when asked for them with `claims`. */
export interface TwitchProfile {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  azp?: string;
  nonce?: string;
  preferred_username: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  updated_at?: string;
  [claim: string]: unknown;
}

export default function Twitch(options: OIDCUserConfig<TwitchProfile> = {}): OIDCConfig<TwitchProfile> {
  return {
    id: "twitch",
    name: "Twitch",
    type: "oidc",
    issuer: "https://id.twitch.tv/oauth2",
    authorization: {
      params: {
        scope: "openid user:read:email",
        // Twitch adds these claims to the ID token only when they are named here.
        claims: JSON.stringify({
          id_token: { email: null, email_verified: null, picture: null, preferred_username: null },
        }),
      },
    },
    token: {
      async conform(response) {
        const body = (await response.clone().json()) as { scope?: unknown };
        if (!Array.isArray(body?.scope)) return response;
        return new Response(JSON.stringify({ ...body, scope: body.scope.join(" ") }), response);
      },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.preferred_username,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#9146ff", bg: "#9146ff", text: "#ffffff" },
    options,
  };
}
