/**
 * Sign in with Google (OpenID Connect, discovered from `https://accounts.google.com`).
 *
 * - Callback URL to register: `<origin>/auth/callback/google`
 * - Environment variables: `AUTH_GOOGLE_ID`, `AUTH_GOOGLE_SECRET`
 *
 * Google returns a refresh token only when asked: add `access_type: "offline"` and
 * `prompt: "consent"` to `authorization.params`.
 *
 * @example
 * ```ts
 * import Google from "@latchkey/core/providers/google"
 * Google({ clientId: process.env.AUTH_GOOGLE_ID, clientSecret: process.env.AUTH_GOOGLE_SECRET })
 * ```
 * @see https://developers.google.com/identity/openid-connect/openid-connect
 * @module providers/google
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Google ID token. */
export interface GoogleProfile {
  iss: string;
  azp: string;
  aud: string;
  sub: string;
  email: string;
  email_verified: boolean;
  at_hash?: string;
  name: string;
  picture: string;
  given_name: string;
  family_name?: string;
  locale?: string;
  /** The Google Workspace domain of the user, when there is one. */
  hd?: string;
  iat: number;
  exp: number;
  nbf?: number;
  jti?: string;
  [claim: string]: unknown;
}

export default function Google(options: OIDCUserConfig<GoogleProfile> = {}): OIDCConfig<GoogleProfile> {
  return {
    id: "google",
    name: "Google",
    type: "oidc",
    issuer: "https://accounts.google.com",
    profile(profile) {
      return { id: profile.sub, name: profile.name, email: profile.email, image: profile.picture };
    },
    style: { brandColor: "#1a73e8", bg: "#ffffff", text: "#1f1f1f" },
    options,
  };
}
