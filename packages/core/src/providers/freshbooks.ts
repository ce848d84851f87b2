/**
 * Sign in with FreshBooks (OAuth 2). The user is read from
 * `GET https://api.freshbooks.com/auth/api/v1/users/me`, its `response`.
 *
 * - Callback URL to register (Redirect URIs, https only): `<origin>/auth/callback/freshbooks`
 * - Environment variables: `AUTH_FRESHBOOKS_ID`, `AUTH_FRESHBOOKS_SECRET`
 *
 * @example
 * ```ts
 * import Freshbooks from "@latchkey/core/providers/freshbooks"
 * Freshbooks({ clientId: process.env.AUTH_FRESHBOOKS_ID, clientSecret: process.env.AUTH_FRESHBOOKS_SECRET })
 * ```
 * @see https://www.freshbooks.com/api/authentication
 * @module providers/freshbooks
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /auth/api/v1/users/me`. */
export interface FreshbooksProfile extends Record<string, unknown> {
  response: {
    id: number;
    first_name: string;
    last_name: string;
    email: string;
    confirmed_at?: string | null;
    [field: string]: unknown;
  };
}

export default function Freshbooks(options: OAuthUserConfig<FreshbooksProfile> = {}): OAuthConfig<FreshbooksProfile> {
  return {
    id: "freshbooks",
    name: "Freshbooks",
    type: "oauth",
    authorization: { url: "https://auth.freshbooks.com/oauth/authorize" },
    token: "https://api.freshbooks.com/auth/oauth/token",
    userinfo: "https://api.freshbooks.com/auth/api/v1/users/me",
    profile({ response: user }) {
      return {
        id: String(user.id),
        name: [user.first_name, user.last_name].filter(Boolean).join(" ") || null,
        email: user.email ?? null,
        image: null,
      };
    },
    style: { brandColor: "#0075dd", bg: "#0075dd", text: "#ffffff" },
    options,
  };
}
