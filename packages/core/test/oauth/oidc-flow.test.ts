/**
 * OpenID Connect sign-in in process (`Auth(new Request)`) against a real OpenID Provider
 * (`oidc-provider` on 127.0.0.1): discovery, PKCE, nonce, id_token, userinfo, form_post,
 * redirect proxy, and the error paths.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthError } from "../../src/errors.js";
import { Auth, type AuthConfig, customFetch, setEnvDefaults } from "../../src/index.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import type { OIDCUserConfig } from "../../src/providers/oauth.js";
import type { Account, Profile } from "../../src/types.js";
import { Browser } from "./support/browser.js";
import {
  closedPort,
  deletedCookies,
  deliver,
  locationOf,
  loginAtProvider,
  SECRET,
  sessionOf,
  setCookie,
  signInThrough,
  startSignIn,
} from "./support/flow.js";
import { startOP, type TestOP } from "./support/op.js";

const APP = "http://localhost:3000";
const PROXY = "http://localhost:4000";
const PROVIDER_IDS = [
  "op",
  "op-b",
  "op-state",
  "op-post",
  "op-public",
  "op-userinfo",
  "op-form",
  "op-apple",
  "op-nononce",
  "op-flaky",
  "op-env",
];

let op: TestOP;
let op2: TestOP;

beforeAll(async () => {
  const redirects = [...PROVIDER_IDS.map((id) => `${APP}/auth/callback/${id}`), `${PROXY}/auth/callback/op-proxy`];
  op = await startOP([
    { client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: redirects },
    {
      client_id: "latchkey-post",
      client_secret: "latchkey-post-secret",
      redirect_uris: redirects,
      token_endpoint_auth_method: "client_secret_post",
    },
    { client_id: "latchkey-public", redirect_uris: redirects, token_endpoint_auth_method: "none" },
    { client_id: "other-app", client_secret: "other-secret", redirect_uris: redirects },
  ]);
  op2 = await startOP([{ client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: redirects }]);
});
afterAll(async () => {
  await op?.close();
  await op2?.close();
});

interface Harness {
  config: AuthConfig;
  errors: AuthError[];
  fetched: string[];
  jwt: Array<{ account?: Account | null; profile?: Profile; trigger?: string }>;
  browser: Browser;
}

/** An app with one OIDC provider "op" (overridable) and a logger that keeps the errors. */
function harness(options: OIDCUserConfig<Profile> & { id?: string } = {}, extra: Partial<AuthConfig> = {}): Harness {
  const errors: AuthError[] = [];
  const fetched: string[] = [];
  const jwt: Harness["jwt"] = [];
  const provider = OIDC({
    id: "op",
    name: "Test OP",
    issuer: op.issuer,
    clientId: "latchkey",
    clientSecret: "latchkey-secret",
    [customFetch]: (input: string | URL | Request, init?: RequestInit) => {
      fetched.push(`${init?.method ?? "GET"} ${new URL(input instanceof Request ? input.url : input).pathname}`);
      return fetch(input, init);
    },
    ...options,
  } as Parameters<typeof OIDC>[0]);
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    providers: [provider],
    logger: { error: (e) => errors.push(e as AuthError), warn: () => {}, debug: () => {} },
    callbacks: {
      jwt: ({ token, account, profile, trigger }) => {
        if (trigger) jwt.push({ account, profile, trigger });
        return token;
      },
    },
    ...extra,
  };
  const browser = new Browser({ [APP]: (r) => Auth(r, config) });
  return { config, errors, fetched, jwt, browser };
}

/** Asserts a failed callback: back to the sign-in page with `error`, no session, the error logged. */
async function expectFailure(
  h: Harness,
  response: Response,
  error: string,
  logged: { type: string; message?: RegExp },
) {
  expect(response.status).toBe(302);
  expect(locationOf(response)).toBe(`${APP}/auth/signin?error=${error}`);
  expect(h.browser.jar(APP).has("authjs.session-token")).toBe(false);
  expect(await sessionOf(h.browser, APP)).toBeNull();
  const last = h.errors.at(-1);
  expect(last?.type).toBe(logged.type);
  if (logged.message) expect(last?.message).toMatch(logged.message);
}

