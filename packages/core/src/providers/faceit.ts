/**
 * Sign in with FACEIT (OAuth 2). The client authenticates to the token endpoint with HTTP Basic
 * (`client_secret_basic`, as FACEIT requires); the user is read from
 * `GET https://api.faceit.com/auth/v1/resources/userinfo`.
 *
 * - Callback URL to register (Redirect URL): `<origin>/auth/callback/faceit`
 * - Environment variables: `AUTH_FACEIT_ID`, `AUTH_FACEIT_SECRET`
 *
 * @example
 * ```ts
 * import FACEIT from "@latchkey/core/providers/faceit"
 * FACEIT({ clientId: process.env.AUTH_FACEIT_ID, clientSecret: process.env.AUTH_FACEIT_SECRET })
 * ```
 * @see https://docs.faceit.com/getting-started/authentication/oauth-2/
 * @module providers/faceit
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** FACEIT's UserInfo answer. */
export interface FACEITProfile extends Record<string, unknown> {
  /** The user's id. */
  guid: string;
  nickname?: string;
  name?: string;
  email?: string;
  picture?: string;
  locale?: string;
}

export default function FACEIT(options: OAuthUserConfig<FACEITProfile> = {}): OAuthConfig<FACEITProfile> {
  return {
    id: "faceit",
    name: "FACEIT",
    type: "oauth",
    authorization: { url: "https://accounts.faceit.com/accounts", params: { redirect_popup: "true" } },
    token: "https://api.faceit.com/auth/v1/oauth/token",
    userinfo: "https://api.faceit.com/auth/v1/resources/userinfo",
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile(profile) {
      return {
        id: profile.guid,
        name: profile.name ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#ff5500", bg: "#ff5500", text: "#ffffff" },
    options,
  };
}
