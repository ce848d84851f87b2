/**
 * Sign in with Mailchimp (OAuth 2). Who signed in is read from
 * `GET https://login.mailchimp.com/oauth2/metadata`, which takes the token with Mailchimp's own
 * scheme, `Authorization: OAuth <token>`; it names the account and its login. Mailchimp does not
 * support PKCE: `state` is checked.
 *
 * - Callback URL to register (Redirect URI): `<origin>/auth/callback/mailchimp` (Mailchimp wants
 *   `127.0.0.1` rather than `localhost` locally)
 * - Environment variables: `AUTH_MAILCHIMP_ID`, `AUTH_MAILCHIMP_SECRET`
 *
 * @example
 * ```ts
 * import Mailchimp from "@latchkey/core/providers/mailchimp"
 * Mailchimp({ clientId: process.env.AUTH_MAILCHIMP_ID, clientSecret: process.env.AUTH_MAILCHIMP_SECRET })
 * ```
 * @see https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/
 * @module providers/mailchimp
 */
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /oauth2/metadata`. */
export interface MailchimpProfile extends Record<string, unknown> {
  dc: string;
  role: string;
  accountname: string;
  user_id: number;
  login: { email: string; avatar: string | null; login_id: number; login_name: string; login_email: string };
  login_url: string;
  api_endpoint: string;
}

const METADATA_URL = "https://login.mailchimp.com/oauth2/metadata";

export default function Mailchimp(options: OAuthUserConfig<MailchimpProfile> = {}): OAuthConfig<MailchimpProfile> {
  return {
    id: "mailchimp",
    name: "Mailchimp",
    type: "oauth",
    authorization: { url: "https://login.mailchimp.com/oauth2/authorize" },
    token: "https://login.mailchimp.com/oauth2/token",
    userinfo: {
      url: METADATA_URL,
      async request({ tokens, provider, fetch: fetchFn }) {
        const response = await fetchFn(provider.userinfo?.url ?? METADATA_URL, {
          headers: { Authorization: `OAuth ${tokens.access_token}`, Accept: "application/json" },
        });
        if (!response.ok) throw new Error(`Mailchimp: GET /oauth2/metadata answered ${response.status}`);
        return (await response.json()) as Profile;
      },
    },
    checks: ["state"],
    profile(profile) {
      return {
        id: String(profile.login.login_id),
        name: profile.login.login_name ?? profile.accountname ?? null,
        email: profile.login.login_email ?? profile.login.email ?? null,
        image: profile.login.avatar ?? null,
      };
    },
    style: { brandColor: "#ffe01b", bg: "#000000", text: "#ffffff" },
    options,
  };
}
