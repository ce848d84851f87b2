/**
 * Sign in with Naver (Naver Login, OAuth 2).
 *
 * - Callback URL to register (Callback URL): `<origin>/auth/callback/naver`
 * - Environment variables: `AUTH_NAVER_ID`, `AUTH_NAVER_SECRET`
 *
 * @example
 * ```ts
 * import Naver from "@latchkey/core/providers/naver"
 * Naver({ clientId: process.env.AUTH_NAVER_ID, clientSecret: process.env.AUTH_NAVER_SECRET })
 * ```
 * @see https://developers.naver.com/docs/login/api/api.md
 * @module providers/naver
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /v1/nid/me`. Each field of `response` is present only when consented to. */
export interface NaverProfile {
  resultcode: string;
  message: string;
  response: {
    id: string;
    nickname?: string;
    name?: string;
    email?: string;
    gender?: "F" | "M" | "U";
    age?: string;
    birthday?: string;
    profile_image?: string;
    birthyear?: string;
    mobile?: string;
  };
  [claim: string]: unknown;
}

export default function Naver(options: OAuthUserConfig<NaverProfile> = {}): OAuthConfig<NaverProfile> {
  return {
    id: "naver",
    name: "Naver",
    type: "oauth",
    authorization: { url: "https://nid.naver.com/oauth2.0/authorize", params: {} },
    token: "https://nid.naver.com/oauth2.0/token",
    userinfo: "https://openapi.naver.com/v1/nid/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile({ response }) {
      return {
        id: response.id,
        name: response.nickname ?? response.name ?? null,
        email: response.email ?? null,
        image: response.profile_image ?? null,
      };
    },
    style: { brandColor: "#03c75a", bg: "#03c75a", text: "#ffffff" },
    options,
  };
}
