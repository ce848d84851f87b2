/**
 * `getAccessToken` under abuse: a token endpoint answering garbage or an endless body, values a
 * provider or a caller controls reaching the refresh store's keys, and a refresh racing the unlink
 * of its account or the end of its session. The user signs in against a real `oidc-provider`
 * (rotating refresh tokens); the hostile token endpoint is a real HTTP server on 127.0.0.1 that
 * the provider's configured `token` URL points to.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccessTokenError, getAccessToken, RefreshTokenRevoked } from "../../src/access-token.js";
import { Auth, type AuthConfig, customFetch } from "../../src/index.js";
import { decode, encode } from "../../src/jwt.js";
import { MAX_PROVIDER_ANSWER_BYTES } from "../../src/lib/flows/oauth/discovery.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import Twitch from "../../src/providers/twitch.js";
import { MemoryRefreshStore, type RefreshStore } from "../../src/refresh-store.js";
import { revokeJwtSession } from "../../src/revocation.js";
import { Browser } from "./support/browser.js";
import { SECRET, signInThrough } from "./support/flow.js";
import { type RefreshingOP, startRefreshingOP } from "./support/refreshing-op.js";

const APP = "http://localhost:3000";
const COOKIE = "authjs.session-token";
const quiet = { error: () => {}, warn: () => {}, debug: () => {} };
let op: RefreshingOP;

/** What the hostile token endpoint answers, by mode; `endless` streams until the client hangs up. */
type Mode =
  | "html"
  | "no-access-token"
  | "array"
  | "huge"
  | "endless"
  | "server-error"
  | "echo-odd-token"
  | "scope-array"
  | "hang";
let mode: Mode = "html";
let hostile: Server;
let hostileUrl: string;
/** Each call's form body, and whether the client hung up before the answer was complete. */
const hostileCalls: Array<{
  url: string;
  body: string;
  hungUp: Promise<boolean>;
  closed: boolean;
  openBefore: number;
}> = [];
/** Called when the hostile server receives a call (set by a test waiting for one). */
let arrived: (() => void) | undefined;
const ODD_REFRESH_TOKEN = "rt\n\r\u0000\u202e ünï\u{1f511} ../../' OR 1=1 --";

