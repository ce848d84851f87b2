/**
 * Sign in with the Concept2 Logbook (OAuth 2), for rowers and skiers. The scope is
 * `user:read,results:write`, as Concept2's example has it; the user is read from
 * `GET https://log.concept2.com/api/users/me`, its `data`.
 *
 * - Callback URL to register: `<origin>/auth/callback/concept2`
 * - Environment variables: `AUTH_CONCEPT2_ID`, `AUTH_CONCEPT2_SECRET`
 *
 * @example
 * ```ts
 * import Concept2 from "@latchkey/core/providers/concept2"
 * Concept2({ authorization: { params: { scope: "user:read" } } })
 * ```
 * @see https://log.concept2.com/developers/documentation/
 * @module providers/concept2
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /api/users/me`. */
export interface Concept2Profile extends Record<string, unknown> {
  data: {
    id: number;
    username: string;
    first_name: string;
    last_name: string;
    gender: string;
    dob: string;
    email: string;
    country: string;
    profile_image: string;
    age_restricted: boolean;
    email_permission: boolean | null;
    max_heart_rate: number | null;
    weight: number | null;
    logbook_privacy: string | null;
  };
}

export default function Concept2(options: OAuthUserConfig<Concept2Profile> = {}): OAuthConfig<Concept2Profile> {
  return {
    id: "concept2",
    name: "Concept2",
    type: "oauth",
    authorization: { url: "https://log.concept2.com/oauth/authorize", params: { scope: "user:read,results:write" } },
    token: "https://log.concept2.com/oauth/access_token",
    userinfo: "https://log.concept2.com/api/users/me",
    profile({ data }) {
      const name = [data.first_name, data.last_name].filter(Boolean).join(" ");
      return {
        id: String(data.id),
        name: name || data.username || null,
        email: data.email ?? null,
        image: data.profile_image ?? null,
      };
    },
    style: { brandColor: "#003a70", bg: "#003a70", text: "#ffffff" },
    options,
  };
}
