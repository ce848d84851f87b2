/**
 * Sign in with Duende IdentityServer (OpenID Connect). The issuer is the server's URL, such as
 * `https://demo.duendesoftware.com`.
 *
 * - Callback URL to register (the client's RedirectUris):
 *   `<origin>/auth/callback/duende-identity-server6`
 * - Environment variables: `AUTH_DUENDE_IDENTITY_SERVER6_ID`, `AUTH_DUENDE_IDENTITY_SERVER6_SECRET`,
 *   `AUTH_DUENDE_IDENTITY_SERVER6_ISSUER`
 *
 * @example
 * ```ts
 * import DuendeIdentityServer6 from "@latchkey/core/providers/duende-identity-server6"
 * DuendeIdentityServer6({ issuer: "https://demo.duendesoftware.com" })
 * ```
 * @see https://docs.duendesoftware.com/identityserver/v6/
 * @module providers/duende-identity-server6
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of an IdentityServer ID token with the `profile` and `email` scopes. */
export interface DuendeISUser extends Record<string, unknown> {
  sub: string;
  name?: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  picture?: string;
}

export default function DuendeIdentityServer6<P extends DuendeISUser = DuendeISUser>(
  options: OIDCUserConfig<P> = {},
): OIDCConfig<P> {
  return {
    id: "duende-identity-server6",
    name: "DuendeIdentityServer6",
    type: "oidc",
    issuer: options.issuer,
    profile: defaultProfile,
    style: { brandColor: "#4f8ff7", bg: "#1a1a1a", text: "#ffffff" },
    options,
  };
}
