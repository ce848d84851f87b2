import "./next-internals.js";

import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { secondFactorStatus, startTotpEnrolment } from "@latchkey/core/second-factor";
import { AuthError, CredentialsSignin, MissingCSRF, NextAuth, type NextAuthConfig } from "@latchkey/next";
import { decode } from "@latchkey/next/jwt";
import Credentials from "@latchkey/next/providers/credentials";
import GitHub from "@latchkey/next/providers/github";
import Nodemailer from "@latchkey/next/providers/nodemailer";
import TOTP from "@latchkey/next/providers/totp";
import { NextRequest } from "next/server.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inNextRequest, separateNextRequestClass } from "./next-internals.js";
import { cookieHeader, Jar } from "./support.js";

const SECRET = "a-test-secret-of-at-least-thirty-two-characters";
const ORIGIN = "http://localhost:3000";

class Locked extends CredentialsSignin {
  override code = "locked";
}

/** What `authorize` was called with, to prove a refused request never reached it. */
let attempts: string[] = [];

function config(extra: Partial<NextAuthConfig> = {}): NextAuthConfig {
  return {
    secret: SECRET,
    providers: [
      Credentials({
        credentials: { email: {}, password: {} },
        authorize: async (credentials) => {
          attempts.push(String(credentials.email));
          if (credentials.email === "locked@example.com") throw new Locked();
          if (credentials.email === "ada@example.com" && credentials.password === "right")
            return { id: "u1", name: "Ada", email: "ada@example.com" };
          return null;
        },
      }),
    ],
    ...extra,
  };
}

/** Signs in through the route handlers as a browser form would; returns the session cookie. */
async function signInByForm(handlers: ReturnType<typeof NextAuth>["handlers"]): Promise<Jar> {
  const jar = new Jar();
  const csrf = await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
  jar.apply(csrf.headers.getSetCookie());
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await handlers.POST(
    new NextRequest(`${ORIGIN}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({ csrfToken, email: "ada@example.com", password: "right", callbackUrl: "/" }),
    }),
  );
  expect(res.status).toBe(302);
  jar.apply(res.headers.getSetCookie());
  expect(jar.cookies.has("authjs.session-token")).toBe(true);
  return jar;
}

beforeEach(() => {
  attempts = [];
});

describe("NextAuth handlers", () => {
  it("serves the actions under /api/auth by default", async () => {
    const { handlers } = NextAuth(config());
    const res = await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/providers`));
    expect(res.status).toBe(200);
    expect(Object.keys(await res.json())).toEqual(["credentials"]);
    const elsewhere = await handlers.GET(new NextRequest(`${ORIGIN}/auth/providers`));
    expect(elsewhere.status).toBe(400);
  });

  it("signs in with a form post and reads the session back", async () => {
    const { handlers } = NextAuth(config());
    const jar = await signInByForm(handlers);
    const res = await handlers.GET(
      new NextRequest(`${ORIGIN}/api/auth/session`, { headers: { cookie: jar.header() } }),
    );
    expect(((await res.json()) as { user: { email: string } }).user.email).toBe("ada@example.com");
  });

  it("refuses a form post without the CSRF token", async () => {
    const { handlers } = NextAuth(config());
    const res = await handlers.POST(
      new NextRequest(`${ORIGIN}/api/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: "ada@example.com", password: "right" }),
      }),
    );
    expect(res.headers.get("location")).toContain("error=MissingCSRF");
    expect(attempts).toEqual([]);
  });

  it("calls a configuration function with the request", async () => {
    const seen: string[] = [];
    const { handlers } = NextAuth((request) => {
      seen.push(request?.nextUrl.pathname ?? "none");
      return config();
    });
    const res = await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/providers`));
    expect(res.status).toBe(200);
    expect(seen).toEqual(["/api/auth/providers"]);
  });
});

