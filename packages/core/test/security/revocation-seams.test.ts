/**
 * Adversarial review (feat-n): the rule "a revoked session is refused however often and wherever
 * it is replayed" (docs/security.md, "Revocation of JWT sessions") attacked through the readers of
 * the session cookie that live OUTSIDE `readJwtSession`:
 *
 * - `getAccessToken` (`@latchkey/core/access-token`) opens the cookie with `decodeSessionToken`
 *   and never asks the revocation list;
 * - `currentUser` (`lib/flows/handle-login.ts`), which decides "the signed-in user" that a new
 *   OAuth account or passkey is linked to, does the same.
 *
 * Threat: an attacker who copied a victim's session cookie. The victim (or the operator) revokes
 * it (sign-out, "sign out everywhere", revokeJwtSession). The attacker keeps the copy.
 *
 * Real components: the `oidc-provider` OpenID Provider on loopback, issuing refresh tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAccessToken } from "../../src/access-token.js";
import { Auth, type AuthConfig } from "../../src/index.js";
import { decode, encode, getToken } from "../../src/jwt.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import {
  MemoryRevocationStore,
  type RevocationListener,
  revokeJwtSession,
  revokeUserSessions,
} from "../../src/revocation.js";
import { Browser } from "../oauth/support/browser.js";
import { SECRET, signInThrough } from "../oauth/support/flow.js";
import { type RefreshingOP, startRefreshingOP } from "../oauth/support/refreshing-op.js";

const APP = "http://localhost:3000";
const COOKIE = "authjs.session-token";
const quiet = { error() {}, warn() {}, debug() {} };
let op: RefreshingOP;

beforeAll(async () => {
  op = await startRefreshingOP();
});
afterAll(async () => {
  await op?.close();
});

function appConfig(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [
      OIDC({ id: "op", name: "Test OP", issuer: op.issuer, clientId: "latchkey", clientSecret: "latchkey-secret" }),
    ],
    logger: quiet,
    rateLimit: false,
    ...extra,
  } as AuthConfig;
}

async function signedInBrowser(config: AuthConfig, login: string): Promise<Browser> {
  const browser = new Browser({ [APP]: (r) => Auth(r, config) });
  const response = await signInThrough(browser, APP, "op", { query: { login_hint: login } });
  expect(response.status).toBe(302);
  expect(browser.jar(APP).get(COOKIE), "signed in").toBeTruthy();
  return browser;
}

const request = (cookieHeader: string) => ({ protocol: "http:", host: "localhost:3000", cookieHeader });

async function sessionOf(config: AuthConfig, token: string) {
  const response = await Auth(
    new Request(`${APP}/auth/session`, { headers: { cookie: `${COOKIE}=${token}` } }),
    config,
  );
  return (await response.json()) as { user?: { email?: string } } | null;
}

/** A store whose push channel the test can report lost (`down`), as a real store does on an outage. */
class LosableStore extends MemoryRevocationStore {
  #listener: RevocationListener | undefined;
  override async subscribe(listener: RevocationListener) {
    this.#listener = listener;
    await super.subscribe(listener);
  }
  down() {
    this.#listener?.down(new Error("the store is unreachable"));
  }
}

