/**
 * Sign in with Oracle NetSuite (OAuth 2). `accountID` is the account's id as it appears in its
 * domains (`1234567`, or `1234567-sb1` for a sandbox): the authorization endpoint is
 * `https://<accountID>.app.netsuite.com/app/login/oauth2/authorize.nl` and the token endpoint
 * `https://<accountID>.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token`.
 *
 * NetSuite has no user-info endpoint: `userinfo` must be the URL of a RESTlet (or Suitelet) of
 * your account that answers the current user (`N/runtime`'s `getCurrentUser()`: `id`, `name`,
 * `email`, `role`, ...), deployed for every role that signs in. The scope is
 * `restlets rest_webservices`; NetSuite does not support PKCE, so `state` is checked.
 *
 * - Callback URL to register (Redirect URI, in the integration record): `<origin>/auth/callback/netsuite`
 * - Environment variables: `AUTH_NETSUITE_ID`, `AUTH_NETSUITE_SECRET`
 *
 * @example
 * ```ts
 * import NetSuite from "@latchkey/core/providers/netsuite"
 * NetSuite({
 *   accountID: "1234567",
 *   userinfo: "https://1234567.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=123&deploy=1",
 *   prompt: "login",
 * })
 * ```
 * @see https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_157771733782.html
 * @module providers/netsuite
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of the RESTlet: `N/runtime`'s current user. */
export interface NetSuiteProfile {
  id: number;
  name: string;
  email: string;
  location: number;
  role: number;
  roleId?: string;
  roleCenter?: string;
  contact?: number;
  subsidiary?: number;
  department?: number;
  [field: string]: unknown;
}

/** NetSuite's options besides the usual ones. */
export interface OAuthNetSuiteOptions {
  /** The account id, as in its domains (`1234567`, `1234567-sb1`). */
  accountID?: string;
  /** `prompt` of the authorization request: `"login"`, `"consent"`, `"none"`. */
  prompt?: string;
  /** The scope. @default "restlets rest_webservices" */
  scope?: string;
}

export default function NetSuite<P extends NetSuiteProfile = NetSuiteProfile>(
  options: OAuthUserConfig<P> & OAuthNetSuiteOptions = {},
): OAuthConfig<P> {
  const { accountID, prompt, scope = "restlets rest_webservices", ...rest } = options;
  const account = accountID?.toLowerCase().replace(/_/g, "-");
  return {
    id: "netsuite",
    name: "NetSuite",
    type: "oauth",
    // Without an account id the configuration names the missing endpoints when it is resolved.
    authorization: {
      url: account ? `https://${account}.app.netsuite.com/app/login/oauth2/authorize.nl` : undefined,
      params: { scope, prompt },
    },
    token: account ? `https://${account}.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token` : undefined,
    checks: ["state"],
    profile(profile) {
      return { id: String(profile.id), name: profile.name ?? null, email: profile.email ?? null, image: null };
    },
    style: { brandColor: "#125580", bg: "#181a1b", text: "#fbfbfb" },
    options: rest,
  };
}
