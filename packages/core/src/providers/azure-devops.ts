/**
 * Sign in with Azure DevOps Services (its own OAuth 2 dialect, for applications registered at
 * `app.vsaex.visualstudio.com`; Microsoft no longer accepts new registrations and points new
 * applications to Microsoft Entra ID).
 *
 * The dialect: the authorization request asks for `response_type=Assertion`; the code is redeemed
 * as a JWT bearer assertion, `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` with the
 * code as `assertion` and the application's client secret (itself a JWT) as `client_assertion`.
 * The user is read from the profile API, with its avatar (as a `data:` URL). The scope is
 * `vso.profile` (`scope` option). Azure DevOps does not support PKCE: `state` is checked.
 *
 * - Callback URL to register (Authorization callback URL, https only): `<origin>/auth/callback/azure-devops`
 * - Environment variables: `AUTH_AZURE_DEVOPS_ID` (App ID), `AUTH_AZURE_DEVOPS_SECRET` (Client Secret)
 *
 * @example
 * ```ts
 * import AzureDevOps from "@latchkey/core/providers/azure-devops"
 * AzureDevOps({ scope: "vso.profile vso.project" })
 * ```
 * @see https://learn.microsoft.com/en-us/azure/devops/integrate/get-started/authentication/oauth
 * @module providers/azure-devops
 */
import type { Profile, TokenSet } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /_apis/profile/profiles/me?details=true&coreAttributes=Avatar`. */
export interface AzureDevOpsProfile extends Record<string, unknown> {
  id: string;
  displayName: string;
  emailAddress: string;
  coreAttributes: { Avatar: { value: { value: string } } };
}

export interface AzureDevOpsOptions<P> extends OAuthUserConfig<P> {
  /** @default "vso.profile" */
  scope?: string;
}

const TOKEN_URL = "https://app.vssps.visualstudio.com/oauth2/token";
const PROFILE_URL =
  "https://app.vssps.visualstudio.com/_apis/profile/profiles/me?details=true&coreAttributes=Avatar&api-version=6.0";

export default function AzureDevOps<P extends AzureDevOpsProfile = AzureDevOpsProfile>(
  options: AzureDevOpsOptions<P> = {},
): OAuthConfig<P> {
  const { scope = "vso.profile", ...rest } = options;
  return {
    id: "azure-devops",
    name: "Azure DevOps",
    type: "oauth",
    authorization: {
      url: "https://app.vssps.visualstudio.com/oauth2/authorize",
      params: { response_type: "Assertion", scope },
    },
    token: {
      url: TOKEN_URL,
      async request({ params, provider, redirect_uri, fetch: fetchFn }) {
        const response = await fetchFn(provider.token?.url ?? TOKEN_URL, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
          body: new URLSearchParams({
            client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            client_assertion: provider.clientSecret ?? "",
            grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
            assertion: params.code ?? "",
            redirect_uri,
          }),
        });
        const answer = (await response.json().catch(() => null)) as
          | (TokenSet & { Error?: string; ErrorDescription?: string })
          | null;
        if (!response.ok || typeof answer?.access_token !== "string") {
          throw new Error(
            `Azure DevOps: the token request failed: ${answer?.ErrorDescription ?? answer?.Error ?? response.status}`,
          );
        }
        return { tokens: answer };
      },
    },
    userinfo: {
      url: PROFILE_URL,
      async request({ tokens, provider, fetch: fetchFn }) {
        const response = await fetchFn(provider.userinfo?.url ?? PROFILE_URL, {
          headers: { Authorization: `Bearer ${tokens.access_token}`, Accept: "application/json" },
        });
        if (!response.ok) throw new Error(`Azure DevOps: GET /_apis/profile/profiles/me answered ${response.status}`);
        return (await response.json()) as Profile;
      },
    },
    checks: ["state"],
    profile(profile) {
      const avatar = profile.coreAttributes?.Avatar?.value?.value;
      return {
        id: profile.id,
        name: profile.displayName ?? null,
        email: profile.emailAddress ?? null,
        image: avatar ? `data:image/jpeg;base64,${avatar}` : null,
      };
    },
    style: { brandColor: "#0078d7", bg: "#0078d7", text: "#ffffff" },
    options: rest,
  };
}
