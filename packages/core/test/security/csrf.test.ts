/**
 * CSRF (OWASP ASVS 3.5.1 / 4.2.2 in v4 numbering, RFC 6265bis §8.8): a POST action with a missing,
 * forged or foreign CSRF token has no side effect: no mail, no token stored, no provider redirect
 * or check cookie, no session made, changed or ended, no callback or event run.
 */

import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter, type MemoryStore } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import OAuth2 from "../../src/providers/generic-oauth.js";
import { CookieJar, call, csrfToken, SECRET, signIn } from "../helpers.js";
import { cookiesSet } from "./support.js";

const OTHER_SECRET = "another-deployment-secret-0123456789abcdef";
const CSRF_COOKIE = "authjs.csrf-token";

interface Probe {
  config: AuthConfig;
  store: MemoryStore;
  effects: string[];
}

/** An application whose every side effect is recorded. */
function probe(secret = SECRET): Probe {
  const effects: string[] = [];
  const store = createMemoryStore();
  const config: AuthConfig = {
    secret,
    trustHost: true,
    rateLimit: false,
    adapter: MemoryAdapter(store),
    session: { strategy: "jwt" },
    logger: { error() {}, warn() {}, debug() {} },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: async (c) => {
          effects.push("authorize");
          return c.username === "ada" && c.password === "lovelace"
            ? { id: "u1", name: "Ada", email: "ada@example.com" }
            : null;
        },
      }),
      {
        id: "mail",
        name: "Mail",
        type: "email",
        sendVerificationRequest: () => void effects.push("mail sent"),
      },
      OAuth2({
        id: "oauth",
        name: "OAuth",
        clientId: "client",
        clientSecret: "secret",
        authorization: "http://127.0.0.1:9/authorize",
        token: "http://127.0.0.1:9/token",
        userinfo: "http://127.0.0.1:9/me",
      }),
    ],
    callbacks: {
      signIn: () => {
        effects.push("signIn callback");
        return true;
      },
      jwt: ({ token, trigger }) => {
        if (trigger) effects.push(`jwt ${trigger}`);
        return token;
      },
    },
    events: {
      signIn: () => void effects.push("signIn event"),
      signOut: () => void effects.push("signOut event"),
    },
  };
  return { config, store, effects };
}

/** The ways a request can fail the double-submit check. */
type Attack = (p: Probe, jar: CookieJar) => Promise<Record<string, string>>;

const attacks: Record<string, Attack> = {
  "no token in the body (cookie present)": async (p, jar) => {
    await csrfToken(p.config, jar);
    return {};
  },
  "no CSRF cookie, a well-formed token in the body": async (_p, jar) => {
    jar.cookies.delete(CSRF_COOKIE);
    return { csrfToken: randomBytes(32).toString("hex") };
  },
  "a forged token that does not match the cookie": async (p, jar) => {
    await csrfToken(p.config, jar);
    return { csrfToken: randomBytes(32).toString("hex") };
  },
  "a planted cookie with a forged MAC and its own token in the body": async (_p, jar) => {
    const token = randomBytes(32).toString("hex");
    jar.cookies.set(CSRF_COOKIE, encodeURIComponent(`${token}|${randomBytes(32).toString("hex")}`));
    return { csrfToken: token };
  },
  "a cookie without a MAC (bare token) and the same token in the body": async (_p, jar) => {
    const token = randomBytes(32).toString("hex");
    jar.cookies.set(CSRF_COOKIE, token);
    return { csrfToken: token };
  },
  "a genuine cookie and token pair minted under another secret": async (_p, jar) => {
    const other = probe(OTHER_SECRET);
    const foreign = new CookieJar();
    const token = await csrfToken(other.config, foreign);
    jar.cookies.set(CSRF_COOKIE, foreign.get(CSRF_COOKIE) as string);
    return { csrfToken: token };
  },
  "another browser's genuine token with this browser's cookie": async (p, jar) => {
    await csrfToken(p.config, jar);
    return { csrfToken: await csrfToken(p.config, new CookieJar()) };
  },
  "the token in the query string instead of the body": async (p, jar) => {
    await csrfToken(p.config, jar);
    return { __query: await csrfToken(p.config, jar) };
  },
  "an empty token with an empty cookie": async (_p, jar) => {
    jar.cookies.set(CSRF_COOKIE, "");
    return { csrfToken: "" };
  },
};

/** The POST actions, each with its side effects to watch. */
const actions: Array<{
  name: string;
  path: string;
  form: Record<string, string>;
  signedIn?: boolean;
  effectFree: (p: Probe, response: Response, jar: CookieJar) => Promise<void> | void;
}> = [
  {
    name: "POST /signin/<email provider>",
    path: "/auth/signin/mail",
    form: { email: "victim@example.com" },
    effectFree: (p) => {
      expect(p.store.verificationTokens.size).toBe(0);
    },
  },
  {
    name: "POST /signin/<oauth provider>",
    path: "/auth/signin/oauth",
    form: {},
    effectFree: (_p, response) => {
      expect(response.headers.get("location") ?? "").not.toMatch(/127\.0\.0\.1:9/);
      expect(cookiesSet(response)).not.toEqual(expect.arrayContaining(["authjs.pkce.code_verifier"]));
      expect(cookiesSet(response)).not.toEqual(expect.arrayContaining(["authjs.state"]));
    },
  },
  {
    name: "POST /callback/<credentials provider>",
    path: "/auth/callback/credentials",
    form: { username: "ada", password: "lovelace" },
    effectFree: (_p, response, jar) => {
      expect(cookiesSet(response)).not.toContain("authjs.session-token");
      expect(jar.get("authjs.session-token")).toBeUndefined();
    },
  },
  {
    name: "POST /signout",
    path: "/auth/signout",
    form: {},
    signedIn: true,
    effectFree: async (p, response, jar) => {
      expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(false);
      const session = await (await call(p.config, "/auth/session", { jar })).json();
      expect(session?.user?.name).toBe("Ada");
    },
  },
  {
    name: "POST /session (update)",
    path: "/auth/session",
    form: { "data[name]": "Mallory" },
    signedIn: true,
    effectFree: async (p, response, jar) => {
      expect(response.status).toBe(400);
      expect(cookiesSet(response)).not.toContain("authjs.session-token");
      const session = await (await call(p.config, "/auth/session", { jar })).json();
      expect(session?.user?.name).toBe("Ada");
    },
  },
];

