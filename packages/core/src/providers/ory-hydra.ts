/**
 * Sign in with Ory Hydra or Ory Network (OpenID Connect). The issuer is the server's public URL,
 * such as `https://<project>.projects.oryapis.com`. The provider's id is `hydra`, as in next-auth:
 * the callback URL is `<origin>/auth/callback/hydra`.
 *
 * - Environment variables: `AUTH_HYDRA_ID`, `AUTH_HYDRA_SECRET`, `AUTH_HYDRA_ISSUER`
 *
 * @example
 * ```ts
 * import OryHydra from "@latchkey/core/providers/ory-hydra"
 * OryHydra({ issuer: "https://acme.projects.oryapis.com" })
 * ```
 * @see https://www.ory.sh/docs/hydra/
 * @module providers/ory-hydra
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Hydra ID token. */
export interface OryHydraProfile extends Record<string, unknown> {
  iss: string;
  ver: string;
  sub: string;
  aud: string;
  iat: string;
  exp: string;
  jti: string;
  amr: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
}

export default function OryHydra<P extends OryHydraProfile = OryHydraProfile>(
  options: OIDCUserConfig<P> = {},
): OIDCConfig<P> {
  return {
    id: "hydra",
    name: "Hydra",
    type: "oidc",
    issuer: options.issuer,
    profile: defaultProfile,
    style: { brandColor: "#5528ff", bg: "#ffffff", text: "#0f172a" },
    options,
  };
}
