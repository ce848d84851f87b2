/**
 * Sign in with Webex (Cisco; OAuth 2 integration).
 *
 * - Callback URL to register (Redirect URIs of the integration): `<origin>/auth/callback/webex`
 * - Environment variables: `AUTH_WEBEX_ID`, `AUTH_WEBEX_SECRET`
 *
 * The integration needs the `spark:people_read` scope.
 *
 * @example
 * ```ts
 * import Webex from "@latchkey/core/providers/webex"
 * Webex({ clientId: process.env.AUTH_WEBEX_ID, clientSecret: process.env.AUTH_WEBEX_SECRET })
 * ```
 * @see https://developer.webex.com/docs/integrations
 * @module providers/webex
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The person of `GET /v1/people/me`. */
export interface WebexProfile {
  id: string;
  emails: string[];
  displayName?: string;
  nickName?: string;
  firstName?: string;
  lastName?: string;
  avatar?: string;
  orgId: string;
  created: string;
  lastModified?: string;
  timezone?: string;
  lastActivity?: string;
  status?: string;
  type: "person" | "bot" | "appuser";
  phoneNumbers?: Array<{ type: string; value: string; primary?: boolean }>;
  [claim: string]: unknown;
}

export default function Webex(options: OAuthUserConfig<WebexProfile> = {}): OAuthConfig<WebexProfile> {
  return {
    id: "webex",
    name: "Webex",
    type: "oauth",
    authorization: { url: "https://webexapis.com/v1/authorize", params: { scope: "spark:kms spark:people_read" } },
    token: "https://webexapis.com/v1/access_token",
    userinfo: "https://webexapis.com/v1/people/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return {
        id: profile.id,
        name: profile.displayName ?? null,
        email: profile.emails[0] ?? null,
        image: profile.avatar ?? null,
      };
    },
    style: { brandColor: "#07c1e4", bg: "#000000", text: "#ffffff" },
    options,
  };
}
