/**
 * Sign in with EVE Online (EVE SSO, OAuth 2). The character who signed in is read from
 * `GET https://login.eveonline.com/oauth/verify`; the scope is `publicData`. EVE shares no e-mail
 * address (`email` is `null`); the image is the character's portrait. `state` is checked.
 *
 * - Callback URL to register (Callback URL): `<origin>/auth/callback/eveonline`
 * - Environment variables: `AUTH_EVEONLINE_ID`, `AUTH_EVEONLINE_SECRET`
 *
 * @example
 * ```ts
 * import EVEOnline from "@latchkey/core/providers/eveonline"
 * EVEOnline({ clientId: process.env.AUTH_EVEONLINE_ID, clientSecret: process.env.AUTH_EVEONLINE_SECRET })
 * ```
 * @see https://docs.esi.evetech.net/docs/sso/
 * @module providers/eveonline
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /oauth/verify`. */
export interface EVEOnlineProfile extends Record<string, unknown> {
  CharacterID: number;
  CharacterName: string;
  ExpiresOn: string;
  Scopes: string;
  TokenType: string;
  CharacterOwnerHash: string;
  IntellectualProperty: string;
}

export default function EVEOnline<P extends EVEOnlineProfile = EVEOnlineProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "eveonline",
    name: "EVE Online",
    type: "oauth",
    authorization: { url: "https://login.eveonline.com/v2/oauth/authorize", params: { scope: "publicData" } },
    token: "https://login.eveonline.com/v2/oauth/token",
    userinfo: "https://login.eveonline.com/oauth/verify",
    checks: ["state"],
    profile(profile) {
      return {
        id: String(profile.CharacterID),
        name: profile.CharacterName ?? null,
        email: null,
        image: `https://images.evetech.net/characters/${profile.CharacterID}/portrait?size=128`,
      };
    },
    style: { brandColor: "#1b1b1b", bg: "#1b1b1b", text: "#ffffff" },
    options,
  };
}