describe("CSRF: a POST without a valid double-submit token has no side effect", () => {
  for (const action of actions) {
    for (const [attackName, attack] of Object.entries(attacks)) {
      it(`${action.name} refuses ${attackName}`, async () => {
        const p = probe();
        const jar = action.signedIn ? (await signIn(p.config)).jar : new CookieJar();
        const before = [...p.effects];
        const { __query, ...form } = await attack(p, jar);
        const query = __query ? `?csrfToken=${__query}` : "";
        const response = await call(p.config, `${action.path}${query}`, {
          jar,
          method: "POST",
          form: { ...action.form, ...form },
        });
        expect(response.status).toBeLessThan(500);
        if (response.status === 302) expect(response.headers.get("location")).toMatch(/error=MissingCSRF/);
        expect(p.effects).toEqual(before);
        await action.effectFree(p, response, jar);
      });
    }
  }

  it("the same requests with the genuine token do have their effect (the probes can see one)", async () => {
    const p = probe();
    const { jar } = await signIn(p.config, new CookieJar(), {});
    expect(p.effects).toEqual(expect.arrayContaining(["authorize", "signIn callback", "signIn event"]));
    const token = await csrfToken(p.config, jar);
    await call(p.config, "/auth/signin/mail", { jar, form: { csrfToken: token, email: "victim@example.com" } });
    expect(p.effects).toContain("mail sent");
    expect(p.store.verificationTokens.size).toBe(1);
    const oauth = await call(p.config, "/auth/signin/oauth", { jar, form: { csrfToken: token } });
    expect(oauth.headers.get("location")).toMatch(/^http:\/\/127\.0\.0\.1:9\/authorize\?/);
    const update = await call(p.config, "/auth/session", { jar, json: { csrfToken: token, data: { name: "x" } } });
    expect(update.status).toBe(200);
    expect(p.effects).toContain("jwt update");
    const out = await call(p.config, "/auth/signout", { jar, form: { csrfToken: token } });
    expect(out.status).toBe(302);
    expect(p.effects).toContain("signOut event");
    expect(jar.get("authjs.session-token")).toBeUndefined();
  });

  it("a JSON body is held to the same rule as a form", async () => {
    const p = probe();
    const jar = new CookieJar();
    await csrfToken(p.config, jar);
    const response = await call(p.config, "/auth/callback/credentials", {
      jar,
      json: { csrfToken: randomBytes(32).toString("hex"), username: "ada", password: "lovelace" },
    });
    expect(response.status).toBeLessThan(500);
    expect(p.effects).toEqual([]);
    expect(jar.get("authjs.session-token")).toBeUndefined();
  });

  it("GET on the credentials callback signs nobody in (no state change on a safe method)", async () => {
    const p = probe();
    const jar = new CookieJar();
    const token = await csrfToken(p.config, jar);
    const response = await call(
      p.config,
      `/auth/callback/credentials?csrfToken=${token}&username=ada&password=lovelace`,
      { jar },
    );
    expect(response.status).toBe(302);
    expect(p.effects).toEqual([]);
    expect(jar.get("authjs.session-token")).toBeUndefined();
  });
});

describe("CSRF tokens are unpredictable and never repeat", () => {
  it("300 tokens (more than two refills of the pooled random bytes) are all distinct, and each one works", async () => {
    const p = probe();
    const tokens: string[] = [];
    const jars: CookieJar[] = [];
    for (let i = 0; i < 300; i++) {
      const jar = new CookieJar();
      tokens.push(await csrfToken(p.config, jar));
      jars.push(jar);
    }
    expect(tokens.every((t) => /^[0-9a-f]{64}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
    // No zeroed slice of the pool is ever handed out.
    expect(tokens).not.toContain("0".repeat(64));
    // Tokens from before and after a refill sign in with their own cookie, and not with another's.
    for (const i of [0, 127, 128, 299]) {
      const own = await call(p.config, "/auth/callback/credentials", {
        jar: jars[i],
        form: { csrfToken: tokens[i] as string, username: "ada", password: "lovelace" },
      });
      expect(own.headers.get("location")).not.toMatch(/error=/);
      expect(jars[i]?.get("authjs.session-token")).toBeDefined();
    }
    const foreign = new CookieJar();
    await csrfToken(p.config, foreign);
    const crossed = await call(p.config, "/auth/callback/credentials", {
      jar: foreign,
      form: { csrfToken: tokens[5] as string, username: "ada", password: "lovelace" },
    });
    expect(crossed.headers.get("location")).toMatch(/error=MissingCSRF/);
  });
});
