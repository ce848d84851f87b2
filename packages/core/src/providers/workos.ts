/**
 * Sign in with WorkOS SSO (OAuth 2 in front of your customers' SAML and OIDC identity providers).
 *
 * WorkOS needs to know which connection to use: pass `connection`, `organization` or `provider`
 * here, or at sign-in as an authorization parameter.
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/workos`
 * - Environment variables: `AUTH_WORKOS_ID` (Client ID), `AUTH_WORKOS_SECRET` (API key)
 *
 * @example
 * ```ts
 * import WorkOS from "@latchkey/core/providers/workos"
 * WorkOS({
 *   clientId: process.env.AUTH_WORKOS_ID,
 *   clientSecret: process.env.AUTH_WORKOS_SECRET,
 *   organization: "org_01EHZNVPK3SFK441A1RGBFSHRT",
 * })
 * ```
 * @see https://workos.com/docs/reference/sso
 * @module providers/workos
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The SSO profile of `GET /sso/profile`. */
export interface WorkOSProfile {
  object: "profile";
  id: string;
  organization_id: string | null;
  connection_id: string;
  connection_type: string;
  idp_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role?: { slug: string } | null;
  groups?: string[];
  custom_attributes?: Record<string, unknown>;
  raw_attributes: Record<string, unknown> & { picture?: string };
  [claim: string]: unknown;
}

export interface WorkOSOptions extends OAuthUserConfig<WorkOSProfile> {
  /** A connection id (`conn_...`). */
  connection?: string;
  /** An organization id (`org_...`). */
  organization?: string;
  /** A provider, e.g. `GoogleOAuth`, `MicrosoftOAuth`, `GitHubOAuth`, `authkit`. */
  provider?: string;
  /** @default "https://api.workos.com" */
  baseUrl?: string;
}

export default function WorkOS(options: WorkOSOptions = {}): OAuthConfig<WorkOSProfile> {
  const baseUrl = (options.baseUrl ?? "https://api.workos.com").replace(/\/+$/, "");
  const selector = { connection: options.connection, organization: options.organization, provider: options.provider };
  return {
    id: "workos",
    name: "WorkOS",
    type: "oauth",
    authorization: { url: `${baseUrl}/sso/authorize`, params: selector },
    token: `${baseUrl}/sso/token`,
    userinfo: `${baseUrl}/sso/profile`,
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      const name = [profile.first_name, profile.last_name].filter(Boolean).join(" ");
      const picture = profile.raw_attributes?.picture;
      return {
        id: profile.id,
        name: name || null,
        email: profile.email,
        image: typeof picture === "string" ? picture : null,
      };
    },
    style: { brandColor: "#6363f1", bg: "#6363f1", text: "#ffffff" },
    options,
  };
}
