/**
 * Sign in with Asgardeo, WSO2's identity service (OpenID Connect). The issuer is the
 * organisation's, `https://api.asgardeo.io/t/<organization>/oauth2/token`, as the application's
 * "Info" tab shows it; the organisation's URL alone (`https://api.asgardeo.io/t/<organization>`)
 * is completed to it.
 *
 * - Callback URL to register (Authorized redirect URL): `<origin>/auth/callback/asgardeo`
 * - Environment variables: `AUTH_ASGARDEO_ID`, `AUTH_ASGARDEO_SECRET`, `AUTH_ASGARDEO_ISSUER`
 *
 * @example
 * ```ts
 * import Asgardeo from "@latchkey/core/providers/asgardeo"
 * Asgardeo({ issuer: "https://api.asgardeo.io/t/acme/oauth2/token" })
 * ```
 * @see https://wso2.com/asgardeo/docs/guides/authentication/oidc/discover-oidc-configs/
 * @module providers/asgardeo
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of an Asgardeo ID token with the `profile` and `email` scopes. */
export interface AsgardeoProfile extends Record<string, unknown> {
  sub: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  username?: string;
}

/** The organisation's issuer: Asgardeo's ends in `/oauth2/token`. */
function asgardeoIssuer(issuer: string | undefined): string | undefined {
  if (!issuer) return undefined;
  const trimmed = issuer.replace(/\/+$/, "");
  return /\/oauth2\/token$/.test(trimmed) ? trimmed : `${trimmed}/oauth2/token`;
}

export default function Asgardeo(options: OIDCUserConfig<AsgardeoProfile> = {}): OIDCConfig<AsgardeoProfile> {
  const { issuer, ...rest } = options;
  return {
    id: "asgardeo",
    name: "Asgardeo",
    type: "oidc",
    issuer: asgardeoIssuer(issuer),
    profile(profile) {
      const name = [profile.given_name, profile.family_name].filter(Boolean).join(" ");
      return {
        id: profile.sub,
        name: name || profile.username || null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#ff7300", bg: "#000000", text: "#ffffff" },
    options: rest,
  };
}
