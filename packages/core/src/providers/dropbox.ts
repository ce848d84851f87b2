/**
 * Sign in with Dropbox (OAuth 2). The user comes from `POST /2/users/get_current_account`, an RPC
 * endpoint that takes a POST without a body, hence the custom userinfo request.
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/dropbox`
 * - Environment variables: `AUTH_DROPBOX_ID` (App key), `AUTH_DROPBOX_SECRET` (App secret)
 *
 * The app needs the `account_info.read` permission. `token_access_type=offline` asks for a refresh
 * token.
 *
 * @example
 * ```ts
 * import Dropbox from "@latchkey/core/providers/dropbox"
 * Dropbox({ clientId: process.env.AUTH_DROPBOX_ID, clientSecret: process.env.AUTH_DROPBOX_SECRET })
 * ```
 * @see https://developers.dropbox.com/oauth-guide
 * @module providers/dropbox
 */
import { customFetch } from "../lib/base/symbols.js";
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The `FullAccount` of `POST /2/users/get_current_account`. */
export interface DropboxProfile {
  account_id: string;
  name: {
    given_name: string;
    surname: string;
    familiar_name: string;
    display_name: string;
    abbreviated_name: string;
  };
  email: string;
  email_verified: boolean;
  disabled: boolean;
  country?: string;
  locale: string;
  referral_link: string;
  is_paired: boolean;
  account_type: { ".tag": "basic" | "pro" | "business" };
  root_info: { ".tag": string; root_namespace_id: string; home_namespace_id: string };
  profile_photo_url?: string;
  team?: { id: string; name: string };
  team_member_id?: string;
  [claim: string]: unknown;
}

const ACCOUNT_URL = "https://api.dropboxapi.com/2/users/get_current_account";

export default function Dropbox(options: OAuthUserConfig<DropboxProfile> = {}): OAuthConfig<DropboxProfile> {
  return {
    id: "dropbox",
    name: "Dropbox",
    type: "oauth",
    authorization: {
      url: "https://www.dropbox.com/oauth2/authorize",
      params: { scope: "account_info.read", token_access_type: "offline" },
    },
    token: "https://api.dropboxapi.com/oauth2/token",
    userinfo: {
      url: ACCOUNT_URL,
      async request({ tokens, provider }) {
        const fetchFn = provider[customFetch] ?? fetch;
        const response = await fetchFn(provider.userinfo?.url ?? ACCOUNT_URL, {
          method: "POST",
          headers: { Authorization: `Bearer ${tokens.access_token}` },
        });
        if (!response.ok) throw new Error(`Dropbox: get_current_account answered ${response.status}`);
        return (await response.json()) as Profile;
      },
    },
    profile(profile) {
      return {
        id: profile.account_id,
        name: profile.name.display_name,
        email: profile.email,
        image: profile.profile_photo_url ?? null,
      };
    },
    style: { brandColor: "#0061fe", bg: "#0061fe", text: "#ffffff" },
    options,
  };
}
