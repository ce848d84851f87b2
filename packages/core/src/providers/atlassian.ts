/**
 * Sign in with Atlassian (OAuth 2.0 three-legged, "3LO", for Jira and Confluence Cloud accounts).
 *
 * - Callback URL to register (Authorization > Callback URL): `<origin>/auth/callback/atlassian`
 * - Environment variables: `AUTH_ATLASSIAN_ID`, `AUTH_ATLASSIAN_SECRET`
 *
 * The app needs the User Identity API with the `read:me` scope. Add `offline_access` to the scope
 * for a refresh token.
 *
 * @example
 * ```ts
 * import Atlassian from "@latchkey/core/providers/atlassian"
 * Atlassian({ clientId: process.env.AUTH_ATLASSIAN_ID, clientSecret: process.env.AUTH_ATLASSIAN_SECRET })
 * ```
 * @see https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/
 * @module providers/atlassian
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The account of `GET https://api.atlassian.com/me`. */
export interface AtlassianProfile {
  account_type: "atlassian" | "app" | "customer";
  account_id: string;
  email: string;
  email_verified?: boolean;
  name: string;
  picture: string;
  account_status: "active" | "inactive" | "closed";
  nickname: string;
  zoneinfo: string;
  locale: string;
  extended_profile?: {
    job_title?: string;
    organization?: string;
    department?: string;
    location?: string;
    team_type?: string;
  };
  [claim: string]: unknown;
}

export default function Atlassian(options: OAuthUserConfig<AtlassianProfile> = {}): OAuthConfig<AtlassianProfile> {
  return {
    id: "atlassian",
    name: "Atlassian",
    type: "oauth",
    authorization: {
      url: "https://auth.atlassian.com/authorize",
      params: { audience: "api.atlassian.com", prompt: "consent", scope: "read:me" },
    },
    token: "https://auth.atlassian.com/oauth/token",
    userinfo: "https://api.atlassian.com/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return { id: profile.account_id, name: profile.name, email: profile.email, image: profile.picture };
    },
    style: { brandColor: "#0052cc", bg: "#0052cc", text: "#ffffff" },
    options,
  };
}