beforeAll(async () => {
  op = await startRefreshingOP();
  hostile = createServer((req, res) => {
    const call = {
      url: req.url ?? "",
      body: "",
      hungUp: new Promise<boolean>((resolve) => res.on("close", () => resolve(!res.writableFinished))),
      closed: false,
      // How many earlier calls were still open when this one arrived.
      openBefore: hostileCalls.filter((c) => !c.closed).length,
    };
    res.on("close", () => {
      call.closed = true;
    });
    hostileCalls.push(call);
    arrived?.();
    req.on("data", (d) => {
      call.body += String(d);
    });
    req.on("end", () => {
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (mode === "hang") return; // never answers: only the client can end the call
      if (mode === "html") {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html><body>Login <script>alert(1)</script></body></html>");
      } else if (mode === "no-access-token") json(200, { token_type: "Bearer", expires_in: 3600 });
      else if (mode === "array") json(200, [1, 2, 3]);
      else if (mode === "server-error") json(503, { error: "temporarily_unavailable" });
      else if (mode === "scope-array") {
        // Twitch's answer: `scope` is a JSON array (https://dev.twitch.tv/docs/authentication/refresh-tokens/).
        json(200, {
          access_token: "at-twitch",
          token_type: "bearer",
          expires_in: 14124,
          scope: ["chat:read", "chat:edit"],
        });
      } else if (mode === "echo-odd-token") {
        // Rotates to another odd token on each call.
        const refresh_token = `${ODD_REFRESH_TOKEN}${hostileCalls.length}`;
        json(200, { access_token: "at-odd", token_type: "Bearer", expires_in: 3600, refresh_token });
      } else if (mode === "huge") {
        // A valid-looking answer whose access token alone is 4 MiB.
        json(200, { access_token: "A".repeat(4 * 1024 * 1024), token_type: "Bearer", expires_in: 3600 });
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"access_token":"');
        const chunk = "B".repeat(64 * 1024);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once("drain", pump);
        };
        pump();
      }
    });
  });
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/token`;
});
afterAll(async () => {
  hostile?.closeAllConnections();
  await new Promise((resolve) => hostile?.close(resolve));
  await op?.close();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);
const request = (cookieHeader: string) => ({ protocol: "http:", host: "localhost:3000", cookieHeader });

function provider(extra: Record<string | symbol, unknown> = {}) {
  return OIDC({
    id: "op",
    name: "Test OP",
    issuer: op.issuer,
    clientId: "latchkey",
    clientSecret: "latchkey-secret",
    ...extra,
  });
}

/** The application, with the provider's token endpoint at the hostile server when `hostileToken`. */
function appConfig(extra: Partial<AuthConfig> = {}, hostileToken = false): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [provider(hostileToken ? { token: { url: hostileUrl } } : {})],
    logger: quiet,
    ...extra,
  };
}

async function signedIn(config: AuthConfig, login = "alice"): Promise<string> {
  const browser = new Browser({ [APP]: (r) => Auth(r, config) });
  const response = await signInThrough(browser, APP, "op", { query: { login_hint: login } });
  expect(response.status).toBe(302);
  return browser.jar(APP).get(COOKIE) as string;
}

type Entry = { providerAccountId: string; access_token?: string; refresh_token?: string; expires_at?: number };

/** The JWT session with the provider's entry changed by `change` (as the server would seal it). */
async function resealed(cookie: string, change: (entry: Entry) => Entry): Promise<string> {
  const claims = await decode({ token: cookie, secret: SECRET, salt: COOKIE });
  if (!claims) throw new Error("the session cookie does not open");
  const all = claims.providerTokens as Record<string, Entry>;
  all.op = change(all.op as Entry);
  return `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE })}`;
}
const expired = (entry: Entry): Entry => ({ ...entry, expires_at: nowSeconds() - 10 });

/** A refresh store that records every key and written value it is given (a MemoryRefreshStore underneath). */
function recordingStore(): RefreshStore & { keys: string[]; values: string[] } {
  const inner = new MemoryRefreshStore();
  const keys: string[] = [];
  const values: string[] = [];
  const seen = (key: string) => {
    keys.push(key);
    return key;
  };
  return {
    keys,
    values,
    acquire: (key, owner, ttl) => inner.acquire(seen(key), owner, ttl),
    release: (key, owner) => inner.release(seen(key), owner),
    put: (key, value, ttl) => {
      values.push(value);
      return inner.put(seen(key), value, ttl);
    },
    get: (key) => inner.get(seen(key)),
  };
}

describe("a token endpoint answering garbage", () => {
  const garbage: Mode[] = ["html", "no-access-token", "array", "huge", "endless", "server-error"];
  it.each(garbage)(
    "rule: %s: 20 concurrent requests get AccessTokenError after one call, the session is not marked, and nothing is stored",
    async (which) => {
      mode = which;
      const signIn = appConfig({ accessTokens: { jwt: true } });
      const cookie = await resealed(await signedIn(signIn), expired);
      const store = recordingStore();
      const config = appConfig({ accessTokens: { jwt: true, store } }, true);
      const before = hostileCalls.length;
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, () => getAccessToken(request(cookie), config, { provider: "op" })),
      );
      expect(hostileCalls.length - before).toBe(1);
      for (const outcome of outcomes) {
        expect(outcome.status).toBe("rejected");
        const reason = (outcome as PromiseRejectedResult).reason as AccessTokenError;
        expect(reason).toBeInstanceOf(AccessTokenError);
        expect(reason).not.toBeInstanceOf(RefreshTokenRevoked);
        // A short message that quotes none of the answer's bulk.
        expect(reason.message.length).toBeLessThan(500);
        expect(reason.message).not.toMatch(/AAAA|BBBB|<script>/);
      }
      // The endless body is cut at the cap, not read until the 15 s timeout: the client hangs up,
      // and the refusal names the cap (a timeout would name the time).
      if (which === "endless") {
        expect(await hostileCalls[before]?.hungUp).toBe(true);
        for (const outcome of outcomes)
          expect(((outcome as PromiseRejectedResult).reason as Error).message).toMatch(/longer than 1048576 bytes/);
      }
      // One key, and one record written: the short-lived shared failure (sealed, a few hundred bytes).
      expect(new Set(store.keys).size).toBe(1);
      expect(store.values).toHaveLength(1);
      expect(store.values[0]?.length).toBeLessThan(1000);
    },
  );

  it("rule: an answer over the cap never reaches the session cookie or the store", async () => {
    expect(MAX_PROVIDER_ANSWER_BYTES).toBeLessThan(4 * 1024 * 1024);
    mode = "huge";
    const cookie = await resealed(await signedIn(appConfig({ accessTokens: { jwt: true } })), expired);
    const config = appConfig({ accessTokens: { jwt: true } }, true);
    const error = await getAccessToken(request(cookie), config, { provider: "op" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccessTokenError);
    expect((error as AccessTokenError).message).toMatch(/longer than 1048576 bytes/);
  });

  it("rule: on database sessions a garbage answer leaves the account's tokens as they were", async () => {
    mode = "html";
    const adapter = MemoryAdapter();
    const cookie = `${COOKIE}=${await signedIn(appConfig({ adapter }), "bob")}`;
    await adapter.updateAccount?.({ provider: "op", providerAccountId: "bob", expires_at: nowSeconds() - 10 });
    const before = await adapter.getAccount?.("bob", "op");
    expect(before?.refresh_token).toEqual(expect.any(String));
    const config = appConfig({ adapter }, true);
    await expect(getAccessToken(request(cookie), config, { provider: "op" })).rejects.toBeInstanceOf(AccessTokenError);
    expect(await adapter.getAccount?.("bob", "op")).toEqual(before);
  });
});

describe("a token endpoint slower than the refresh lock", () => {
  it.each(["token request", "discovery"])(
    "rule: a refresh never outlives its lock: a %s left unanswered is abandoned before the lock expires, so no other instance redeems the refresh token while it is open",
    async (which) => {
      mode = "hang";
      const cookie = await resealed(await signedIn(appConfig({ accessTokens: { jwt: true } })), expired);
      // Two instances sharing one store; the lock lifetime is shortened (internal option) so the
      // test runs in about a second instead of the production 20 s.
      const lockTtlMs = 1000;
      // Each release says whether its lock was still live and its own (a lock that expired and
      // was taken by another instance is not), as the store itself judges expiry.
      const inner = new MemoryRefreshStore();
      const holders = new Map<string, string>();
      const releases: boolean[] = [];
      const store: RefreshStore = {
        acquire: async (key, owner, ttl) => {
          const won = await inner.acquire(key, owner, ttl);
          if (won) holders.set(key, owner);
          return won;
        },
        release: async (key, owner) => {
          const free = await inner.acquire(key, "probe", lockTtlMs);
          if (free) await inner.release(key, "probe");
          releases.push(!free && holders.get(key) === owner);
          return inner.release(key, owner);
        },
        put: (key, value, ttl) => inner.put(key, value, ttl),
        get: (key) => inner.get(key),
      };
      const accessTokens = { jwt: true, store, lockTtlMs } as AuthConfig["accessTokens"];
      // Each instance has its own configuration, so its discovery is not cached yet.
      const instance = () =>
        which === "discovery"
          ? appConfig({
              accessTokens,
              providers: [provider({ wellKnown: hostileUrl.replace(/token$/, ".well-known") })],
            })
          : appConfig({ accessTokens }, true);
      const before = hostileCalls.length;
      const first = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const holder = getAccessToken(request(cookie), instance(), { provider: "op" }).catch((e: unknown) => e);
      await first; // the first instance holds the lock and its token request is open
      arrived = undefined;
      const other = getAccessToken(request(cookie), instance(), { provider: "op" }).catch((e: unknown) => e);
      const [a, b] = await Promise.all([holder, other]);
      for (const error of [a, b]) {
        expect(error).toBeInstanceOf(AccessTokenError);
        expect(error).not.toBeInstanceOf(RefreshTokenRevoked);
      }
      // The holder gave its lock back while it was still its own: it never outlived it.
      expect(releases.length).toBeGreaterThanOrEqual(1);
      expect(releases).toEqual(releases.map(() => true));
      const calls = hostileCalls.slice(before);
      expect(calls.length).toBeGreaterThanOrEqual(1);
      if (which === "discovery") {
        // The refresh stopped waiting for discovery (shared by every request of the provider, so
        // left to its own timeout): no token request was ever sent.
        expect(calls.map((c) => c.url)).toEqual(calls.map(() => "/.well-known"));
      } else {
        // Every call was hung up by the client, and none arrived while an earlier one was open.
        expect(await Promise.all(calls.map((c) => c.hungUp))).toEqual(calls.map(() => true));
        expect(calls.map((c) => c.openBefore)).toEqual(calls.map(() => 0));
      }
    },
  );
});

describe("values from the provider or the caller reaching the refresh store", () => {
  it("rule: a refresh token with control, bidi and non-ASCII characters is sent intact and reaches the store only as a base64url hash", async () => {
    mode = "echo-odd-token";
    const store = recordingStore();
    const config = appConfig({ accessTokens: { jwt: true, store } }, true);
    const cookie = await resealed(await signedIn(appConfig({ accessTokens: { jwt: true } })), (e) => ({
      ...expired(e),
      refresh_token: ODD_REFRESH_TOKEN,
    }));
    const before = hostileCalls.length;
    const token = await getAccessToken(request(cookie), config, { provider: "op" });
    expect(token?.accessToken).toBe("at-odd");
    expect(new URLSearchParams(hostileCalls[before]?.body).get("refresh_token")).toBe(ODD_REFRESH_TOKEN);
    expect(store.keys.length).toBeGreaterThan(0);
    for (const key of store.keys) expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The rotated odd token, sealed into the re-issued cookie, refreshes again under its own key.
    const next = `${COOKIE}=${token?.cookies[0]?.value}`;
    const again = await getAccessToken(request(await resealed(next.slice(COOKIE.length + 1), expired)), config, {
      provider: "op",
    });
    expect(again?.refreshed).toBe(true);
    expect(new URLSearchParams(hostileCalls[before + 1]?.body).get("refresh_token")).toBe(
      `${ODD_REFRESH_TOKEN}${before + 1}`,
    );
    expect(new Set(store.keys).size).toBe(2);
  });

  it("rule: a provider id from the request (odd characters, another case, a path) is refused before any store or provider call", async () => {
    const store = recordingStore();
    const config = appConfig({ accessTokens: { jwt: true, store } });
    const cookie = `${COOKIE}=${await signedIn(config)}`;
    const calls = op.tokenCalls();
    for (const id of ["OP", "op ", "op\u0000", "../op", "op\r\nx-injected: 1", "__proto__", "constructor", "ор"]) {
      await expect(getAccessToken(request(cookie), config, { provider: id })).rejects.toMatchObject({
        type: "InvalidProvider",
      });
    }
    expect(store.keys).toEqual([]);
    expect(op.tokenCalls()).toBe(calls);
  });
});

/** A provider whose token requests wait at a gate the test opens: the refresh is in flight meanwhile. */
function gatedProvider() {
  let arrive: () => void = () => {};
  let open: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const gated = provider({
    [customFetch]: async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.endsWith("/token") && String(init?.body ?? "").includes("grant_type=refresh_token")) {
        arrive();
        await gate;
      }
      return fetch(input, init);
    },
  });
  return { provider: gated, arrived, open };
}

describe("a refresh store that fails after the provider answered", () => {
  it("rule: a refresh the provider made is never lost to a store write that fails: the caller gets the rotated tokens, the next refresh uses them", async () => {
    // The shared store goes away between the lock and the write of the outcome (a Redis or
    // database failover): the provider has already rotated the refresh token.
    const inner = new MemoryRefreshStore();
    const failing: RefreshStore = {
      acquire: (key, owner, ttl) => inner.acquire(key, owner, ttl),
      release: (key, owner) => inner.release(key, owner),
      put: async () => {
        throw new Error("ECONNRESET: the store went away");
      },
      get: (key) => inner.get(key),
    };
    const errors: string[] = [];
    const config = appConfig({
      accessTokens: { jwt: true, store: failing },
      logger: { ...quiet, error: (e) => void errors.push(e.message) },
    });
    const cookie = await resealed(await signedIn(appConfig({ accessTokens: { jwt: true } })), expired);
    const before = op.tokenCalls();
    const token = await getAccessToken(request(cookie), config, { provider: "op" });
    expect(op.tokenCalls() - before).toBe(1);
    expect(token?.refreshed).toBe(true);
    expect(await op.accepts(token?.accessToken as string)).toBe(true);
    expect(errors.some((m) => m.includes("could not be recorded"))).toBe(true);
    // The re-issued cookie holds the rotated refresh token: the next refresh redeems it, not the old one.
    const next = await resealed(token?.cookies[0]?.value as string, expired);
    const again = await getAccessToken(request(next), config, { provider: "op" });
    expect(again?.refreshed).toBe(true);
    expect(await op.accepts(again?.accessToken as string)).toBe(true);
  });
});

describe("a refresh racing the end of what it refreshes", () => {
  it("rule: an account unlinked while its refresh is in flight is not written back: no resurrected account or token", async () => {
    const adapter = MemoryAdapter();
    const browser = new Browser({ [APP]: (r) => Auth(r, appConfig({ adapter })) });
    await signInThrough(browser, APP, "op", { query: { login_hint: "bob" } });
    const cookie = `${COOKIE}=${browser.jar(APP).get(COOKIE)}`;
    await adapter.updateAccount?.({ provider: "op", providerAccountId: "bob", expires_at: nowSeconds() - 10 });
    const gate = gatedProvider();
    const config = appConfig({ adapter, providers: [gate.provider] });
    const pending = Promise.allSettled(
      Array.from({ length: 20 }, () => getAccessToken(request(cookie), config, { provider: "op" })),
    );
    await gate.arrived;
    await adapter.unlinkAccount?.({ provider: "op", providerAccountId: "bob" });
    gate.open();
    await pending;
    expect(await adapter.getAccount?.("bob", "op")).toBeNull();
    // The next request finds no account, and the provider is not asked.
    const calls = op.tokenCalls();
    await expect(getAccessToken(request(cookie), config, { provider: "op" })).rejects.toMatchObject({
      type: "RefreshTokenRevoked",
      cause: { reason: "no-account" },
    });
    expect(op.tokenCalls()).toBe(calls);
  });

  it("rule: a database session signed out while its refresh is in flight stays signed out; only the account keeps the new tokens", async () => {
    const adapter = MemoryAdapter();
    const raw = await signedIn(appConfig({ adapter }), "bob");
    const cookie = `${COOKIE}=${raw}`;
    await adapter.updateAccount?.({ provider: "op", providerAccountId: "bob", expires_at: nowSeconds() - 10 });
    const gate = gatedProvider();
    const config = appConfig({ adapter, providers: [gate.provider] });
    const pending = Promise.all(
      Array.from({ length: 20 }, () => getAccessToken(request(cookie), config, { provider: "op" })),
    );
    await gate.arrived;
    await adapter.deleteSession?.(raw);
    gate.open();
    const tokens = await pending;
    expect(new Set(tokens.map((t) => t?.accessToken)).size).toBe(1);
    expect(await adapter.getSessionAndUser?.(raw)).toBeNull();
    expect((await adapter.getAccount?.("bob", "op"))?.access_token).toBe(tokens[0]?.accessToken);
    const calls = op.tokenCalls();
    expect(await getAccessToken(request(cookie), config, { provider: "op" })).toBeNull();
    expect(op.tokenCalls()).toBe(calls);
  });

  it("rule: a JWT session revoked while its refresh is in flight is not revived by the cookie that refresh re-issues", async () => {
    const signIn = appConfig({ accessTokens: { jwt: true }, session: { revocation: true } });
    const raw = await signedIn(signIn);
    const cookie = await resealed(raw, expired);
    const gate = gatedProvider();
    const config = { ...signIn, providers: [gate.provider] };
    const pending = getAccessToken(request(cookie), config, { provider: "op" });
    await gate.arrived;
    await revokeJwtSession(config, raw);
    gate.open();
    // The request began before the revocation and is handed the token; the cookie it re-issues
    // carries the revoked session, which no reader accepts.
    const reissued = (await pending)?.cookies.find((c) => c.name === COOKIE);
    expect(reissued?.value).toEqual(expect.any(String));
    expect(await getAccessToken(request(`${COOKIE}=${reissued?.value}`), config, { provider: "op" })).toBeNull();
    expect(await getAccessToken(request(cookie), config, { provider: "op" })).toBeNull();
  });
});

describe("a provider's own fix of its token answer applies to the refresh too", () => {
  it("rule: Twitch's scope array is conformed on refresh as on sign-in (without the fix the answer is refused); expires_at is now + expires_in", async () => {
    mode = "scope-array";
    const cookie = await resealed(await signedIn(appConfig({ accessTokens: { jwt: true } })), expired);
    // Its own refresh store: the control's failure, recorded for the application's other
    // requests (single flight), must not answer for the fixed configuration below.
    const control = appConfig({ accessTokens: { jwt: true, store: new MemoryRefreshStore() } }, true);
    await expect(getAccessToken(request(cookie), control, { provider: "op" })).rejects.toBeInstanceOf(AccessTokenError);
    const conform = (Twitch({ clientId: "x", clientSecret: "y" }).token as { conform?: unknown } | undefined)?.conform;
    expect(conform).toBeTypeOf("function");
    const config = appConfig({
      accessTokens: { jwt: true },
      providers: [provider({ token: { url: hostileUrl, conform } })],
    });
    const before = nowSeconds();
    const token = await getAccessToken(request(cookie), config, { provider: "op" });
    expect(token).toMatchObject({ accessToken: "at-twitch", scope: "chat:read chat:edit", refreshed: true });
    // expires_at is absolute: when the answer arrived plus its expires_in (spec §2.3).
    expect(token?.expiresAt).toBeGreaterThanOrEqual(before + 14124);
    expect(token?.expiresAt).toBeLessThanOrEqual(nowSeconds() + 14124);
  });
});