describe("revocation reaches every reader of the session cookie (getAccessToken)", () => {
  // Issue 22.4: a refresh reseals the session cookie, which extends the session; an instance
  // that cannot check the revocation list must not do it.
  it('rule: with onUnavailable "serve", getAccessToken does not refresh (and re-issue the session) while the list cannot be checked; a fresh token is still served', async () => {
    const store = new LosableStore();
    const config = appConfig({
      accessTokens: { jwt: true },
      session: { revocation: { store, onUnavailable: "serve" } },
    });
    const browser = await signedInBrowser(config, "alice");
    const cookie = browser.jar(APP).get(COOKIE) as string;
    const fresh = await getAccessToken(request(`${COOKIE}=${cookie}`), config, { provider: "op" });
    expect(fresh?.accessToken).toBeTruthy();

    store.down();
    const before = op.tokenCalls();
    await expect(
      getAccessToken(request(`${COOKIE}=${cookie}`), config, { provider: "op", forceRefresh: true }),
    ).rejects.toMatchObject({
      type: "AccessTokenError",
      message: expect.stringMatching(/revocation list is unavailable/),
    });
    expect(op.tokenCalls(), "the provider was not asked").toBe(before);
    const served = await getAccessToken(request(`${COOKIE}=${cookie}`), config, { provider: "op" });
    expect(served?.accessToken).toBe(fresh?.accessToken);
  });

  it("rule: a revoked JWT session gets no provider access token from getAccessToken", async () => {
    const config = appConfig({ accessTokens: { jwt: true }, session: { revocation: true } });
    const victim = await signedInBrowser(config, "alice");
    const stolen = victim.jar(APP).get(COOKIE) as string;
    await revokeJwtSession(config, stolen);
    // The pipeline refuses it (control: the revocation is in force) ...
    expect(await sessionOf(config, stolen)).toBeNull();
    // ... but getAccessToken hands the attacker the victim's provider access token.
    let token: Awaited<ReturnType<typeof getAccessToken>> = null;
    try {
      token = await getAccessToken(request(`${COOKIE}=${stolen}`), config, { provider: "op" });
    } catch {
      token = null;
    }
    expect(token?.accessToken, "a revoked session must not yield the provider's access token").toBeUndefined();
  });

  it("rule: a revoked JWT session cannot make getAccessToken refresh at the provider and re-issue a cookie", async () => {
    const config = appConfig({ accessTokens: { jwt: true }, session: { revocation: true } });
    const victim = await signedInBrowser(config, "alice");
    const original = victim.jar(APP).get(COOKIE) as string;
    // The victim signs out everywhere (e.g. after noticing the theft).
    const claims = (await decode({ token: original, secret: SECRET, salt: COOKIE })) as Record<string, unknown>;
    await revokeUserSessions(config, claims.sub as string);
    expect(await sessionOf(config, original)).toBeNull();
    // The attacker's copy, once its access token is stale (made stale here by re-sealing; the same
    // happens by itself when the provider's access token expires).
    (claims.providerTokens as { op: { expires_at: number } }).op.expires_at = Math.floor(Date.now() / 1000) - 10;
    const stale = await encode({ token: claims, secret: SECRET, salt: COOKIE });
    expect(await sessionOf(config, stale)).toBeNull();
    const before = op.tokenCalls();
    let refreshed: Awaited<ReturnType<typeof getAccessToken>> = null;
    try {
      refreshed = await getAccessToken(request(`${COOKIE}=${stale}`), config, {
        provider: "op",
      });
    } catch {
      refreshed = null;
    }
    const after = op.tokenCalls();
    expect(after - before, "no refresh grant redeemed for a revoked session").toBe(0);
    expect(refreshed?.accessToken).toBeUndefined();
    expect(refreshed?.cookies ?? [], "no session cookie re-issued for a revoked session").toEqual([]);
  });
});

describe("the jwt callback decides for every reader of the session cookie (getAccessToken)", () => {
  it("rule: a session the jwt callback ends (returns null, e.g. a banned user) gets no provider access token", async () => {
    const banned = new Set<string>();
    const config = appConfig({
      accessTokens: { jwt: true },
      callbacks: { jwt: ({ token }) => (token.sub && banned.has(token.sub) ? null : token) },
    });
    const browser = await signedInBrowser(config, "alice");
    const cookie = browser.jar(APP).get(COOKIE) as string;
    const sub = ((await decode({ token: cookie, secret: SECRET, salt: COOKIE })) as { sub: string }).sub;
    banned.add(sub);
    expect(await sessionOf(config, cookie)).toBeNull();
    let token: Awaited<ReturnType<typeof getAccessToken>> = null;
    try {
      token = await getAccessToken(request(`${COOKIE}=${cookie}`), config, { provider: "op" });
    } catch {
      token = null;
    }
    expect(token?.accessToken, "a session the application ended must not yield provider tokens").toBeUndefined();
  });
});

