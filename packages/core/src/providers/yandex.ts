/**
 * Sign in with Yandex ID (OAuth 2).
 *
 * - Callback URL to register (Redirect URI): `<origin>/auth/callback/yandex`
 * - Environment variables: `AUTH_YANDEX_ID` (ClientID), `AUTH_YANDEX_SECRET` (Client secret)
 *
 * @example
 * ```ts
 * import Yandex from "@latchkey/core/providers/yandex"
 * Yandex({ clientId: process.env.AUTH_YANDEX_ID, clientSecret: process.env.AUTH_YANDEX_SECRET })
 * ```
 * @see https://yandex.com/dev/id/doc/en/
 * @module providers/yandex
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET https://login.yandex.ru/info?format=json`, per granted permission. */
export interface YandexProfile {
  id: string;
  login: string;
  client_id: string;
  /** Pseudonymous id, specific to the application. */
  psuid: string;
  /** `login:info` */
  display_name?: string;
  real_name?: string;
  first_name?: string;
  last_name?: string;
  sex?: "male" | "female" | null;
  /** `login:email` */
  default_email?: string;
  emails?: string[];
  /** `login:birthday` */
  birthday?: string | null;
  /** `login:avatar` */
  default_avatar_id?: string;
  is_avatar_empty?: boolean;
  /** `login:default_phone` */
  default_phone?: { id: number; number: string };
  [claim: string]: unknown;
}

export default function Yandex(options: OAuthUserConfig<YandexProfile> = {}): OAuthConfig<YandexProfile> {
  return {
    id: "yandex",
    name: "Yandex",
    type: "oauth",
    authorization: {
      url: "https://oauth.yandex.ru/authorize",
      params: { scope: "login:info login:email login:avatar" },
    },
    token: "https://oauth.yandex.ru/token",
    userinfo: "https://login.yandex.ru/info?format=json",
    profile(profile) {
      const hasAvatar = profile.default_avatar_id && !profile.is_avatar_empty;
      return {
        id: profile.id,
        name: profile.display_name ?? profile.real_name ?? profile.first_name ?? profile.login,
        email: profile.default_email ?? profile.emails?.[0] ?? null,
        image: hasAvatar ? `https://avatars.yandex.net/get-yapic/${profile.default_avatar_id}/islands-200` : null,
      };
    },
    style: { brandColor: "#fc3f1d", bg: "#ffcc00", text: "#000000" },
    options,
  };
}
