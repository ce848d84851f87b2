/**
 * Sign in with OneLogin (OpenID Connect). The issuer is the account's OpenID Connect issuer,
 * `https://<subdomain>.onelogin.com/oidc/2`; the account's URL alone
 * (`https://<subdomain>.onelogin.com`) is completed to it.
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/onelogin`
 * - Environment variables: `AUTH_ONELOGIN_ID`, `AUTH_ONELOGIN_SECRET`, `AUTH_ONELOGIN_ISSUER`
 *
 * @example
 * ```ts
 * import OneLogin from "@latchkey/core/providers/onelogin"
 * OneLogin({ issuer: "https://acme.onelogin.com/oidc/2" })
 * ```
 * @see https://developers.onelogin.com/openid-connect
 * @module providers/onelogin
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a OneLogin ID token with the `profile` and `email` scopes. */
export interface OneLoginProfile extends Record<string, unknown> {
  sub: string;
  email?: string;
  name?: string;
  preferred_username?: string;
  given_name?: string;
  family_name?: string;
  groups?: string[];
}

/** OneLogin's issuer ends in `/oidc/2`. */
function oneLoginIssuer(issuer: string | undefined): string | undefined {
  if (!issuer) return undefined;
  const trimmed = issuer.replace(/\/+$/, "");
  return /\/oidc\/2$/.test(trimmed) ? trimmed : `${trimmed}/oidc/2`;
}

export default function OneLogin(options: OIDCUserConfig<OneLoginProfile> = {}): OIDCConfig<OneLoginProfile> {
  const { issuer, ...rest } = options;
  return {
    id: "onelogin",
    name: "OneLogin",
    type: "oidc",
    issuer: oneLoginIssuer(issuer),
    profile: defaultProfile,
    style: { brandColor: "#1c1f2a", bg: "#1c1f2a", text: "#ffffff" },
    options: rest,
  };
}
