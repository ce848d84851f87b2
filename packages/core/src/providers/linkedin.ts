/**
 * Sign in with LinkedIn (OpenID Connect, "Sign In with LinkedIn using OpenID Connect"; discovered
 * from `https://www.linkedin.com/oauth`).
 *
 * - Callback URL to register: `<origin>/auth/callback/linkedin`
 * - Environment variables: `AUTH_LINKEDIN_ID`, `AUTH_LINKEDIN_SECRET`
 *
 * @example
 * ```ts
 * import LinkedIn from "@latchkey/core/providers/linkedin"
 * LinkedIn({ clientId: process.env.AUTH_LINKEDIN_ID, clientSecret: process.env.AUTH_LINKEDIN_SECRET })
 * ```
 * @see https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2
 * @module providers/linkedin
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of LinkedIn's ID token and userinfo endpoint. */
export interface LinkedInProfile {
  sub: string;
  name: string;
  given_name: string;
  family_name: string;
  picture?: string;
  locale?: string | { country: string; language: string };
  email?: string;
  email_verified?: boolean;
  [claim: string]: unknown;
}

export default function LinkedIn(options: OIDCUserConfig<LinkedInProfile> = {}): OIDCConfig<LinkedInProfile> {
  return {
    id: "linkedin",
    name: "LinkedIn",
    type: "oidc",
    issuer: "https://www.linkedin.com/oauth",
    authorization: { params: { scope: "openid profile email" } },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.sub, name: profile.name, email: profile.email ?? null, image: profile.picture ?? null };
    },
    style: { brandColor: "#0a66c2", bg: "#0a66c2", text: "#ffffff" },
    options,
  };
}
