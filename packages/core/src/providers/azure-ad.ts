/**
 * Sign in with Azure Active Directory: next-auth's earlier name for Microsoft Entra ID, kept so
 * that applications and their stored accounts keep the id `azure-ad` (the callback URL
 * `<origin>/auth/callback/azure-ad` and the accounts' `provider`). Everything else is
 * {@link MicrosoftEntraID}'s: the issuer, the scopes, `profilePhotoSize`, and an address never
 * taken as proven unless `isEmailVerified: true` is given.
 *
 * - Environment variables: `AUTH_AZURE_AD_ID`, `AUTH_AZURE_AD_SECRET`, `AUTH_AZURE_AD_ISSUER`
 *
 * @example
 * ```ts
 * import AzureAD from "@latchkey/core/providers/azure-ad"
 * AzureAD({ issuer: "https://login.microsoftonline.com/8f5a5e0c-0000-4000-8000-000000000000/v2.0" })
 * ```
 * @see https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc
 * @module providers/azure-ad
 */

import MicrosoftEntraID, { type MicrosoftEntraIDOptions, type MicrosoftEntraIDProfile } from "./microsoft-entra-id.js";
import type { OIDCConfig } from "./oauth.js";

export type { MicrosoftEntraIDOptions as AzureADOptions, MicrosoftEntraIDProfile as AzureADProfile };

export default function AzureAD(options: MicrosoftEntraIDOptions = {}): OIDCConfig<MicrosoftEntraIDProfile> {
  return { ...MicrosoftEntraID(options), id: "azure-ad", name: "Azure Active Directory", type: "oidc" };
}
