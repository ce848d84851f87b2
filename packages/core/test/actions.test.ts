import { describe, expect, it, vi } from "vitest";
import { CredentialsSignin } from "../src/errors.js";
import { Auth, type AuthConfig, raw, skipCSRFCheck } from "../src/index.js";
import { decode, encode } from "../src/jwt.js";
import { MemoryAdapter } from "../src/memory-adapter.js";
import {
  CookieJar,
  call,
  csrfToken,
  demoCredentials,
  makeConfig,
  ORIGIN,
  recordingLogger,
  SECRET,
  signIn,
} from "./helpers.js";

const SESSION = "authjs.session-token";

describe("answers that set a cookie", () => {
  it("attack: the sign-in redirect carrying the new session cookie is never stored by a cache", async () => {
    const { response } = await signIn(makeConfig());
    expect(response.status).toBe(302);
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION}=`))).toBe(true);
    expect(response.headers.get("cache-control")).toBe("private, no-cache, no-store");
    expect(response.headers.get("pragma")).toBe("no-cache");
    // An answer without a cookie keeps what its action said (the providers list: nothing).
    const providers = await call(makeConfig(), "/auth/providers");
    expect(providers.headers.getSetCookie()).toEqual([]);
    expect(providers.headers.get("cache-control")).toBeNull();
  });
});

describe("GET /csrf", () => {
  it("returns a token and sets its signed cookie once, without caching", async () => {
    const config = makeConfig();
    const jar = new CookieJar();
    const response = await call(config, "/auth/csrf", { jar });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toMatch(/no-store/);
    const { csrfToken } = (await response.json()) as { csrfToken: string };
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/);
    expect(decodeURIComponent(jar.get("authjs.csrf-token") as string).startsWith(`${csrfToken}|`)).toBe(true);
    const again = await call(config, "/auth/csrf", { jar });
    expect(((await again.json()) as { csrfToken: string }).csrfToken).toBe(csrfToken);
    expect(again.headers.getSetCookie()).toEqual([]);
  });
  it("replaces a forged CSRF cookie", async () => {
    const config = makeConfig();
    const forged = `${"a".repeat(64)}|${"b".repeat(64)}`;
    const response = await call(config, "/auth/csrf", { headers: { cookie: `authjs.csrf-token=${forged}` } });
    const { csrfToken } = (await response.json()) as { csrfToken: string };
    expect(csrfToken).not.toBe("a".repeat(64));
    expect(response.headers.getSetCookie()[0]).toMatch(/^authjs\.csrf-token=/);
  });
  it("uses the __Host- cookie on https", async () => {
    const response = await call(makeConfig(), "/auth/csrf", { origin: "https://app.example" });
    expect(response.headers.getSetCookie()[0]).toMatch(
      /^__Host-authjs\.csrf-token=.*; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
  });
  it("answers 404 when the CSRF check is off", async () => {
    const { logger } = recordingLogger();
    const response = await call(makeConfig({ skipCSRFCheck, logger }), "/auth/csrf");
    expect(response.status).toBe(404);
  });
});

describe("GET /providers", () => {
  it("lists each provider with its absolute sign-in and callback URLs", async () => {
    const response = await call(makeConfig(), "/auth/providers");
    expect(await response.json()).toEqual({
      credentials: {
        id: "credentials",
        name: "Credentials",
        type: "credentials",
        signinUrl: `${ORIGIN}/auth/signin/credentials`,
        callbackUrl: `${ORIGIN}/auth/callback/credentials`,
      },
    });
  });
});

describe("credentials sign-in", () => {
  it("signs in, sets an encrypted session cookie and redirects to the callbackUrl", async () => {
    const config = makeConfig();
    const { jar, response } = await signIn(config, new CookieJar(), { callbackUrl: "/dashboard" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith(`${SESSION}=`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Expires=/);
    const token = await decode({ token: jar.get(SESSION), secret: SECRET, salt: SESSION });
    expect(token).toMatchObject({
      sub: "u1",
      name: "Ada Lovelace",
      email: "ada@example.com",
      picture: "https://img.example/ada.png",
    });
  });

  it("refuses a wrong password with CredentialsSignin and code=credentials, and logs it", async () => {
    const { logger, errors } = recordingLogger();
    const config = makeConfig({ logger });
    const { jar, response } = await signIn(config, new CookieJar(), { password: "wrong" });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`);
    expect(jar.get(SESSION)).toBeUndefined();
    expect(errors[0]).toBeInstanceOf(CredentialsSignin);
  });

  it("gives the same answer for an unknown user and a wrong password", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    const a = await signIn(config, new CookieJar(), { username: "nobody" });
    const b = await signIn(config, new CookieJar(), { password: "wrong" });
    expect(a.response.status).toBe(b.response.status);
    expect(a.response.headers.get("location")).toBe(b.response.headers.get("location"));
  });

  it("passes a custom code from a thrown CredentialsSignin", async () => {
    class Locked extends CredentialsSignin {
      override code = "locked";
    }
    const provider = demoCredentials({
      authorize: () => {
        throw new Locked();
      },
    });
    const { response } = await signIn(makeConfig({ providers: [provider], logger: recordingLogger().logger }));
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=locked`);
  });

  it("shows Configuration, not the cause, when authorize throws unexpectedly", async () => {
    const { logger, errors } = recordingLogger();
    const provider = demoCredentials({
      authorize: () => {
        throw new Error("database password is hunter2");
      },
    });
    const { response } = await signIn(makeConfig({ providers: [provider], logger }));
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    expect(response.headers.get("location")).not.toMatch(/hunter2/);
    expect(errors[0]?.cause).toMatchObject({
      err: expect.objectContaining({ message: "database password is hunter2" }),
    });
  });

  it("has no side effect without a valid CSRF token: missing, forged or from another secret", async () => {
    const authorize = vi.fn(async () => ({ id: "1" }));
    const config = makeConfig({ providers: [demoCredentials({ authorize })], logger: recordingLogger().logger });
    const other = makeConfig({ secret: "another-secret-0123456789abcdefghijklm" });
    const otherJar = new CookieJar();
    const otherToken = await csrfToken(other, otherJar);
    const attempts: Array<{ jar: CookieJar; form: Record<string, string> }> = [
      { jar: new CookieJar(), form: { username: "ada", password: "lovelace" } },
      { jar: new CookieJar(), form: { csrfToken: "f".repeat(64), username: "ada", password: "lovelace" } },
      { jar: otherJar, form: { csrfToken: otherToken, username: "ada", password: "lovelace" } },
    ];
    const goodJar = new CookieJar();
    await csrfToken(config, goodJar);
    attempts.push({ jar: goodJar, form: { csrfToken: "0".repeat(64), username: "ada", password: "lovelace" } });
    for (const { jar, form } of attempts) {
      const response = await call(config, "/auth/callback/credentials", { jar, form });
      expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
      expect(jar.get(SESSION)).toBeUndefined();
    }
    expect(authorize).not.toHaveBeenCalled();
  });

  it("passes the submitted fields and a Request to authorize", async () => {
    const authorize = vi.fn(async () => ({ id: 5 }) as never);
    const config = makeConfig({ providers: [demoCredentials({ authorize })] });
    await signIn(config, new CookieJar(), { extra: "x" });
    const [credentials, request] = authorize.mock.calls[0] as unknown as [Record<string, unknown>, Request];
    expect(credentials).toMatchObject({ username: "ada", password: "lovelace", extra: "x" });
    expect(request).toBeInstanceOf(Request);
    expect(request.method).toBe("POST");
    expect(request.url).toBe(`${ORIGIN}/auth/callback/credentials`);
    expect(request.headers.get("content-type")).toBe("application/json");
    expect(await request.json()).toMatchObject({ username: "ada", extra: "x" });
  });

  it("stringifies a numeric user id into the token's sub", async () => {
    const config = makeConfig({ providers: [demoCredentials({ authorize: async () => ({ id: 42 }) as never })] });
    const { jar } = await signIn(config);
    expect(await decode({ token: jar.get(SESSION), secret: SECRET, salt: SESSION })).toMatchObject({ sub: "42" });
  });
});

describe("callbacks and events at sign-in", () => {
  it("signIn returning false redirects to the error page as AccessDenied, with no session", async () => {
    const { jar, response } = await signIn(
      makeConfig({ callbacks: { signIn: () => false }, logger: recordingLogger().logger }),
    );
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    expect(jar.get(SESSION)).toBeUndefined();
  });
  it("signIn throwing becomes AccessDenied", async () => {
    const { response } = await signIn(
      makeConfig({
        callbacks: {
          signIn: () => {
            throw new Error("nope");
          },
        },
        logger: recordingLogger().logger,
      }),
    );
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
  });
  it("signIn returning a string redirects there (through the redirect callback), with no session", async () => {
    const a = await signIn(makeConfig({ callbacks: { signIn: () => "/blocked" } }));
    expect(a.response.headers.get("location")).toBe(`${ORIGIN}/blocked`);
    expect(a.jar.get(SESSION)).toBeUndefined();
    const b = await signIn(makeConfig({ callbacks: { signIn: () => "https://evil.example/" } }));
    expect(b.response.headers.get("location")).toBe(ORIGIN);
  });
  it("runs the jwt callback with trigger signIn, user and account, and emits signIn", async () => {
    const jwt = vi.fn(({ token }) => ({ ...token, role: "admin" }));
    const signInEvent = vi.fn();
    const { jar } = await signIn(makeConfig({ callbacks: { jwt }, events: { signIn: signInEvent } }));
    expect(jwt).toHaveBeenCalledWith(
      expect.objectContaining({
        trigger: "signIn",
        user: expect.objectContaining({ id: "u1" }),
        account: { providerAccountId: "u1", type: "credentials", provider: "credentials" },
      }),
    );
    expect(signInEvent).toHaveBeenCalledWith(
      expect.objectContaining({ user: expect.objectContaining({ id: "u1" }), account: expect.any(Object) }),
    );
    expect(await decode({ token: jar.get(SESSION), secret: SECRET, salt: SESSION })).toMatchObject({ role: "admin" });
  });
  it("an event handler that throws is logged and changes nothing", async () => {
    const { logger, errors } = recordingLogger();
    const { response, jar } = await signIn(
      makeConfig({
        logger,
        events: {
          signIn: () => {
            throw new Error("audit log down");
          },
        },
      }),
    );
    expect(response.status).toBe(302);
    expect(jar.get(SESSION)).toBeDefined();
    expect(errors[0]).toMatchObject({ type: "EventError" });
  });
});

describe("hostile callbackUrls stay on the origin", () => {
  const hostile = [
    "https://evil.example/",
    "//evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "http://localhost:3000@evil.example/",
    "http://localhost:3001/",
    "https://localhost:3000/",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/%2F%2Fevil.example",
    "\t//evil.example",
    "http:evil.example",
  ];
  for (const url of hostile) {
    it(`refuses ${JSON.stringify(url)}`, async () => {
      const { response } = await signIn(makeConfig(), new CookieJar(), { callbackUrl: url });
      const location = new URL(response.headers.get("location") as string);
      expect(location.origin).toBe(ORIGIN);
    });
  }
  it("a hostile callback-url cookie is not followed either", async () => {
    const jar = new CookieJar();
    jar.cookies.set("authjs.callback-url", encodeURIComponent("https://evil.example"));
    const { response } = await signIn(makeConfig(), jar);
    expect(response.headers.get("location")).toBe(ORIGIN);
  });
  it("keeps same-origin paths and URLs", async () => {
    const { response } = await signIn(makeConfig(), new CookieJar(), { callbackUrl: `${ORIGIN}/a/b?c=d#e` });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/a/b?c=d#e`);
  });
});

