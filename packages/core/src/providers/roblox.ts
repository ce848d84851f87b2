/**
 * Sign in with Roblox (OpenID Connect, discovered from `https://apis.roblox.com/oauth/`). The scope
 * is `openid profile`: Roblox shares no e-mail address, so `email` is `null`. `state` is checked
 * with PKCE.
 *
 * - Callback URL to register (Redirect URLs): `<origin>/auth/callback/roblox`
 * - Environment variables: `AUTH_ROBLOX_ID`, `AUTH_ROBLOX_SECRET`
 *
 * @example
 * ```ts
 * import Roblox from "@latchkey/core/providers/roblox"
 * Roblox({ clientId: process.env.AUTH_ROBLOX_ID, clientSecret: process.env.AUTH_ROBLOX_SECRET })
 * ```
 * @see https://create.roblox.com/docs/cloud/reference/oauth2
 * @module providers/roblox
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Roblox ID token with the `profile` scope. */
export interface RobloxProfile extends Record<string, unknown> {
  /** The user's Roblox id. */
  sub: string;
  /** The display name. */
  name: string;
  nickname: string;
  /** The user name. */
  preferred_username: string;
  created_at: number;
  /** The URL of the user's Roblox profile. */
  profile: string;
  picture: string | null;
}

export default function Roblox(options: OIDCUserConfig<RobloxProfile> = {}): OIDCConfig<RobloxProfile> {
  return {
    id: "roblox",
    name: "Roblox",
    type: "oidc",
    issuer: "https://apis.roblox.com/oauth/",
    authorization: { params: { scope: "openid profile" } },
    checks: ["pkce", "state"],
    profile: defaultProfile,
    style: { brandColor: "#335fff", bg: "#335fff", text: "#ffffff" },
    options,
  };
}
