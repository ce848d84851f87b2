/**
 * Sign in with 42 (the intranet of the 42 school network; OAuth 2).
 *
 * - Callback URL to register (Redirect URI): `<origin>/auth/callback/42-school`
 * - Environment variables: `AUTH_42_SCHOOL_ID` (UID), `AUTH_42_SCHOOL_SECRET`
 *
 * @example
 * ```ts
 * import FortyTwo from "@latchkey/core/providers/42-school"
 * FortyTwo({ clientId: process.env.AUTH_42_SCHOOL_ID, clientSecret: process.env.AUTH_42_SCHOOL_SECRET })
 * ```
 * @see https://api.intra.42.fr/apidoc/guides/web_application_flow
 * @module providers/42-school
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The user of `GET /v2/me` (the fields sign-in uses and the common ones). */
export interface FortyTwoProfile {
  id: number;
  email: string;
  login: string;
  first_name: string;
  last_name: string;
  usual_full_name: string;
  usual_first_name: string | null;
  displayname: string;
  url: string;
  phone: string;
  kind: "student" | "admin" | "external";
  image: {
    link: string | null;
    versions: { large: string | null; medium: string | null; small: string | null; micro: string | null };
  };
  "staff?": boolean;
  correction_point: number;
  pool_month: string | null;
  pool_year: string | null;
  location: string | null;
  wallet: number;
  anonymize_date: string;
  data_erasure_date: string | null;
  created_at: string;
  updated_at: string;
  alumnized_at: string | null;
  "alumni?": boolean;
  "active?": boolean;
  cursus_users?: unknown[];
  projects_users?: unknown[];
  campus?: unknown[];
  [claim: string]: unknown;
}

export default function FortyTwo(options: OAuthUserConfig<FortyTwoProfile> = {}): OAuthConfig<FortyTwoProfile> {
  return {
    id: "42-school",
    name: "42 School",
    type: "oauth",
    authorization: { url: "https://api.intra.42.fr/oauth/authorize", params: { scope: "public" } },
    token: "https://api.intra.42.fr/oauth/token",
    userinfo: "https://api.intra.42.fr/v2/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.usual_full_name || profile.displayname || profile.login,
        email: profile.email,
        image: profile.image?.link ?? null,
      };
    },
    style: { brandColor: "#000000", bg: "#000000", text: "#ffffff" },
    options,
  };
}