describe("GET /session (JWT)", () => {
  it("returns null without a cookie, uncached", async () => {
    const response = await call(makeConfig(), "/auth/session");
    expect(response.status).toBe(200);
    expect(await response.json()).toBeNull();
    expect(response.headers.get("cache-control")).toMatch(/no-store/);
    expect(response.headers.getSetCookie()).toEqual([]);
  });
  it("returns name, email and image only, with expires", async () => {
    const config = makeConfig();
    const { jar } = await signIn(config);
    const response = await call(config, "/auth/session", { jar });
    const body = (await response.json()) as { user: unknown; expires: string };
    expect(body.user).toEqual({ name: "Ada Lovelace", email: "ada@example.com", image: "https://img.example/ada.png" });
    expect(new Date(body.expires).getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000);
  });
  it("does not re-issue the cookie before updateAge, and does after", async () => {
    const config = makeConfig({ session: { updateAge: 3600 } });
    const token = await encode({ token: { sub: "1", name: "A" }, secret: SECRET, salt: SESSION });
    const fresh = await call(config, "/auth/session", { headers: { cookie: `${SESSION}=${token}` } });
    expect(fresh.headers.getSetCookie()).toEqual([]);
    vi.useFakeTimers({ now: Date.now() + 3601_000 });
    try {
      const later = await call(config, "/auth/session", { headers: { cookie: `${SESSION}=${token}` } });
      const reissued = later.headers.getSetCookie().find((c) => c.startsWith(`${SESSION}=`));
      expect(reissued).toBeDefined();
      const { expires } = (await later.json()) as { expires: string };
      // the re-issued cookie carries the new expiry
      const cookieExpires = new Date(/Expires=([^;]+)/.exec(reissued as string)?.[1] as string).getTime();
      expect(Math.abs(cookieExpires - new Date(expires).getTime())).toBeLessThan(2000);
      expect(cookieExpires).toBeGreaterThan(Date.now() + 29 * 86400_000);
    } finally {
      vi.useRealTimers();
    }
  });
  it("re-issues on every access when updateAge is 0", async () => {
    const config = makeConfig({ session: { updateAge: 0 } });
    const { jar } = await signIn(config);
    const response = await call(config, "/auth/session", { jar });
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION}=`))).toBe(true);
  });
  it("re-issues when the jwt callback changed the token, not when it returned it unchanged", async () => {
    const same = makeConfig({ callbacks: { jwt: ({ token }) => token } });
    const { jar } = await signIn(same);
    expect((await call(same, "/auth/session", { jar })).headers.getSetCookie()).toEqual([]);
    const counting = makeConfig({
      callbacks: { jwt: ({ token }) => ({ ...token, hits: ((token.hits as number) ?? 0) + 1 }) },
    });
    const signedIn = await signIn(counting);
    const response = await call(counting, "/auth/session", { jar: signedIn.jar });
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION}=`))).toBe(true);
  });
  it("clears the cookie and returns null when the jwt callback returns null", async () => {
    const config = makeConfig({ callbacks: { jwt: ({ trigger, token }) => (trigger ? token : null) } });
    const { jar } = await signIn(config);
    const response = await call(config, "/auth/session", { jar });
    expect(await response.json()).toBeNull();
    expect(jar.get(SESSION)).toBeUndefined();
  });
  it("exposes more only through the session callback, and emits the session event", async () => {
    const sessionEvent = vi.fn();
    const config = makeConfig({
      callbacks: { session: ({ session, token }) => ({ ...session, userId: token.sub }) },
      events: { session: sessionEvent },
    });
    const { jar } = await signIn(config);
    const body = await (await call(config, "/auth/session", { jar })).json();
    expect(body).toMatchObject({ userId: "u1", user: { name: "Ada Lovelace" } });
    expect(sessionEvent).toHaveBeenCalledWith(
      expect.objectContaining({ session: body, token: expect.objectContaining({ sub: "u1" }) }),
    );
  });
  it("tampered, truncated, oversized and garbage cookies give no session, no 5xx, and are cleared", async () => {
    const config = makeConfig();
    const { jar } = await signIn(config);
    const token = jar.get(SESSION) as string;
    const bad = [
      token.slice(0, -2),
      `${token.slice(0, 40)}A${token.slice(41)}`,
      "x".repeat(20_000),
      "%%%",
      "a.b.c.d.e",
      token.split(".").reverse().join("."),
    ];
    for (const value of bad) {
      const response = await call(config, "/auth/session", { headers: { cookie: `${SESSION}=${value}` } });
      expect(response.status).toBe(200);
      expect(await response.json()).toBeNull();
      expect(response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION}=;`) && /Max-Age=0/.test(c))).toBe(
        true,
      );
    }
    const chunks = await call(config, "/auth/session", {
      headers: { cookie: `${SESSION}.0=garbage; ${SESSION}.1=more` },
    });
    expect(await chunks.json()).toBeNull();
  });
  it("reads a session after the secret is rotated, and issues new cookies with the new secret", async () => {
    const old = "old-secret-0123456789abcdefghijklmnopqr";
    const { jar } = await signIn(makeConfig({ secret: old }));
    const rotated = makeConfig({ secret: [SECRET, old], session: { updateAge: 0 } });
    const response = await call(rotated, "/auth/session", { jar });
    expect(await response.json()).toMatchObject({ user: { name: "Ada Lovelace" } });
    expect(await decode({ token: jar.get(SESSION), secret: SECRET, salt: SESSION })).toMatchObject({ sub: "u1" });
  });
  it("a token read before still expires on time (recently opened tokens are cached)", async () => {
    const config = makeConfig({ session: { maxAge: 60 } });
    const token = await encode({ token: { sub: "1", name: "A" }, secret: SECRET, salt: SESSION, maxAge: 60 });
    const cookie = { cookie: `${SESSION}=${token}` };
    expect(await (await call(config, "/auth/session", { headers: cookie })).json()).toMatchObject({
      user: { name: "A" },
    });
    vi.useFakeTimers({ now: Date.now() + 76_000, toFake: ["Date"] });
    try {
      expect(await (await call(config, "/auth/session", { headers: cookie })).json()).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
  it("a token read before is refused once its secret is removed from the array in place", async () => {
    const old = "old-secret-for-removal-0123456789abcdef";
    const secrets = [SECRET, old];
    const config = makeConfig({ secret: secrets });
    const token = await encode({ token: { sub: "1", name: "A" }, secret: old, salt: SESSION });
    const cookie = { cookie: `${SESSION}=${token}` };
    expect(await (await call(config, "/auth/session", { headers: cookie })).json()).toMatchObject({
      user: { name: "A" },
    });
    secrets.pop();
    expect(await (await call(config, "/auth/session", { headers: cookie })).json()).toBeNull();
  });
  it("the jwt callback gets its own copy of a cached token: changing it does not leak into the next read", async () => {
    const seen: unknown[] = [];
    const config = makeConfig({
      callbacks: {
        jwt: ({ token }) => {
          seen.push((token.prefs as { n?: number } | undefined)?.n);
          (token.prefs as { n: number }).n = 99;
          return token;
        },
      },
      session: { updateAge: 3600 },
    });
    const token = await encode({ token: { sub: "1", prefs: { n: 1 } }, secret: SECRET, salt: SESSION });
    const cookie = { cookie: `${SESSION}=${token}` };
    await call(config, "/auth/session", { headers: cookie });
    await call(config, "/auth/session", { headers: cookie });
    expect(seen).toEqual([1, 1]);
  });
  it("handles chunked session cookies end to end", async () => {
    const config = makeConfig({ callbacks: { jwt: ({ token }) => ({ ...token, blob: "q".repeat(7000) }) } });
    const { jar } = await signIn(config);
    expect(jar.get(`${SESSION}.0`)).toBeDefined();
    expect(jar.get(`${SESSION}.1`)).toBeDefined();
    const response = await call(config, "/auth/session", { jar });
    expect(await response.json()).toMatchObject({ user: { name: "Ada Lovelace" } });
  });
});

describe("POST /session (update)", () => {
  it("runs the jwt callback with trigger update and the client's data, then the session callback with newSession", async () => {
    const jwt = vi.fn(({ token, trigger, session }) =>
      trigger === "update" ? { ...token, name: (session as { name: string }).name } : token,
    );
    const sessionCallback = vi.fn(({ session }) => session);
    const config = makeConfig({ callbacks: { jwt, session: sessionCallback } });
    const { jar } = await signIn(config);
    const token = await csrfToken(config, jar);
    const response = await call(config, "/auth/session", {
      jar,
      json: { csrfToken: token, data: { name: "Countess" } },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ user: { name: "Countess" } });
    expect(jwt).toHaveBeenLastCalledWith(expect.objectContaining({ trigger: "update", session: { name: "Countess" } }));
    expect(sessionCallback).toHaveBeenLastCalledWith(
      expect.objectContaining({ trigger: "update", newSession: { name: "Countess" } }),
    );
    expect(await decode({ token: jar.get(SESSION), secret: SECRET, salt: SESSION })).toMatchObject({
      name: "Countess",
    });
  });
  it("refuses an update without a valid CSRF token with 400 and changes nothing", async () => {
    const jwt = vi.fn(({ token }) => token);
    const config = makeConfig({ callbacks: { jwt }, logger: recordingLogger().logger });
    const { jar } = await signIn(config);
    const before = jar.get(SESSION);
    jwt.mockClear();
    const response = await call(config, "/auth/session", {
      jar,
      json: { csrfToken: "0".repeat(64), data: { name: "x" } },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toBeNull();
    expect(jar.get(SESSION)).toBe(before);
    expect(jwt).not.toHaveBeenCalled();
  });
});

describe("sign-out", () => {
  it("GET shows the confirmation page with the CSRF token", async () => {
    const jar = new CookieJar();
    const response = await call(makeConfig(), "/auth/signout", { jar });
    const html = await response.text();
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    const token = decodeURIComponent(jar.get("authjs.csrf-token") as string).split("|")[0];
    expect(html).toContain(`name="csrfToken" value="${token}"`);
    expect(html).toContain(`action="${ORIGIN}/auth/signout"`);
  });
  it("POST clears the session cookie, emits signOut with the token and redirects", async () => {
    const signOutEvent = vi.fn();
    const config = makeConfig({ events: { signOut: signOutEvent } });
    const { jar } = await signIn(config);
    const token = await csrfToken(config, jar);
    const response = await call(config, "/auth/signout", { jar, form: { csrfToken: token, callbackUrl: "/bye" } });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/bye`);
    expect(jar.get(SESSION)).toBeUndefined();
    expect(signOutEvent).toHaveBeenCalledWith({ token: expect.objectContaining({ sub: "u1" }) });
    expect(await (await call(config, "/auth/session", { jar })).json()).toBeNull();
  });
  // Adversarial review (feat-attack): signOut fired for any cookie, a made-up one too, so an
  // anonymous client wrote "sign-out" events (what an audit trail records) at will.
  it("rule: signOut is emitted only for a session that ended: made-up and forged cookies emit nothing", async () => {
    const signOutEvent = vi.fn();
    const config = makeConfig({ events: { signOut: signOutEvent }, logger: recordingLogger().logger });
    const { jar: genuine } = await signIn(config);
    const forged = `${(genuine.get(SESSION) as string).slice(0, -6)}AAAAAA`;
    for (const value of ["x", "garbage.garbage.garbage.garbage.garbage", forged]) {
      const jar = new CookieJar();
      jar.cookies.set(SESSION, value);
      const token = await csrfToken(config, jar);
      const response = await call(config, "/auth/signout", { jar, form: { csrfToken: token } });
      expect(response.status, value).toBe(302);
      expect(jar.get(SESSION), "the cookie is cleared all the same").toBeUndefined();
    }
    expect(signOutEvent).not.toHaveBeenCalled();
  });
  it("POST without a valid CSRF token keeps the session", async () => {
    const config = makeConfig({ logger: recordingLogger().logger });
    const { jar } = await signIn(config);
    const response = await call(config, "/auth/signout", { jar, form: { csrfToken: "nope" } });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
    expect(jar.get(SESSION)).toBeDefined();
  });
  it("a custom signOut page is redirected to", async () => {
    const response = await call(makeConfig({ pages: { signOut: "/goodbye" } }), "/auth/signout");
    expect(response.headers.get("location")).toBe("/goodbye");
  });
});

