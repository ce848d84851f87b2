/**
 * Sign in with TikTok (Login Kit for Web, OAuth 2 API v2).
 *
 * TikTok departs from OAuth 2 in two ways this provider handles: the client is identified by
 * `client_key`, not `client_id`, in the authorization URL and in the token request (so the token
 * request is custom); and the user-info endpoint returns only the fields named in its `fields`
 * query parameter. The fields asked for are `open_id`, `union_id`, `avatar_url`, `display_name`
 * and `username`, plus any listed in the `fields` option; the scope is derived from them
 * (`user.info.basic`, `user.info.profile`, `user.info.stats`). TikTok never supplies an e-mail
 * address: `email` is `null`.
 *
 * - `clientId` is the app's **Client key**, `clientSecret` its **Client secret**.
 * - Callback URL to register (Redirect URI): `<origin>/auth/callback/tiktok`. Production apps
 *   cannot use localhost; TikTok reviews the domain and redirect URI.
 * - Environment variables: `AUTH_TIKTOK_ID` (Client key), `AUTH_TIKTOK_SECRET`
 *
 * @example
 * ```ts
 * import TikTok from "@latchkey/core/providers/tiktok"
 * TikTok({
 *   clientId: process.env.AUTH_TIKTOK_ID,
 *   clientSecret: process.env.AUTH_TIKTOK_SECRET,
 *   fields: ["bio_description", "follower_count"],
 * })
 * ```
 * @see https://developers.tiktok.com/doc/login-kit-web
 * @see https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info
 * @module providers/tiktok
 */
