/**
 * Sign in with ZITADEL (OpenID Connect). The issuer is your instance's domain, e.g.
 * `https://example-abc123.zitadel.cloud`.
 *
 * - Callback URL to register: `<origin>/auth/callback/zitadel`
 * - Environment variables: `AUTH_ZITADEL_ID`, `AUTH_ZITADEL_SECRET`, `AUTH_ZITADEL_ISSUER`
 *
 * @example
 * ```ts
 * import Zitadel from "@latchkey/core/providers/zitadel"
 * Zitadel({
 *   clientId: process.env.AUTH_ZITADEL_ID,
 *   clientSecret: process.env.AUTH_ZITADEL_SECRET,
 *   issuer: "https://example-abc123.zitadel.cloud",
 * })
 * ```
 * @see https://zitadel.com/docs/apis/openidoauth/endpoints
 * @module providers/zitadel
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims ZITADEL returns for the `openid profile email` scopes. */
export interface ZitadelProfile {
  amr: string[];
  aud: string;
  auth_time: number;
  azp: string;
  email: string;
  email_verified: boolean;
  exp: number;
  family_name: string;
  given_name: string;
  gender?: string;
  iat: number;
  iss: string;
  jti?: string;
  locale: string | null;
  name: string;
  nbf?: number;
  nickname?: string;
  picture?: string;
  phone?: string;
  phone_verified?: boolean;
  preferred_username: string;
  sub: string;
  updated_at?: number;
  "urn:zitadel:iam:org:project:roles"?: Record<string, Record<string, string>>;
  [claim: string]: unknown;
}

export default function Zitadel(options: OIDCUserConfig<ZitadelProfile> = {}): OIDCConfig<ZitadelProfile> {
  return {
    id: "zitadel",
    name: "ZITADEL",
    type: "oidc",
    issuer: options.issuer,
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username,
        email: profile.email,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#5469d4", bg: "#5469d4", text: "#ffffff" },
    options,
  };
}
