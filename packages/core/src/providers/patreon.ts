/**
 * Sign in with Patreon (OAuth 2, API v2).
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/patreon`
 * - Environment variables: `AUTH_PATREON_ID`, `AUTH_PATREON_SECRET`
 *
 * @example
 * ```ts
 * import Patreon from "@latchkey/core/providers/patreon"
 * Patreon({ clientId: process.env.AUTH_PATREON_ID, clientSecret: process.env.AUTH_PATREON_SECRET })
 * ```
 * @see https://docs.patreon.com/#oauth
 * @module providers/patreon
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The JSON:API document of `GET /api/oauth2/v2/identity` with the user's fields. */
export interface PatreonProfile {
  data: {
    id: string;
    type: "user";
    attributes: {
      about?: string | null;
      created?: string;
      /** Needs the `identity[email]` scope. */
      email?: string;
      first_name?: string;
      full_name: string;
      image_url?: string;
      is_email_verified?: boolean;
      last_name?: string;
      social_connections?: Record<string, unknown> | null;
      thumb_url?: string;
      url?: string;
      vanity?: string | null;
    };
    relationships?: Record<string, unknown>;
  };
  included?: unknown[];
  links: { self: string };
  [claim: string]: unknown;
}

const FIELDS = "about,created,email,first_name,full_name,image_url,is_email_verified,last_name,thumb_url,url,vanity";

export default function Patreon(options: OAuthUserConfig<PatreonProfile> = {}): OAuthConfig<PatreonProfile> {
  return {
    id: "patreon",
    name: "Patreon",
    type: "oauth",
    authorization: { url: "https://www.patreon.com/oauth2/authorize", params: { scope: "identity identity[email]" } },
    token: "https://www.patreon.com/api/oauth2/token",
    userinfo: `https://www.patreon.com/api/oauth2/v2/identity?${new URLSearchParams({ "fields[user]": FIELDS })}`,
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile({ data }) {
      return {
        id: data.id,
        name: data.attributes.full_name,
        email: data.attributes.email ?? null,
        image: data.attributes.image_url ?? null,
      };
    },
    style: { brandColor: "#ff424d", bg: "#000000", text: "#ffffff" },
    options,
  };
}