import { customFetch } from "../lib/base/symbols.js";
import type { Profile, TokenSet } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /v2/user/info/`. */
export interface TikTokProfile {
  data: {
    user: {
      /** The URL of the profile image. */
      avatar_url: string;
      /** The user's profile name. */
      display_name: string;
      /** The user's unique id within the current application. */
      open_id: string;
      /** The user's username. */
      username: string;
      /** The URL of the profile image in a larger size. */
      avatar_large_url?: string;
      /** The URL of the profile image, 100x100. */
      avatar_url_100?: string;
      /** The user's bio description. */
      bio_description?: string;
      /** TikTok does not supply e-mail addresses; present only for type compatibility. */
      email?: string;
      follower_count?: number;
      following_count?: number;
      /** Whether TikTok verified the account as belonging to a public figure or brand. */
      is_verified?: boolean;
      /** Total likes of the user's videos. */
      likes_count?: number;
      /** The link to the user's TikTok profile page. */
      profile_deep_link?: string;
      /** The user's id across the applications of one developer. */
      union_id?: string;
      /** The number of public videos. */
      video_count?: number;
    };
  };
  error: {
    /** The error category; `"ok"` on success. */
    code: string;
    log_id: string;
    message: string;
  };
}

/** A field of `data.user` that the user-info endpoint can be asked for. */
export type TikTokUserField = Exclude<keyof TikTokProfile["data"]["user"], "email">;

const SCOPE_OF_FIELD: Record<TikTokUserField, "user.info.basic" | "user.info.profile" | "user.info.stats"> = {
  open_id: "user.info.basic",
  union_id: "user.info.basic",
  avatar_url: "user.info.basic",
  avatar_url_100: "user.info.basic",
  avatar_large_url: "user.info.basic",
  display_name: "user.info.basic",
  bio_description: "user.info.profile",
  profile_deep_link: "user.info.profile",
  is_verified: "user.info.profile",
  username: "user.info.profile",
  follower_count: "user.info.stats",
  following_count: "user.info.stats",
  likes_count: "user.info.stats",
  video_count: "user.info.stats",
};

/** The fields always asked for: what `profile()` reads, and the stable ids. */
export const TIKTOK_DEFAULT_FIELDS: readonly TikTokUserField[] = [
  "open_id",
  "union_id",
  "avatar_url",
  "display_name",
  "username",
];

const AUTHORIZATION_URL = "https://www.tiktok.com/v2/auth/authorize/";
const TOKEN_URL = "https://open.tiktokapis.com/v2/oauth/token/";
const USERINFO_URL = "https://open.tiktokapis.com/v2/user/info/";

export interface TikTokOptions extends OAuthUserConfig<TikTokProfile> {
  /** Fields of `data.user` to ask for besides {@link TIKTOK_DEFAULT_FIELDS}; the scope follows. */
  fields?: TikTokUserField[];
}

/** TikTok's token response. */
interface TikTokTokenResponse {
  access_token?: string;
  expires_in?: number;
  open_id?: string;
  refresh_expires_in?: number;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
  error?: string;
  error_description?: string;
  log_id?: string;
}

export default function TikTok(options: TikTokOptions = {}): OAuthConfig<TikTokProfile> {
  const fields = [...new Set<TikTokUserField>([...TIKTOK_DEFAULT_FIELDS, ...(options.fields ?? [])])];
  const scope = [...new Set(fields.map((field) => SCOPE_OF_FIELD[field]))].sort().join(",");
  return {
    id: "tiktok",
    name: "TikTok",
    type: "oauth",
    authorization: {
      url: AUTHORIZATION_URL,
      // TikTok reads `client_key`; `clientId` is the app's client key.
      params: { client_key: options.clientId, scope, response_type: "code" },
    },
    token: {
      url: TOKEN_URL,
      async request({ params, checks, provider, redirect_uri }) {
        const fetchFn = provider[customFetch] ?? fetch;
        const body = new URLSearchParams({
          client_key: provider.clientId ?? "",
          client_secret: provider.clientSecret ?? "",
          code: params.code ?? "",
          grant_type: "authorization_code",
          redirect_uri,
        });
        if (checks.code_verifier) body.set("code_verifier", checks.code_verifier);
        const response = await fetchFn(provider.token?.url ?? TOKEN_URL, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", "Cache-Control": "no-cache" },
          body,
        });
        const answer = (await response.json()) as TikTokTokenResponse;
        if (!response.ok || answer.error || !answer.access_token) {
          const reason = answer.error_description ?? answer.error ?? `status ${response.status}`;
          throw new Error(`TikTok token request failed: ${reason}${answer.log_id ? ` (log_id ${answer.log_id})` : ""}`);
        }
        const tokens: TokenSet = {
          access_token: answer.access_token,
          token_type: (answer.token_type ?? "bearer").toLowerCase(),
          refresh_token: answer.refresh_token,
          scope: answer.scope,
          expires_in: answer.expires_in,
          expires_at:
            typeof answer.expires_in === "number" ? Math.floor(Date.now() / 1000) + answer.expires_in : undefined,
          open_id: answer.open_id,
          refresh_expires_in: answer.refresh_expires_in,
        };
        return { tokens };
      },
    },
    userinfo: {
      url: USERINFO_URL,
      params: { fields: fields.join(",") },
      async request({ tokens, provider }) {
        const fetchFn = provider[customFetch] ?? fetch;
        const url = new URL(provider.userinfo?.url ?? USERINFO_URL);
        for (const [key, value] of Object.entries(provider.userinfo?.params ?? {})) {
          if (value !== undefined) url.searchParams.set(key, String(value));
        }
        if (!url.searchParams.has("fields")) url.searchParams.set("fields", fields.join(","));
        const response = await fetchFn(url, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
        const profile = (await response.json()) as TikTokProfile;
        if (!response.ok || (profile.error && profile.error.code !== "ok")) {
          const { code = `status ${response.status}`, message = "", log_id = "" } = profile.error ?? {};
          throw new Error(`TikTok user info request failed: ${code} ${message} (log_id ${log_id})`);
        }
        return profile as unknown as Profile;
      },
    },
    // Login Kit for Web documents `state`; PKCE is specified for its desktop and mobile kits only.
    checks: ["state"],
    profile({ data: { user } }) {
      return {
        id: user.open_id,
        name: user.display_name || user.username,
        email: user.email ?? null,
        image: user.avatar_url,
      };
    },
    style: { brandColor: "#000000", bg: "#000000", text: "#ffffff" },
    options,
  };
}
