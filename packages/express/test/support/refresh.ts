/**
 * What the Express refresh tests share: the provider (a rotating `oidc-provider`), an in-process
 * sign-in whose session cookie then goes to Express instances, `GET /token` of
 * fixtures/instance-refresh.mjs, and where a session keeps the provider's tokens (the sealed JWT
 * cookie, or the adapter's account record) with a way to make its access token expired.
 */
import { randomBytes } from "node:crypto";
import { Auth, type AuthConfig } from "@latchkey/core";
import type { Adapter } from "@latchkey/core/adapters";
import { decode, encode } from "@latchkey/core/jwt";
import { OIDC } from "@latchkey/core/providers/generic-oidc";
import { afterAll, beforeAll, expect } from "vitest";
import { Browser } from "../../../core/test/oauth/support/browser.js";
import { signInThrough } from "../../../core/test/oauth/support/flow.js";
import {
  REFRESH_APP as APP,
  type RefreshingOP,
  startRefreshingOP,
} from "../../../core/test/oauth/support/refreshing-op.js";
import type { Instance } from "./instances.js";

export const SECRET = `refresh-express-${randomBytes(16).toString("hex")}`;
export const COOKIE = "authjs.session-token";
/** The provider's users: each test signs in a user of its own (the provider reads this at login). */
const accounts: Record<string, Record<string, unknown>> = {};
let op: RefreshingOP;

/**
 * Starts the provider for the calling test file (stopped after it); returns a getter.
 *
 * @example
 * ```ts
 * const provider = useRefreshingOP()
 * it("...", () => expect(provider().tokenCalls()).toBe(0))
 * ```
 */
export function useRefreshingOP(): () => RefreshingOP {
  beforeAll(async () => {
    op = await startRefreshingOP(accounts);
  });
  afterAll(async () => {
    await op?.close();
  });
  return () => op;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A fresh login name for the provider, unique to the test. */
export const login = (label: string) => `${label}-${randomBytes(3).toString("hex")}`;

/** Signs in through the provider in process; returns the session cookie's value. */
export async function signIn(config: AuthConfig, login: string): Promise<string> {
  accounts[login] = { name: login, email: `${login}@example.com` };
  const browser = new Browser({ [APP]: (r) => Auth(r, config) });
  const response = await signInThrough(browser, APP, "op", { query: { login_hint: login } });
  expect(response.status).toBe(302);
  const cookie = browser.jar(APP).get(COOKIE);
  if (!cookie) throw new Error("no session cookie after the sign-in");
  return cookie;
}

export interface Answer {
  status: number;
  body: { accessToken?: string; refreshed?: boolean; error?: string; pid?: number };
  /** The session cookie the answer set, if any. */
  cookie?: string;
  /** Every `Set-Cookie` header of the answer. */
  setCookie: string[];
}

/** `GET /token` of an instance with the session cookie `cookie`. */
export async function tokenFrom(instance: Instance, cookie: string): Promise<Answer> {
  const response = await fetch(`${instance.url}/token`, { headers: { cookie: `${COOKIE}=${cookie}` } });
  const setCookie = response.headers.getSetCookie();
  const set = setCookie.find((c) => c.startsWith(`${COOKIE}=`));
  return {
    status: response.status,
    body: (await response.json()) as Answer["body"],
    cookie: set?.slice(COOKIE.length + 1, set.indexOf(";")),
    setCookie,
  };
}

export type ProviderTokens = { access_token?: string; refresh_token?: string; expires_at?: number; error?: string };

/** Where a session keeps the provider's tokens, and how a test ages them. */
export interface Sessions {
  config(): AuthConfig;
  tokens(cookie: string, login: string): Promise<ProviderTokens | undefined>;
  /** The session (cookie) whose access token expired ten seconds ago. */
  expire(cookie: string, login: string): Promise<string>;
}

/** JWT sessions: the provider's tokens sealed in the session cookie (`accessTokens: { jwt: true }`). */
export const jwtSessions: Sessions = {
  config: () => ({
    secret: SECRET,
    trustHost: true,
    providers: [
      OIDC({ id: "op", name: "Test OP", issuer: op.issuer, clientId: "latchkey", clientSecret: "latchkey-secret" }),
    ],
    accessTokens: { jwt: true },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  }),
  async tokens(cookie) {
    const claims = await decode({ token: cookie, secret: SECRET, salt: COOKIE });
    return (claims?.providerTokens as Record<string, ProviderTokens> | undefined)?.op;
  },
  async expire(cookie) {
    const claims = await decode({ token: cookie, secret: SECRET, salt: COOKIE });
    if (!claims) throw new Error("the session cookie does not open");
    (claims.providerTokens as Record<string, ProviderTokens>).op = {
      ...(claims.providerTokens as Record<string, ProviderTokens>).op,
      expires_at: nowSeconds() - 10,
    };
    return encode({ token: claims, secret: SECRET, salt: COOKIE });
  },
};

/** Database sessions: the provider's tokens on the account record of `adapter` (SQL or Redis). */
export function databaseSessions(adapter: () => Adapter): Sessions {
  return {
    config: () => ({
      ...jwtSessions.config(),
      adapter: adapter(),
      accessTokens: {},
      session: { strategy: "database" },
    }),
    async tokens(_cookie, login) {
      const account = await adapter().getAccount?.(login, "op");
      if (!account) return undefined;
      return { access_token: account.access_token, refresh_token: account.refresh_token };
    },
    async expire(cookie, login) {
      await adapter().updateAccount?.({ provider: "op", providerAccountId: login, expires_at: nowSeconds() - 10 });
      return cookie;
    },
  };
}
