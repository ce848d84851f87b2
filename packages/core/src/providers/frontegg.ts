/**
 * Sign in with Frontegg (OpenID Connect). The issuer is the environment's domain,
 * `https://<subdomain>.frontegg.com` (Environments → Env settings → Domains); its metadata is
 * served at `<issuer>/oauth/.well-known/openid-configuration`. The user is read from the ID token.
 *
 * - Callback URL to register (Hosted login → Allowed redirect URLs): `<origin>/auth/callback/frontegg`
 * - Environment variables: `AUTH_FRONTEGG_ID`, `AUTH_FRONTEGG_SECRET`, `AUTH_FRONTEGG_ISSUER`
 *
 * @example
 * ```ts
 * import Frontegg from "@latchkey/core/providers/frontegg"
 * Frontegg({ issuer: "https://acme.frontegg.com" })
 * ```
 * @see https://docs.frontegg.com/docs/oidc
 * @module providers/frontegg
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Frontegg ID token. */
export interface FronteggProfile {
  sub: string;
  name: string;
  email: string;
  email_verified: boolean;
  profilePictureUrl: string;
  roles: string[];
  [claim: string]: unknown;
}

export default function Frontegg(options: OIDCUserConfig<FronteggProfile> = {}): OIDCConfig<FronteggProfile> {
  const base = options.issuer?.replace(/\/+$/, "");
  return {
    id: "frontegg",
    name: "Frontegg",
    type: "oidc",
    issuer: base,
    wellKnown: base ? `${base}/oauth/.well-known/openid-configuration` : undefined,
    authorization: { url: base ? `${base}/oauth/authorize` : undefined },
    token: base ? `${base}/oauth/token` : undefined,
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.profilePictureUrl ?? null,
      };
    },
    style: { brandColor: "#4461f2", bg: "#4461f2", text: "#ffffff" },
    options,
  };
}