describe("pages", () => {
  it("GET /signin renders a form per credentials provider with CSRF token and callbackUrl", async () => {
    const jar = new CookieJar();
    const response = await call(makeConfig(), "/auth/signin?callbackUrl=%2Fprivate", { jar });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    const html = await response.text();
    expect(html).toContain(`action="${ORIGIN}/auth/callback/credentials"`);
    expect(html).toContain('name="username" id="input-username-for-credentials-provider"');
    expect(html).toContain('type="password"');
    expect(html).toContain(`name="callbackUrl" value="${ORIGIN}/private"`);
    expect(html).toContain("Sign in with Credentials");
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/);
  });
  it("escapes provider names, labels and the error value", async () => {
    const provider = demoCredentials({
      name: '<img src=x onerror="alert(1)">',
      credentials: { u: { label: "<b>L</b>", onfocus: "alert(2)" } },
    });
    const html = await (await call(makeConfig({ providers: [provider] }), "/auth/signin?error=%3Cscript%3E")).text();
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<b>L</b>");
    expect(html).not.toContain("onfocus");
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });
  it("attack: the magic link confirmation page escapes the token, the address and the callback URL it echoes", async () => {
    const config = makeConfig({
      adapter: MemoryAdapter(),
      providers: [{ id: "mail", name: "Mail", type: "email", sendVerificationRequest: () => {} }],
    });
    const token = `"><script>alert(1)</script><input x='`;
    const callbackUrl = `${ORIGIN}/a"><img src=x onerror=alert(2)>`;
    const query = new URLSearchParams({ token, email: "ada@example.com", callbackUrl });
    const page = await call(config, `/auth/callback/mail?${query}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Sign in as ada@example.com?");
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain('name="token" value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;input x=&#39;"');
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
  it("shows the error message for a known error value", async () => {
    const html = await (await call(makeConfig(), "/auth/signin?error=CredentialsSignin")).text();
    expect(html).toMatch(/role="alert"/);
  });
  it("applies the theme: color scheme class, brand colour, logo; refuses unsafe values", async () => {
    const themed = await (
      await call(
        makeConfig({ theme: { colorScheme: "dark", brandColor: "#ff0066", logo: "https://cdn.example/logo.png" } }),
        "/auth/signin",
      )
    ).text();
    expect(themed).toContain('class="theme-dark"');
    expect(themed).toContain("--brand:#ff0066");
    expect(themed).toContain('src="https://cdn.example/logo.png"');
    const hostile = await (
      await call(
        makeConfig({ theme: { brandColor: "red;}</style><script>x</script>", logo: "javascript:alert(1)" } }),
        "/auth/signin",
      )
    ).text();
    expect(hostile).not.toContain("<script>x");
    expect(hostile).not.toContain("javascript:");
  });
  it("redirects to a custom sign-in page with callbackUrl and error", async () => {
    const response = await call(
      makeConfig({ pages: { signIn: "/login" } }),
      "/auth/signin?callbackUrl=%2Fx&error=SessionRequired",
    );
    expect(response.headers.get("location")).toBe(
      `/login?callbackUrl=${encodeURIComponent(`${ORIGIN}/x`)}&error=SessionRequired`,
    );
  });
  it("the error page answers with the status of each error", async () => {
    const config = makeConfig();
    expect((await call(config, "/auth/error?error=Configuration")).status).toBe(500);
    expect((await call(config, "/auth/error?error=AccessDenied")).status).toBe(403);
    expect((await call(config, "/auth/error?error=Verification")).status).toBe(403);
    const other = await call(config, "/auth/error?error=%3Cx%3E");
    expect(other.status).toBe(200);
    expect(await other.text()).not.toContain("<x>");
  });
  it("the verify-request page names the site", async () => {
    const response = await call(makeConfig(), "/auth/verify-request");
    expect(await response.text()).toContain("localhost:3000");
  });
});

describe("routing", () => {
  it("answers 400 with a clear body for unknown actions, wrong methods and extra segments", async () => {
    const config = makeConfig();
    for (const [path, method] of [
      ["/auth/nope", "GET"],
      ["/auth/session", "PUT"],
      ["/auth/csrf", "POST"],
      ["/auth/session/x", "GET"],
      ["/auth//session", "GET"],
      ["/auth/session//", "GET"],
      ["/auth/signin/credentials/extra", "GET"],
      ["/other/session", "GET"],
    ] as const) {
      const response = await call(config, path, { method });
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(await response.json()).toMatchObject({ error: "UnknownAction", message: expect.any(String) });
    }
  });
  it("answers 413 for an oversized body and 400 for malformed JSON", async () => {
    const config = makeConfig();
    const big = await call(config, "/auth/callback/credentials", { form: { x: "y".repeat(70_000) } });
    expect(big.status).toBe(413);
    const broken = await Auth(
      new Request(`${ORIGIN}/auth/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{",
      }),
      config,
    );
    expect(broken.status).toBe(400);
  });
  it("X-Auth-Return-Redirect turns a redirect into 200 {url}", async () => {
    const config = makeConfig();
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const response = await call(config, "/auth/callback/credentials", {
      jar,
      headers: { "X-Auth-Return-Redirect": "1" },
      form: { csrfToken: token, username: "ada", password: "lovelace", callbackUrl: "/home" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ url: `${ORIGIN}/home` });
    expect(jar.get(SESSION)).toBeDefined();
  });
  it("serves a custom basePath", async () => {
    const response = await call(makeConfig({ basePath: "/api/auth" }), "/api/auth/providers");
    expect(((await response.json()) as Record<string, { signinUrl: string }>).credentials?.signinUrl).toBe(
      `${ORIGIN}/api/auth/signin/credentials`,
    );
  });
  it("with raw, returns the ResponseInternal, and throws client-safe errors to the caller", async () => {
    const config = makeConfig({ raw, logger: recordingLogger().logger }) as AuthConfig & { raw: typeof raw };
    const res = await Auth(new Request(`${ORIGIN}/auth/providers`), config);
    expect(res).toMatchObject({
      headers: { "Content-Type": "application/json" },
      body: { credentials: expect.any(Object) },
    });
    await expect(
      Auth(
        new Request(`${ORIGIN}/auth/signout`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "csrfToken=x",
        }),
        config,
      ),
    ).rejects.toMatchObject({ type: "MissingCSRF" });
  });
  it("webauthn-options answers 404 while WebAuthn is off", async () => {
    expect((await call(makeConfig(), "/auth/webauthn-options/passkey")).status).toBe(404);
  });
  it("GET /signin/<provider> is not an action", async () => {
    const response = await call(makeConfig(), "/auth/signin/credentials");
    expect(response.status).toBe(400);
  });
});
