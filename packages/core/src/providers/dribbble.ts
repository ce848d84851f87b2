/**
 * Sign in with Dribbble (OAuth 2). The scope is `public` (or `public upload`, with `scope`); the
 * user is read from `GET https://api.dribbble.com/v2/user`. Dribbble's API gives no e-mail
 * address unless the application was granted it: `email` may be `null`. Dribbble does not
 * support PKCE: `state` is checked.
 *
 * - Callback URL to register: `<origin>/auth/callback/dribbble`
 * - Environment variables: `AUTH_DRIBBBLE_ID`, `AUTH_DRIBBBLE_SECRET`
 *
 * @example
 * ```ts
 * import Dribbble from "@latchkey/core/providers/dribbble"
 * Dribbble({ scope: "public upload" })
 * ```
 * @see https://developer.dribbble.com/v2/oauth/
 * @module providers/dribbble
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /v2/user`. */
export interface DribbbleProfile extends Record<string, unknown> {
  id: number;
  name: string;
  login?: string;
  email: string;
  avatar_url: string;
}

export interface DribbbleOptions<P> extends OAuthUserConfig<P> {
  /** @default "public" */
  scope?: "public" | "public upload";
}

export default function Dribbble<P extends DribbbleProfile = DribbbleProfile>(
  options: DribbbleOptions<P> = {},
): OAuthConfig<P> {
  const { scope = "public", ...rest } = options;
  return {
    id: "dribbble",
    name: "Dribbble",
    type: "oauth",
    authorization: { url: "https://dribbble.com/oauth/authorize", params: { scope } },
    token: "https://dribbble.com/oauth/token",
    userinfo: "https://api.dribbble.com/v2/user",
    checks: ["state"],
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name ?? profile.login ?? null,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: "#ea4c89", bg: "#000000", text: "#ffffff" },
    options: rest,
  };
}
