/**
 * The credentials sign-in goes on synchronously where nothing waits (issue 26): the pooled random
 * bytes never repeat, and whatever an application plugs in that answers with a promise (or another
 * thenable) is still awaited, and a subclassed rate-limit store is still the one asked.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { randomBytesFromPool, randomHexFromPool } from "../src/lib/crypto/random-pool.js";
import { MemoryRateLimitStore } from "../src/rate-limit.js";
import { CookieJar, call, csrfToken, makeConfig, ORIGIN, recordingLogger, signIn } from "./helpers.js";

describe("pooled random bytes", () => {
  it("3,000 draws of every size the library takes (more than ten refills) are all distinct, none a zeroed slice", () => {
    const seen = new Set<string>();
    let draws = 0;
    for (let i = 0; i < 1000; i++) {
      for (const value of [
        Buffer.from(randomBytesFromPool(16)).toString("hex"),
        randomHexFromPool(32),
        Buffer.from(randomBytesFromPool(12)).toString("hex"),
      ]) {
        draws++;
        seen.add(value);
        expect(value).not.toMatch(/^(00)+$/);
      }
    }
    expect(seen.size).toBe(draws);
  });

  it("a draw is a copy: changing it changes no later draw, and draws larger than the pool's share come whole", () => {
    const first = randomBytesFromPool(32);
    first.fill(0);
    expect(randomBytesFromPool(32)).not.toEqual(new Uint8Array(32));
    const large = randomBytesFromPool(5000);
    expect(large.length).toBe(5000);
    expect(large).not.toEqual(new Uint8Array(5000));
    expect(randomHexFromPool(2048)).toMatch(/^[0-9a-f]{4096}$/);
  });

  it("the IVs of sealed session tokens differ at every sign-in", async () => {
    const config = makeConfig();
    const ivs = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const jar = new CookieJar();
      await signIn(config, jar);
      const token = jar.get("authjs.session-token") ?? "";
      expect(token.split(".")).toHaveLength(5);
      ivs.add(token.split(".")[2] ?? "");
    }
    expect(ivs.size).toBe(40);
  });
});

describe("callbacks and stores that answer with a promise or a thenable are awaited", () => {
  const thenable = <T>(value: T) => ({
    // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise, as a callback may return
    then: (resolve: (v: T) => void) => setTimeout(() => resolve(value), 5),
  });

  it("a signIn callback that answers false through a thenable refuses the sign-in", async () => {
    const config = makeConfig({
      callbacks: { signIn: () => thenable(false) as unknown as Promise<boolean> },
      logger: recordingLogger().logger,
    });
    const jar = new CookieJar();
    const { response: res } = await signIn(config, jar);
    expect(res.headers.get("location")).toMatch(/error=AccessDenied/);
    expect(jar.get("authjs.session-token")).toBeUndefined();
  });

  it("a signIn callback that answers a URL through a thenable redirects there, with no session", async () => {
    const config = makeConfig({
      callbacks: { signIn: () => thenable(`${ORIGIN}/held`) as unknown as Promise<string> },
    });
    const jar = new CookieJar();
    const { response: res } = await signIn(config, jar);
    expect(res.headers.get("location")).toBe(`${ORIGIN}/held`);
    expect(jar.get("authjs.session-token")).toBeUndefined();
  });

  it("an asynchronous redirect callback decides the landing URL and its cookie", async () => {
    const config = makeConfig({
      callbacks: {
        redirect: async ({ url, baseUrl }) => {
          await new Promise((r) => setTimeout(r, 5));
          return url.startsWith(baseUrl) ? `${url}?checked=1` : baseUrl;
        },
      },
    });
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const res = await call(config, "/auth/callback/credentials", {
      jar,
      form: { csrfToken: token, username: "ada", password: "lovelace", callbackUrl: `${ORIGIN}/dashboard` },
    });
    expect(res.headers.get("location")).toBe(`${ORIGIN}/dashboard?checked=1`);
    expect(jar.get("authjs.callback-url")).toBe(`${ORIGIN}/dashboard?checked=1`);
  });

  it("a redirect callback that throws fails the sign-in with no session cookie", async () => {
    const { logger, errors } = recordingLogger();
    const config = makeConfig({
      logger,
      callbacks: {
        redirect: () => {
          throw new Error("redirect callback broke");
        },
      },
    });
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const res = await call(config, "/auth/callback/credentials", {
      jar,
      form: { csrfToken: token, username: "ada", password: "lovelace", callbackUrl: `${ORIGIN}/dashboard` },
    });
    expect(res.headers.get("location")).toMatch(/error=/);
    expect(jar.get("authjs.session-token")).toBeUndefined();
    // Logged in full for the operator (the error or its cause), never shown to the client.
    expect(errors.some((e) => /redirect callback broke/.test(inspect(e)))).toBe(true);
    expect(res.headers.get("location")).not.toMatch(/broke/);
  });

  it("an asynchronous jwt callback's claims are the ones sealed", async () => {
    const config = makeConfig({
      callbacks: {
        jwt: async ({ token }) => {
          await new Promise((r) => setTimeout(r, 5));
          return { ...token, role: "admin" };
        },
        session: ({ session, token }) => ({ ...session, role: token.role }),
      },
    });
    const jar = new CookieJar();
    await signIn(config, jar);
    const session = await (await call(config, "/auth/session", { jar })).json();
    expect(session.role).toBe("admin");
  });

  it("a subclass of the memory store that replaces increment and decrement is the one counting", async () => {
    const calls: string[] = [];
    class Counting extends MemoryRateLimitStore {
      override async increment(key: string, windowMs: number) {
        calls.push(`+${key.split(":")[1]}`);
        return super.increment(key, windowMs);
      }
      override async decrement(key: string) {
        calls.push(`-${key.split(":")[1]}`);
        return super.decrement(key);
      }
    }
    const store = new Counting();
    const config = makeConfig({ rateLimit: { store } });
    const jar = new CookieJar();
    await signIn(config, jar);
    expect(jar.get("authjs.session-token")).toBeDefined();
    // Without a client address (a Web Request names none) one counter, the identifier's, reserved and given back.
    expect(calls).toEqual(["+idc", "-idc"]);
  });

  it("the in-memory store counts failed attempts at once and refuses past the limit, as before", async () => {
    const config = makeConfig({
      rateLimit: { credentialsPerIdentifierAndIp: { max: 2, windowSeconds: 60 } },
      logger: recordingLogger().logger,
    });
    const locations: string[] = [];
    for (let i = 0; i < 4; i++) {
      const jar = new CookieJar();
      const token = await csrfToken(config, jar);
      const res = await call(config, "/auth/callback/credentials", {
        jar,
        headers: { accept: "text/html" },
        form: { csrfToken: token, username: "ada", password: "wrong" },
      });
      locations.push(res.headers.get("location") ?? "");
    }
    expect(locations.slice(0, 2).every((l) => /error=CredentialsSignin/.test(l))).toBe(true);
    expect(locations.slice(2).every((l) => /error=RateLimited/.test(l))).toBe(true);
  });
});
