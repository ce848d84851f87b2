import { describe, expect, it } from "vitest";
import { customFetch } from "../../src/lib/base/symbols.js";
import { applyProviderOptions } from "../../src/lib/config/provider-options.js";
import VK, { VK_API_VERSION, type VkProfile } from "../../src/providers/vk.js";
import { fakeFetch, json } from "./fake-fetch.js";

// biome-ignore lint/suspicious/noExplicitAny: the resolved provider is handed to endpoint handlers untyped here
type Any = any;

const user: VkProfile = {
  id: 743784474,
  first_name: "Pavel",
  last_name: "Durov",
  is_closed: false,
  can_access_closed: true,
  photo_100: "https://sun1-47.userapi.com/s/v1/ig2/abc.jpg?size=100x100",
  sex: 2,
  city: { id: 2, title: "Saint Petersburg" },
};

function setup(options: Parameters<typeof VK>[0] = {}) {
  const fake = fakeFetch(() => json({ response: [user] }));
  const config = applyProviderOptions(
    VK({ clientId: "51234567", clientSecret: "vk-secret", [customFetch]: fake.fetch, ...options }),
  ) as Any;
  return { config, requests: fake.requests };
}

describe("VK", () => {
  it("puts API version 5.126 in the v parameter of every URL by default", () => {
    const { config } = setup();
    expect(VK_API_VERSION).toBe("5.126");
    for (const url of [config.authorization.url, config.token.url, config.userinfo.url]) {
      expect(new URL(url).searchParams.get("v")).toBe("5.126");
    }
    expect(new URL(config.authorization.url).origin).toBe("https://oauth.vk.com");
    expect(new URL(config.token.url).pathname).toBe("/access_token");
    expect(config.authorization.params.scope).toBe("email");
  });

  it("asks users.get for photo_100", () => {
    const { config } = setup();
    const url = new URL(config.userinfo.url);
    expect(url.href.startsWith("https://api.vk.com/method/users.get")).toBe(true);
    expect(url.searchParams.get("fields")!.split(",")).toContain("photo_100");
  });

  it("lets accessTokenUrl, authorizationUrl and profileUrl override the URLs (another version)", () => {
    const { config } = setup({
      accessTokenUrl: "https://oauth.vk.com/access_token?v=5.131",
      authorizationUrl: "https://oauth.vk.com/authorize?response_type=code&v=5.131",
      profileUrl: "https://api.vk.com/method/users.get?fields=photo_100,screen_name&v=5.131",
    });
    expect(config.token.url).toBe("https://oauth.vk.com/access_token?v=5.131");
    expect(config.authorization.url).toBe("https://oauth.vk.com/authorize?response_type=code&v=5.131");
    const profileUrl = new URL(config.userinfo.url);
    expect(profileUrl.searchParams.get("v")).toBe("5.131");
    expect(profileUrl.searchParams.get("fields")).toBe("photo_100,screen_name");
  });

  it("takes requestTokenUrl as the token URL when accessTokenUrl is not given", () => {
    const { config } = setup({ requestTokenUrl: "https://oauth.vk.com/access_token?v=5.199" });
    expect(config.token.url).toBe("https://oauth.vk.com/access_token?v=5.199");
    const both = setup({
      accessTokenUrl: "https://oauth.vk.com/access_token?v=5.131",
      requestTokenUrl: "https://oauth.vk.com/access_token?v=5.199",
    });
    expect(both.config.token.url).toBe("https://oauth.vk.com/access_token?v=5.131");
  });

  it("adds photo_100 to an overriding profile URL that leaves it out", () => {
    const { config } = setup({ profileUrl: "https://api.vk.com/method/users.get?fields=bdate&v=5.131" });
    expect(new URL(config.userinfo.url).searchParams.get("fields")).toBe("bdate,photo_100");
  });

  it("adds the token_type VK leaves out of its token response, keeping email", async () => {
    const { config } = setup();
    const raw = json({ access_token: "vk1.a.token", expires_in: 86400, user_id: 743784474, email: "pavel@example.ru" });
    const fixed = await config.token.conform(raw);
    expect(await fixed.json()).toEqual({
      access_token: "vk1.a.token",
      expires_in: 86400,
      user_id: 743784474,
      email: "pavel@example.ru",
      token_type: "bearer",
    });
    const error = json({ error: "invalid_grant", error_description: "Code is invalid or expired." }, 401);
    expect(await (await config.token.conform(error)).json()).toEqual({
      error: "invalid_grant",
      error_description: "Code is invalid or expired.",
    });
  });

  it("reads the user from users.get through the custom fetch and takes the e-mail from the tokens", async () => {
    const { config, requests } = setup();
    const tokens = { access_token: "vk1.a.token", token_type: "bearer", user_id: 743784474, email: "pavel@example.ru" };
    const profile = await config.userinfo.request({ tokens, provider: config });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url.searchParams.get("v")).toBe("5.126");
    expect(requests[0]!.url.searchParams.get("fields")).toContain("photo_100");
    expect(requests[0]!.headers.get("authorization")).toBe("Bearer vk1.a.token");
    expect(profile).toMatchObject({ id: 743784474, email: "pavel@example.ru" });
    expect(await config.profile(profile, tokens)).toEqual({
      id: "743784474",
      name: "Pavel Durov",
      email: "pavel@example.ru",
      image: user.photo_100,
    });
  });

  it("maps the e-mail from the token response even when the profile has none", async () => {
    const { config } = setup();
    expect((await config.profile(user, { email: "pavel@example.ru" })).email).toBe("pavel@example.ru");
    expect((await config.profile(user, {})).email).toBeNull();
  });

  it("reports a VK API error", async () => {
    const fake = fakeFetch(() => json({ error: { error_code: 5, error_msg: "User authorization failed" } }));
    const config = applyProviderOptions(VK({ [customFetch]: fake.fetch })) as Any;
    await expect(config.userinfo.request({ tokens: { access_token: "x" }, provider: config })).rejects.toThrow(
      /5 User authorization failed/,
    );
  });
});