describe("OIDC sign-in against oidc-provider", () => {
  it("redirects to the discovered authorization endpoint with PKCE S256, nonce and the default scope", async () => {
    const h = harness();
    const response = await startSignIn(h.browser, APP, "op");
    expect(response.status).toBe(302);
    const url = new URL(locationOf(response));
    expect(`${url.origin}${url.pathname}`).toBe(`${op.issuer}/auth`);
    const q = url.searchParams;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("client_id")).toBe("latchkey");
    expect(q.get("redirect_uri")).toBe(`${APP}/auth/callback/op`);
    expect(q.get("scope")).toBe("openid profile email");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("nonce")).toBeTruthy();
    expect(q.has("state")).toBe(false); // OIDC default checks: pkce and nonce
    const pkce = setCookie(response, "authjs.pkce.code_verifier");
    const nonce = setCookie(response, "authjs.nonce");
    for (const cookie of [pkce, nonce]) {
      expect(cookie).toMatch(/Max-Age=900/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
    }
    // The cookies are sealed: neither value appears in them.
    expect(pkce).not.toContain(q.get("code_challenge") as string);
    expect(nonce).not.toContain(q.get("nonce") as string);
    expect(h.fetched).toEqual(["GET /.well-known/openid-configuration"]);
  });

  it("completes the flow: session with the user's name and e-mail, check cookies cleared, account per spec §2.3", async () => {
    const signInEvents: unknown[] = [];
    const h = harness({}, { events: { signIn: (m) => void signInEvents.push(m) } });
    const before = Math.floor(Date.now() / 1000);
    const callback = await signInThrough(h.browser, APP, "op", { callbackUrl: "/dashboard" });
    expect(callback.status).toBe(302);
    expect(locationOf(callback)).toBe(`${APP}/dashboard`);
    expect(deletedCookies(callback).sort()).toEqual(["authjs.nonce", "authjs.pkce.code_verifier"]);
    expect(setCookie(callback, "authjs.session-token")).toBeTruthy();
    expect(h.browser.jar(APP).has("authjs.pkce.code_verifier")).toBe(false);
    expect(h.browser.jar(APP).has("authjs.nonce")).toBe(false);

    const session = await sessionOf(h.browser, APP);
    expect(session?.user).toEqual({
      name: "Alice Liddell",
      email: "alice@example.com",
      image: "https://img.example/alice.png",
    });

    expect(h.jwt).toHaveLength(1);
    const { account, profile, trigger } = h.jwt[0] as Harness["jwt"][number];
    expect(trigger).toBe("signIn");
    expect(profile?.sub).toBe("alice");
    expect(profile?.iss).toBe(op.issuer);
    expect(account).toMatchObject({ provider: "op", type: "oidc", providerAccountId: "alice", token_type: "bearer" });
    expect(typeof account?.access_token).toBe("string");
    expect(typeof account?.id_token).toBe("string");
    expect(account?.expires_at).toBeGreaterThanOrEqual(before + (account?.expires_in as number));
    expect(account?.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + (account?.expires_in as number));
    expect(signInEvents).toHaveLength(1);
    // Every provider request went through customFetch (the JWKS too, for the id_token signature); the id_token carried the profile, so no userinfo.
    expect(h.fetched).toEqual(["GET /.well-known/openid-configuration", "POST /token", "GET /jwks"]);
    expect(h.errors).toEqual([]);
  });

  it("honours the redirect callback", async () => {
    const seen: Array<{ url: string; baseUrl: string }> = [];
    const h = harness(
      {},
      {
        callbacks: {
          redirect: ({ url, baseUrl }) => {
            seen.push({ url, baseUrl });
            if (url.startsWith(`${baseUrl}/welcome`)) return url;
            return `${baseUrl}/welcome?from=${new URL(url, baseUrl).pathname.slice(1)}`;
          },
        },
      },
    );
    const callback = await signInThrough(h.browser, APP, "op", { callbackUrl: "/account" });
    expect(locationOf(callback)).toBe(`${APP}/welcome?from=account`);
    expect(seen[0]).toEqual({ url: "/account", baseUrl: APP });
    expect((await sessionOf(h.browser, APP))?.user?.email).toBe("alice@example.com");
  });

  it("passes login_hint and other caller parameters through, but never reserved ones", async () => {
    const h = harness();
    const start = await startSignIn(h.browser, APP, "op", {
      query: {
        login_hint: "bob",
        ui_locales: "de",
        redirect_uri: "https://evil.example/cb",
        state: "forged",
        client_id: "other-app",
      },
    });
    const url = new URL(locationOf(start));
    expect(url.searchParams.get("login_hint")).toBe("bob");
    expect(url.searchParams.get("ui_locales")).toBe("de");
    expect(url.searchParams.get("redirect_uri")).toBe(`${APP}/auth/callback/op`);
    expect(url.searchParams.get("client_id")).toBe("latchkey");
    expect(url.searchParams.has("state")).toBe(false);
    const callback = await deliver(h.browser, await loginAtProvider(h.browser, url.href, APP));
    expect(callback.status).toBe(302);
    expect((await sessionOf(h.browser, APP))?.user).toMatchObject({ name: "Bob Builder", email: "bob@example.com" });
  });

  it("adds authorization.params and lets the provider's scope replace the default", async () => {
    const h = harness({ authorization: { params: { scope: "openid email", prompt: "consent" } } });
    const url = new URL(locationOf(await startSignIn(h.browser, APP, "op")));
    expect(url.searchParams.get("scope")).toBe("openid email");
    expect(url.searchParams.get("prompt")).toBe("consent");
    const callback = await deliver(h.browser, await loginAtProvider(h.browser, url.href, APP));
    expect(callback.status).toBe(302);
    expect((await sessionOf(h.browser, APP))?.user?.email).toBe("alice@example.com");
  });

  it("authenticates with client_secret_post and as a public client (none)", async () => {
    for (const [id, client] of [
      [
        "op-post",
        {
          clientId: "latchkey-post",
          clientSecret: "latchkey-post-secret",
          client: { token_endpoint_auth_method: "client_secret_post" as const },
        },
      ],
      [
        "op-public",
        {
          clientId: "latchkey-public",
          clientSecret: undefined,
          client: { token_endpoint_auth_method: "none" as const },
        },
      ],
    ] as const) {
      const h = harness({ id, ...client });
      const callback = await signInThrough(h.browser, APP, id);
      expect(h.errors).toEqual([]);
      expect(locationOf(callback)).toBe(`${APP}/`);
      expect((await sessionOf(h.browser, APP))?.user?.name).toBe("Alice Liddell");
    }
  });

  it("reads the profile from userinfo when idToken is false", async () => {
    const h = harness({
      id: "op-userinfo",
      idToken: false,
      profile: (p) => ({ id: p.sub ?? undefined, name: `${p.name} (userinfo)`, email: p.email }),
    });
    await signInThrough(h.browser, APP, "op-userinfo");
    expect(h.errors).toEqual([]);
    expect(h.fetched).toEqual(["GET /.well-known/openid-configuration", "POST /token", "GET /jwks", "GET /me"]);
    expect((await sessionOf(h.browser, APP))?.user?.name).toBe("Alice Liddell (userinfo)");
  });

  it("accepts the answer as a form POST (response_mode=form_post) with SameSite=None check cookies", async () => {
    const h = harness({ id: "op-form", authorization: { params: { response_mode: "form_post" } } });
    const start = await startSignIn(h.browser, APP, "op-form");
    expect(setCookie(start, "authjs.pkce.code_verifier")).toMatch(/SameSite=None/);
    expect(setCookie(start, "authjs.pkce.code_verifier")).toMatch(/Secure/);
    const answer = await loginAtProvider(h.browser, locationOf(start), APP);
    expect(answer.form?.code).toBeTruthy();
    const callback = await deliver(h.browser, answer);
    expect(h.errors).toEqual([]);
    expect(callback.status).toBe(302);
    expect((await sessionOf(h.browser, APP))?.user?.email).toBe("alice@example.com");
  });

  it("hands only the name of Apple's one-time, unsigned `user` form field to profile(), never an e-mail and never over id_token claims", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const h = harness({
      id: "op-apple",
      authorization: { params: { response_mode: "form_post" } },
      profile: (p) => {
        seen.push(p);
        const user = p.user as { name?: { firstName?: string; lastName?: string } } | undefined;
        return { id: p.sub ?? undefined, name: `${user?.name?.firstName} ${user?.name?.lastName}`, email: p.email };
      },
    });
    const start = await startSignIn(h.browser, APP, "op-apple");
    const answer = await loginAtProvider(h.browser, locationOf(start), APP);
    const user = JSON.stringify({ name: { firstName: "Alice", lastName: "Liddell" }, email: "forged@evil.example" });
    const callback = await deliver(h.browser, { ...answer, form: { ...answer.form, user } });
    expect(h.errors).toEqual([]);
    expect(callback.status).toBe(302);
    expect(seen[0]?.user).toEqual({ name: { firstName: "Alice", lastName: "Liddell" } });
    // the signed claims stay what the provider said
    expect(String(seen[0]?.email).toLowerCase()).toBe("alice@example.com");
    expect((await sessionOf(h.browser, APP))?.user).toMatchObject({
      name: "Alice Liddell",
      email: "alice@example.com",
    });
  });

  it("caches discovery per provider and discovers again after a failed lookup", async () => {
    let failNext = true;
    const h = harness({
      id: "op-flaky",
      [customFetch]: async (input: string | URL | Request, init?: RequestInit) => {
        const path = new URL(input instanceof Request ? input.url : input).pathname;
        if (path.endsWith("/openid-configuration")) {
          h.fetched.push("discovery");
          if (failNext) {
            failNext = false;
            throw new TypeError("fetch failed");
          }
        }
        return fetch(input, init);
      },
    } as OIDCUserConfig<Profile>);
    const first = await startSignIn(h.browser, APP, "op-flaky");
    expect(locationOf(first)).toBe(`${APP}/auth/signin?error=OAuthSignin`);
    expect(h.errors.at(-1)?.type).toBe("OAuthSignInError");
    await signInThrough(h.browser, APP, "op-flaky");
    await signInThrough(new Browser({ [APP]: (r) => Auth(r, h.config) }), APP, "op-flaky");
    // One failed lookup, then one that is reused by two sign-ins and their callbacks.
    expect(h.fetched).toEqual(["discovery", "discovery"]);
    expect((await sessionOf(h.browser, APP))?.user?.name).toBe("Alice Liddell");
  });

  it("goes through a redirect proxy: redirect_uri is the proxy's, the proxy forwards to the deployment", async () => {
    const h = harness({ id: "op-proxy" }, { redirectProxyUrl: `${PROXY}/auth` });
    const browser = new Browser({ [APP]: (r) => Auth(r, h.config), [PROXY]: (r) => Auth(r, h.config) });
    const start = await startSignIn(browser, APP, "op-proxy");
    const url = new URL(locationOf(start));
    expect(url.searchParams.get("redirect_uri")).toBe(`${PROXY}/auth/callback/op-proxy`);
    expect(url.searchParams.get("state")).toBeTruthy(); // turned on by the proxy
    const atProxy = await browser.follow(url.href, (next) => next.startsWith(PROXY));
    const forwarded = await browser.get(atProxy.url);
    const back = locationOf(forwarded);
    expect(back.startsWith(`${APP}/auth/callback/op-proxy?`)).toBe(true);
    const callback = await browser.get(back);
    expect(h.errors).toEqual([]);
    expect(locationOf(callback)).toBe(`${APP}/`);
    expect((await sessionOf(browser, APP))?.user?.name).toBe("Alice Liddell");
  });
});

