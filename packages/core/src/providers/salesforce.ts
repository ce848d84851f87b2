/**
 * Sign in with Salesforce (OpenID Connect, discovered from `https://login.salesforce.com`). For a
 * sandbox use the issuer `https://test.salesforce.com`; for a My Domain, its URL.
 *
 * The user is read from the userinfo endpoint (its claims are richer than the ID token's).
 *
 * - Callback URL to register (Callback URL of the connected app): `<origin>/auth/callback/salesforce`
 * - Environment variables: `AUTH_SALESFORCE_ID` (Consumer Key), `AUTH_SALESFORCE_SECRET` (Consumer
 *   Secret), optionally `AUTH_SALESFORCE_ISSUER`
 *
 * @example
 * ```ts
 * import Salesforce from "@latchkey/core/providers/salesforce"
 * Salesforce({ clientId: process.env.AUTH_SALESFORCE_ID, clientSecret: process.env.AUTH_SALESFORCE_SECRET })
 * ```
 * @see https://help.salesforce.com/s/articleView?id=sf.remoteaccess_using_userinfo_endpoint.htm
 * @module providers/salesforce
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of Salesforce's userinfo endpoint. */
export interface SalesforceProfile {
  /** The identity URL, `https://login.salesforce.com/id/<org id>/<user id>`. */
  sub: string;
  user_id: string;
  organization_id: string;
  preferred_username: string;
  nickname: string;
  name: string;
  email: string;
  email_verified: boolean;
  given_name: string;
  family_name: string;
  zoneinfo: string;
  photos: { picture: string; thumbnail: string };
  profile: string;
  picture: string;
  address: Record<string, string | null>;
  is_salesforce_integration_user?: boolean;
  urls: Record<string, string>;
  active: boolean;
  user_type: string;
  language: string;
  locale: string;
  utcOffset: number;
  updated_at: string;
  is_app_installed?: boolean;
  [claim: string]: unknown;
}

export default function Salesforce(options: OIDCUserConfig<SalesforceProfile> = {}): OIDCConfig<SalesforceProfile> {
  return {
    id: "salesforce",
    name: "Salesforce",
    type: "oidc",
    issuer: options.issuer ?? "https://login.salesforce.com",
    idToken: false,
    authorization: { params: { scope: "openid profile email" } },
    profile(profile) {
      return {
        id: profile.user_id ?? profile.sub,
        name: profile.name,
        email: profile.email,
        image: profile.picture ?? profile.photos?.picture ?? null,
      };
    },
    style: { brandColor: "#00a1e0", bg: "#00a1e0", text: "#ffffff" },
    options,
  };
}
