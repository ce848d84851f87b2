/**
 * The pending cookie of a second factor, against a provider answering 12 KB of tokens. Before,
 * the pending sign-in sealed the whole first factor (every provider token and the profile) into a
 * cookie on `Path=/` without a bound, even under database sessions: ~12 KB of tokens made over
 * 16 KiB of cookies, and Node answered 431 to every request of that user for five minutes.
 * Over Express on a socket (the 431 is Node's own), with an OAuth 2 server on 127.0.0.1 whose
 * token answers carry a 12 KB refresh token.
 */
import { randomBytes } from "node:crypto";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { OAuth } from "@latchkey/core/providers/generic-oauth";
import TOTP from "@latchkey/core/providers/totp";
import { confirmTotpEnrolment, startTotpEnrolment } from "@latchkey/core/second-factor";
import { type AuthConfig, CookieTooLarge, customFetch, ExpressAuth } from "@latchkey/express";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthServer, type TestAuthServer } from "../../core/test/oauth/support/oauth2-server.js";
import { Jar, listen, totpAt } from "./helpers.js";

const SECRET = "second-factor-cookie-size-secret-0123456789";
const stepNow = () => Math.floor(Date.now() / 1000 / 30);

let app: { url: string; close: () => Promise<void> };
let srv: TestAuthServer;
// The application's handler, set per test (the server and the provider need each other's URL).
let handler: express.RequestHandler = (_req, res) => void res.status(503).end();

beforeAll(async () => {
  const application = express();
  application.use("/auth", (req, res, next) => handler(req, res, next));
  app = await listen(application);
  srv = await startAuthServer({ acme: { secret: "acme-secret", redirectUris: [`${app.url}/auth/callback/acme`] } });
});
afterAll(async () => {
  await app?.close();
  await srv?.close();
});

/** Whether the provider's profile (`/me`) carries 6 KB more than a cookie of 4 KiB can hold. */
let hugeProfile = false;

/**
 * The token endpoint's answer with a 12 KB refresh token added (random: nothing compresses it),
 * and with `hugeProfile` the profile with a 6 KB field.
 */
const bigTokens = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await fetch(input, init);
  const path = new URL(input instanceof Request ? input.url : input).pathname;
  if (path.endsWith("/me") && hugeProfile)
    return Response.json({
      ...((await response.json()) as object),
      about: randomBytes(4 * 1024).toString("base64url"),
    });
  if (!path.endsWith("/token")) return response;
  const tokens = (await response.json()) as Record<string, unknown>;
  return Response.json({ ...tokens, refresh_token: randomBytes(9 * 1024).toString("base64url") });
};

/** What the `signIn` callback (at the first factor) and the `signIn` event received, and the warnings. */
interface Seen {
  callback: Array<{ account: unknown; profile: unknown }>;
  event: Array<{ account: unknown; profile: unknown }>;
  warnings: string[];
}

/** Latchkey with the OAuth provider and TOTP over one memory store; errors logged into `logged`. */
function configure(strategy: "jwt" | "database", logged: Error[], seen?: Seen): AuthConfig {
  const store = createMemoryStore();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    rateLimit: false,
    adapter: MemoryAdapter(store),
    session: { strategy },
    logger: { error: (e: Error) => logged.push(e), warn: (code: string) => void seen?.warnings.push(code), debug() {} },
    callbacks: {
      signIn: ({ account, profile }) => {
        seen?.callback.push({ account, profile });
        return true;
      },
    },
    events: { signIn: ({ account, profile }) => void seen?.event.push({ account, profile }) },
    providers: [
      OAuth({
        id: "acme",
        name: "Acme",
        authorization: { url: `${srv.origin}/authorize`, params: { scope: "read" } },
        token: `${srv.origin}/token`,
        userinfo: `${srv.origin}/me`,
        clientId: "acme",
        clientSecret: "acme-secret",
        [customFetch]: bigTokens,
      } as Parameters<typeof OAuth>[0]),
      TOTP(),
    ],
  };
  handler = ExpressAuth(config);
  return config;
}

/** The first factor in a browser: the sign-in button, the provider, and the callback's answer. */
async function firstFactor(jar: Jar): Promise<Response> {
  const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
  const start = await jar.fetch(`${app.url}/auth/signin/acme`, { form: { csrfToken } });
  const atProvider = await fetch(start.headers.get("location") as string, { redirect: "manual" });
  return jar.fetch(atProvider.headers.get("location") as string);
}

/** Signs the user in once (no factor yet), then enrols an authenticator for them; returns its secret. */
async function userWithSecondFactor(config: AuthConfig): Promise<string> {
  const jar = new Jar();
  expect((await firstFactor(jar)).headers.get("location")).toBe(`${app.url}/`);
  const user = (await config.adapter?.getUserByAccount?.({ provider: "acme", providerAccountId: "4242" })) as {
    id: string;
  };
  const { secret } = await startTotpEnrolment(config, { id: user.id, label: "ada" });
  expect((await confirmTotpEnrolment(config, user.id, totpAt(secret, stepNow()))).ok).toBe(true);
  return secret;
}

const cookieBytes = (jar: Jar) => jar.header().length;

