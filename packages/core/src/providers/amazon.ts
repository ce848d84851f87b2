/**
 * Sign in with Amazon ("Login with Amazon", OAuth 2).
 *
 * - Callback URL to register (Allowed Return URLs): `<origin>/auth/callback/amazon`
 * - Environment variables: `AUTH_AMAZON_ID`, `AUTH_AMAZON_SECRET`
 *
 * @example
 * ```ts
 * import Amazon from "@latchkey/core/providers/amazon"
 * Amazon({ clientId: process.env.AUTH_AMAZON_ID, clientSecret: process.env.AUTH_AMAZON_SECRET })
 * ```
 * @see https://developer.amazon.com/docs/login-with-amazon/authorization-code-grant.html
 * @module providers/amazon
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The customer profile of `GET https://api.amazon.com/user/profile`. */
export interface AmazonProfile {
  /** `amzn1.account.<...>` */
  user_id: string;
  name: string;
  email: string;
  /** With the `postal_code` scope. */
  postal_code?: string;
  [claim: string]: unknown;
}

export default function Amazon(options: OAuthUserConfig<AmazonProfile> = {}): OAuthConfig<AmazonProfile> {
  return {
    id: "amazon",
    name: "Amazon",
    type: "oauth",
    authorization: { url: "https://www.amazon.com/ap/oa", params: { scope: "profile" } },
    token: "https://api.amazon.com/auth/o2/token",
    userinfo: "https://api.amazon.com/user/profile",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.user_id, name: profile.name, email: profile.email, image: null };
    },
    style: { brandColor: "#ff9900", bg: "#232f3e", text: "#ffffff" },
    options,
  };
}
