/**
 * Plain OAuth 2 sign-in (no OpenID Connect) in process, against an authorization server written
 * for the test: the generic provider with an adapter, and the TikTok and VK providers with their
 * departures from RFC 6749.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthError } from "../../src/errors.js";
import { Auth, type AuthConfig, customFetch, setEnvDefaults } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter, memoryAccountKey } from "../../src/memory-adapter.js";
import { OAuth } from "../../src/providers/generic-oauth.js";
import type { OAuthConfig } from "../../src/providers/oauth.js";
import TikTok from "../../src/providers/tiktok.js";
import VK from "../../src/providers/vk.js";
import type { Account, Profile } from "../../src/types.js";
import { Browser } from "./support/browser.js";
import {
  deletedCookies,
  locationOf,
  loginAtProvider,
  SECRET,
  sessionOf,
  setCookie,
  signInThrough,
  startSignIn,
} from "./support/flow.js";
import { startAuthServer, type TestAuthServer } from "./support/oauth2-server.js";

const APP = "http://localhost:3000";
let srv: TestAuthServer;

beforeAll(async () => {
  const redirects = ["acme", "acme-post", "acme-env", "tiktok", "vk"].map((id) => `${APP}/auth/callback/${id}`);
  srv = await startAuthServer({
    "acme-client": { secret: "acme secret+/=", redirectUris: redirects },
    "tt-client-key": { secret: "tt-secret", redirectUris: redirects },
    "vk-app": { secret: "vk-secret", redirectUris: redirects },
  });
});
afterAll(() => srv?.close());

interface Harness {
  config: AuthConfig;
  errors: AuthError[];
  fetched: string[];
  jwt: Array<{ account?: Account | null; profile?: Profile; trigger?: string }>;
  browser: Browser;
}

function recordingFetch(fetched: string[]) {
  return (input: string | URL | Request, init?: RequestInit) => {
    fetched.push(`${init?.method ?? "GET"} ${new URL(input instanceof Request ? input.url : input).pathname}`);
    return fetch(input, init);
  };
}

function harness(provider: (fetched: string[]) => OAuthConfig, extra: Partial<AuthConfig> = {}): Harness {
  const errors: AuthError[] = [];
  const fetched: string[] = [];
  const jwt: Harness["jwt"] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    providers: [provider(fetched)],
    logger: { error: (e) => errors.push(e as AuthError), warn: () => {}, debug: () => {} },
    callbacks: {
      jwt: ({ token, account, profile, trigger }) => {
        if (trigger) jwt.push({ account, profile, trigger });
        return token;
      },
    },
    ...extra,
  };
  return { config, errors, fetched, jwt, browser: new Browser({ [APP]: (r) => Auth(r, config) }) };
}

function acme(fetched: string[], overrides: Record<string, unknown> = {}): OAuthConfig {
  return OAuth({
    id: "acme",
    name: "Acme",
    authorization: { url: `${srv.origin}/authorize`, params: { scope: "read profile" } },
    token: `${srv.origin}/token`,
    userinfo: `${srv.origin}/me`,
    clientId: "acme-client",
    clientSecret: "acme secret+/=",
    [customFetch]: recordingFetch(fetched),
    ...overrides,
  } as Parameters<typeof OAuth>[0]);
}

describe("plain OAuth 2 sign-in", () => {
  it("signs in a new user through the adapter: signIn first, then the user and the account (spec §2.3)", async () => {
    const store = createMemoryStore();
    const usersWhenAsked: number[] = [];
    const linked: Account[] = [];
    const h = harness((f) => acme(f), {
      adapter: MemoryAdapter(store),
      session: { strategy: "jwt" },
      pages: { newUser: "/welcome" },
      callbacks: {
        signIn: () => {
          usersWhenAsked.push(store.users.size);
          return true;
        },
        jwt: ({ token, account, profile, trigger }) => {
          if (trigger) h.jwt.push({ account, profile, trigger });
          return token;
        },
      },
      events: { linkAccount: ({ account }) => void linked.push(account as Account) },
    });
    const before = Math.floor(Date.now() / 1000);
    const start = await startSignIn(h.browser, APP, "acme", { callbackUrl: "/home" });
    const authorize = new URL(locationOf(start));
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${srv.origin}/authorize`);
    expect(authorize.searchParams.get("scope")).toBe("read profile"); // no OIDC default scope
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.has("nonce")).toBe(false);
    const callback = await signInThroughFrom(h, start);
    expect(h.errors).toEqual([]);
    expect(locationOf(callback)).toBe(`/welcome?callbackUrl=${encodeURIComponent(`${APP}/home`)}`);
    expect(deletedCookies(callback)).toEqual(["authjs.pkce.code_verifier"]);

    // The signIn callback ran before any user existed (as in Auth.js).
    expect(usersWhenAsked).toEqual([0]);
    expect(store.users.size).toBe(1);
    const stored = store.accounts.get(memoryAccountKey("acme", "4242"));
    expect(stored).toMatchObject({
      provider: "acme",
      type: "oauth",
      providerAccountId: "4242",
      token_type: "bearer",
      refresh_token: "plain-refresh",
    });
    expect(linked).toHaveLength(1);

    const { account, profile, trigger } = h.jwt[0] as Harness["jwt"][number];
    expect(trigger).toBe("signUp");
    expect(profile).toMatchObject({ id: 4242, name: "Ada Lovelace" });
    expect(account).toMatchObject({
      provider: "acme",
      type: "oauth",
      providerAccountId: "4242",
      token_type: "bearer",
      expires_in: 3600,
      scope: "read profile",
      authorization_details: [{ type: "account_information", actions: ["read"] }],
    });
    expect(account?.expires_at).toBeGreaterThanOrEqual(before + 3600);
    expect(account?.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600);
    const session = await sessionOf(h.browser, APP);
    expect(session?.user).toEqual({
      name: "Ada Lovelace",
      email: "ada@example.org",
      image: "https://img.example/ada.png",
    });

    // client_secret_basic, with the secret form-encoded as RFC 6749 §2.3.1 asks.
    const tokenRequest = srv.requests.filter((r) => r.path === "/token").at(-1);
    expect(tokenRequest?.authorization).toBe(`Basic ${btoa("acme-client:acme+secret%2B%2F%3D")}`);
    expect(tokenRequest?.body.client_secret).toBeUndefined();
    expect(tokenRequest?.body.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(h.fetched).toEqual(["POST /token", "GET /me"]);

    // A second sign-in finds the same user: no new user, the callback URL directly.
    const again = new Browser({ [APP]: (r) => Auth(r, h.config) });
    const second = await signInThrough(again, APP, "acme", { callbackUrl: "/home" });
    expect(locationOf(second)).toBe(`${APP}/home`);
    expect(store.users.size).toBe(1);
    expect(h.jwt[1]?.trigger).toBe("signIn");
  });

  it("stores what provider.account picks, while the callbacks see the whole token response", async () => {
    const store = createMemoryStore();
    const h = harness(
      (f) =>
        acme(f, { account: (tokens: Record<string, unknown>) => ({ access_token: tokens.access_token as string }) }),
      {
        adapter: MemoryAdapter(store),
        session: { strategy: "jwt" },
      },
    );
    await signInThrough(h.browser, APP, "acme");
    expect(h.errors).toEqual([]);
    const stored = store.accounts.get(memoryAccountKey("acme", "4242")) as Record<string, unknown>;
    expect(stored.access_token).toBeTruthy();
    expect(stored.refresh_token).toBeUndefined();
    expect(stored.providerAccountId).toBe("4242");
    expect(h.jwt[0]?.account?.refresh_token).toBe("plain-refresh");
  });

  it("stores Auth.js's default account fields for a provider without account(): no expires_in, no provider extras; the callbacks get the whole answer", async () => {
    const store = createMemoryStore();
    const linked: Account[] = [];
    const h = harness((f) => acme(f), {
      adapter: MemoryAdapter(store),
      session: { strategy: "jwt" },
      events: { linkAccount: ({ account }) => void linked.push(account as Account) },
    });
    await signInThrough(h.browser, APP, "acme");
    expect(h.errors).toEqual([]);
    const stored = store.accounts.get(memoryAccountKey("acme", "4242")) as Record<string, unknown>;
    // Auth.js's default account(): access_token, id_token, refresh_token, expires_at, scope,
    // token_type, session_state, those sent (this provider sends no id_token nor session_state),
    // with the account's identity and its user.
    expect(Object.keys(stored).sort()).toEqual(
      [
        "access_token",
        "expires_at",
        "provider",
        "providerAccountId",
        "refresh_token",
        "scope",
        "token_type",
        "type",
        "userId",
      ].sort(),
    );
    expect(stored).toMatchObject({ refresh_token: "plain-refresh", scope: "read profile", token_type: "bearer" });
    expect(typeof stored.expires_at).toBe("number");
    // The linkAccount event gets what was stored, as Auth.js's does; the jwt callback the whole answer.
    expect(linked).toEqual([stored]);
    expect(h.jwt[0]?.account).toMatchObject({
      expires_in: 3600,
      expires_at: stored.expires_at,
      authorization_details: [{ type: "account_information", actions: ["read"] }],
    });
  });

  it("refuses the sign-in when the signIn callback says no, before any user is created", async () => {
    const store = createMemoryStore();
    const h = harness((f) => acme(f), { adapter: MemoryAdapter(store), callbacks: { signIn: () => false } });
    const callback = await signInThrough(h.browser, APP, "acme");
    expect(locationOf(callback)).toBe(`${APP}/auth/error?error=AccessDenied`);
    expect(store.users.size).toBe(0);
    expect(store.accounts.size).toBe(0);
    expect(setCookie(callback, "authjs.session-token")).toBeUndefined();
  });

  it("sends the client secret in the body with client_secret_post", async () => {
    const h = harness((f) =>
      acme(f, { id: "acme-post", client: { token_endpoint_auth_method: "client_secret_post" } }),
    );
    await signInThrough(h.browser, APP, "acme-post");
    expect(h.errors).toEqual([]);
    const tokenRequest = srv.requests.filter((r) => r.path === "/token").at(-1);
    expect(tokenRequest?.authorization).toBeUndefined();
    expect(tokenRequest?.body).toMatchObject({ client_id: "acme-client", client_secret: "acme secret+/=" });
    expect((await sessionOf(h.browser, APP))?.user?.name).toBe("Ada Lovelace");
  });

  it("maps a refused token request to OAuthCallbackError, with the provider's error logged", async () => {
    const h = harness((f) => acme(f, { clientSecret: "wrong" }));
    const callback = await signInThrough(h.browser, APP, "acme");
    expect(locationOf(callback)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(h.errors.at(-1)?.type).toBe("OAuthCallbackError");
    expect(h.errors.at(-1)?.message).toMatch(/invalid_client.*Client authentication failed/);
    expect(await sessionOf(h.browser, APP)).toBeNull();
  });

  it("maps a failing userinfo endpoint to OAuthCallbackError", async () => {
    const h = harness((f) => acme(f));
    srv.failures.set("/me", { status: 503, body: { error: "temporarily_unavailable" } });
    try {
      const callback = await signInThrough(h.browser, APP, "acme");
      expect(locationOf(callback)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
      expect(h.errors.at(-1)?.message).toMatch(/userinfo.*503/);
      expect(await sessionOf(h.browser, APP)).toBeNull();
    } finally {
      srv.failures.delete("/me");
    }
  });

  it("maps the provider's error answer to OAuthCallbackError", async () => {
    const h = harness((f) => acme(f));
    const callback = await signInThrough(h.browser, APP, "acme", { query: { login_hint: "deny" } });
    expect(locationOf(callback)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(h.errors.at(-1)?.message).toMatch(/"access_denied" \(The user said no\)/);
    expect(h.fetched).toEqual([]); // no token request after an error answer
  });

  it("reports a profile() that throws as OAuthProfileParseError (Configuration), without a session", async () => {
    const h = harness((f) =>
      acme(f, {
        profile: () => {
          throw new Error("unexpected shape");
        },
      }),
    );
    const callback = await signInThrough(h.browser, APP, "acme");
    expect(locationOf(callback)).toBe(`${APP}/auth/error?error=Configuration`);
    expect(h.errors.at(-1)?.type).toBe("OAuthProfileParseError");
    expect(h.errors.at(-1)?.message).toMatch(/unexpected shape/);
    expect(await sessionOf(h.browser, APP)).toBeNull();
  });

  it("fills a provider from AUTH_<ID>_ID and AUTH_<ID>_SECRET", async () => {
    const fetched: string[] = [];
    const config: AuthConfig = {
      providers: [
        OAuth({
          id: "acme-env",
          name: "Acme",
          authorization: `${srv.origin}/authorize`,
          token: `${srv.origin}/token`,
          userinfo: `${srv.origin}/me`,
          [customFetch]: recordingFetch(fetched),
        } as Parameters<typeof OAuth>[0]),
      ],
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
    };
    setEnvDefaults(
      { AUTH_SECRET: SECRET, AUTH_ACME_ENV_ID: "acme-client", AUTH_ACME_ENV_SECRET: "acme secret+/=" },
      config,
    );
    const browser = new Browser({ [APP]: (r) => Auth(r, config) });
    const start = await startSignIn(browser, APP, "acme-env");
    expect(new URL(locationOf(start)).searchParams.get("client_id")).toBe("acme-client");
    const callback = await browser.get((await loginAtProvider(browser, locationOf(start), APP)).url);
    expect(locationOf(callback)).toBe(`${APP}/`);
    expect((await sessionOf(browser, APP))?.user?.name).toBe("Ada Lovelace");
  });
});

/** Finishes a flow whose sign-in response is `start`. */
async function signInThroughFrom(h: Harness, start: Response): Promise<Response> {
  const answer = await loginAtProvider(h.browser, locationOf(start), APP);
  return h.browser.get(answer.url);
}