describe("revocation reaches every reader of the session cookie (account linking)", () => {
  it("rule: a revoked JWT session cannot link the attacker's OAuth account to the victim's user", async () => {
    const adapter = MemoryAdapter();
    const config = appConfig({ adapter, session: { strategy: "jwt", revocation: true } });
    // The victim, alice, signs in; the attacker copies her cookie.
    const victim = await signedInBrowser(config, "alice");
    const stolen = victim.jar(APP).get(COOKIE) as string;
    const victimId = ((await decode({ token: stolen, secret: SECRET, salt: COOKIE })) as { sub: string }).sub;
    // Alice notices and signs out everywhere.
    await revokeUserSessions(config, victimId);
    expect(await sessionOf(config, stolen)).toBeNull();

    // The attacker, with the revoked copy in the jar, signs in with their own provider account (bob).
    const attacker = new Browser({ [APP]: (r) => Auth(r, config) });
    attacker.jar(APP).set(COOKIE, stolen);
    await signInThrough(attacker, APP, "op", { query: { login_hint: "bob" } });

    // Later, from a clean browser, the attacker signs in with bob alone.
    const later = await signedInBrowser(config, "bob");
    const token = later.jar(APP).get(COOKIE) as string;
    const sub = ((await decode({ token, secret: SECRET, salt: COOKIE })) as { sub: string }).sub;
    expect(sub, "the attacker's account must not have been linked to the victim through a revoked session").not.toBe(
      victimId,
    );
    const bobAccount = await adapter.getUserByAccount!({ provider: "op", providerAccountId: "bob" });
    expect(bobAccount?.id).not.toBe(victimId);
  });

  it("control: a live session does link a new account to its user when it asks to connect (the probe can see a link)", async () => {
    const adapter = MemoryAdapter();
    const config = appConfig({ adapter, session: { strategy: "jwt", revocation: true } });
    const victim = await signedInBrowser(config, "alice");
    const token = victim.jar(APP).get(COOKIE) as string;
    const id = ((await decode({ token, secret: SECRET, salt: COOKIE })) as { sub: string }).sub;
    // A fresh provider session (the provider's cookies dropped), the app's session cookie kept.
    victim.jars.delete(new URL(op.issuer).host);
    await signInThrough(victim, APP, "op", { query: { login_hint: "bob" }, connect: true });
    const bob = await adapter.getUserByAccount!({ provider: "op", providerAccountId: "bob" });
    expect(bob?.id).toBe(id);
  });
});

describe("revocation reaches every reader of the session cookie (getToken)", () => {
  it("rule: getToken given the configuration (the Auth.js API-route reader, re-exported by @latchkey/express/jwt) gives no claims for a revoked session", async () => {
    const config = appConfig({ session: { revocation: true } });
    const victim = await signedInBrowser(config, "alice");
    const stolen = victim.jar(APP).get(COOKIE) as string;
    await revokeJwtSession(config, stolen);
    expect(await sessionOf(config, stolen)).toBeNull();
    // The documented way to read the token in an API route (packages/express/src/jwt.ts).
    const req = { headers: { cookie: `${COOKIE}=${stolen}` } };
    const claims = await getToken({ req, secret: SECRET, config });
    expect(claims, "a revoked session must not authenticate API routes either").toBeNull();
    // control: the same call reads a live session of the same configuration
    const other = await signedInBrowser(config, "bob");
    const live = other.jar(APP).get(COOKIE) as string;
    expect(await getToken({ req: { headers: { cookie: `${COOKIE}=${live}` } }, secret: SECRET, config })).toMatchObject(
      {
        sub: expect.any(String),
      },
    );
  });
});
