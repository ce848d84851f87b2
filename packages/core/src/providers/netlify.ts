/**
 * Sign in with Netlify (OAuth 2).
 *
 * - Callback URL to register (Redirect URI of the OAuth application): `<origin>/auth/callback/netlify`
 * - Environment variables: `AUTH_NETLIFY_ID`, `AUTH_NETLIFY_SECRET`
 *
 * @example
 * ```ts
 * import Netlify from "@latchkey/core/providers/netlify"
 * Netlify({ clientId: process.env.AUTH_NETLIFY_ID, clientSecret: process.env.AUTH_NETLIFY_SECRET })
 * ```
 * @see https://docs.netlify.com/api/get-started/#authentication
 * @module providers/netlify
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The user of `GET /api/v1/user`. */
export interface NetlifyProfile {
  id: string;
  uid?: string;
  full_name: string | null;
  avatar_url: string | null;
  email: string;
  affiliate_id?: string;
  site_count: number;
  created_at: string;
  last_login: string;
  login_providers: string[];
  onboarding_progress?: Record<string, unknown>;
  [claim: string]: unknown;
}

export default function Netlify(options: OAuthUserConfig<NetlifyProfile> = {}): OAuthConfig<NetlifyProfile> {
  return {
    id: "netlify",
    name: "Netlify",
    type: "oauth",
    authorization: { url: "https://app.netlify.com/authorize", params: {} },
    token: "https://api.netlify.com/oauth/token",
    userinfo: "https://api.netlify.com/api/v1/user",
    checks: ["state"],
    profile(profile) {
      return { id: profile.id, name: profile.full_name, email: profile.email, image: profile.avatar_url };
    },
    style: { brandColor: "#05bdba", bg: "#0e1e25", text: "#ffffff" },
    options,
  };
}
