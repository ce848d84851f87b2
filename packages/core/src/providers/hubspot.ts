/**
 * Sign in with HubSpot (OAuth 2).
 *
 * HubSpot has no user-info endpoint: who signed in is read from the access token's metadata,
 * `GET https://api.hubapi.com/oauth/v1/access-tokens/<token>`, the token in the path and no
 * `Authorization` header. It names the user by the e-mail address they sign in to HubSpot with
 * (`user`), and the HubSpot account (`hub_id`, `hub_domain`) the app was installed in. The client
 * authenticates with `client_secret_post`; `state` is checked besides PKCE.
 *
 * - Callback URL to register (Redirect URL, in the app's Auth settings): `<origin>/auth/callback/hubspot`
 * - Environment variables: `AUTH_HUBSPOT_ID`, `AUTH_HUBSPOT_SECRET`
 * - The scope is `oauth`; add the scopes the app needs with `authorization.params.scope`.
 *
 * @example
 * ```ts
 * import HubSpot from "@latchkey/core/providers/hubspot"
 * HubSpot({ clientId: process.env.AUTH_HUBSPOT_ID, clientSecret: process.env.AUTH_HUBSPOT_SECRET })
 * ```
 * @see https://developers.hubspot.com/docs/api/oauth-quickstart-guide
 * @see https://developers.hubspot.com/docs/api/oauth/tokens
 * @module providers/hubspot
 */
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The metadata of an access token (`GET /oauth/v1/access-tokens/<token>`). */
export interface HubSpotProfile extends Record<string, unknown> {
  /** The e-mail address of the user who installed the app. */
  user: string;
  user_id: number | string;
  hub_domain: string;
  hub_id: number | string;
  app_id?: number;
  scopes?: string[];
  token_type?: string;
  expires_in?: number;
}

const TOKEN_INFO_URL = "https://api.hubapi.com/oauth/v1/access-tokens";

export default function HubSpot<P extends HubSpotProfile = HubSpotProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "hubspot",
    name: "HubSpot",
    type: "oauth",
    authorization: { url: "https://app.hubspot.com/oauth/authorize", params: { scope: "oauth" } },
    token: "https://api.hubapi.com/oauth/v1/token",
    userinfo: {
      url: TOKEN_INFO_URL,
      async request({ tokens, provider, fetch: fetchFn }) {
        const token = tokens.access_token;
        if (typeof token !== "string" || token === "")
          throw new Error("HubSpot: the token response has no access_token");
        const base = (provider.userinfo?.url ?? TOKEN_INFO_URL).replace(/\/+$/, "");
        const response = await fetchFn(`${base}/${encodeURIComponent(token)}`, {
          headers: { Accept: "application/json" },
        });
        if (!response.ok) throw new Error(`HubSpot: GET /oauth/v1/access-tokens answered ${response.status}`);
        return (await response.json()) as Profile;
      },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["pkce", "state"],
    profile(profile) {
      return { id: String(profile.user_id), name: profile.user, email: profile.user, image: null };
    },
    style: { brandColor: "#ff7a59", bg: "#ff7a59", text: "#ffffff" },
    options,
  };
}
