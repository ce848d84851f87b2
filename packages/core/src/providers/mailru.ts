/**
 * Sign in with Mail.ru (VK ID for Mail.ru accounts, OAuth 2). The scope is `userinfo`; the user is
 * read from `GET https://oauth.mail.ru/userinfo`, which takes the token as the `access_token`
 * query parameter. Mail.ru does not support PKCE: `state` is checked.
 *
 * - Callback URL to register: `<origin>/auth/callback/mailru`
 * - Environment variables: `AUTH_MAILRU_ID`, `AUTH_MAILRU_SECRET`
 *
 * @example
 * ```ts
 * import Mailru from "@latchkey/core/providers/mailru"
 * Mailru({ clientId: process.env.AUTH_MAILRU_ID, clientSecret: process.env.AUTH_MAILRU_SECRET })
 * ```
 * @see https://o2.mail.ru/docs
 * @module providers/mailru
 */
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /userinfo`. */
export interface MailruProfile extends Record<string, unknown> {
  id: string;
  email: string;
  name?: string;
  first_name?: string;
  last_name?: string;
  nickname?: string;
  image?: string;
  gender?: string;
  locale?: string;
  birthday?: string;
}

const USERINFO_URL = "https://oauth.mail.ru/userinfo";

export default function Mailru(options: OAuthUserConfig<MailruProfile> = {}): OAuthConfig<MailruProfile> {
  return {
    id: "mailru",
    name: "Mail.ru",
    type: "oauth",
    authorization: { url: "https://oauth.mail.ru/login", params: { scope: "userinfo" } },
    token: "https://oauth.mail.ru/token",
    userinfo: {
      url: USERINFO_URL,
      async request({ tokens, provider, fetch: fetchFn }) {
        const url = new URL(provider.userinfo?.url ?? USERINFO_URL);
        url.searchParams.set("access_token", String(tokens.access_token));
        const response = await fetchFn(url, { headers: { Accept: "application/json" } });
        const body = (await response.json().catch(() => null)) as (Profile & { error?: string }) | null;
        if (!response.ok || !body || body.error)
          throw new Error(`Mail.ru: GET /userinfo failed: ${body?.error ?? response.status}`);
        return body;
      },
    },
    checks: ["state"],
    profile(profile) {
      const name = profile.name ?? ([profile.first_name, profile.last_name].filter(Boolean).join(" ") || null);
      return {
        id: String(profile.id),
        name: name ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.image ?? null,
      };
    },
    style: { brandColor: "#005ff9", bg: "#005ff9", text: "#ffffff" },
    options,
  };
}
