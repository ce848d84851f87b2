/**
 * Sign in with Azure AD B2C (OpenID Connect), through one user flow or custom policy.
 *
 * The issuer is the user flow's authority, as the Azure portal shows it under "Run user flow":
 * `https://<tenant>.b2clogin.com/<tenant>.onmicrosoft.com/<B2C_1_flow>/v2.0` (or the same with
 * the tenant's id, or a custom domain). B2C serves the flow's metadata there but names another
 * issuer in it, the tenant's `https://<tenant>.b2clogin.com/<tenant-id>/v2.0/`, without the user
 * flow; Latchkey takes that one, on the same host, as the issuer the flow's id_tokens must name.
 * `tenantId` and `primaryUserFlow` (next-auth v4's options) build the authority instead.
 *
 * The user flow must return the claims "Email Addresses" (`emails`), "Display Name" and "User's
 * Object ID". B2C sends no `email_verified`: a user created by B2C has no `emailVerified` and is
 * never linked by e-mail (pass `isEmailVerified: true` if every sign-in of the flow verifies the
 * address).
 *
 * - Callback URL to register (Redirect URI, type Web): `<origin>/auth/callback/azure-ad-b2c`
 * - Environment variables: `AUTH_AZURE_AD_B2C_ID`, `AUTH_AZURE_AD_B2C_SECRET`,
 *   `AUTH_AZURE_AD_B2C_ISSUER`
 *
 * @example
 * ```ts
 * import AzureADB2C from "@latchkey/core/providers/azure-ad-b2c"
 * AzureADB2C({
 *   clientId: process.env.AUTH_AZURE_AD_B2C_ID,
 *   clientSecret: process.env.AUTH_AZURE_AD_B2C_SECRET,
 *   issuer: "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signupsignin/v2.0",
 * })
 * // or
 * AzureADB2C({ tenantId: "contoso", primaryUserFlow: "B2C_1_signupsignin" })
 * ```
 * @see https://learn.microsoft.com/en-us/azure/active-directory-b2c/openid-connect
 * @see https://learn.microsoft.com/en-us/azure/active-directory-b2c/tokens-overview#claims
 * @module providers/azure-ad-b2c
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of an Azure AD B2C ID token, with the claims the user flow was set to return. */
export interface AzureADB2CProfile {
  exp: number;
  nbf: number;
  ver: string;
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  auth_time: number;
  /** The user's object id in the directory. */
  oid: string;
  country: string;
  name: string;
  postalCode: string;
  /** The "Email Addresses" claim: the user's addresses, the sign-in address first. */
  emails: string[];
  /** The user flow (policy) that issued the token. */
  tfp: string;
  preferred_username: string;
  [claim: string]: unknown;
}

export interface AzureADB2COptions extends OIDCUserConfig<AzureADB2CProfile> {
  /** The tenant's name (`contoso` of `contoso.onmicrosoft.com`); with `primaryUserFlow`, instead of `issuer`. */
  tenantId?: string;
  /** The user flow or custom policy (`B2C_1_signupsignin`); with `tenantId`, instead of `issuer`. */
  primaryUserFlow?: string;
}

export default function AzureADB2C(options: AzureADB2COptions = {}): OIDCConfig<AzureADB2CProfile> {
  const { tenantId, primaryUserFlow, ...rest } = options;
  const authority =
    tenantId && primaryUserFlow
      ? `https://${tenantId}.b2clogin.com/${tenantId}.onmicrosoft.com/${primaryUserFlow}/v2.0`
      : undefined;
  return {
    id: "azure-ad-b2c",
    name: "Azure AD B2C",
    type: "oidc",
    issuer: rest.issuer ?? authority,
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.emails?.[0] ?? null,
        image: null,
      };
    },
    style: { brandColor: "#0072c6", bg: "#0072c6", text: "#ffffff" },
    options: rest,
  };
}
