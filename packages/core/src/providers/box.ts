/**
 * Sign in with Box (OAuth 2, a Custom App with user authentication).
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/box`
 * - Environment variables: `AUTH_BOX_ID`, `AUTH_BOX_SECRET`
 *
 * @example
 * ```ts
 * import Box from "@latchkey/core/providers/box"
 * Box({ clientId: process.env.AUTH_BOX_ID, clientSecret: process.env.AUTH_BOX_SECRET })
 * ```
 * @see https://developer.box.com/guides/authentication/oauth2/
 * @module providers/box
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The user of `GET /2.0/users/me`. */
export interface BoxProfile {
  type: "user";
  id: string;
  name: string;
  /** The primary e-mail address. */
  login: string;
  created_at: string;
  modified_at: string;
  language: string;
  timezone: string;
  space_amount: number;
  space_used: number;
  max_upload_size: number;
  status: "active" | "inactive" | "cannot_delete_edit" | "cannot_delete_edit_upload";
  job_title: string;
  phone: string;
  address: string;
  avatar_url: string;
  notification_email?: { email: string; is_confirmed: boolean } | null;
  [claim: string]: unknown;
}

export default function Box(options: OAuthUserConfig<BoxProfile> = {}): OAuthConfig<BoxProfile> {
  return {
    id: "box",
    name: "Box",
    type: "oauth",
    authorization: { url: "https://account.box.com/api/oauth2/authorize", params: {} },
    token: "https://api.box.com/oauth2/token",
    userinfo: "https://api.box.com/2.0/users/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return { id: profile.id, name: profile.name, email: profile.login, image: profile.avatar_url || null };
    },
    style: { brandColor: "#0061d5", bg: "#0061d5", text: "#ffffff" },
    options,
  };
}
