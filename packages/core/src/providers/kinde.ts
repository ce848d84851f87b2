/**
 * Sign in with Kinde (OpenID Connect). The issuer is your business domain, e.g.
 * `https://example.kinde.com`, or a custom domain.
 *
 * - Callback URL to register (Allowed callback URLs): `<origin>/auth/callback/kinde`
 * - Environment variables: `AUTH_KINDE_ID`, `AUTH_KINDE_SECRET`, `AUTH_KINDE_ISSUER`
 *
 * @example
 * ```ts
 * import Kinde from "@latchkey/core/providers/kinde"
 * Kinde({
 *   clientId: process.env.AUTH_KINDE_ID,
 *   clientSecret: process.env.AUTH_KINDE_SECRET,
 *   issuer: "https://example.kinde.com",
 * })
 * ```
 * @see https://docs.kinde.com/developer-tools/about/using-kinde-without-an-sdk/
 * @module providers/kinde
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of Kinde's ID token and `/oauth2/v2/user_profile`. */
export interface KindeProfile {
  sub: string;
  /** The Kinde user id (`kp_...`); equal to `sub`. */
  id?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string | null;
  updated_at?: number;
  org_codes?: string[];
  iss?: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  [claim: string]: unknown;
}

export default function Kinde(options: OIDCUserConfig<KindeProfile> = {}): OIDCConfig<KindeProfile> {
  return {
    id: "kinde",
    name: "Kinde",
    type: "oidc",
    issuer: options.issuer,
    authorization: { params: { scope: "openid profile email offline" } },
    profile(profile) {
      const joined = [profile.given_name, profile.family_name].filter(Boolean).join(" ");
      return {
        id: profile.sub,
        name: profile.name ?? (joined || null),
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#000000", bg: "#000000", text: "#ffffff" },
    options,
  };
}
