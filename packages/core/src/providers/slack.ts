/**
 * Sign in with Slack ("Sign in with Slack", OpenID Connect, discovered from `https://slack.com`).
 *
 * - Callback URL to register: `<origin>/auth/callback/slack` (Slack requires HTTPS)
 * - Environment variables: `AUTH_SLACK_ID`, `AUTH_SLACK_SECRET`
 *
 * @example
 * ```ts
 * import Slack from "@latchkey/core/providers/slack"
 * Slack({ clientId: process.env.AUTH_SLACK_ID, clientSecret: process.env.AUTH_SLACK_SECRET })
 * ```
 * @see https://api.slack.com/authentication/sign-in-with-slack
 * @module providers/slack
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of Slack's ID token and `openid.connect.userInfo`. */
export interface SlackProfile {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  auth_time: number;
  nonce?: string;
  at_hash?: string;
  ok?: boolean;
  email: string;
  email_verified: boolean;
  name: string;
  picture: string;
  given_name: string;
  family_name: string;
  locale: string;
  "https://slack.com/user_id": string;
  "https://slack.com/team_id": string;
  "https://slack.com/team_name"?: string;
  "https://slack.com/team_domain"?: string;
  "https://slack.com/team_image_default"?: boolean;
  "https://slack.com/user_image_24"?: string;
  "https://slack.com/user_image_32"?: string;
  "https://slack.com/user_image_48"?: string;
  "https://slack.com/user_image_72"?: string;
  "https://slack.com/user_image_192"?: string;
  "https://slack.com/user_image_512"?: string;
  "https://slack.com/team_image_34"?: string;
  "https://slack.com/team_image_44"?: string;
  "https://slack.com/team_image_68"?: string;
  "https://slack.com/team_image_88"?: string;
  "https://slack.com/team_image_102"?: string;
  "https://slack.com/team_image_132"?: string;
  "https://slack.com/team_image_230"?: string;
  [claim: string]: unknown;
}

export default function Slack(options: OIDCUserConfig<SlackProfile> = {}): OIDCConfig<SlackProfile> {
  return {
    id: "slack",
    name: "Slack",
    type: "oidc",
    issuer: "https://slack.com",
    authorization: { params: { scope: "openid profile email" } },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.sub, name: profile.name, email: profile.email, image: profile.picture };
    },
    style: { brandColor: "#4a154b", bg: "#4a154b", text: "#ffffff" },
    options,
  };
}
