/**
 * Sign in with Kakao (Kakao Login, OAuth 2 REST API).
 *
 * - Callback URL to register (Redirect URI): `<origin>/auth/callback/kakao`
 * - Environment variables: `AUTH_KAKAO_ID` (REST API key), `AUTH_KAKAO_SECRET` (Client secret
 *   under Kakao Login > Security)
 *
 * The nickname, profile image and e-mail are consent items; enable them in the console.
 *
 * @example
 * ```ts
 * import Kakao from "@latchkey/core/providers/kakao"
 * Kakao({ clientId: process.env.AUTH_KAKAO_ID, clientSecret: process.env.AUTH_KAKAO_SECRET })
 * ```
 * @see https://developers.kakao.com/docs/latest/en/kakaologin/rest-api
 * @module providers/kakao
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

export type KakaoAgeRange =
  | "1~9"
  | "10~14"
  | "15~19"
  | "20~29"
  | "30~39"
  | "40~49"
  | "50~59"
  | "60~69"
  | "70~79"
  | "80~89"
  | "90~";

/** The user of `GET /v2/user/me`. */
export interface KakaoProfile {
  id: number;
  has_signed_up?: boolean;
  connected_at?: string;
  synched_at?: string;
  properties?: { nickname?: string; profile_image?: string; thumbnail_image?: string; [key: string]: unknown };
  kakao_account?: {
    profile_needs_agreement?: boolean;
    profile_nickname_needs_agreement?: boolean;
    profile_image_needs_agreement?: boolean;
    profile?: {
      nickname?: string;
      thumbnail_image_url?: string;
      profile_image_url?: string;
      is_default_image?: boolean;
      is_default_nickname?: boolean;
    };
    name_needs_agreement?: boolean;
    name?: string;
    email_needs_agreement?: boolean;
    is_email_valid?: boolean;
    is_email_verified?: boolean;
    email?: string;
    age_range_needs_agreement?: boolean;
    age_range?: KakaoAgeRange;
    birthyear_needs_agreement?: boolean;
    birthyear?: string;
    birthday_needs_agreement?: boolean;
    birthday?: string;
    birthday_type?: "SOLAR" | "LUNAR";
    gender_needs_agreement?: boolean;
    gender?: "female" | "male";
    phone_number_needs_agreement?: boolean;
    phone_number?: string;
    ci_needs_agreement?: boolean;
    ci?: string;
    ci_authenticated_at?: string;
  };
  [claim: string]: unknown;
}

export default function Kakao(options: OAuthUserConfig<KakaoProfile> = {}): OAuthConfig<KakaoProfile> {
  return {
    id: "kakao",
    name: "Kakao",
    type: "oauth",
    authorization: { url: "https://kauth.kakao.com/oauth/authorize", params: {} },
    token: "https://kauth.kakao.com/oauth/token",
    userinfo: "https://kapi.kakao.com/v2/user/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const account = profile.kakao_account;
      return {
        id: String(profile.id),
        name: account?.profile?.nickname ?? account?.name ?? profile.properties?.nickname ?? null,
        email: account?.email ?? null,
        image: account?.profile?.profile_image_url ?? profile.properties?.profile_image ?? null,
      };
    },
    style: { brandColor: "#fee500", bg: "#fee500", text: "#191919" },
    options,
  };
}
