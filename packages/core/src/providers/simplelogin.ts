/**
 * Sign in with SimpleLogin (OpenID Connect, discovered from `https://app.simplelogin.io`). The
 * user may share a SimpleLogin alias instead of their address; either way SimpleLogin says
 * whether the address is verified (`email_verified`).
 *
 * - Callback URL to register (Authorized redirect URIs): `<origin>/auth/callback/simplelogin`
 * - Environment variables: `AUTH_SIMPLELOGIN_ID`, `AUTH_SIMPLELOGIN_SECRET`
 *
 * @example
 * ```ts
 * import SimpleLogin from "@latchkey/core/providers/simplelogin"
 * SimpleLogin({ clientId: process.env.AUTH_SIMPLELOGIN_ID, clientSecret: process.env.AUTH_SIMPLELOGIN_SECRET })
 * ```
 * @see https://simplelogin.io/docs/siwsl/intro/
 * @module providers/simplelogin
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** SimpleLogin's user (ID token and UserInfo). */
export interface SimpleLoginProfile {
  id: number;
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  avatar_url: string | undefined;
  client: string;
  [claim: string]: unknown;
}

export default function SimpleLogin<P extends SimpleLoginProfile = SimpleLoginProfile>(
  options: OIDCUserConfig<P> = {},
): OIDCConfig<P> {
  return {
    id: "simplelogin",
    name: "SimpleLogin",
    type: "oidc",
    issuer: "https://app.simplelogin.io",
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: "#e3156a", bg: "#e3156a", text: "#ffffff" },
    options,
  };
}
