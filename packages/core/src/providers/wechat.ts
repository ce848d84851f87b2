/**
 * Sign in with WeChat (OAuth 2), inside WeChat (`platformType: "OfficialAccount"`, the default: an
 * Official Account's web page, scope `snsapi_userinfo`) or on a website (`"WebsiteApp"`: the QR
 * code login of the Open Platform, scope `snsapi_login`).
 *
 * WeChat departs from OAuth 2 in ways this provider handles: the client is `appid` (the app's
 * AppID, `clientId`) in the authorization URL, which ends with `#wechat_redirect`; the code is
 * redeemed with a GET carrying `appid`, `secret` and `code` in the query, and the answer has no
 * `token_type` but names the user (`openid`); the user is read from
 * `GET https://api.weixin.qq.com/sns/userinfo?access_token=&openid=`. Errors come back as
 * `{ errcode, errmsg }` with status 200. The account id is the user's `unionid` (the same across
 * the apps of one Open Platform account), or the app's `openid` when WeChat gives no unionid.
 * WeChat shares no e-mail address (`email` is `null`) and does not support PKCE: `state` is checked.
 *
 * - Callback URL to register (the authorised domain of the web page / website): `<origin>/auth/callback/wechat`
 * - Environment variables: `AUTH_WECHAT_ID` (AppID), `AUTH_WECHAT_SECRET` (AppSecret)
 *
 * @example
 * ```ts
 * import WeChat from "@latchkey/core/providers/wechat"
 * WeChat({ clientId: process.env.AUTH_WECHAT_ID, clientSecret: process.env.AUTH_WECHAT_SECRET, platformType: "WebsiteApp" })
 * ```
 * @see https://developers.weixin.qq.com/doc/oplatform/en/Website_App/WeChat_Login/Wechat_Login.html
 * @module providers/wechat
 */
import type { Profile, TokenSet } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET /sns/userinfo`. */
export interface WeChatProfile {
  openid: string;
  nickname: string;
  /** 1 male, 2 female, 0 unknown. */
  sex: number;
  province: string;
  city: string;
  country: string;
  headimgurl: string;
  privilege: string[];
  unionid: string;
  [claim: string]: unknown;
}

export interface WeChatOptions extends OAuthUserConfig<WeChatProfile> {
  /** Inside WeChat (an Official Account's page) or a website's QR code login. @default "OfficialAccount" */
  platformType?: "OfficialAccount" | "WebsiteApp";
}

const TOKEN_URL = "https://api.weixin.qq.com/sns/oauth2/access_token";
const USERINFO_URL = "https://api.weixin.qq.com/sns/userinfo";

/** WeChat's answer, or its `{ errcode, errmsg }` as an error. */
async function weChatAnswer<T>(response: Response, what: string): Promise<T> {
  const body = (await response.json().catch(() => null)) as (T & { errcode?: number; errmsg?: string }) | null;
  if (!response.ok || !body || (body.errcode !== undefined && body.errcode !== 0)) {
    throw new Error(`WeChat: ${what} failed: ${body?.errcode ?? response.status} ${body?.errmsg ?? ""}`.trimEnd());
  }
  return body;
}

export default function WeChat(options: WeChatOptions = {}): OAuthConfig<WeChatProfile> {
  const { platformType = "OfficialAccount", ...rest } = options;
  const inWeChat = platformType === "OfficialAccount";
  return {
    id: "wechat",
    name: "WeChat",
    type: "oauth",
    authorization: {
      url: inWeChat
        ? "https://open.weixin.qq.com/connect/oauth2/authorize#wechat_redirect"
        : "https://open.weixin.qq.com/connect/qrconnect#wechat_redirect",
      params: { appid: rest.clientId, scope: inWeChat ? "snsapi_userinfo" : "snsapi_login" },
    },
    token: {
      url: TOKEN_URL,
      async request({ params, provider, fetch: fetchFn }) {
        const url = new URL(provider.token?.url ?? TOKEN_URL);
        url.searchParams.set("appid", provider.clientId ?? "");
        url.searchParams.set("secret", provider.clientSecret ?? "");
        url.searchParams.set("code", params.code ?? "");
        url.searchParams.set("grant_type", "authorization_code");
        const answer = await weChatAnswer<TokenSet>(await fetchFn(url), "the token request");
        if (typeof answer.access_token !== "string") throw new Error("WeChat: the token answer has no access_token");
        return { tokens: { ...answer, token_type: "bearer" } };
      },
    },
    userinfo: {
      url: USERINFO_URL,
      async request({ tokens, provider, fetch: fetchFn }) {
        const url = new URL(provider.userinfo?.url ?? USERINFO_URL);
        url.searchParams.set("access_token", String(tokens.access_token));
        url.searchParams.set("openid", String(tokens.openid));
        url.searchParams.set("lang", "zh_CN");
        return weChatAnswer<Profile>(await fetchFn(url), "GET /sns/userinfo");
      },
    },
    checks: ["state"],
    profile(profile) {
      return {
        id: profile.unionid || profile.openid,
        name: profile.nickname ?? null,
        email: null,
        image: profile.headimgurl || null,
      };
    },
    style: { brandColor: "#07c160", bg: "#ffffff", text: "#000000" },
    options: rest,
  };
}
