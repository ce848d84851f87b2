/**
 * Sign in with Foursquare (OAuth 2).
 *
 * Foursquare's API takes the access token as the `oauth_token` query parameter, not in a header,
 * and a version date `v` (`apiVersion`, default `20230131`): the user is read from
 * `GET https://api.foursquare.com/v2/users/self?v=<apiVersion>&oauth_token=<token>`, its
 * `response.user`. Foursquare does not support PKCE: `state` is checked.
 *
 * - Callback URL to register (Redirect URI): `<origin>/auth/callback/foursquare`
 * - Environment variables: `AUTH_FOURSQUARE_ID`, `AUTH_FOURSQUARE_SECRET`
 *
 * @example
 * ```ts
 * import Foursquare from "@latchkey/core/providers/foursquare"
 * Foursquare({ apiVersion: "20231010" })
 * ```
 * @see https://docs.foursquare.com/developer/reference/personalization-apis-authentication
 * @module providers/foursquare
 */
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /v2/users/self`. */
export interface FoursquareProfile extends Record<string, unknown> {
  response: {
    user: {
      id: string;
      firstName: string;
      lastName?: string;
      contact?: { email?: string; [field: string]: unknown };
      photo?: { prefix: string; suffix: string };
      [field: string]: unknown;
    };
  };
}

export interface FoursquareOptions extends OAuthUserConfig<FoursquareProfile> {
  /** The API version date sent as `v`. @default "20230131" */
  apiVersion?: string;
}

export default function Foursquare(options: FoursquareOptions = {}): OAuthConfig<FoursquareProfile> {
  const { apiVersion = "20230131", ...rest } = options;
  const userUrl = `https://api.foursquare.com/v2/users/self?v=${apiVersion}`;
  return {
    id: "foursquare",
    name: "Foursquare",
    type: "oauth",
    authorization: { url: "https://foursquare.com/oauth2/authenticate" },
    token: "https://foursquare.com/oauth2/access_token",
    userinfo: {
      url: userUrl,
      async request({ tokens, provider, fetch: fetchFn }) {
        const url = new URL(provider.userinfo?.url ?? userUrl);
        url.searchParams.set("oauth_token", String(tokens.access_token));
        const response = await fetchFn(url, { headers: { Accept: "application/json" } });
        const body = (await response.json().catch(() => null)) as FoursquareProfile | null;
        if (!response.ok || !body?.response?.user)
          throw new Error(`Foursquare: GET /v2/users/self answered ${response.status}`);
        return body as unknown as Profile;
      },
    },
    checks: ["state"],
    profile({ response: { user } }) {
      return {
        id: user.id,
        name: [user.firstName, user.lastName].filter(Boolean).join(" ") || null,
        email: user.contact?.email ?? null,
        image: user.photo ? `${user.photo.prefix}original${user.photo.suffix}` : null,
      };
    },
    style: { brandColor: "#f94877", bg: "#000000", text: "#ffffff" },
    options: rest,
  };
}
