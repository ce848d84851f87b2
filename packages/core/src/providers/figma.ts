/**
 * Sign in with Figma (OAuth 2).
 *
 * - Callback URL to register (Redirect URLs of the OAuth app): `<origin>/auth/callback/figma`
 * - Environment variables: `AUTH_FIGMA_ID`, `AUTH_FIGMA_SECRET`
 *
 * @example
 * ```ts
 * import Figma from "@latchkey/core/providers/figma"
 * Figma({ clientId: process.env.AUTH_FIGMA_ID, clientSecret: process.env.AUTH_FIGMA_SECRET })
 * ```
 * @see https://www.figma.com/developers/api#oauth2
 * @module providers/figma
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The user of `GET /v1/me`. */
export interface FigmaProfile {
  id: string;
  handle: string;
  email: string;
  img_url: string;
  [claim: string]: unknown;
}

export default function Figma(options: OAuthUserConfig<FigmaProfile> = {}): OAuthConfig<FigmaProfile> {
  return {
    id: "figma",
    name: "Figma",
    type: "oauth",
    authorization: { url: "https://www.figma.com/oauth", params: { scope: "current_user:read" } },
    token: "https://api.figma.com/v1/oauth/token",
    userinfo: "https://api.figma.com/v1/me",
    checks: ["state"],
    profile(profile) {
      return { id: profile.id, name: profile.handle, email: profile.email, image: profile.img_url };
    },
    style: { brandColor: "#0d99ff", bg: "#1e1e1e", text: "#ffffff" },
    options,
  };
}
