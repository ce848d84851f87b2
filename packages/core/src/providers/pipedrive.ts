/**
 * Sign in with Pipedrive (OAuth 2). The user is read from `GET https://api.pipedrive.com/v1/users/me`,
 * its `data`. Pipedrive does not support PKCE: `state` is checked.
 *
 * - Callback URL to register (Callback URL, in the app's Developer Hub settings):
 *   `<origin>/auth/callback/pipedrive`
 * - Environment variables: `AUTH_PIPEDRIVE_ID`, `AUTH_PIPEDRIVE_SECRET`
 *
 * @example
 * ```ts
 * import Pipedrive from "@latchkey/core/providers/pipedrive"
 * Pipedrive({ clientId: process.env.AUTH_PIPEDRIVE_ID, clientSecret: process.env.AUTH_PIPEDRIVE_SECRET })
 * ```
 * @see https://pipedrive.readme.io/docs/marketplace-oauth-authorization
 * @module providers/pipedrive
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /v1/users/me`. */
export interface PipedriveProfile extends Record<string, unknown> {
  success: boolean;
  data: {
    id: number;
    name: string;
    email: string;
    icon_url?: string | null;
    company_id?: number;
    company_name?: string;
    company_domain?: string;
    locale?: string;
    timezone_name?: string;
    is_admin?: number;
    active_flag?: boolean;
    [field: string]: unknown;
  };
}

export default function Pipedrive<P extends PipedriveProfile = PipedriveProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "pipedrive",
    name: "Pipedrive",
    type: "oauth",
    authorization: { url: "https://oauth.pipedrive.com/oauth/authorize" },
    token: "https://oauth.pipedrive.com/oauth/token",
    userinfo: "https://api.pipedrive.com/v1/users/me",
    checks: ["state"],
    profile({ data }) {
      return { id: String(data.id), name: data.name ?? null, email: data.email ?? null, image: data.icon_url ?? null };
    },
    style: { brandColor: "#017737", bg: "#017737", text: "#ffffff" },
    options,
  };
}
