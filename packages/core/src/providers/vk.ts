/**
 * Sign in with VK (VKontakte; OAuth 2 at `oauth.vk.com`, user data from the VK API `users.get`).
 *
 * VK versions its API with the `v` query parameter; every default URL carries `v=5.126`. To use
 * another version, override the URLs with the options `authorizationUrl`, `accessTokenUrl`
 * (`requestTokenUrl` is accepted as its alias), and `profileUrl`, each with its own `v`. The
 * profile URL asks for `photo_100` (added to `fields` when an override leaves it out).
 *
 * VK gives the e-mail address (scope `email`) beside the access token in the token response, not in
 * the profile: `profile()` takes it from there. VK's token response has no `token_type`;
 * `token.conform` adds `bearer`.
 *
 * - Callback URL to register (Authorized redirect URI): `<origin>/auth/callback/vk`
 * - Environment variables: `AUTH_VK_ID` (App ID), `AUTH_VK_SECRET` (Secure key)
 *
 * @example
 * ```ts
 * import VK from "@latchkey/core/providers/vk"
 * VK({ clientId: process.env.AUTH_VK_ID, clientSecret: process.env.AUTH_VK_SECRET })
 * // Another API version:
 * const v = "5.131"
 * VK({
 *   accessTokenUrl: `https://oauth.vk.com/access_token?v=${v}`,
 *   authorizationUrl: `https://oauth.vk.com/authorize?response_type=code&v=${v}`,
 *   profileUrl: `https://api.vk.com/method/users.get?fields=photo_100&v=${v}`,
 * })
 * ```
 * @see https://dev.vk.com/en/api/access-token/authcode-flow-user
 * @see https://dev.vk.com/en/reference/objects/user
 * @module providers/vk
 */
import { customFetch } from "../lib/base/symbols.js";
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

type Flag = 0 | 1;

/** A photo of the VK API, as found in `crop_photo`. */
export interface VkPhoto {
  album_id: number;
  date: number;
  has_tags: boolean;
  id: number;
  owner_id: number;
  access_key?: string;
  can_comment?: Flag;
  height?: number;
  width?: number;
  lat?: number;
  long?: number;
  photo_256?: string;
  place?: string;
  post_id?: number;
  text?: string;
  user_id?: number;
  images?: Array<{
    height?: number;
    width?: number;
    url?: string;
    type?: "p" | "q" | "s" | "r" | "x" | "y" | "m" | "l" | "o" | "z" | "w";
  }>;
  sizes?: Array<{
    height?: number;
    width?: number;
    src?: string;
    url?: string;
    type?:
      | "max"
      | "k"
      | "a"
      | "b"
      | "i"
      | "p"
      | "q"
      | "s"
      | "g"
      | "d"
      | "r"
      | "x"
      | "y"
      | "m"
      | "l"
      | "o"
      | "z"
      | "w"
      | "c"
      | "e"
      | "j"
      | "temp"
      | "h"
      | "n"
      | "f";
  }>;
}

interface VkRect {
  x?: number;
  x2?: number;
  y?: number;
  y2?: number;
}

/** A VK user (https://dev.vk.com/en/reference/objects/user). Optional fields come only when asked for. */
export interface VkProfile {
  id: number;
  first_name: string;
  last_name: string;
  is_closed: boolean;
  can_access_closed: boolean;
  photo_100: string;

  about?: string;
  activities?: string;
  bdate?: string;
  books?: string;
  deactivated?: string;
  domain?: string;
  /** Not a field of `users.get`: copied from the token response (scope `email`). */
  email?: string;
  games?: string;
  home_town?: string;
  interests?: string;
  maiden_name?: string;
  movies?: string;
  music?: string;
  nickname?: string;
  photo_200?: string;
  photo_200_orig?: string;
  photo_400?: string;
  photo_400_orig?: string;
  photo_50?: string;
  photo_id?: string;
  photo_max?: string;
  photo_max_orig?: string;
  quotes?: string;
  screen_name?: string;
  site?: string;
  status?: string;
  tv?: string;
  first_name_abl?: string;
  first_name_acc?: string;
  first_name_dat?: string;
  first_name_gen?: string;
  first_name_ins?: string;
  first_name_nom?: string;
  last_name_abl?: string;
  last_name_acc?: string;
  last_name_dat?: string;
  last_name_gen?: string;
  last_name_ins?: string;
  last_name_nom?: string;

