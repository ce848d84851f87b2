/**
 * Sign in with Eventbrite (OAuth 2). The scope is `user.profile`; the user is read from
 * `GET https://www.eventbriteapi.com/v3/users/me/`, and the address is the primary one of its
 * `emails`, proven when Eventbrite marked it `verified`. The client authenticates with
 * `client_secret_post`; Eventbrite does not support PKCE, so `state` is checked.
 *
 * - Callback URL to register (OAuth Redirect URI): `<origin>/auth/callback/eventbrite`
 * - Environment variables: `AUTH_EVENTBRITE_ID` (the API key), `AUTH_EVENTBRITE_SECRET` (the client secret)
 *
 * @example
 * ```ts
 * import Eventbrite from "@latchkey/core/providers/eventbrite"
 * Eventbrite({ clientId: process.env.AUTH_EVENTBRITE_ID, clientSecret: process.env.AUTH_EVENTBRITE_SECRET })
 * ```
 * @see https://www.eventbrite.com/platform/api#/introduction/authentication
 * @module providers/eventbrite
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /v3/users/me/`. */
export interface EventbriteProfile extends Record<string, unknown> {
  id: string;
  name: string;
  first_name: string;
  last_name: string;
  emails: { email: string; verified: boolean; primary: boolean }[];
  image_id: string | null;
}

/** The primary address, else the first. */
function primaryEmail(profile: EventbriteProfile) {
  return profile.emails?.find((e) => e.primary) ?? profile.emails?.[0];
}

export default function Eventbrite<P extends EventbriteProfile = EventbriteProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "eventbrite",
    name: "Eventbrite",
    type: "oauth",
    authorization: { url: "https://www.eventbrite.com/oauth/authorize", params: { scope: "user.profile" } },
    token: "https://www.eventbrite.com/oauth/token",
    userinfo: "https://www.eventbriteapi.com/v3/users/me/",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    isEmailVerified: (profile) => primaryEmail(profile)?.verified === true,
    profile(profile) {
      return {
        id: profile.id,
        name: profile.name ?? null,
        email: primaryEmail(profile)?.email ?? null,
        image: profile.image_id
          ? `https://img.evbuc.com/https%3A%2F%2Fcdn.evbuc.com%2Fimages%2F${profile.image_id}%2F1%2Foriginal.jpg`
          : null,
      };
    },
    style: { brandColor: "#f05537", bg: "#f05537", text: "#ffffff" },
    options,
  };
}
