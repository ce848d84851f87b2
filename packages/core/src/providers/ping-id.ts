/**
 * Sign in with PingOne (OpenID Connect). The issuer is the environment's,
 * `https://auth.pingone.<region>/<environment-id>/as`.
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/ping-id`
 * - Environment variables: `AUTH_PING_ID_ID`, `AUTH_PING_ID_SECRET`, `AUTH_PING_ID_ISSUER`
 *
 * @example
 * ```ts
 * import PingId from "@latchkey/core/providers/ping-id"
 * PingId({ issuer: "https://auth.pingone.eu/0f1e2d3c-0000-4000-8000-000000000000/as" })
 * ```
 * @see https://docs.pingidentity.com/r/en-us/pingone/p1_c_openid_connect
 * @module providers/ping-id
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a PingOne ID token with the `profile` and `email` scopes. */
export interface PingProfile extends Record<string, unknown> {
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  acr: string;
  amr: [string];
  auth_time: number;
  at_hash: string;
  sid: string;
  preferred_username: string;
  given_name: string;
  picture: string;
  updated_at: number;
  name: string;
  family_name: string;
  email: string;
  env: string;
  org: string;
  "p1.region": string;
}

export default function PingId(options: OIDCUserConfig<PingProfile> = {}): OIDCConfig<PingProfile> {
  return {
    id: "ping-id",
    name: "Ping Identity",
    type: "oidc",
    issuer: options.issuer,
    profile: defaultProfile,
    style: { brandColor: "#b3282d", bg: "#b3282d", text: "#ffffff" },
    options,
  };
}
