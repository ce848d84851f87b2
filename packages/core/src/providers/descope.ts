/**
 * Sign in with Descope (OpenID Connect). `clientId` is the Descope project id, and the issuer is
 * the project's, `https://api.descope.com/<project-id>`, unless another is given (a custom
 * domain, or the application's own issuer under Applications → OIDC Application). `state` is
 * checked with PKCE; Descope's flows do not echo a `nonce`.
 *
 * - Callback URL to register (Approved domains / redirect URL): `<origin>/auth/callback/descope`
 * - Environment variables: `AUTH_DESCOPE_ID` (the project id), `AUTH_DESCOPE_SECRET` (an access
 *   key), `AUTH_DESCOPE_ISSUER`
 *
 * @example
 * ```ts
 * import Descope from "@latchkey/core/providers/descope"
 * Descope({ clientId: process.env.AUTH_DESCOPE_ID, clientSecret: process.env.AUTH_DESCOPE_SECRET })
 * ```
 * @see https://docs.descope.com/getting-started/nextjs/auth-js
 * @module providers/descope
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Descope ID token. */
export interface DescopeProfile {
  sub: string;
  name: string;
  email: string;
  email_verified: boolean;
  phone_number: string;
  phone_number_verified: boolean;
  picture: string;
  [claim: string]: unknown;
}

export default function Descope(options: OIDCUserConfig<DescopeProfile> = {}): OIDCConfig<DescopeProfile> {
  return {
    id: "descope",
    name: "Descope",
    type: "oidc",
    issuer: options.issuer ?? (options.clientId ? `https://api.descope.com/${options.clientId}` : undefined),
    checks: ["pkce", "state"],
    profile: defaultProfile,
    style: { brandColor: "#1c1c23", bg: "#1c1c23", text: "#ffffff" },
    options,
  };
}
