/**
 * Sign in through SAML single sign-on with Osso, which runs the SAML login and answers the
 * application as an OAuth 2 server. The issuer is the Osso deployment's URL
 * (`https://demo.ossoapp.com`; a bare host name is taken as `https://`); its endpoints are
 * `/oauth/authorize`, `/oauth/token` and `/oauth/me` there. Osso finds the customer's
 * identity provider from the `domain` (or `email`) sent with the sign-in:
 * `signIn("osso", {}, { domain: "acme.example" })`.
 *
 * - Callback URL to register (in Osso's admin, the OAuth client's redirect URIs): `<origin>/auth/callback/osso`
 * - Environment variables: `AUTH_OSSO_ID`, `AUTH_OSSO_SECRET`, `AUTH_OSSO_ISSUER`
 *
 * @example
 * ```ts
 * import Osso from "@latchkey/core/providers/osso"
 * Osso({ issuer: "https://demo.ossoapp.com" })
 * ```
 * @see https://ossoapp.com/docs/reference/oauth
 * @module providers/osso
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** Osso's answer of `GET /oauth/me`. */
export interface OssoProfile extends Record<string, unknown> {
  id: string;
  email: string;
  /** The SAML identity provider's id. */
  idp: string;
  requested: { email?: string; domain?: string; [field: string]: unknown };
}

/** The deployment's URL, `https://` when only the host is given. */
function ossoBase(issuer: string | undefined): string | undefined {
  if (!issuer) return undefined;
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(issuer) ? issuer : `https://${issuer}`;
  return url.replace(/\/+$/, "");
}

export default function Osso(options: OAuthUserConfig<OssoProfile> = {}): OAuthConfig<OssoProfile> {
  const { issuer, ...rest } = options;
  const base = ossoBase(issuer);
  return {
    id: "osso",
    name: "Osso",
    type: "oauth",
    // Without an issuer the configuration names the missing endpoints when it is resolved.
    authorization: { url: base ? `${base}/oauth/authorize` : undefined },
    token: base ? `${base}/oauth/token` : undefined,
    userinfo: base ? `${base}/oauth/me` : undefined,
    profile(profile) {
      return { id: String(profile.id), name: null, email: profile.email ?? null, image: null };
    },
    style: { brandColor: "#1e1e1e", bg: "#ffffff", text: "#000000" },
    options: rest,
  };
}
