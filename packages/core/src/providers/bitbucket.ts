/**
 * Sign in with Bitbucket Cloud (OAuth 2).
 *
 * The user comes from `GET /2.0/user`; its e-mail address, which that endpoint never includes, from
 * `GET /2.0/user/emails` (scope `email`): the primary confirmed one.
 *
 * - Callback URL to register (the OAuth consumer's callback URL): `<origin>/auth/callback/bitbucket`
 * - Environment variables: `AUTH_BITBUCKET_ID`, `AUTH_BITBUCKET_SECRET`
 *
 * @example
 * ```ts
 * import Bitbucket from "@latchkey/core/providers/bitbucket"
 * Bitbucket({ clientId: process.env.AUTH_BITBUCKET_ID, clientSecret: process.env.AUTH_BITBUCKET_SECRET })
 * ```
 * @see https://developer.atlassian.com/cloud/bitbucket/oauth-2/
 * @module providers/bitbucket
 */
import { customFetch } from "../lib/base/symbols.js";
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

interface BitbucketLink {
  href: string;
  name?: string;
}

/** The account of `GET /2.0/user`, plus the address found in `/2.0/user/emails`. */
export interface BitbucketProfile {
  type: "user";
  /** Braced UUID, e.g. `{3a9f...}`: stable, unlike the nickname. */
  uuid: string;
  account_id: string;
  display_name: string;
  nickname: string;
  username?: string;
  account_status?: "active" | "inactive" | "closed";
  created_on: string;
  has_2fa_enabled: boolean | null;
  is_staff?: boolean;
  location?: string | null;
  links: {
    avatar: BitbucketLink;
    html: BitbucketLink;
    self: BitbucketLink;
    repositories?: BitbucketLink;
    snippets?: BitbucketLink;
  };
  /** Set by the userinfo request from `/2.0/user/emails`. */
  email?: string | null;
  [claim: string]: unknown;
}

interface BitbucketEmail {
  email: string;
  is_primary: boolean;
  is_confirmed: boolean;
}

export default function Bitbucket(options: OAuthUserConfig<BitbucketProfile> = {}): OAuthConfig<BitbucketProfile> {
  return {
    id: "bitbucket",
    name: "Bitbucket",
    type: "oauth",
    authorization: { url: "https://bitbucket.org/site/oauth2/authorize", params: { scope: "account email" } },
    token: "https://bitbucket.org/site/oauth2/access_token",
    userinfo: {
      url: "https://api.bitbucket.org/2.0/user",
      async request({ tokens, provider }) {
        const fetchFn = provider[customFetch] ?? fetch;
        const headers = { Authorization: `Bearer ${tokens.access_token}`, Accept: "application/json" };
        const response = await fetchFn(provider.userinfo?.url ?? "https://api.bitbucket.org/2.0/user", { headers });
        if (!response.ok) throw new Error(`Bitbucket: GET /2.0/user answered ${response.status}`);
        const profile = (await response.json()) as BitbucketProfile;
        const emails = await fetchFn("https://api.bitbucket.org/2.0/user/emails", { headers });
        if (emails.ok) {
          const { values = [] } = (await emails.json()) as { values?: BitbucketEmail[] };
          const chosen = values.find((e) => e.is_primary && e.is_confirmed) ?? values.find((e) => e.is_confirmed);
          profile.email = chosen?.email ?? null;
        }
        return profile as unknown as Profile;
      },
    },
    profile(profile) {
      return {
        id: profile.uuid,
        name: profile.display_name ?? profile.nickname,
        email: profile.email ?? null,
        image: profile.links.avatar.href,
      };
    },
    style: { brandColor: "#0052cc", bg: "#0052cc", text: "#ffffff" },
    options,
  };
}
