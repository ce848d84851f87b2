/**
 * Sign in with a Wikimedia account (Wikipedia and its sister projects; OAuth 2 on Meta-Wiki).
 *
 * - Callback URL to register (OAuth "callback URL" of the consumer): `<origin>/auth/callback/wikimedia`
 * - Environment variables: `AUTH_WIKIMEDIA_ID` (client application key), `AUTH_WIKIMEDIA_SECRET`
 *
 * The e-mail address comes only with the consumer's "User identity verification + e-mail" grant.
 *
 * @example
 * ```ts
 * import Wikimedia from "@latchkey/core/providers/wikimedia"
 * Wikimedia({ clientId: process.env.AUTH_WIKIMEDIA_ID, clientSecret: process.env.AUTH_WIKIMEDIA_SECRET })
 * ```
 * @see https://www.mediawiki.org/wiki/OAuth/For_Developers
 * @module providers/wikimedia
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /w/rest.php/oauth2/resource/profile`. */
export interface WikimediaProfile {
  /** The central user id, as a number or a numeric string. */
  sub: string | number;
  username: string;
  editcount: number;
  confirmed_email: boolean;
  blocked: boolean;
  registered: string;
  groups: string[];
  rights: string[];
  grants: string[];
  realname?: string;
  email?: string;
  [claim: string]: unknown;
}

const BASE = "https://meta.wikimedia.org/w/rest.php/oauth2";

export default function Wikimedia(options: OAuthUserConfig<WikimediaProfile> = {}): OAuthConfig<WikimediaProfile> {
  return {
    id: "wikimedia",
    name: "Wikimedia",
    type: "oauth",
    authorization: { url: `${BASE}/authorize`, params: {} },
    token: `${BASE}/access_token`,
    userinfo: `${BASE}/resource/profile`,
    profile(profile) {
      return {
        id: String(profile.sub),
        name: profile.username,
        email: profile.confirmed_email ? (profile.email ?? null) : null,
        image: null,
      };
    },
    style: { brandColor: "#006699", bg: "#ffffff", text: "#000000" },
    options,
  };
}