  common_count?: number;
  followers_count?: number;
  online_app?: number;
  timezone?: number;

  blacklisted?: Flag;
  blacklisted_by_me?: Flag;
  can_post?: Flag;
  can_see_all_posts?: Flag;
  can_see_audio?: Flag;
  can_send_friend_request?: Flag;
  can_write_private_message?: Flag;
  has_mobile?: Flag;
  has_photo?: Flag;
  is_favorite?: Flag;
  is_friend?: Flag;
  is_hidden_from_feed?: Flag;
  is_no_index?: Flag;
  online?: Flag;
  online_mobile?: Flag;
  trending?: Flag;
  verified?: Flag;

  /** 0 not a friend, 1 request sent, 2 request received, 3 friend. */
  friend_status?: 0 | 1 | 2 | 3;
  /** 0 unknown, 1 female, 2 male. */
  sex?: 0 | 1 | 2;
  /** 0 not set, 1 single, 2 in a relationship, 3 engaged, 4 married, 5 complicated, 6 searching, 7 in love, 8 civil union. */
  relation?: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;
  wall_default?: "all" | "owner";

  career?: {
    city_id?: number;
    city_name?: string;
    company?: string;
    country_id?: number;
    from?: number;
    group_id?: number;
    position?: string;
    until?: number;
  };
  city?: { id: number; title: string };
  country?: { id: number; title: string };
  connections?: { facebook?: string; instagram?: string; livejournal?: string; skype?: string; twitter?: string };
  contacts?: { home_phone?: string; mobile_phone?: string };
  counters?: {
    albums?: number;
    audios?: number;
    followers?: number;
    friends?: number;
    groups?: number;
    mutual_friends?: number;
    notes?: number;
    online_friends?: number;
    pages?: number;
    photos?: number;
    user_videos?: number;
    videos?: number;
  };
  crop_photo?: { crop?: VkRect; rect?: VkRect; photo?: VkPhoto };
  education?: {
    faculty?: number;
    faculty_name?: string;
    graduation?: number;
    university?: number;
    university_name?: string;
  };
  exports?: { facebook?: number; instagram?: number; livejournal?: number; twitter?: number };
  last_seen?: { platform?: 1 | 2 | 3 | 4 | 5 | 6 | 7; time?: number };
  military?: { country_id: number; unit: string; unit_id: number; from?: number; until?: number };
  occupation?: { id?: number; name?: string; type?: "work" | "school" | "university" };
  personal?: {
    alcohol?: 1 | 2 | 3 | 4 | 5;
    smoking?: 1 | 2 | 3 | 4 | 5;
    inspired_by?: string;
    religion?: string;
    langs?: string[];
    life_main?: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;
    people_main?: 1 | 2 | 3 | 4 | 5 | 6;
    political?: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
  };
  relation_partner?: {
    id: number;
    first_name: string;
    last_name: string;
    can_access_closed?: boolean;
    is_closed?: boolean;
    deactivated?: string;
    hidden?: number;
  };
  relatives?: Array<{
    id?: number;
    name?: string;
    type?: "parent" | "child" | "grandparent" | "grandchild" | "sibling";
  }>;
  schools?: Array<{
    city?: number;
    country?: number;
    type?: number;
    year_from?: number;
    year_graduated?: number;
    year_to?: number;
    class?: string;
    id?: string;
    name?: string;
    speciality?: string;
    type_str?: string;
  }>;
  status_audio?: {
    artist: string;
    duration: number;
    id: number;
    owner_id: number;
    title: string;
    access_key?: string;
    album_id?: number;
    date?: number;
    genre_id?: number;
    performer?: string;
    url?: string;
  };
  universities?: Array<{
    chair?: number;
    city?: number;
    country?: number;
    faculty?: number;
    graduation?: number;
    id?: number;
    university_group_id?: number;
    chair_name?: string;
    education_form?: string;
    education_status?: string;
    faculty_name?: string;
    name?: string;
  }>;
}

