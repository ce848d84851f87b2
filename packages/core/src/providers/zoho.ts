/**
 * Sign in with Zoho (OAuth 2), on Zoho's US data centre by default; give the URLs of another
 * (`accounts.zoho.eu`, `.in`, `.com.au`, ...) with `authorization`, `token` and `userinfo`. The
 * scope is `AaaServer.profile.Read`; the user is read from `GET /oauth/user/info`, which takes
 * the token with Zoho's own scheme, `Authorization: Zoho-oauthtoken <token>`.
 *
 * - Callback URL to register (Authorized Redirect URIs): `<origin>/auth/callback/zoho`
 * - Environment variables: `AUTH_ZOHO_ID`, `AUTH_ZOHO_SECRET`
 *
 * @example
 * ```ts
 * import Zoho from "@latchkey/core/providers/zoho"
 * Zoho({ clientId: process.env.AUTH_ZOHO_ID, clientSecret: process.env.AUTH_ZOHO_SECRET })
 * ```
 * @see https://www.zoho.com/accounts/protocol/oauth/web-apps/authorization.html
 * @module providers/zoho
 */
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /oauth/user/info`. */
export interface ZohoProfile extends Record<string, unknown> {
  ZUID: number;
  First_Name: string;
  Last_Name: string;
  Display_Name?: string;
  Email: string;
}

const USER_URL = "https://accounts.zoho.com/oauth/user/info";

export default function Zoho(options: OAuthUserConfig<ZohoProfile> = {}): OAuthConfig<ZohoProfile> {
  return {
    id: "zoho",
    name: "Zoho",
    type: "oauth",
    authorization: { url: "https://accounts.zoho.com/oauth/v2/auth", params: { scope: "AaaServer.profile.Read" } },
    token: "https://accounts.zoho.com/oauth/v2/token",
    userinfo: {
      url: USER_URL,
      async request({ tokens, provider, fetch: fetchFn }) {
        const response = await fetchFn(provider.userinfo?.url ?? USER_URL, {
          headers: { Authorization: `Zoho-oauthtoken ${tokens.access_token}`, Accept: "application/json" },
        });
        if (!response.ok) throw new Error(`Zoho: GET /oauth/user/info answered ${response.status}`);
        return (await response.json()) as Profile;
      },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      const name = [profile.First_Name, profile.Last_Name].filter(Boolean).join(" ");
      return {
        id: String(profile.ZUID),
        name: name || profile.Display_Name || null,
        email: profile.Email ?? null,
        image: null,
      };
    },
    style: { brandColor: "#e42527", bg: "#e42527", text: "#ffffff" },
    options,
  };
}
