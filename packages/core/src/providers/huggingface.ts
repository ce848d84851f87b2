/**
 * Sign in with Hugging Face (OpenID Connect, discovered from `https://huggingface.co`).
 *
 * - Callback URL to register (Redirect URLs of the OAuth app): `<origin>/auth/callback/huggingface`
 * - Environment variables: `AUTH_HUGGINGFACE_ID`, `AUTH_HUGGINGFACE_SECRET`
 *
 * @example
 * ```ts
 * import HuggingFace from "@latchkey/core/providers/huggingface"
 * HuggingFace({ clientId: process.env.AUTH_HUGGINGFACE_ID, clientSecret: process.env.AUTH_HUGGINGFACE_SECRET })
 * ```
 * @see https://huggingface.co/docs/hub/oauth
 * @module providers/huggingface
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of Hugging Face's ID token and userinfo endpoint. */
export interface HuggingFaceProfile {
  sub: string;
  name: string;
  preferred_username: string;
  profile: string;
  picture: string;
  website?: string;
  /** With the `email` scope. */
  email?: string;
  email_verified?: boolean;
  isPro: boolean;
  canPay?: boolean;
  orgs?: Array<{ sub: string; name: string; picture: string; preferred_username: string; isEnterprise: boolean }>;
  [claim: string]: unknown;
}

export default function HuggingFace(options: OIDCUserConfig<HuggingFaceProfile> = {}): OIDCConfig<HuggingFaceProfile> {
  return {
    id: "huggingface",
    name: "Hugging Face",
    type: "oidc",
    issuer: "https://huggingface.co",
    authorization: { params: { scope: "openid profile email" } },
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username,
        email: profile.email ?? null,
        image: profile.picture,
      };
    },
    style: { brandColor: "#ffd21e", bg: "#ffd21e", text: "#000000" },
    options,
  };
}