describe("environment", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of ["AUTH_SECRET", "NEXTAUTH_SECRET", "AUTH_URL", "NEXTAUTH_URL"]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it("reads NEXTAUTH_SECRET and takes NEXTAUTH_URL's path as the base path", async () => {
    delete process.env.AUTH_SECRET;
    delete process.env.AUTH_URL;
    process.env.NEXTAUTH_SECRET = SECRET;
    process.env.NEXTAUTH_URL = "http://localhost:3000/custom/auth";
    const { secret: _secret, ...withoutSecret } = config();
    const { handlers } = NextAuth(withoutSecret);
    const res = await handlers.GET(new NextRequest(`${ORIGIN}/custom/auth/csrf`));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { csrfToken: string }).csrfToken).toMatch(/^[0-9a-f]{64}$/);
    // As next-auth does, the application's own object is filled in, so the core's server-side
    // functions (secondFactorStatus(config, ...), the sessions API) work with it too.
    expect(withoutSecret).toMatchObject({ basePath: "/custom/auth", secret: [SECRET] });
  });

  // The demo named `secret` in its configuration only because the account page's second-factor
  // functions take the same object, and that object was filled in at the first request.
  it("fills the application's object when NextAuth is called: the second-factor functions work with it before any request", async () => {
    delete process.env.NEXTAUTH_SECRET;
    delete process.env.AUTH_URL;
    process.env.AUTH_SECRET = SECRET;
    const store = createMemoryStore();
    const app: NextAuthConfig = { adapter: MemoryAdapter(store), providers: [TOTP({ issuer: "Test" })] };
    NextAuth(app);
    expect(app).toMatchObject({ basePath: "/api/auth", secret: [SECRET] });
    const enrolment = await startTotpEnrolment(app, { id: "u1", label: "ada@example.com" });
    expect(enrolment.secret).toMatch(/^[A-Z2-7]+$/);
    expect(await secondFactorStatus(app, "u1")).toMatchObject({ active: false, pending: true });
  });

  it("reads an AUTH_SECRET set after NextAuth was called, at the first use", async () => {
    delete process.env.AUTH_SECRET;
    delete process.env.NEXTAUTH_SECRET;
    const { secret: _secret, ...app } = config();
    const { handlers } = NextAuth(app);
    process.env.AUTH_SECRET = SECRET;
    const res = await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
    expect(res.status).toBe(200);
    expect(app).toMatchObject({ secret: [SECRET] });
  });

  it("attack: rate limits with no client address to count by are named once at startup, with the fix", async () => {
    const warned = (extra: Partial<NextAuthConfig>) => {
      const codes: string[] = [];
      const texts: string[] = [];
      const logger = {
        error: () => {},
        debug: () => {},
        warn: (code: string, text?: string) => {
          codes.push(code);
          texts.push(text ?? "");
        },
      };
      return { app: config({ logger, ...extra }), codes, texts };
    };
    // Credentials, limits on, no clientAddress: every attempt keys on the identifier alone, so
    // anyone can lock the account out. Said once, when NextAuth is called.
    const bare = warned({});
    const { handlers } = NextAuth(bare.app);
    expect(bare.codes).toEqual(["client-address-missing"]);
    await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
    await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/providers`));
    expect(bare.codes).toEqual(["client-address-missing"]);
    // The default logger prints the text; a custom one is given the code (the text is the core's).
    // With the option, with the limits off, or with no provider the limits count: nothing to say.
    for (const extra of [
      { clientAddress: (request: Request) => request.headers.get("x-real-ip") },
      { rateLimit: false as const },
      { providers: [GitHub({ clientId: "id", clientSecret: "secret" })] },
    ]) {
      const quiet = warned(extra);
      const result = NextAuth(quiet.app);
      await result.handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
      expect(quiet.codes).toEqual([]);
    }
    // A configuration function is advised at its first request.
    const late = warned({});
    const fromFunction = NextAuth(() => late.app);
    expect(late.codes).toEqual([]);
    await fromFunction.handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
    expect(late.codes).toEqual(["client-address-missing"]);
  });

  it("serves when Next.js says the runtime is Edge (the core no longer needs node:crypto; edge-runtime.test.ts runs it there)", async () => {
    const before = process.env.NEXT_RUNTIME;
    process.env.NEXT_RUNTIME = "edge";
    try {
      const { handlers } = NextAuth(config());
      const response = await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
      expect(response.status).toBe(200);
      expect((await response.json()).csrfToken).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      if (before === undefined) delete process.env.NEXT_RUNTIME;
      else process.env.NEXT_RUNTIME = before;
    }
  });
});

describe("auth()", () => {
  it("reads the session in a Server Component and writes no cookie there", async () => {
    const { handlers, auth } = NextAuth(config({ session: { updateAge: 0 } }));
    const jar = await signInByForm(handlers);
    const out = await inNextRequest(`${ORIGIN}/dashboard`, { cookie: jar.header() }, () => auth(), "render");
    expect(out.error).toBeUndefined();
    expect(out.result?.user?.email).toBe("ada@example.com");
    expect(out.setCookies).toEqual([]);
  });

  it("delivers the renewed session cookie from a Route Handler or Server Action", async () => {
    const { handlers, auth } = NextAuth(config({ session: { updateAge: 0 } }));
    const jar = await signInByForm(handlers);
    const out = await inNextRequest(`${ORIGIN}/api/me`, { cookie: jar.header() }, () => auth());
    expect(out.result?.user?.email).toBe("ada@example.com");
    const renewed = out.setCookies.find((c) => c.startsWith("authjs.session-token="));
    expect(renewed).toMatch(/HttpOnly/i);
    expect(renewed).not.toBe(`authjs.session-token=${jar.cookies.get("authjs.session-token")}`);
  });

  it("gives null without a session cookie", async () => {
    const { auth } = NextAuth(config());
    const out = await inNextRequest(`${ORIGIN}/`, {}, () => auth(), "render");
    expect(out.result).toBeNull();
  });

  it("as middleware: lets every request through, with the renewed cookie, when no authorized callback is set", async () => {
    const { handlers, auth } = NextAuth(config({ session: { updateAge: 0 } }));
    const jar = await signInByForm(handlers);
    const res = await auth(new NextRequest(`${ORIGIN}/dashboard`, { headers: { cookie: jar.header() } }));
    expect(res.headers.get("x-middleware-next")).toBe("1");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true);
    // A response carrying the renewed cookie is kept out of every cache (a CDN in front of a
    // static page would store the cookie with it); one without a cookie is left as it was.
    expect(res.headers.get("cache-control")).toBe("private, no-cache, no-store");
    const quiet = NextAuth(config());
    const unchanged = await quiet.auth(new NextRequest(`${ORIGIN}/dashboard`, { headers: { cookie: jar.header() } }));
    expect(unchanged.headers.getSetCookie()).toEqual([]);
    expect(unchanged.headers.get("cache-control")).toBeNull();
  });

  it("as middleware: the authorized callback sends a signed-out visitor to the sign-in page", async () => {
    const { handlers, auth } = NextAuth(config({ callbacks: { authorized: ({ auth }) => !!auth?.user } }));
    const out = await auth(new NextRequest(`${ORIGIN}/dashboard?tab=1`));
    expect(out.status).toBe(307);
    const location = new URL(out.headers.get("location") as string);
    expect(location.pathname).toBe("/api/auth/signin");
    // The path only: Next.js's own URL of the request names its host name, not the browser's.
    expect(location.searchParams.get("callbackUrl")).toBe("/dashboard?tab=1");
    const jar = await signInByForm(handlers);
    const signedIn = await auth(new NextRequest(`${ORIGIN}/dashboard`, { headers: { cookie: jar.header() } }));
    expect(signedIn.headers.get("x-middleware-next")).toBe("1");
    // Signing in itself is never held back, whatever the matcher covers.
    const signInPage = await auth(new NextRequest(`${ORIGIN}/api/auth/signin`));
    expect(signInPage.headers.get("x-middleware-next")).toBe("1");
  });

  it("attack: the proxy's sign-in redirect goes to AUTH_URL's origin whatever host the request names", async () => {
    const before = process.env.AUTH_URL;
    process.env.AUTH_URL = "https://app.example/api/auth";
    try {
      const { auth } = NextAuth(config({ callbacks: { authorized: ({ auth }) => !!auth?.user } }));
      for (const url of ["http://evil.example/dashboard?tab=1", "http://localhost:3000/dashboard?tab=1"]) {
        const out = await auth(new NextRequest(url, { headers: { "x-forwarded-host": "evil.example" } }));
        const location = new URL(out.headers.get("location") as string);
        expect(location.origin, url).toBe("https://app.example");
        expect(location.pathname).toBe("/api/auth/signin");
        expect(location.searchParams.get("callbackUrl")).toBe("https://app.example/dashboard?tab=1");
      }
    } finally {
      if (before === undefined) delete process.env.AUTH_URL;
      else process.env.AUTH_URL = before;
    }
  });

  it.each([
    ["a configuration object", false],
    ["a frozen configuration (handed over as one copy)", true],
  ])(
    'a basePath written with a trailing slash ("/api/auth/") serves auth(), the server actions and the proxy alike: %s',
    async (_, frozen) => {
      const given = config({ basePath: "/api/auth/", callbacks: { authorized: ({ auth }) => !!auth?.user } });
      const { handlers, auth, signIn } = NextAuth(frozen ? Object.freeze(given) : given);
      const jar = await signInByForm(handlers);
      const read = await inNextRequest(`${ORIGIN}/dashboard`, { cookie: jar.header() }, () => auth(), "render");
      expect(read.result?.user?.email).toBe("ada@example.com");
      const action = await inNextRequest(`${ORIGIN}/login`, { origin: ORIGIN, "sec-fetch-site": "same-origin" }, () =>
        signIn("credentials", { email: "ada@example.com", password: "right", redirectTo: "/in" }),
      );
      expect(action.redirectedTo).toBe(`${ORIGIN}/in`);
      // The proxy never holds back the actions themselves, and sends a signed-out visitor to them.
      expect((await auth(new NextRequest(`${ORIGIN}/api/auth/signin`))).headers.get("x-middleware-next")).toBe("1");
      const out = await auth(new NextRequest(`${ORIGIN}/dashboard`));
      expect(new URL(out.headers.get("location") as string).pathname).toBe("/api/auth/signin");
    },
  );

  it("wraps middleware and route handlers with req.auth", async () => {
    const { handlers, auth } = NextAuth(config());
    const jar = await signInByForm(handlers);
    const handler = auth((req) => Response.json({ email: req.auth?.user?.email ?? null }));
    const signedIn = await handler(new NextRequest(`${ORIGIN}/api/me`, { headers: { cookie: jar.header() } }), {
      params: Promise.resolve({}),
    });
    expect(await (signedIn as Response).json()).toEqual({ email: "ada@example.com" });
    const signedOut = await handler(new NextRequest(`${ORIGIN}/api/me`), { params: Promise.resolve({}) });
    expect(await (signedOut as Response).json()).toEqual({ email: null });
  });
});

/** A `Set-Cookie` value without its value and `Expires` (which change with each renewal). */
function cookieShape(setCookie: string): string[] {
  const [pair, ...attributes] = setCookie.split(";").map((part) => part.trim());
  return [
    (pair as string).split("=")[0] as string,
    ...attributes.filter((a) => !/^expires=/i.test(a)).map((a) => a.toLowerCase()),
  ].sort();
}

/** The claims of a session token, without those that change with each renewal. */
async function claimsOf(setCookie: string): Promise<Record<string, unknown>> {
  const token = (setCookie.split(";")[0] as string).slice("authjs.session-token=".length);
  const claims = await decode({ token, secret: SECRET, salt: "authjs.session-token" });
  expect(claims).not.toBeNull();
  const { iat: _iat, exp: _exp, jti: _jti, ...rest } = claims as Record<string, unknown>;
  return rest;
}

describe("auth(handler) in a Route Handler", () => {
  const ctx = { params: Promise.resolve({}) };

  it("reads the request it is given, never next/headers: the session and renewed cookie of auth() and GET /api/auth/session", async () => {
    const { handlers, auth } = NextAuth(config({ session: { updateAge: 0 } }));
    const jar = await signInByForm(handlers);
    const seen: unknown[] = [];
    const GET = auth((req) => {
      seen.push(req);
      return Response.json(req.auth);
    });
    // Next.js's route runtime hands the handler a NextRequest of its own copy of the class.
    const Separate = separateNextRequestClass();
    const request = new Separate(`${ORIGIN}/api/me`, { headers: { cookie: jar.header() } });
    expect(request instanceof NextRequest).toBe(false);
    // Run inside a Route Handler's request store whose own headers carry no cookie: the session
    // comes from the request, and the renewed cookie goes on the response, not into the store.
    const out = await inNextRequest(`${ORIGIN}/api/me`, {}, () => GET(request, ctx) as Promise<Response>);
    expect(out.error).toBeUndefined();
    expect(out.setCookies).toEqual([]);
    // Used as Next.js gave it, not copied into a new request on every call.
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(request);
    const wrapped = out.result as Response;

    const viaAuth = await inNextRequest(`${ORIGIN}/api/me`, { cookie: jar.header() }, () => auth());
    const viaRoute = await handlers.GET(
      new NextRequest(`${ORIGIN}/api/auth/session`, { headers: { cookie: jar.header() } }),
    );
    const session = (await wrapped.json()) as { user: unknown; expires: string };
    const routeSession = (await viaRoute.json()) as { user: unknown; expires: string };
    expect(session.user).toEqual({ name: "Ada", email: "ada@example.com" });
    expect(session.user).toEqual(viaAuth.result?.user);
    expect(session.user).toEqual(routeSession.user);
    expect(Object.keys(session).sort()).toEqual(Object.keys(routeSession).sort());
    expect(Number.isNaN(Date.parse(session.expires))).toBe(false);

    const renewed = (values: string[]) => values.filter((c) => c.startsWith("authjs.session-token="));
    const [fromWrapped] = renewed(wrapped.headers.getSetCookie());
    const [fromAuth] = renewed(viaAuth.setCookies);
    const [fromRoute] = renewed(viaRoute.headers.getSetCookie());
    expect(fromWrapped && fromAuth && fromRoute).toBeTruthy();
    expect(renewed(wrapped.headers.getSetCookie())).toHaveLength(1);
    expect(cookieShape(fromWrapped as string)).toEqual(cookieShape(fromRoute as string));
    expect(cookieShape(fromWrapped as string)).toEqual(cookieShape(fromAuth as string));
    expect(await claimsOf(fromWrapped as string)).toEqual(await claimsOf(fromRoute as string));
    expect(await claimsOf(fromWrapped as string)).toEqual(await claimsOf(fromAuth as string));
    expect(wrapped.headers.get("cache-control")).toBe(viaRoute.headers.get("cache-control"));
  });

  it("answers without a request store at all (no next/headers), and a handler's promise, a thenable or nothing as before", async () => {
    const { handlers, auth } = NextAuth(config());
    const jar = await signInByForm(handlers);
    const Separate = separateNextRequestClass();
    const request = () => new Separate(`${ORIGIN}/api/me`, { headers: { cookie: jar.header() } });
    const email = (req: { auth: { user?: { email?: string | null } } | null }) => req.auth?.user?.email ?? null;
    const sync = await auth((req) => Response.json({ email: email(req) }))(request(), ctx);
    expect(await (sync as Response).json()).toEqual({ email: "ada@example.com" });
    const later = await auth(async (req) => Response.json({ email: email(req) }))(request(), ctx);
    expect(await (later as Response).json()).toEqual({ email: "ada@example.com" });
    const thenable = {
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise, on purpose
      then: (resolve: (r: Response) => void) => resolve(Response.json({ thenable: true })),
    };
    const viaThenable = await auth(() => thenable as unknown as Promise<Response>)(request(), ctx);
    expect(await (viaThenable as Response).json()).toEqual({ thenable: true });
    const nothing = await auth(() => undefined)(request(), ctx);
    expect((nothing as Response).headers.get("x-middleware-next")).toBe("1");
    // A plain Request (not made by Next.js) is still made a NextRequest for the handler.
    const plain = await auth((req) => Response.json({ path: req.nextUrl.pathname, email: email(req) }))(
      new Request(`${ORIGIN}/api/plain`, { headers: { cookie: jar.header() } }) as NextRequest,
      ctx,
    );
    expect(await (plain as Response).json()).toEqual({ path: "/api/plain", email: "ada@example.com" });
  });

  it("attack: 40 requests at once, signed in, signed out and with forged or planted cookies, each get their own session", async () => {
    const { handlers, auth } = NextAuth(config());
    const jar = await signInByForm(handlers);
    const token = jar.cookies.get("authjs.session-token") as string;
    const GET = auth((req) => Response.json({ email: req.auth?.user?.email ?? null }));
    const Separate = separateNextRequestClass();
    const kinds = [
      { cookie: jar.header(), email: "ada@example.com" },
      { cookie: "", email: null },
      { cookie: `authjs.session-token=${token.slice(0, -4)}AAAA`, email: null },
      { cookie: "authjs.session-token=planted.by.a.sibling.sub-domain", email: null },
      { cookie: `authjs.session-token=${token}\u0001`, email: null },
    ];
    const runs = Array.from({ length: 40 }, (_, i) => kinds[i % kinds.length] as (typeof kinds)[number]);
    const answers = await Promise.all(
      runs.map(async ({ cookie }) => {
        const res = (await GET(
          new Separate(`${ORIGIN}/api/me`, { headers: cookie ? { cookie } : {} }),
          ctx,
        )) as Response;
        return { status: res.status, body: (await res.json()) as { email: string | null } };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(runs.map(() => 200));
    expect(answers.map((a) => a.body.email)).toEqual(runs.map((r) => r.email));
  });
});

describe("server actions", () => {
  const action = (headers: Record<string, string>, fn: () => Promise<unknown>) =>
    inNextRequest(`${ORIGIN}/login`, { origin: ORIGIN, "sec-fetch-site": "same-origin", ...headers }, fn);

  function form(fields: Record<string, string>): FormData {
    const data = new FormData();
    for (const [k, v] of Object.entries(fields)) data.set(k, v);
    return data;
  }

  it("signIn with credentials sets the session cookie and redirects with Next.js's redirect()", async () => {
    const { signIn, auth } = NextAuth(config());
    const out = await action({}, () =>
      signIn("credentials", form({ email: "ada@example.com", password: "right", redirectTo: "/dashboard" })),
    );
    expect(out.redirectedTo).toBe(`${ORIGIN}/dashboard`);
    const session = await inNextRequest(`${ORIGIN}/`, { cookie: cookieHeader(out.setCookies) }, () => auth(), "render");
    expect(session.result?.user?.email).toBe("ada@example.com");
  });

  it("signIn with an OAuth provider redirects to it, its check cookies set in Next.js's cookie store", async () => {
    const { signIn } = NextAuth(config({ providers: [GitHub({ clientId: "id", clientSecret: "secret" })] }));
    const out = await action({}, () => signIn("github", { redirectTo: "/after" }));
    const target = new URL(out.redirectedTo as string);
    expect(target.origin + target.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(target.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/api/auth/callback/github`);
    const names = out.setCookies.map((c) => c.split("=")[0]);
    expect(names).toEqual(expect.arrayContaining(["authjs.callback-url", "authjs.pkce.code_verifier"]));
  });

  it("signIn with a wrong password throws CredentialsSignin to the action, with its code", async () => {
    const { signIn } = NextAuth(config());
    const wrong = await action({}, () => signIn("credentials", form({ email: "ada@example.com", password: "wrong" })));
    expect(wrong.error).toBeInstanceOf(CredentialsSignin);
    expect((wrong.error as CredentialsSignin).code).toBe("credentials");
    expect(wrong.setCookies.some((c) => c.startsWith("authjs.session-token="))).toBe(false);
    const locked = await action({}, () => signIn("credentials", { email: "locked@example.com", password: "x" }));
    expect(locked.error).toBeInstanceOf(CredentialsSignin);
    expect((locked.error as CredentialsSignin).code).toBe("locked");
  });

  it("signIn called while a Server Component renders names the fix instead of signing in silently", async () => {
    const { signIn } = NextAuth(config());
    const out = await inNextRequest(
      `${ORIGIN}/login`,
      { origin: ORIGIN },
      () => signIn("credentials", { email: "ada@example.com", password: "right" }),
      "render",
    );
    expect(String(out.error)).toContain("must run in a Server Action or a Route Handler");
    expect(out.setCookies).toEqual([]);
  });

  it("signIn from a Server Component under database sessions names the fix before anything is stored or sent", async () => {
    const store = createMemoryStore();
    const sent: string[] = [];
    const { signIn } = NextAuth(
      config({
        adapter: MemoryAdapter(store),
        session: { strategy: "database" },
        providers: [
          Nodemailer({
            server: "smtp://127.0.0.1:1",
            from: "no-reply@app.test",
            sendVerificationRequest: ({ url }) => void sent.push(url),
          }),
        ],
      }),
    );
    const render = await inNextRequest(
      `${ORIGIN}/login`,
      { origin: ORIGIN, "sec-fetch-site": "same-origin" },
      () => signIn("nodemailer", { email: "ada@example.com", redirect: false }),
      "render",
    );
    expect(String(render.error)).toContain("must run in a Server Action or a Route Handler");
    expect(sent).toEqual([]);
    expect(store.verificationTokens.size).toBe(0);
    expect(store.users.size).toBe(0);
    // The same call from a Server Action does its work: the check is not refusing everything.
    const inAction = await action({}, () => signIn("nodemailer", { email: "ada@example.com", redirect: false }));
    expect(inAction.error).toBeUndefined();
    expect(sent).toHaveLength(1);
    expect(store.verificationTokens.size).toBe(1);
  });

  it("signIn with redirect: false returns the URL instead of redirecting", async () => {
    const { signIn } = NextAuth(config());
    const out = await action({}, () =>
      signIn("credentials", { email: "ada@example.com", password: "right", redirectTo: "/next", redirect: false }),
    );
    expect(out.error).toBeUndefined();
    expect(out.result).toBe(`${ORIGIN}/next`);
    const unknown = await action({ referer: `${ORIGIN}/here` }, () => signIn("nope", { redirect: false }));
    expect(unknown.result).toBe(`${ORIGIN}/api/auth/signin?callbackUrl=${encodeURIComponent(`${ORIGIN}/here`)}`);
  });

  it("signIn refuses a request from another origin before anything is posted (CSRF)", async () => {
    const { signIn } = NextAuth(config());
    const crossOrigin = await action({ origin: "https://evil.example", "sec-fetch-site": "cross-site" }, () =>
      signIn("credentials", form({ email: "ada@example.com", password: "right" })),
    );
    expect(crossOrigin.error).toBeInstanceOf(MissingCSRF);
    expect(crossOrigin.setCookies).toEqual([]);
    const forgedOrigin = await action({ origin: "https://evil.example", "sec-fetch-site": "" }, () =>
      signIn("credentials", form({ email: "ada@example.com", password: "right" })),
    );
    expect(forgedOrigin.error).toBeInstanceOf(MissingCSRF);
    const sibling = await action({ "sec-fetch-site": "same-site" }, () =>
      signIn("credentials", form({ email: "ada@example.com", password: "right" })),
    );
    expect(sibling.error).toBeInstanceOf(MissingCSRF);
    expect(attempts).toEqual([]);
  });

  describe("a credentials sign-in with no field of its own (a guest) may be started from anywhere", () => {
    /** The guest provider of a next-auth application: every sign-in a new guest, whatever the request. */
    let guests = 0;
    const guestConfig = () =>
      config({
        providers: [
          ...config().providers,
          Credentials({
            id: "guest",
            credentials: {},
            authorize: async () => {
              guests++;
              return { id: `guest-${guests}`, email: `guest-${guests}@example.com` };
            },
          }),
        ],
      });
    // A GET Route Handler calling signIn("guest"), as Vercel's AI chatbot's /api/auth/guest does,
    // reached by a link from another site, a link preview, a monitor.
    const visits: Array<[string, Record<string, string>]> = [
      ["a link from another site", { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" }],
      ["a sibling sub-domain's link", { "sec-fetch-site": "same-site" }],
      ["a client sending neither Origin nor Sec-Fetch-Site", {}],
    ];
    const visit = (headers: Record<string, string>, fn: () => Promise<unknown>) =>
      inNextRequest(`${ORIGIN}/api/auth/guest`, headers, fn);

    it.each(visits)("honest: %s signs a browser with no session in as a new guest", async (_, headers) => {
      const { signIn, auth } = NextAuth(guestConfig());
      const out = await visit(headers, () => signIn("guest", { redirect: false, redirectTo: "/" }));
      expect(out.error).toBeUndefined();
      expect(out.result).toBe(`${ORIGIN}/`);
      const session = await inNextRequest(
        `${ORIGIN}/`,
        { cookie: cookieHeader(out.setCookies) },
        () => auth(),
        "render",
      );
      expect(session.result?.user?.email).toBe(`guest-${guests}@example.com`);
    });

    it.each(visits)(
      "attack: %s never replaces a live session (it would sign the user out from another site)",
      async (_, headers) => {
        const { signIn, handlers, auth } = NextAuth(guestConfig());
        const jar = await signInByForm(handlers);
        const before = guests;
        const out = await visit({ ...headers, cookie: jar.header() }, () => signIn("guest", { redirect: false }));
        expect(out.error).toBeInstanceOf(MissingCSRF);
        expect(out.setCookies).toEqual([]);
        expect(guests).toBe(before);
        const still = await inNextRequest(`${ORIGIN}/`, { cookie: jar.header() }, () => auth(), "render");
        expect(still.result?.user?.email).toBe("ada@example.com");
      },
    );

    it.each(visits)(
      "attack: %s cannot sign in with fields it chose: a password, an address, a token (login CSRF)",
      async (_, headers) => {
        const { signIn } = NextAuth(guestConfig());
        for (const [provider, fields] of [
          ["credentials", { email: "ada@example.com", password: "right" }],
          ["guest", { email: "attacker@example.com" }],
          ["guest", { csrfToken: "forged", callbackUrl: "/x", id: "guest-1" }],
        ] as const) {
          const out = await visit(headers, () => signIn(provider, { ...fields, redirect: false }));
          expect(out.error, JSON.stringify(fields)).toBeInstanceOf(MissingCSRF);
          expect(out.setCookies).toEqual([]);
        }
        expect(attempts).toEqual([]);
      },
    );

    it("attack: another site cannot add authorization parameters to a fieldless sign-in", async () => {
      const { signIn } = NextAuth(guestConfig());
      const before = guests;
      const out = await visit({ "sec-fetch-site": "cross-site" }, () =>
        signIn("guest", { redirect: false }, { login_hint: "attacker" }),
      );
      expect(out.error).toBeInstanceOf(MissingCSRF);
      expect(guests).toBe(before);
    });

    it("a planted garbage session cookie (no live session) does not stop the guest", async () => {
      const { signIn } = NextAuth(guestConfig());
      const planted = await visit({ "sec-fetch-site": "cross-site", cookie: "authjs.session-token=garbage" }, () =>
        signIn("guest", { redirect: false }),
      );
      expect(planted.error).toBeUndefined();
      expect(
        planted.setCookies.some(
          (c) => c.startsWith("authjs.session-token=") && !c.startsWith("authjs.session-token=;"),
        ),
      ).toBe(true);
    });
  });

  it("attack: an Origin with this host but another scheme or port is another origin, refused (CSRF)", async () => {
    const { signIn } = NextAuth(config());
    for (const origin of ["https://localhost:3000", "http://localhost:3001", "http://localhost", "null"]) {
      const out = await action({ origin, "sec-fetch-site": "" }, () =>
        signIn("credentials", form({ email: "ada@example.com", password: "right" })),
      );
      expect(out.error, origin).toBeInstanceOf(MissingCSRF);
      expect(out.setCookies).toEqual([]);
    }
    expect(attempts).toEqual([]);
  });

  it("the origin compared is AUTH_URL's when it is set, scheme included (a TLS proxy in front)", async () => {
    const before = process.env.AUTH_URL;
    process.env.AUTH_URL = "https://app.example/api/auth";
    try {
      const { signIn } = NextAuth(config());
      const behindProxy = await action({ origin: "https://app.example" }, () =>
        signIn("credentials", form({ email: "ada@example.com", password: "right", redirectTo: "/in" })),
      );
      expect(behindProxy.redirectedTo).toBe("https://app.example/in");
      const plainHttp = await action({ origin: "http://app.example" }, () =>
        signIn("credentials", form({ email: "ada@example.com", password: "right" })),
      );
      expect(plainHttp.error).toBeInstanceOf(MissingCSRF);
    } finally {
      if (before === undefined) delete process.env.AUTH_URL;
      else process.env.AUTH_URL = before;
    }
  });

  it("a request with neither Origin nor Sec-Fetch-Site proves nothing: refused unless it carries the CSRF token and cookie", async () => {
    const { signIn, signOut, unstable_update, handlers } = NextAuth(config());
    const bare = (headers: Record<string, string>, fn: () => Promise<unknown>) =>
      inNextRequest(`${ORIGIN}/login`, headers, fn);
    const none = await bare({}, () => signIn("credentials", form({ email: "ada@example.com", password: "right" })));
    expect(none.error).toBeInstanceOf(MissingCSRF);
    expect(String((none.error as Error).message)).toContain("csrfToken");
    expect((await bare({}, () => signOut({ redirect: false }))).error).toBeInstanceOf(MissingCSRF);
    expect((await bare({}, () => unstable_update({ user: { name: "x" } }))).error).toBeInstanceOf(MissingCSRF);
    expect(attempts).toEqual([]);

    const jar = new Jar();
    const csrf = await handlers.GET(new NextRequest(`${ORIGIN}/api/auth/csrf`));
    jar.apply(csrf.headers.getSetCookie());
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    // A token without its cookie (a planted or guessed one) is refused by the pipeline's check.
    const tokenOnly = await bare({}, () =>
      signIn("credentials", form({ email: "ada@example.com", password: "right", csrfToken })),
    );
    expect(tokenOnly.error).toBeInstanceOf(MissingCSRF);
    const wrongToken = await bare({ cookie: jar.header() }, () =>
      signIn("credentials", form({ email: "ada@example.com", password: "right", csrfToken: "f".repeat(64) })),
    );
    expect(wrongToken.error).toBeInstanceOf(MissingCSRF);
    expect(attempts).toEqual([]);
    const pair = await bare({ cookie: jar.header() }, () =>
      signIn("credentials", form({ email: "ada@example.com", password: "right", csrfToken, redirectTo: "/in" })),
    );
    expect(pair.redirectedTo).toBe(`${ORIGIN}/in`);
    expect(pair.setCookies.some((c) => c.startsWith("authjs.session-token="))).toBe(true);
    jar.apply(pair.setCookies);
    const out = await bare({ cookie: jar.header() }, () => signOut({ redirect: false, csrfToken }));
    expect(out.error).toBeUndefined();
    expect(out.setCookies.some((c) => /^authjs\.session-token=;/.test(c) || /Max-Age=0/i.test(c))).toBe(true);
  });

  it("Sec-Fetch-Site: same-origin proves the origin without an Origin header", async () => {
    const { signIn } = NextAuth(config());
    const out = await inNextRequest(`${ORIGIN}/login`, { "sec-fetch-site": "same-origin" }, () =>
      signIn("credentials", form({ email: "ada@example.com", password: "right", redirectTo: "/in" })),
    );
    expect(out.redirectedTo).toBe(`${ORIGIN}/in`);
  });

  it("attack: another site's request is refused whatever its Fetch Metadata says, a followed link included (a sign-in with a password, a sign-out)", async () => {
    const { signIn, signOut } = NextAuth(config());
    const navigation = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" };
    const refused: Record<string, Record<string, string>> = {
      // A link to a Route Handler that signs in with what the URL says is login CSRF; one that signs out, a forced sign-out.
      "a link followed from another site": navigation,
      "a link followed from a sibling": { ...navigation, "sec-fetch-site": "same-site" },
      // A form another site posts is a navigation too, but carries Origin (every method but GET and HEAD does).
      "a cross-site form post": { ...navigation, origin: "https://evil.example" },
      "a form post with Origin: null": { ...navigation, origin: "null" },
      "a framed page": { ...navigation, "sec-fetch-dest": "iframe" },
      "a script's request": { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "empty" },
      "a navigation to an embedded object": { ...navigation, "sec-fetch-dest": "object" },
      "no Sec-Fetch-Mode": { "sec-fetch-site": "cross-site", "sec-fetch-dest": "document" },
    };
    for (const [what, headers] of Object.entries(refused)) {
      const out = await inNextRequest(`${ORIGIN}/api/auth/guest`, headers, () =>
        signIn("credentials", { email: "ada@example.com", password: "right" }),
      );
      expect(out.error, what).toBeInstanceOf(MissingCSRF);
      expect(out.setCookies, what).toEqual([]);
      const out2 = await inNextRequest(`${ORIGIN}/api/auth/guest`, headers, () => signOut({ redirect: false }));
      expect(out2.error, what).toBeInstanceOf(MissingCSRF);
    }
    expect(attempts).toEqual([]);
  });

  // The internal request sends the freshly minted CSRF cookie with the browser's cookies; a browser
  // whose CSRF cookie no longer verifies (the secret changed, a truncated or planted value) then
  // carried the name twice, which reads as no cookie: every server-action sign-in was MissingCSRF.
  it("signIn works for a browser whose CSRF cookie no longer verifies (a changed secret, a bad value)", async () => {
    const { signIn } = NextAuth(config());
    for (const stale of ["garbage", `${"a".repeat(64)}|${"b".repeat(64)}`]) {
      const out = await action({ cookie: `authjs.csrf-token=${stale}` }, () =>
        signIn("credentials", form({ email: "ada@example.com", password: "right", redirectTo: "/in" })),
      );
      expect(out.error === undefined || out.redirectedTo !== undefined, String(out.error)).toBe(true);
      expect(out.redirectedTo).toBe(`${ORIGIN}/in`);
      expect(out.setCookies.some((c) => c.startsWith("authjs.session-token="))).toBe(true);
    }
  });

  it("a failure that is not the user's is an AuthError the action can catch", async () => {
    const { signIn } = NextAuth(config());
    // A host the configuration does not trust (no AUTH_URL, no trustHost, not loopback).
    const untrusted = await inNextRequest("https://app.example/login", { origin: "https://app.example" }, () =>
      signIn("credentials", { email: "ada@example.com", password: "right" }),
    );
    expect(untrusted.error).toBeInstanceOf(AuthError);
    expect((untrusted.error as AuthError).type).toBe("UntrustedHost");
    const misconfigured = NextAuth(config({ secret: "short" }));
    const out = await action({}, () =>
      misconfigured.signIn("credentials", { email: "ada@example.com", password: "right" }),
    );
    expect(out.error).toBeInstanceOf(AuthError);
    expect((out.error as AuthError).type).toBe("InvalidConfiguration");
    expect(attempts).toEqual([]);
  });

  it("signOut clears the session cookie and redirects", async () => {
    const { handlers, signOut } = NextAuth(config());
    const jar = await signInByForm(handlers);
    const out = await action({ cookie: jar.header() }, () => signOut({ redirectTo: "/bye" }));
    expect(out.redirectedTo).toBe(`${ORIGIN}/bye`);
    expect(
      out.setCookies.some((c) => /^authjs\.session-token=;/.test(c) || /authjs\.session-token=.*Max-Age=0/i.test(c)),
    ).toBe(true);
  });

  it("unstable_update runs the jwt callback with trigger update and returns the new session", async () => {
    const { handlers, unstable_update } = NextAuth(
      config({
        callbacks: {
          jwt: ({ token, trigger, session }) => {
            const name = (session as { user?: { name?: string } } | undefined)?.user?.name;
            if (trigger === "update" && name) token.name = name;
            return token;
          },
        },
      }),
    );
    const jar = await signInByForm(handlers);
    const out = await action({ cookie: jar.header() }, () => unstable_update({ user: { name: "Ada L." } }));
    expect(out.error).toBeUndefined();
    expect((out.result as { user: { name: string } }).user.name).toBe("Ada L.");
    expect(out.setCookies.some((c) => c.startsWith("authjs.session-token="))).toBe(true);
    const crossSite = await action({ cookie: jar.header(), "sec-fetch-site": "cross-site" }, () =>
      unstable_update({ user: { name: "Mallory" } }),
    );
    expect(crossSite.error).toBeInstanceOf(MissingCSRF);
  });
});
