/**
 * Sign in with Bungie.net (OAuth 2), for Destiny players.
 *
 * Every request to Bungie's API carries the application's API key (`X-API-Key`): give it as
 * `apiKey` (or, as next-auth's documentation writes it, `headers: { "X-API-Key": ... }`). The user
 * is read from `GET /Platform/User/GetMembershipsForCurrentUser/`, whose `Response.bungieNetUser`
 * is the Bungie.net account. Bungie shares no e-mail address (`email` is `null`), does not support
 * PKCE (`state` is checked), and only accepts `https` redirect URLs, local development included.
 *
 * - Callback URL to register (Redirect URL): `https://<host>/auth/callback/bungie`
 * - Environment variables: `AUTH_BUNGIE_ID`, `AUTH_BUNGIE_SECRET`
 *
 * @example
 * ```ts
 * import Bungie from "@latchkey/core/providers/bungie"
 * Bungie({ apiKey: process.env.BUNGIE_API_KEY })
 * ```
 * @see https://github.com/Bungie-net/api/wiki/OAuth-Documentation
 * @module providers/bungie
 */
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GetMembershipsForCurrentUser`. */
export interface BungieProfile extends Record<string, unknown> {
  Response: {
    bungieNetUser: {
      membershipId: string;
      uniqueName?: string;
      displayName: string;
      profilePicturePath: string;
      [field: string]: unknown;
    };
    destinyMemberships?: Array<Record<string, unknown>>;
  };
  ErrorCode?: number;
  ErrorStatus?: string;
  Message?: string;
}

export interface BungieOptions extends OAuthUserConfig<BungieProfile> {
  /** The application's API key, sent as `X-API-Key`. */
  apiKey?: string;
  /** Headers for Bungie's API, as next-auth's documentation passes the API key. */
  headers?: Record<string, string>;
}

const USER_URL = "https://www.bungie.net/Platform/User/GetMembershipsForCurrentUser/";

export default function Bungie(options: BungieOptions = {}): OAuthConfig<BungieProfile> {
  const { apiKey, headers = {}, ...rest } = options;
  const apiHeaders: Record<string, string> = { ...headers };
  if (apiKey) apiHeaders["X-API-Key"] = apiKey;
  return {
    id: "bungie",
    name: "Bungie",
    type: "oauth",
    authorization: { url: "https://www.bungie.net/en/OAuth/Authorize", params: { reauth: "true" } },
    token: "https://www.bungie.net/platform/app/oauth/token/",
    userinfo: {
      url: USER_URL,
      async request({ tokens, provider, fetch: fetchFn }) {
        const response = await fetchFn(provider.userinfo?.url ?? USER_URL, {
          headers: { ...apiHeaders, Authorization: `Bearer ${tokens.access_token}`, Accept: "application/json" },
        });
        const body = (await response.json().catch(() => null)) as BungieProfile | null;
        if (!response.ok || !body?.Response?.bungieNetUser) {
          const reason = body?.Message ?? `HTTP ${response.status}`;
          throw new Error(`Bungie: GetMembershipsForCurrentUser failed: ${reason}`);
        }
        return body as unknown as Profile;
      },
    },
    checks: ["state"],
    profile(profile) {
      const user = profile.Response.bungieNetUser;
      const path = user.profilePicturePath;
      return {
        id: String(user.membershipId),
        name: user.displayName ?? user.uniqueName ?? null,
        email: null,
        image: path ? `https://www.bungie.net${path.startsWith("/") ? "" : "/"}${path}` : null,
      };
    },
    style: { brandColor: "#0e0e0e", bg: "#0e0e0e", text: "#ffffff" },
    options: rest,
  };
}