/** The VK API version of the default URLs. */
export const VK_API_VERSION = "5.126";

export interface VkOptions extends OAuthUserConfig<VkProfile> {
  /** The authorization URL, with its `v`. @default `https://oauth.vk.com/authorize?v=5.126` */
  authorizationUrl?: string;
  /** The token URL, with its `v`. @default `https://oauth.vk.com/access_token?v=5.126` */
  accessTokenUrl?: string;
  /** Alias of `accessTokenUrl` (VK has one token endpoint); used when `accessTokenUrl` is not set. */
  requestTokenUrl?: string;
  /** The `users.get` URL, with its `v` and `fields`. @default `https://api.vk.com/method/users.get?fields=photo_100&v=5.126` */
  profileUrl?: string;
}

/** Adds `photo_100` to the `fields` of a `users.get` URL. */
function withPhoto100(profileUrl: string): URL {
  const url = new URL(profileUrl);
  const fields = (url.searchParams.get("fields") ?? "").split(",").filter(Boolean);
  if (!fields.includes("photo_100")) url.searchParams.set("fields", [...fields, "photo_100"].join(","));
  if (!url.searchParams.has("v")) url.searchParams.set("v", VK_API_VERSION);
  return url;
}

export default function VK(options: VkOptions = {}): OAuthConfig<VkProfile> {
  const authorizationUrl = options.authorizationUrl ?? `https://oauth.vk.com/authorize?v=${VK_API_VERSION}`;
  const tokenUrl =
    options.accessTokenUrl ?? options.requestTokenUrl ?? `https://oauth.vk.com/access_token?v=${VK_API_VERSION}`;
  const profileUrl = withPhoto100(
    options.profileUrl ?? `https://api.vk.com/method/users.get?fields=photo_100&v=${VK_API_VERSION}`,
  ).href;
  return {
    id: "vk",
    name: "VK",
    type: "oauth",
    authorization: { url: authorizationUrl, params: { scope: "email" } },
    token: {
      url: tokenUrl,
      // VK answers { access_token, expires_in, user_id, email } without the token_type RFC 6749 requires.
      async conform(response) {
        const body = (await response.clone().json()) as Record<string, unknown> | null;
        if (!body || typeof body !== "object" || body.token_type || !body.access_token) return response;
        return new Response(JSON.stringify({ ...body, token_type: "bearer" }), response);
      },
    },
    userinfo: {
      url: profileUrl,
      async request({ tokens, provider }) {
        const fetchFn = provider[customFetch] ?? fetch;
        const url = withPhoto100(provider.userinfo?.url ?? profileUrl);
        const response = await fetchFn(url, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
        const body = (await response.json()) as {
          response?: VkProfile[];
          error?: { error_code: number; error_msg: string };
        };
        const user = body.response?.[0];
        if (!response.ok || body.error || !user) {
          const reason = body.error ? `${body.error.error_code} ${body.error.error_msg}` : `status ${response.status}`;
          throw new Error(`VK users.get failed: ${reason}`);
        }
        if (typeof tokens.email === "string") user.email = tokens.email;
        return user as unknown as Profile;
      },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    // oauth.vk.com does not support PKCE.
    checks: ["state"],
    profile(profile, tokens) {
      const email = profile.email ?? (typeof tokens.email === "string" ? tokens.email : null);
      return {
        id: String(profile.id),
        name: [profile.first_name, profile.last_name].filter(Boolean).join(" ") || null,
        email,
        image: profile.photo_100 ?? null,
      };
    },
    style: { brandColor: "#0077ff", bg: "#0077ff", text: "#ffffff" },
    options,
  };
}
