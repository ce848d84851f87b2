import { describe, expect, it } from "vitest";
import { customFetch } from "../../src/lib/base/symbols.js";
import { applyProviderOptions } from "../../src/lib/config/provider-options.js";
import TikTok, { TIKTOK_DEFAULT_FIELDS, type TikTokProfile } from "../../src/providers/tiktok.js";
import { fakeFetch, json } from "./fake-fetch.js";

// biome-ignore lint/suspicious/noExplicitAny: the resolved provider is handed to endpoint handlers untyped here
type Any = any;

const profile: TikTokProfile = {
  data: {
    user: {
      open_id: "723f24d7-e717-40f8-a2b6-cb8464cd23b4",
      union_id: "c9c60f44-a68e-4f5d-84dd-ce22faeb0ba1",
      avatar_url: "https://p16-sign.tiktokcdn-us.com/avatar.jpeg",
      display_name: "Tik Toker",
      username: "tiktoker",
      follower_count: 12,
    },
  },
  error: { code: "ok", message: "", log_id: "20220829194722CBE87ED59D524E727021" },
};

function setup(options: Parameters<typeof TikTok>[0] = {}) {
  const fake = fakeFetch((request) => {
    if (request.url.pathname === "/v2/oauth/token/") {
      return json({
        access_token: "act.example",
        expires_in: 86400,
        open_id: profile.data.user.open_id,
        refresh_expires_in: 31536000,
        refresh_token: "rft.example",
        scope: "user.info.basic,user.info.profile",
        token_type: "Bearer",
      });
    }
    return json(profile);
  });
  const config = applyProviderOptions(
    TikTok({ clientId: "aw1234key", clientSecret: "s3cret", [customFetch]: fake.fetch, ...options }),
  ) as Any;
  return { config, requests: fake.requests };
}

describe("TikTok", () => {
  it("sends the client key as client_key in the authorization URL, with the derived scope", () => {
    const { config } = setup();
    expect(config.authorization.url).toBe("https://www.tiktok.com/v2/auth/authorize/");
    expect(config.authorization.params.client_key).toBe("aw1234key");
    expect(config.authorization.params.scope).toBe("user.info.basic,user.info.profile");
    expect(config.authorization.params.response_type).toBe("code");
  });

  it("exchanges the code with client_key, not client_id, through the custom fetch", async () => {
    const { config, requests } = setup();
    const { tokens } = await config.token.request({
      params: { code: "auth-code", state: "s" },
      checks: { state: "s" },
      provider: config,
      redirect_uri: "https://app.example.com/auth/callback/tiktok",
    });
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.method).toBe("POST");
    expect(request!.url.href).toBe("https://open.tiktokapis.com/v2/oauth/token/");
    expect(request!.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    const body = new URLSearchParams(request!.body!);
    expect(body.get("client_key")).toBe("aw1234key");
    expect(body.has("client_id")).toBe(false);
    expect(body.get("client_secret")).toBe("s3cret");
    expect(body.get("code")).toBe("auth-code");
    expect(body.get("grant_type")).toBe("authorization_code");
    expect(body.get("redirect_uri")).toBe("https://app.example.com/auth/callback/tiktok");
    expect(tokens).toMatchObject({
      access_token: "act.example",
      refresh_token: "rft.example",
      token_type: "bearer",
      expires_in: 86400,
      open_id: profile.data.user.open_id,
    });
    expect(tokens.expires_at).toBeGreaterThan(Date.now() / 1000);
  });

  it("reports a token error with TikTok's description", async () => {
    const fake = fakeFetch(() =>
      json({ error: "invalid_grant", error_description: "Authorization code is expired.", log_id: "L1" }, 400),
    );
    const config = applyProviderOptions(TikTok({ clientId: "k", [customFetch]: fake.fetch })) as Any;
    await expect(
      config.token.request({ params: { code: "c" }, checks: {}, provider: config, redirect_uri: "https://a.test/cb" }),
    ).rejects.toThrow(/Authorization code is expired\. \(log_id L1\)/);
  });

  it("asks the user-info endpoint for the required fields", async () => {
    const { config, requests } = setup();
    const result = await config.userinfo.request({ tokens: { access_token: "act.example" }, provider: config });
    expect(result).toEqual(profile);
    const [request] = requests;
    expect(request!.url.origin + request!.url.pathname).toBe("https://open.tiktokapis.com/v2/user/info/");
    expect(request!.headers.get("authorization")).toBe("Bearer act.example");
    const fields = request!.url.searchParams.get("fields")!.split(",");
    for (const field of ["open_id", "union_id", "avatar_url", "display_name", "username"]) {
      expect(fields).toContain(field);
    }
    expect(fields).toEqual([...TIKTOK_DEFAULT_FIELDS]);
  });

  it("derives fields and scope from the requested profile fields", async () => {
    const { config, requests } = setup({ fields: ["follower_count", "bio_description", "open_id"] });
    expect(config.authorization.params.scope).toBe("user.info.basic,user.info.profile,user.info.stats");
    await config.userinfo.request({ tokens: { access_token: "t" }, provider: config });
    const fields = requests[0]!.url.searchParams.get("fields")!.split(",");
    expect(fields).toEqual([...TIKTOK_DEFAULT_FIELDS, "follower_count", "bio_description"]);
  });

  it("reports a user-info error with code, message and log_id", async () => {
    const fake = fakeFetch(() =>
      json(
        { data: {}, error: { code: "access_token_invalid", message: "The access token is invalid", log_id: "L2" } },
        401,
      ),
    );
    const config = applyProviderOptions(TikTok({ [customFetch]: fake.fetch })) as Any;
    await expect(config.userinfo.request({ tokens: { access_token: "t" }, provider: config })).rejects.toThrow(
      /access_token_invalid The access token is invalid \(log_id L2\)/,
    );
  });

  it("maps the profile with no e-mail", async () => {
    const { config } = setup();
    expect(await config.profile(profile, {})).toEqual({
      id: profile.data.user.open_id,
      name: "Tik Toker",
      email: null,
      image: "https://p16-sign.tiktokcdn-us.com/avatar.jpeg",
    });
  });
});