describe("TikTok-shaped provider", () => {
  it("sends client_key, asks for the user-info fields, and signs in without an e-mail", async () => {
    const h = harness(
      (fetched) =>
        TikTok({
          clientId: "tt-client-key",
          clientSecret: "tt-secret",
          authorization: { url: `${srv.origin}/v2/auth/authorize/` },
          token: { url: `${srv.origin}/v2/oauth/token/` },
          userinfo: { url: `${srv.origin}/v2/user/info/` },
          [customFetch]: recordingFetch(fetched),
        } as Parameters<typeof TikTok>[0]) as OAuthConfig,
    );
    const start = await startSignIn(h.browser, APP, "tiktok");
    const authorize = new URL(locationOf(start));
    expect(authorize.pathname).toBe("/v2/auth/authorize/");
    expect(authorize.searchParams.get("client_key")).toBe("tt-client-key");
    expect(authorize.searchParams.get("state")).toBeTruthy();
    const callback = await signInThroughFrom(h, start);
    expect(h.errors).toEqual([]);
    expect(locationOf(callback)).toBe(`${APP}/`);
    expect(deletedCookies(callback)).toContain("authjs.state");

    const tokenRequest = srv.requests.filter((r) => r.path === "/v2/oauth/token/").at(-1);
    expect(tokenRequest?.body).toMatchObject({
      client_key: "tt-client-key",
      client_secret: "tt-secret",
      grant_type: "authorization_code",
    });
    const infoRequest = srv.requests.filter((r) => r.path === "/v2/user/info/").at(-1);
    expect(infoRequest?.query.fields?.split(",")).toEqual(
      expect.arrayContaining(["open_id", "union_id", "avatar_url", "display_name", "username"]),
    );
    // The provider's own requests went through customFetch too.
    expect(h.fetched).toEqual(["POST /v2/oauth/token/", "GET /v2/user/info/"]);

    const { account, profile } = h.jwt[0] as Harness["jwt"][number];
    expect(profile).toMatchObject({
      data: { user: { open_id: "tt-ada", display_name: "Ada on TikTok" } },
      error: { code: "ok" },
    });
    expect(account).toMatchObject({
      provider: "tiktok",
      type: "oauth",
      providerAccountId: "tt-ada",
      token_type: "bearer",
    });
    const session = await sessionOf(h.browser, APP);
    expect(session?.user?.name).toBe("Ada on TikTok");
    expect(session?.user?.email ?? null).toBeNull();
  });
});