describe("environment", () => {
  it("fills an OIDC provider's clientId, clientSecret and issuer from AUTH_<ID>_ID, _SECRET and _ISSUER", async () => {
    const config: AuthConfig = {
      providers: [{ id: "op-env", name: "From env", type: "oidc" }],
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
    };
    setEnvDefaults(
      {
        AUTH_SECRET: SECRET,
        AUTH_OP_ENV_ID: "latchkey",
        AUTH_OP_ENV_SECRET: "latchkey-secret",
        AUTH_OP_ENV_ISSUER: op.issuer,
      },
      config,
    );
    const browser = new Browser({ [APP]: (r) => Auth(r, config) });
    const start = await startSignIn(browser, APP, "op-env");
    const url = new URL(locationOf(start));
    expect(url.origin).toBe(op.issuer);
    expect(url.searchParams.get("client_id")).toBe("latchkey");
    const callback = await deliver(browser, await loginAtProvider(browser, url.href, APP));
    expect(locationOf(callback)).toBe(`${APP}/`);
    expect((await sessionOf(browser, APP))?.user?.email).toBe("alice@example.com");
  });
});

describe("attacks on the OIDC flow end without a session", () => {
  it("refuses a callback without state", async () => {
    const h = harness({ id: "op-state", checks: ["pkce", "state", "nonce"] });
    const answer = await loginAtProvider(h.browser, locationOf(await startSignIn(h.browser, APP, "op-state")), APP);
    const url = new URL(answer.url);
    expect(url.searchParams.get("state")).toBeTruthy();
    url.searchParams.delete("state");
    const callback = await h.browser.get(url.href);
    await expectFailure(h, callback, "OAuthCallbackError", { type: "InvalidCheck", message: /no state/ });
    expect(deletedCookies(callback).sort()).toEqual(["authjs.nonce", "authjs.pkce.code_verifier", "authjs.state"]);
  });

  it("refuses a mismatched state (a callback meant for another browser: login CSRF)", async () => {
    const h = harness({ id: "op-state", checks: ["pkce", "state", "nonce"] });
    const attacker = new Browser({ [APP]: (r) => Auth(r, h.config) });
    const attackersAnswer = await loginAtProvider(
      attacker,
      locationOf(await startSignIn(attacker, APP, "op-state")),
      APP,
    );
    await startSignIn(h.browser, APP, "op-state"); // the victim has check cookies of their own
    const callback = await h.browser.get(attackersAnswer.url);
    await expectFailure(h, callback, "OAuthCallbackError", { type: "InvalidCheck", message: /does not match/ });
  });

  it("refuses a replayed state (the check cookie is gone after the first callback)", async () => {
    const h = harness({ id: "op-state", checks: ["pkce", "state", "nonce"] });
    const answer = await loginAtProvider(h.browser, locationOf(await startSignIn(h.browser, APP, "op-state")), APP);
    const first = await h.browser.get(answer.url);
    expect(locationOf(first)).toBe(`${APP}/`);
    // Sign out, then replay the same callback URL.
    h.browser.jar(APP).delete("authjs.session-token");
    const replay = await h.browser.get(answer.url);
    await expectFailure(h, replay, "OAuthCallbackError", { type: "InvalidCheck", message: /cookie is missing/ });
  });

  it("refuses a PKCE cookie made for another provider", async () => {
    const h = harness();
    const other = harness({ id: "op-b" });
    // A PKCE cookie minted (by the same application, same secret) for provider "op-b".
    await startSignIn(other.browser, APP, "op-b");
    const foreign = other.browser.jar(APP).get("authjs.pkce.code_verifier") as string;
    expect(foreign).toBeTruthy();
    const answer = await loginAtProvider(h.browser, locationOf(await startSignIn(h.browser, APP, "op")), APP);
    h.browser.jar(APP).set("authjs.pkce.code_verifier", foreign);
    const callback = await h.browser.get(answer.url);
    await expectFailure(h, callback, "OAuthCallbackError", {
      type: "InvalidCheck",
      message: /PKCE code_verifier cookie was made for another provider/,
    });
  });

  it("refuses a callback without the PKCE cookie", async () => {
    const h = harness();
    const answer = await loginAtProvider(h.browser, locationOf(await startSignIn(h.browser, APP, "op")), APP);
    h.browser.jar(APP).delete("authjs.pkce.code_verifier");
    const callback = await h.browser.get(answer.url);
    await expectFailure(h, callback, "OAuthCallbackError", {
      type: "InvalidCheck",
      message: /PKCE code_verifier cookie is missing/,
    });
  });

  it("refuses a replayed code (the whole callback request, cookies included)", async () => {
    const h = harness();
    const answer = await loginAtProvider(h.browser, locationOf(await startSignIn(h.browser, APP, "op")), APP);
    const cookies = [...h.browser.jar(APP)].map(([k, v]) => `${k}=${v}`).join("; ");
    const first = await h.browser.get(answer.url);
    expect(locationOf(first)).toBe(`${APP}/`);
    const attacker = new Browser({ [APP]: (r) => Auth(r, h.config) });
    const replay = await attacker.get(answer.url, { cookie: cookies });
    expect(replay.status).toBe(302);
    expect(locationOf(replay)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(setCookie(replay, "authjs.session-token")).toBeUndefined();
    expect(h.errors.at(-1)?.type).toBe("OAuthCallbackError");
    expect(h.errors.at(-1)?.message).toMatch(/invalid_grant/);
  });

  /** Runs a flow whose token response gets the id_token of `source` (a real token from a real provider). */
  async function withSwappedIdToken(source: { issuer: string; clientId: string; clientSecret: string }) {
    // Obtain a genuine id_token issued to `source`: sign in there with an app that records it.
    let stolen: string | undefined;
    const donor = harness({
      id: "op-nononce",
      issuer: source.issuer,
      clientId: source.clientId,
      clientSecret: source.clientSecret,
      checks: ["pkce"],
      [customFetch]: async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        if (new URL(input instanceof Request ? input.url : input).pathname === "/token") {
          stolen = ((await response.clone().json()) as { id_token: string }).id_token;
        }
        return response;
      },
    } as OIDCUserConfig<Profile>);
    await signInThrough(donor.browser, APP, "op-nononce");
    expect(donor.errors).toEqual([]);
    expect(stolen).toBeTruthy();

    // The victim app's token response is rewritten on the way (a man in the middle).
    const h = harness({
      id: "op-nononce",
      checks: ["pkce"],
      [customFetch]: async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        if (new URL(input instanceof Request ? input.url : input).pathname !== "/token") return response;
        const body = (await response.json()) as Record<string, unknown>;
        return new Response(JSON.stringify({ ...body, id_token: stolen }), {
          status: 200,
          headers: { "content-type": "application/json" },
        });
      },
    } as OIDCUserConfig<Profile>);
    const callback = await signInThrough(h.browser, APP, "op-nononce");
    return { h, callback };
  }

  it("refuses an id_token issued to another client (audience)", async () => {
    const { h, callback } = await withSwappedIdToken({
      issuer: op.issuer,
      clientId: "other-app",
      clientSecret: "other-secret",
    });
    await expectFailure(h, callback, "OAuthCallbackError", { type: "OAuthCallbackError", message: /"aud"/ });
  });

  it("refuses an id_token from another issuer", async () => {
    const { h, callback } = await withSwappedIdToken({
      issuer: op2.issuer,
      clientId: "latchkey",
      clientSecret: "latchkey-secret",
    });
    await expectFailure(h, callback, "OAuthCallbackError", { type: "OAuthCallbackError", message: /"iss"/ });
  });

  it("refuses an id_token whose nonce is not this flow's", async () => {
    // A genuine id_token for this very client, but from another sign-in with its own nonce.
    let stolen: string | undefined;
    const recorder = harness({
      [customFetch]: async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        if (new URL(input instanceof Request ? input.url : input).pathname === "/token") {
          stolen = ((await response.clone().json()) as { id_token: string }).id_token;
        }
        return response;
      },
    } as OIDCUserConfig<Profile>);
    await signInThrough(recorder.browser, APP, "op");
    expect(stolen).toBeTruthy();
    const victim = harness({
      [customFetch]: async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        if (new URL(input instanceof Request ? input.url : input).pathname !== "/token") return response;
        const body = (await response.json()) as Record<string, unknown>;
        return new Response(JSON.stringify({ ...body, id_token: stolen }), {
          status: 200,
          headers: { "content-type": "application/json" },
        });
      },
    } as OIDCUserConfig<Profile>);
    const callback = await signInThrough(victim.browser, APP, "op");
    await expectFailure(victim, callback, "OAuthCallbackError", { type: "OAuthCallbackError", message: /"nonce"/ });
  });

  it("maps the provider's error response to OAuthCallbackError and logs its values", async () => {
    const h = harness();
    const start = await startSignIn(h.browser, APP, "op", { query: { login_hint: "deny" } });
    const answer = await loginAtProvider(h.browser, locationOf(start), APP);
    expect(new URL(answer.url).searchParams.get("error")).toBe("access_denied");
    const callback = await h.browser.get(answer.url);
    await expectFailure(h, callback, "OAuthCallbackError", {
      type: "OAuthCallbackError",
      message: /access_denied.*The user declined/,
    });
    expect(h.errors.at(-1)?.cause).toMatchObject({
      provider: "op",
      error: "access_denied",
      error_description: "The user declined",
    });
    expect(deletedCookies(callback).sort()).toEqual(["authjs.nonce", "authjs.pkce.code_verifier"]);
  });

  it("sends the user back with OAuthSignin when the provider is down at sign-in", async () => {
    const port = await closedPort();
    const h = harness({ id: "op-down", issuer: `http://127.0.0.1:${port}` });
    const response = await startSignIn(h.browser, APP, "op-down");
    expect(response.status).toBe(302);
    expect(locationOf(response)).toBe(`${APP}/auth/signin?error=OAuthSignin`);
    expect(setCookie(response, "authjs.pkce.code_verifier")).toBeUndefined();
    expect(h.errors.at(-1)?.type).toBe("OAuthSignInError");
  });

  it("sends the user back with OAuthCallbackError when the provider goes down before the token request", async () => {
    const redirect = `${APP}/auth/callback/op-gone`;
    const doomed = await startOP([
      { client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: [redirect] },
    ]);
    const h = harness({ id: "op-gone", issuer: doomed.issuer });
    const answer = await loginAtProvider(h.browser, locationOf(await startSignIn(h.browser, APP, "op-gone")), APP);
    await doomed.close();
    const callback = await h.browser.get(answer.url);
    await expectFailure(h, callback, "OAuthCallbackError", {
      type: "OAuthCallbackError",
      message: /could not be reached/,
    });
  });

  it("does not use plain http for a provider that is not on a loopback host", async () => {
    const h = harness({ id: "op-insecure", issuer: "http://op.example.test" });
    const response = await startSignIn(h.browser, APP, "op-insecure");
    expect(locationOf(response)).toBe(`${APP}/auth/signin?error=OAuthSignin`);
    expect(h.errors.at(-1)?.message).toMatch(/https/i);
    expect(h.fetched).toEqual([]); // refused before any request
  });
});
