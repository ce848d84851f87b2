/**
 * Sign in with Notion (OAuth 2, a public integration). The user is the person who installed the
 * integration: `GET /v1/users/me` returns the integration's bot, whose owner is that person.
 *
 * - Callback URL to register (Redirect URIs): `<origin>/auth/callback/notion`
 * - Environment variables: `AUTH_NOTION_ID` (OAuth client ID), `AUTH_NOTION_SECRET`
 *
 * @example
 * ```ts
 * import Notion from "@latchkey/core/providers/notion"
 * Notion({ clientId: process.env.AUTH_NOTION_ID, clientSecret: process.env.AUTH_NOTION_SECRET })
 * ```
 * @see https://developers.notion.com/docs/authorization
 * @module providers/notion
 */
import { customFetch } from "../lib/base/symbols.js";
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** A Notion user of type `person` (https://developers.notion.com/reference/user). */
export interface NotionProfile {
  object: "user";
  id: string;
  type: "person";
  name: string | null;
  avatar_url: string | null;
  /** `email` needs the integration's "Read user information including email addresses" capability. */
  person: { email?: string };
  [claim: string]: unknown;
}

/** The Notion API version every request names in `Notion-Version`. */
export const NOTION_API_VERSION = "2022-06-28";
const API = "https://api.notion.com";

export default function Notion(options: OAuthUserConfig<NotionProfile> = {}): OAuthConfig<NotionProfile> {
  return {
    id: "notion",
    name: "Notion",
    type: "oauth",
    authorization: { url: `${API}/v1/oauth/authorize`, params: { owner: "user" } },
    token: {
      url: `${API}/v1/oauth/token`,
      // Notion sends `refresh_token: null` and other nulls; a null is not a valid token field.
      async conform(response) {
        const body = (await response.clone().json()) as Record<string, unknown> | null;
        if (!body || typeof body !== "object") return response;
        const cleaned = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
        return new Response(JSON.stringify(cleaned), response);
      },
    },
    userinfo: {
      url: `${API}/v1/users/me`,
      async request({ tokens, provider }) {
        const fetchFn = provider[customFetch] ?? fetch;
        const response = await fetchFn(provider.userinfo?.url ?? `${API}/v1/users/me`, {
          headers: { Authorization: `Bearer ${tokens.access_token}`, "Notion-Version": NOTION_API_VERSION },
        });
        if (!response.ok) throw new Error(`Notion: GET /v1/users/me answered ${response.status}`);
        const bot = (await response.json()) as { bot?: { owner?: { type: string; user?: NotionProfile } } };
        const user = bot.bot?.owner?.user;
        if (!user) throw new Error("Notion: the integration is not owned by a user (owner must be `user`)");
        return user as unknown as Profile;
      },
    },
    profile(profile) {
      return { id: profile.id, name: profile.name, email: profile.person?.email ?? null, image: profile.avatar_url };
    },
    style: { brandColor: "#000000", bg: "#ffffff", text: "#000000" },
    options,
  };
}
