/**
 * Sign in through SAML single sign-on with BoxyHQ's SAML Jackson, which runs the SAML login with
 * the customer's identity provider and answers the application as an OAuth 2 server.
 *
 * `issuer` is where Jackson is deployed (`https://jackson.example.com`, or the application's own
 * origin when Jackson is embedded); its endpoints are `/api/oauth/authorize`, `/api/oauth/token`
 * and `/api/oauth/userinfo` there. Jackson finds the SAML connection from `tenant` and `product`
 * sent with the sign-in, so the client credentials can be placeholders:
 * `signIn("boxyhq-saml", {}, { tenant: "acme.example", product: "my-app" })`. To use Jackson's
 * OpenID Connect flow instead, ask for `scope: "openid email profile"`.
 *
 * - Callback URL to register in the SAML connection (Allowed redirect URL):
 *   `<origin>/auth/callback/boxyhq-saml`
 * - Environment variables: `AUTH_BOXYHQ_SAML_ID`, `AUTH_BOXYHQ_SAML_SECRET`, `AUTH_BOXYHQ_SAML_ISSUER`
 *
 * @example
 * ```ts
 * import BoxyHQSAML from "@latchkey/core/providers/boxyhq-saml"
 * BoxyHQSAML({ clientId: "dummy", clientSecret: "dummy", issuer: "https://jackson.example.com" })
 * ```
 * @see https://boxyhq.com/docs/jackson/sso-flow
 * @module providers/boxyhq-saml
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** Jackson's UserInfo answer: the SAML assertion's user. */
export interface BoxyHQSAMLProfile extends Record<string, unknown> {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
  /** Every attribute of the SAML assertion. */
  raw?: Record<string, unknown>;
  requested?: Record<string, unknown>;
}

export default function BoxyHQSAML<P extends BoxyHQSAMLProfile = BoxyHQSAMLProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  const base = options.issuer?.replace(/\/+$/, "");
  return {
    id: "boxyhq-saml",
    name: "BoxyHQ SAML",
    type: "oauth",
    // Without an issuer the configuration names the missing option when it is resolved.
    authorization: { url: base ? `${base}/api/oauth/authorize` : undefined, params: { provider: "saml" } },
    token: base ? `${base}/api/oauth/token` : undefined,
    userinfo: base ? `${base}/api/oauth/userinfo` : undefined,
    profile(profile) {
      const name = [profile.firstName, profile.lastName].filter(Boolean).join(" ");
      return { id: profile.id, name: name || null, email: profile.email ?? null, image: null };
    },
    style: { brandColor: "#25c2a0", bg: "#25c2a0", text: "#ffffff" },
    options,
  };
}