describe("rule: no cookie can lock a user out (the second factor's pending sign-in is bounded)", () => {
  it("database sessions: 12 KB of provider tokens leave a small pending cookie (ids only); the next requests are answered, and the code signs in", async () => {
    const logged: Error[] = [];
    const config = configure("database", logged);
    const secret = await userWithSecondFactor(config);
    const jar = new Jar();
    const held = await firstFactor(jar);
    expect(held.headers.get("location")).toBe(`${app.url}/auth/callback/totp`);
    const pending = held.headers.getSetCookie().find((c) => c.startsWith("latchkey.second-factor"));
    expect(pending).toMatch(/; Path=\/auth\/callback\/totp;/);
    expect(cookieBytes(jar)).toBeLessThan(4096);
    // The attack's next request: answered (before, 431 for five minutes).
    expect((await jar.fetch(`${app.url}/auth/session`)).status).toBe(200);
    const page = await jar.fetch(`${app.url}/auth/callback/totp`);
    expect(page.status).toBe(200);
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const done = await jar.fetch(`${app.url}/auth/callback/totp`, {
      form: { csrfToken, code: totpAt(secret, stepNow() + 1) },
    });
    expect(done.headers.get("location")).toBe(`${app.url}/`);
    const session = (await (await jar.fetch(`${app.url}/auth/session`)).json()) as { user?: { email?: string } };
    expect(session.user?.email).toBe("ada@example.org");
    expect(logged).toEqual([]);
  });

  it("JWT sessions: a pending sign-in that would pass its bound is not written: a clear error (CookieTooLarge, logged with the fix), the error page, and no 431 on the next request", async () => {
    const logged: Error[] = [];
    const config = configure("jwt", logged);
    await userWithSecondFactor(config);
    const jar = new Jar();
    const held = await firstFactor(jar);
    expect(held.status).toBe(302);
    expect(held.headers.get("location")).toMatch(/\/auth\/error\?error=/);
    expect(held.headers.getSetCookie().filter((c) => c.includes("latchkey.second-factor="))).toEqual([]);
    const error = logged.find((e) => e instanceof CookieTooLarge);
    expect(error?.message).toMatch(/use database sessions/);
    expect(cookieBytes(jar)).toBeLessThan(4096);
    expect((await jar.fetch(`${app.url}/auth/session`)).status).toBe(200);
    expect((await jar.fetch(`${app.url}/auth/signin`)).status).toBe(200);
  });
});

describe("rule: under database sessions a second factor changes nothing of what events.signIn receives", () => {
  /** A sign-in with the code; answers what the `signIn` callback (first factor) and event received for it. */
  async function twoFactorSignIn(seen: Seen, secret: string, step: number) {
    seen.callback.length = 0;
    seen.event.length = 0;
    const jar = new Jar();
    expect((await firstFactor(jar)).headers.get("location")).toBe(`${app.url}/auth/callback/totp`);
    expect(cookieBytes(jar)).toBeLessThan(4096);
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const done = await jar.fetch(`${app.url}/auth/callback/totp`, { form: { csrfToken, code: totpAt(secret, step) } });
    expect(done.headers.get("location")).toBe(`${app.url}/`);
    expect(seen.callback).toHaveLength(1);
    expect(seen.event).toHaveLength(1);
    return { first: seen.callback[0] as Seen["callback"][0], event: seen.event[0] as Seen["event"][0] };
  }
  const tokensOf = (account: unknown) => {
    const { provider, providerAccountId, access_token, refresh_token } = account as Record<string, unknown>;
    return { provider, providerAccountId, access_token, refresh_token };
  };

  it("honest: the event receives the first factor's profile and its account with the tokens it brought", async () => {
    hugeProfile = false;
    const seen: Seen = { callback: [], event: [], warnings: [] };
    const config = configure("database", [], seen);
    const secret = await userWithSecondFactor(config);
    const { first, event } = await twoFactorSignIn(seen, secret, stepNow() + 1);
    expect(event.profile).toEqual(first.profile);
    expect((event.profile as { email?: string }).email).toMatch(/^ada@example\.org$/i);
    expect(tokensOf(event.account)).toEqual(tokensOf(first.account));
    expect(tokensOf(event.account).refresh_token).toEqual(expect.any(String));
    expect(seen.warnings).toEqual([]);
  });

  it("a profile too large for the pending cookie is left out of it (a warning says so): the sign-in completes, no 431, the event has the account", async () => {
    hugeProfile = true;
    try {
      const seen: Seen = { callback: [], event: [], warnings: [] };
      const logged: Error[] = [];
      const config = configure("database", logged, seen);
      const secret = await userWithSecondFactor(config);
      seen.warnings.length = 0;
      const { first, event } = await twoFactorSignIn(seen, secret, stepNow() + 1);
      expect((first.profile as { about?: string }).about).toEqual(expect.any(String));
      expect(event.profile).toBeUndefined();
      expect(tokensOf(event.account)).toEqual(tokensOf(first.account));
      expect(seen.warnings).toEqual(["second-factor-profile-omitted"]);
      expect(logged).toEqual([]);
    } finally {
      hugeProfile = false;
    }
  });
});
