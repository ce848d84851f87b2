/**
 * A flow finishes only in the browser that began it (RFC 9700 §4.7), in process over https (the
 * cookie names a deployment really uses) against a real OpenID Provider (oidc-provider): the
 * `__Host-` names no sibling sub-domain can set, the binding cookie a form_post callback still
 * carries, the redirect proxy's state, and WebAuthn registration (a passkey joins a signed-in user
 * only under the session its options were made under). The attacks over Express on http are in
 * packages/express/test/flow-binding.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Auth, type AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import { Browser } from "../oauth/support/browser.js";
import {
  deliver,
  locationOf,
  loginAtProvider,
  SECRET,
  sessionOf,
  signInThrough,
  startSignIn,
} from "../oauth/support/flow.js";
import { startOP, type TestOP } from "../oauth/support/op.js";
import { SoftAuthenticator } from "../webauthn/soft-authenticator.js";
import {
  CookieJar,
  errorOf,
  getOptions,
  ORIGIN,
  sessionOf as passkeySessionOf,
  postCredential,
  SESSION_COOKIE,
  setup,
} from "../webauthn/support.js";

const APP = "https://app.example";
const PROXY = "https://auth.example";
let op: TestOP;

beforeAll(async () => {
  op = await startOP([
    {
      client_id: "latchkey",
      client_secret: "latchkey-secret",
      redirect_uris: [`${APP}/auth/callback/op`, `${APP}/auth/callback/op-form`, `${PROXY}/auth/callback/op-proxy`],
    },
  ]);
});
afterAll(() => op?.close());

function app(extra: Partial<AuthConfig> = {}) {
  const errors: Array<{ type?: string; message: string }> = [];
  const oidc = (id: string, more: Record<string, unknown> = {}) =>
    OIDC({
      id,
      name: id,
      issuer: op.issuer,
      clientId: "latchkey",
      clientSecret: "latchkey-secret",
      checks: ["pkce", "state", "nonce"],
      ...more,
    });
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(createMemoryStore()),
    providers: [
      oidc("op"),
      oidc("op-form", { authorization: { params: { response_mode: "form_post" } } }),
      oidc("op-proxy", { redirectProxyUrl: `${PROXY}/auth` }),
    ],
    logger: { error: (e) => void errors.push(e as { type?: string; message: string }), warn() {}, debug() {} },
    ...extra,
  };
  const browser = () => new Browser({ [APP]: (r) => Auth(r, config), [PROXY]: (r) => Auth(r, config) });
  return { config, errors, browser };
}

/** The attributes of the Set-Cookie line for `name`, lower-cased, or undefined. */
function attributesOf(response: Response, name: string): string[] | undefined {
  const line = response.headers.getSetCookie().find((l) => l.startsWith(`${name}=`));
  return line
    ?.split(";")
    .slice(1)
    .map((a) => a.trim().toLowerCase());
}

