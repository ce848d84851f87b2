/** The providers whose endpoints need custom requests or response fixes, through the custom fetch. */
import { describe, expect, it } from "vitest";
import { customFetch } from "../../src/lib/base/symbols.js";
import { applyProviderOptions } from "../../src/lib/config/provider-options.js";
import Bitbucket from "../../src/providers/bitbucket.js";
import Dropbox from "../../src/providers/dropbox.js";
import GitHub from "../../src/providers/github.js";
import Notion from "../../src/providers/notion.js";
import Twitch from "../../src/providers/twitch.js";
import { fakeFetch, json } from "./fake-fetch.js";

// biome-ignore lint/suspicious/noExplicitAny: the resolved provider is handed to endpoint handlers untyped here
type Any = any;
const tokens = { access_token: "at-123", token_type: "bearer" };

describe("GitHub userinfo", () => {
  const user = {
    login: "octocat",
    id: 583231,
    name: null,
    avatar_url: "https://avatars.githubusercontent.com/u/583231",
  };
  const emails = [
    { email: "old@example.com", primary: false, verified: true, visibility: null },
    { email: "octocat@example.com", primary: true, verified: true, visibility: "private" },
  ];

  it("looks up the primary verified address when the profile e-mail is private", async () => {
    const fake = fakeFetch((r) => (r.url.pathname === "/user/emails" ? json(emails) : json({ ...user, email: null })));
    const config = applyProviderOptions(GitHub({ [customFetch]: fake.fetch })) as Any;
    const profile = await config.userinfo.request({ tokens, provider: config });
    expect(fake.requests.map((r) => r.url.href)).toEqual([
      "https://api.github.com/user",
      "https://api.github.com/user/emails",
    ]);
    expect(fake.requests[0]!.headers.get("authorization")).toBe("Bearer at-123");
    expect(await config.profile(profile, tokens)).toEqual({
      id: "583231",
      name: "octocat",
      email: "octocat@example.com",
      image: user.avatar_url,
    });
  });

  it("reads the public e-mail from /user, its verification from /user/emails, and uses the Enterprise API", async () => {
    const fake = fakeFetch((r) =>
      r.url.pathname.endsWith("/user/emails")
        ? json([{ email: "Public@example.com", primary: false, verified: true, visibility: "public" }])
        : json({ ...user, email: "public@example.com" }),
    );
    const config = applyProviderOptions(
      GitHub({ enterprise: { baseUrl: "https://github.example.com/" }, [customFetch]: fake.fetch }),
    ) as Any;
    expect(config.authorization.url).toBe("https://github.example.com/login/oauth/authorize");
    expect(config.token).toBe("https://github.example.com/login/oauth/access_token");
    const profile = await config.userinfo.request({ tokens, provider: config });
    expect(fake.requests.map((r) => r.url.href)).toEqual([
      "https://github.example.com/api/v3/user",
      "https://github.example.com/api/v3/user/emails",
    ]);
    expect(profile.email).toBe("public@example.com");
    expect(profile.email_verified).toBe(true);
  });

  it("does not take a public e-mail as verified when /user/emails does not list it as verified", async () => {
    for (const answer of [
      json([{ email: "public@example.com", primary: true, verified: false, visibility: "public" }]),
      new Response("forbidden", { status: 403 }),
      json({ message: "not a list" }),
    ]) {
      const fake = fakeFetch((r) =>
        r.url.pathname === "/user/emails" ? answer.clone() : json({ ...user, email: "public@example.com" }),
      );
      const config = applyProviderOptions(GitHub({ [customFetch]: fake.fetch })) as Any;
      const profile = await config.userinfo.request({ tokens, provider: config });
      expect(profile.email).toBe("public@example.com");
      expect(profile.email_verified).toBe(false);
    }
  });
});

describe("Bitbucket userinfo", () => {
  it("adds the primary confirmed address from /2.0/user/emails", async () => {
    const fake = fakeFetch((r) =>
      r.url.pathname === "/2.0/user/emails"
        ? json({
            values: [
              { email: "alt@example.com", is_primary: false, is_confirmed: true },
              { email: "main@example.com", is_primary: true, is_confirmed: true },
            ],
          })
        : json({
            uuid: "{u-1}",
            display_name: "Dev",
            nickname: "dev",
            links: { avatar: { href: "https://a.test/x" } },
          }),
    );
    const config = applyProviderOptions(Bitbucket({ [customFetch]: fake.fetch })) as Any;
    const profile = await config.userinfo.request({ tokens, provider: config });
    expect(fake.requests).toHaveLength(2);
    expect(profile.email).toBe("main@example.com");
  });
});

describe("Dropbox userinfo", () => {
  it("POSTs to get_current_account without a body", async () => {
    const fake = fakeFetch(() => json({ account_id: "dbid:1", name: { display_name: "D" }, email: "d@example.com" }));
    const config = applyProviderOptions(Dropbox({ [customFetch]: fake.fetch })) as Any;
    await config.userinfo.request({ tokens, provider: config });
    expect(fake.requests[0]).toMatchObject({ method: "POST", body: null });
    expect(fake.requests[0]!.url.href).toBe("https://api.dropboxapi.com/2/users/get_current_account");
  });
});

describe("Notion", () => {
  it("reads the owner of the bot with the Notion-Version header", async () => {
    const person = {
      object: "user",
      id: "u-1",
      type: "person",
      name: "Avo",
      avatar_url: null,
      person: { email: "a@b.c" },
    };
    const fake = fakeFetch(() => json({ object: "user", type: "bot", bot: { owner: { type: "user", user: person } } }));
    const config = applyProviderOptions(Notion({ [customFetch]: fake.fetch })) as Any;
    expect(await config.userinfo.request({ tokens, provider: config })).toEqual(person);
    expect(fake.requests[0]!.headers.get("notion-version")).toBe("2022-06-28");
  });

  it("drops null fields of the token response", async () => {
    const config = applyProviderOptions(Notion({})) as Any;
    const fixed = await config.token.conform(json({ access_token: "x", token_type: "bearer", refresh_token: null }));
    expect(await fixed.json()).toEqual({ access_token: "x", token_type: "bearer" });
  });
});

describe("Twitch token response", () => {
  it("joins the scope array into a string", async () => {
    const config = applyProviderOptions(Twitch({})) as Any;
    const fixed = await config.token.conform(
      json({ access_token: "x", token_type: "bearer", scope: ["openid", "user:read:email"] }),
    );
    expect((await fixed.json()).scope).toBe("openid user:read:email");
  });
});
