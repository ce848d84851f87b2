/**
 * Sign in with United Effects (OpenID Connect). The issuer is the Auth Group's URL, including its
 * id: `https://auth.unitedeffects.com/<auth-group-id>`; it is also sent as the `resource` of the
 * authorization request, which United Effects asks for.
 *
 * - Callback URL to register: `<origin>/auth/callback/united-effects`
 * - Environment variables: `AUTH_UNITED_EFFECTS_ID`, `AUTH_UNITED_EFFECTS_SECRET`,
 *   `AUTH_UNITED_EFFECTS_ISSUER`
 *
 * @example
 * ```ts
 * import UnitedEffects from "@latchkey/core/providers/united-effects"
 * UnitedEffects({ issuer: "https://auth.unitedeffects.com/YQpbQV5dbW-224dCovz-3" })
 * ```
 * @see https://docs.unitedeffects.com/integrations/nextauthjs
 * @module providers/united-effects
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a United Effects ID token. */
export interface UnitedEffectsProfile extends Record<string, unknown> {
  sub: string;
  email: string;
}

export default function UnitedEffects<P extends UnitedEffectsProfile = UnitedEffectsProfile>(
  options: OIDCUserConfig<P> = {},
): OIDCConfig<P> {
  return {
    id: "united-effects",
    name: "United Effects",
    type: "oidc",
    issuer: options.issuer,
    authorization: { params: { scope: "openid email profile", resource: options.issuer } },
    profile: defaultProfile,
    style: { brandColor: "#0d2645", bg: "#0d2645", text: "#ffffff" },
    options,
  };
}