describe("rule: on https the check cookies and the binding cookie are __Host- (no sibling sub-domain can set them)", () => {
  it("a sign-in start sets __Host- check cookies and a __Host- binding cookie: Secure, Path=/, no Domain", async () => {
    const { browser } = app();
    const b = browser();
    const start = await startSignIn(b, APP, "op");
    for (const name of ["__Host-authjs.state", "__Host-authjs.pkce.code_verifier", "__Host-authjs.nonce"]) {
      const attributes = attributesOf(start, name);
      expect(attributes, name).toEqual(expect.arrayContaining(["path=/", "secure", "httponly"]));
      expect(attributes?.some((a) => a.startsWith("domain="))).toBe(false);
    }
    const binding = attributesOf(start, "__Host-authjs.binding");
    expect(binding).toEqual(expect.arrayContaining(["path=/", "secure", "httponly", "samesite=none"]));
    expect(binding?.some((a) => a.startsWith("domain="))).toBe(false);
    // The session cookie keeps Auth.js's name, so users stay signed in across the move.
    const done = await deliver(b, await loginAtProvider(b, locationOf(start), APP));
    expect(locationOf(done)).toBe(`${APP}/`);
    expect(b.jar(APP).has("__Secure-authjs.session-token")).toBe(true);
  });

  it("a response_mode=form_post callback (a cross-site POST, which carries SameSite=None cookies only) finishes", async () => {
    const { browser } = app();
    const b = browser();
    const start = await startSignIn(b, APP, "op-form");
    expect(attributesOf(start, "__Host-authjs.state")).toContain("samesite=none");
    const answer = await loginAtProvider(b, locationOf(start), APP);
    expect(answer.form).toBeDefined();
    const done = await deliver(b, answer);
    expect(locationOf(done)).toBe(`${APP}/`);
    expect((await sessionOf(b, APP))?.user?.email).toBe("alice@example.com");
  });

  it("attack: check cookies under the old __Secure- names (what a sibling can plant) are not read", async () => {
    const { browser, errors } = app();
    const attacker = browser();
    const start = await startSignIn(attacker, APP, "op");
    const answer = await loginAtProvider(attacker, locationOf(start), APP);
    const victim = browser();
    await startSignIn(victim, APP, "op"); // her own binding cookie
    for (const role of ["state", "pkce.code_verifier", "nonce"]) {
      victim.jar(APP).set(`__Secure-authjs.${role}`, attacker.jar(APP).get(`__Host-authjs.${role}`) as string);
      victim.jar(APP).delete(`__Host-authjs.${role}`);
    }
    const callback = await victim.get(answer.url);
    expect(locationOf(callback)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(errors.at(-1)).toMatchObject({ type: "InvalidCheck" });
    expect(await sessionOf(victim, APP)).toBeNull();
  });
});

describe("rule: a cookie name is read exactly as sent, with only SP and HTAB around it (no prefix bypass by whitespace)", () => {
  // Cookie Crumbles (Squarcina et al., USENIX Security 2023): a browser stores a cookie named
  // "\u00a0__Host-…" from a sibling sub-domain (its name has no prefix), and a server whose parser
  // trims Unicode whitespace reads it as the __Host- cookie. Chromium sends the byte 0xA0 as is; Node
  // reads header bytes as latin1, so the name arrives as "\u00a0__Host-authjs.binding".
  it("attack: a sibling plants the attacker's binding and check cookies under NBSP-prefixed names: the victim's browser is not signed in as him", async () => {
    const { browser, errors } = app();
    const attacker = browser();
    const start = await startSignIn(attacker, APP, "op");
    const answer = await loginAtProvider(attacker, locationOf(start), APP);
    const victim = browser(); // a browser that never began a flow here: no binding cookie of its own
    for (const role of ["binding", "state", "pkce.code_verifier", "nonce"]) {
      victim.jar(APP).set(`\u00a0__Host-authjs.${role}`, attacker.jar(APP).get(`__Host-authjs.${role}`) as string);
    }
    const callback = await victim.get(answer.url);
    expect(locationOf(callback)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(errors.at(-1)).toMatchObject({ type: "InvalidCheck" });
    expect(await sessionOf(victim, APP)).toBeNull();
  });
});

describe("rule: the redirect proxy's state is bound to the browser that began the sign-in", () => {
  it("honest: a sign-in through the proxy finishes in the browser that began it", async () => {
    const { browser, errors } = app();
    const b = browser();
    const start = await startSignIn(b, APP, "op-proxy");
    const atProxy = await b.follow(locationOf(start), (next) => next.startsWith(PROXY));
    const back = locationOf(await b.get(atProxy.url));
    expect(back.startsWith(`${APP}/auth/callback/op-proxy?`)).toBe(true);
    expect(locationOf(await b.get(back))).toBe(`${APP}/`);
    expect(errors).toEqual([]);
  });

  it("attack: the attacker's forwarded callback with his state cookie planted in the victim's browser is refused", async () => {
    const { browser, errors } = app();
    const attacker = browser();
    const start = await startSignIn(attacker, APP, "op-proxy");
    const atProxy = await attacker.follow(locationOf(start), (next) => next.startsWith(PROXY));
    const back = locationOf(await attacker.get(atProxy.url));
    const victim = browser();
    await startSignIn(victim, APP, "op-proxy");
    for (const name of ["__Host-authjs.state", "__Host-authjs.pkce.code_verifier", "__Host-authjs.nonce"]) {
      victim.jar(APP).set(name, attacker.jar(APP).get(name) as string);
    }
    const callback = await victim.get(back);
    expect(locationOf(callback)).toBe(`${APP}/auth/signin?error=OAuthCallbackError`);
    expect(errors.at(-1)?.message).toMatch(/made in another browser/);
    expect(await sessionOf(victim, APP)).toBeNull();
  });
});

describe("rule: a passkey joins a signed-in user only under the session its options were made under", () => {
  async function signedUp(ctx: ReturnType<typeof setup>) {
    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar, { email: "ada@example.com" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    expect(errorOf(await postCredential(ctx.config, jar, "register", credential))).toBeNull();
    return jar;
  }

  it("honest: a signed-in user adds a passkey", async () => {
    const ctx = setup();
    const jar = await signedUp(ctx);
    const { body } = await getOptions(ctx.config, jar, { action: "register" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    expect(errorOf(await postCredential(ctx.config, jar, "register", credential))).toBeNull();
    expect(ctx.store.authenticators.size).toBe(2);
  });

  it("attack: options made under one session and finished under another (a planted or replaced session) store nothing", async () => {
    const ctx = setup();
    const jar = await signedUp(ctx);
    const { body } = await getOptions(ctx.config, jar, { action: "register" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    // Another user's session cookie takes the place of hers before the callback.
    const other = new CookieJar();
    const { body: theirs } = await getOptions(ctx.config, other, { email: "mallory@example.com" });
    const own = await new SoftAuthenticator(ORIGIN).create(theirs.options as never);
    await postCredential(ctx.config, other, "register", own);
    jar.cookies.set(SESSION_COOKIE, other.get(SESSION_COOKIE) as string);
    const response = await postCredential(ctx.config, jar, "register", credential);
    expect(errorOf(response)).toBe("OAuthCallbackError"); // InvalidCheck
    expect(ctx.log.errors.at(-1)?.message).toMatch(/not finished under the session it began under/);
    expect(ctx.store.authenticators.size).toBe(2);
  });

  it("attack: a session cookie sent twice (a sibling's longer-Path copy) at the callback stores nothing", async () => {
    const ctx = setup();
    const jar = await signedUp(ctx);
    const { body } = await getOptions(ctx.config, jar, { action: "register" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    const planted = `${SESSION_COOKIE}=${"x".repeat(36)}; ${jar.header()}`;
    const token = (await (
      await Auth(new Request(`${ORIGIN}/auth/csrf`, { headers: { cookie: jar.header() } }), ctx.config)
    ).json()) as {
      csrfToken: string;
    };
    const response = await Auth(
      new Request(`${ORIGIN}/auth/callback/passkey`, {
        method: "POST",
        headers: { cookie: planted, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken: token.csrfToken, action: "register", data: JSON.stringify(credential) }),
      }),
      ctx.config,
    );
    expect(errorOf(response)).toBe("OAuthCallbackError");
    expect(ctx.store.authenticators.size).toBe(1);
    expect((await passkeySessionOf(ctx.config, jar))?.user?.email).toBe("ada@example.com");
  });

  it("attack: a registration challenge made in another browser is refused", async () => {
    const ctx = setup();
    const attacker = new CookieJar();
    const { body } = await getOptions(ctx.config, attacker, { email: "mallory@example.com" });
    const credential = await new SoftAuthenticator(ORIGIN).create(body.options as never);
    const victim = new CookieJar();
    await getOptions(ctx.config, victim, { action: "authenticate" }); // her own binding cookie
    victim.cookies.set("authjs.challenge", attacker.get("authjs.challenge") as string);
    const response = await postCredential(ctx.config, victim, "register", credential);
    expect(errorOf(response)).toBe("OAuthCallbackError");
    expect(ctx.log.errors.at(-1)?.message).toMatch(/another browser/);
    expect(ctx.store.users.size).toBe(0);
  });
});

describe("a signed-in sign-in without connect", () => {
  it("switches to the account's own user and leaves the first user's accounts as they were", async () => {
    const { browser, config } = app();
    const b = browser();
    await signInThrough(b, APP, "op", { query: { login_hint: "alice" } });
    b.jars.delete(new URL(op.issuer).host);
    await signInThrough(b, APP, "op", { query: { login_hint: "bob" } });
    expect((await sessionOf(b, APP))?.user?.email).toBe("bob@example.com");
    const alice = await config.adapter?.getUserByAccount?.({ provider: "op", providerAccountId: "alice" });
    const bob = await config.adapter?.getUserByAccount?.({ provider: "op", providerAccountId: "bob" });
    expect(bob?.id).not.toBe(alice?.id);
  });
});