describe("VK-shaped provider", () => {
  it("keeps the API version on every URL, conforms the token response, and takes the e-mail from it", async () => {
    const v = "5.131";
    const h = harness(
      (fetched) =>
        VK({
          clientId: "vk-app",
          clientSecret: "vk-secret",
          authorizationUrl: `${srv.origin}/vk/authorize?v=${v}`,
          accessTokenUrl: `${srv.origin}/vk/access_token?v=${v}`,
          profileUrl: `${srv.origin}/vk/method/users.get?v=${v}`,
          [customFetch]: recordingFetch(fetched),
        } as Parameters<typeof VK>[0]) as OAuthConfig,
    );
    const callback = await signInThrough(h.browser, APP, "vk", { query: { login_hint: "ivan" } });
    expect(h.errors).toEqual([]);
    expect(locationOf(callback)).toBe(`${APP}/`);

    const vkRequests = srv.requests.filter((r) => r.path.startsWith("/vk/"));
    expect(vkRequests.map((r) => `${r.method} ${r.path}`).slice(-3)).toEqual([
      "GET /vk/authorize",
      "POST /vk/access_token",
      "GET /vk/method/users.get",
    ]);
    for (const r of vkRequests.slice(-3)) expect(r.query.v).toBe(v);
    expect(vkRequests.at(-1)?.query.fields?.split(",")).toContain("photo_100");
    expect(vkRequests.at(-2)?.body).toMatchObject({ client_id: "vk-app", client_secret: "vk-secret" }); // client_secret_post
    expect(h.fetched).toEqual(["POST /vk/access_token", "GET /vk/method/users.get"]);

    const { account } = h.jwt[0] as Harness["jwt"][number];
    expect(account).toMatchObject({
      provider: "vk",
      providerAccountId: "7",
      token_type: "bearer",
      email: "ivan@vk.example",
    });
    const session = await sessionOf(h.browser, APP);
    expect(session?.user).toEqual({
      name: "Ivan Petrov",
      email: "ivan@vk.example",
      image: "https://vk.example/ivan_100.jpg",
    });
  });
});
