/**
 * Sign in with a Nextcloud server (OAuth 2). The issuer is the server's URL
 * (`https://cloud.example.com`); its endpoints are `/apps/oauth2/authorize` and
 * `/apps/oauth2/api/v1/token` there.
 *
 * Nextcloud has no user-info endpoint: its token response names the user (`user_id`), who is then
 * read from the OCS API, `GET /ocs/v1.php/cloud/users/<user_id>` with the header
 * `OCS-APIRequest: true` (its `ocs.data`). The image is the user's avatar at
 * `/avatar/<id>/512`.
 *
 * - Callback URL to register (Administration → Security → OAuth 2.0 clients):
 *   `<origin>/auth/callback/nextcloud`
 * - Environment variables: `AUTH_NEXTCLOUD_ID`, `AUTH_NEXTCLOUD_SECRET`, `AUTH_NEXTCLOUD_ISSUER`
 *
 * @example
 * ```ts
 * import Nextcloud from "@latchkey/core/providers/nextcloud"
 * Nextcloud({ issuer: "https://cloud.example.com" })
 * ```
 * @see https://docs.nextcloud.com/server/latest/admin_manual/configuration_server/oauth2.html
 * @module providers/nextcloud
 */
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** A Nextcloud user (`ocs.data` of the OCS users API). */
export interface NextcloudProfile extends Record<string, unknown> {
  id: string;
  email: string | null;
  displayname: string;
  phone: string;
  address: string;
  website: string;
  twitter: string;
  fediverse: string;
  organisation: string;
  role: string;
  headline: string;
  biography: string;
  groups: string[];
  language: string;
  locale: string;
  enabled: boolean;
  storageLocation: string;
}

export default function Nextcloud(options: OAuthUserConfig<NextcloudProfile> = {}): OAuthConfig<NextcloudProfile> {
  const { issuer, ...rest } = options;
  const base = issuer?.replace(/\/+$/, "");
  return {
    id: "nextcloud",
    name: "Nextcloud",
    type: "oauth",
    // Without an issuer the configuration names the missing endpoints when it is resolved.
    authorization: { url: base ? `${base}/apps/oauth2/authorize` : undefined },
    token: base ? `${base}/apps/oauth2/api/v1/token` : undefined,
    userinfo: {
      url: base ? `${base}/ocs/v1.php/cloud/users` : undefined,
      async request({ tokens, provider, fetch: fetchFn }) {
        const user = tokens.user_id;
        if (typeof user !== "string" || user === "") throw new Error("Nextcloud: the token response names no user_id");
        const url = `${(provider.userinfo?.url ?? "").replace(/\/+$/, "")}/${encodeURIComponent(user)}`;
        const response = await fetchFn(url, {
          headers: {
            "OCS-APIRequest": "true",
            Authorization: `Bearer ${tokens.access_token}`,
            Accept: "application/json",
          },
        });
        const body = (await response.json().catch(() => null)) as {
          ocs?: { data?: Profile; meta?: { message?: string } };
        } | null;
        if (!response.ok || !body?.ocs?.data) {
          throw new Error(
            `Nextcloud: GET /ocs/v1.php/cloud/users failed: ${body?.ocs?.meta?.message || response.status}`,
          );
        }
        return body.ocs.data;
      },
    },
    profile(profile) {
      return {
        id: profile.id,
        name: profile.displayname || profile.id,
        email: profile.email ?? null,
        image: base ? `${base}/avatar/${encodeURIComponent(profile.id)}/512` : null,
      };
    },
    style: { brandColor: "#0082c9", bg: "#ffffff", text: "#0082c9" },
    options: rest,
  };
}
