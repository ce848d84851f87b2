/**
 * Sign in with Passage by 1Password (OpenID Connect, passkeys and magic links). The issuer is the
 * app's, `https://auth.passage.id/v1/apps/<app-id>`, as the Passage Console shows it.
 *
 * Passage users have no name: `name` is `null`. The address is proven when the profile says
 * `email_verified: true`.
 *
 * - Callback URL to register (Redirect URI, in the app's OIDC settings): `<origin>/auth/callback/passage`
 * - Environment variables: `AUTH_PASSAGE_ID`, `AUTH_PASSAGE_SECRET`, `AUTH_PASSAGE_ISSUER`
 *
 * @example
 * ```ts
 * import Passage from "@latchkey/core/providers/passage"
 * Passage({
 *   clientId: process.env.AUTH_PASSAGE_ID,
 *   clientSecret: process.env.AUTH_PASSAGE_SECRET,
 *   issuer: "https://auth.passage.id/v1/apps/0Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh",
 * })
 * ```
 * @see https://docs.passage.id/complete/oidc-integration
 * @module providers/passage
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Passage ID token. */
export interface PassageProfile {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  auth_time: number;
  azp: string;
  client_id: string;
  at_hash: string;
  c_hash: string;
  email: string;
  email_verified: boolean;
  phone: string;
  phone_number_verified: boolean;
  [claim: string]: unknown;
}

export default function Passage(options: OIDCUserConfig<PassageProfile> = {}): OIDCConfig<PassageProfile> {
  return {
    id: "passage",
    name: "Passage",
    type: "oidc",
    issuer: options.issuer,
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile: defaultProfile,
    style: { brandColor: "#3d53f6", bg: "#3d53f6", text: "#ffffff" },
    options,
  };
}
