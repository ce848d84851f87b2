/**
 * The fuzz targets: one property per parser on the request path, shared by the small slice that
 * runs in `npm test` (fuzz.test.ts, FUZZ_RUNS unset) and the big run of `npm run fuzz`
 * (FUZZ_RUNS=10000). Each target is an async property over fast-check arbitraries.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import addressparser from "nodemailer/lib/addressparser/index.js";
import { expect } from "vitest";
import {
  type AccountMail,
  type AccountsRequest,
  changePassword,
  MemoryPasswordStore,
  type PasswordAccountsOptions,
  requestPasswordReset,
  resetPassword,
  signUp,
  verifyEmail,
} from "../../src/accounts.js";
import { AuthError, MissingCSRF, UnknownAction } from "../../src/errors.js";
import { Auth, type AuthConfig } from "../../src/index.js";
import { deriveCsrfKeys, readCsrfCookie } from "../../src/lib/crypto/csrf.js";
import { openToken, sealToken } from "../../src/lib/crypto/jwe.js";
import { normalizeEmailIdentifier } from "../../src/lib/email/identifier.js";
import { parseCookieHeader, serializeCookie } from "../../src/lib/http/cookies.js";
import { defaultRedirect } from "../../src/lib/http/redirect.js";
import { BadBody, parseActionPath, parseBody } from "../../src/lib/http/request.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import { hashPassword } from "../../src/password.js";
import OAuth2 from "../../src/providers/generic-oauth.js";
import { CookieJar, call, csrfToken, demoCredentials, SECRET, signIn } from "../helpers.js";

export interface FuzzTarget {
  name: string;
  /** Builds the property; may set up fixtures first. */
  property(): Promise<fc.IAsyncProperty<unknown[]> | fc.IProperty<unknown[]>>;
  teardown?(): Promise<void>;
}

const ORIGIN = "http://localhost:3000";

/** Strings that mix the characters parsers care about with arbitrary Unicode. */
const nasty = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 60 }),
  fc
    .array(
      fc.constantFrom(
        "/",
        "\\",
        "//",
        "%",
        "%2F",
        "%5C",
        "%00",
        "%E3%80%82",
        "@",
        ":",
        ";",
        "=",
        ",",
        '"',
        "'",
        "\t",
        "\n",
        "\r",
        " ",
        "?",
        "#",
        "&",
        "..",
        ".",
        "evil.example",
        "localhost:3000",
        "http:",
        "https:",
        "javascript:",
        "data:",
        "\u0000",
        "\u3002",
        "\uff20",
        "auth",
        "signin",
        "callback",
        "session",
        "csrf",
        "A",
        "0",
        "-",
        "_",
      ),
      { maxLength: 25 },
    )
    .map((parts) => parts.join("")),
);

/** Fails when `work` does not settle within `ms`: a hang is a finding, not a slow test. */
async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function expectNo5xx(response: Response, what: string): void {
  expect(response.status, `${what} answered ${response.status}`).toBeLessThan(500);
}

const hex64 = fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 });
const SALT = "authjs.session-token";
const genuineToken = await sealToken({ sub: "u1", name: "Ada" }, [SECRET], SALT, 3600);

export const targets: FuzzTarget[] = [
  {
    name: "cookie header parsing: never throws, string values, serialised cookies read back",
    async property() {
      const cookieName = fc.stringMatching(/^[!#$&'*+\-.^_`|~0-9A-Za-z]{1,20}$/);
      return fc.property(nasty, cookieName, fc.string({ maxLength: 100 }), (header, name, value) => {
        const parsed = parseCookieHeader(header);
        for (const v of Object.values(parsed)) expect(typeof v).toBe("string");
        const line = serializeCookie(name, value).split(";")[0] as string;
        const back = parseCookieHeader(`${line}; other=1`);
        const trimmed = value.trim();
        // What survives a round trip is the value, modulo the whitespace trim of cookie parsing.
        if (value === trimmed && !(value.length > 1 && value.startsWith('"') && value.endsWith('"'))) {
          expect(back[name]).toBe(value);
        }
      });
    },
  },
  {
    name: "query and form body parsing: only BadBody is thrown, form values are strings",
    async property() {
      const type = fc.oneof(
        fc.constantFrom(
          "application/json",
          "application/x-www-form-urlencoded",
          "text/plain",
          "multipart/form-data; boundary=x",
          "APPLICATION/JSON; charset=utf-8",
        ),
        nasty,
        fc.constant(null),
      );
      const body = fc.oneof(
        nasty,
        fc.json(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      );
      return fc.property(type, body, (contentType, text) => {
        let parsed: Record<string, unknown> | undefined;
        try {
          parsed = parseBody(contentType, text);
        } catch (e) {
          expect(e).toBeInstanceOf(BadBody);
          return;
        }
        if (parsed !== undefined) {
          expect(typeof parsed).toBe("object");
          expect(Array.isArray(parsed)).toBe(false);
        }
        if (contentType?.toLowerCase().startsWith("application/x-www-form-urlencoded") && parsed) {
          for (const v of Object.values(parsed)) expect(typeof v).toBe("string");
        }
      });
    },
  },
  {
    name: "action path parsing: only UnknownAction, a known action, a provider id of safe characters",
    async property() {
      const base = fc.constantFrom("/auth", "/api/auth", "", "/a/b");
      const path = fc.oneof(
        nasty.map((s) => `/${s}`),
        fc.tuple(base, nasty).map(([b, s]) => `${b}/${s}`),
        fc
          .tuple(base, fc.constantFrom("signin", "callback", "session", "webauthn-options"), nasty)
          .map(([b, a, s]) => `${b}/${a}/${s}`),
      );
      return fc.property(path, base, (pathname, basePath) => {
        let result: ReturnType<typeof parseActionPath>;
        try {
          result = parseActionPath(pathname, basePath);
        } catch (e) {
          expect(e).toBeInstanceOf(UnknownAction);
          return;
        }
        expect(pathname.startsWith(`${basePath}/`)).toBe(true);
        if (result.providerId !== undefined && result.providerId !== "webauthn-script.js") {
          expect(result.providerId).toMatch(/^[A-Za-z0-9_-]{1,100}$/);
        }
      });
    },
  },
  {
    name: "callbackUrl (defaultRedirect): the result is always on the base origin",
    async property() {
      const base = fc.constantFrom(
        "http://localhost:3000",
        "https://app.example",
        "http://127.0.0.1:8080/auth",
        "https://app.example:8443/",
      );
      const url = fc.oneof(
        nasty,
        fc.webUrl({ withQueryParameters: true, withFragments: true }),
        fc.tuple(nasty, nasty).map(([a, b]) => `${a}${b}`),
      );
      return fc.property(url, base, (candidate, baseUrl) => {
        const out = defaultRedirect({ url: candidate, baseUrl });
        const parsed = new URL(out);
        expect(parsed.origin).toBe(new URL(baseUrl).origin);
        expect(parsed.username + parsed.password).toBe("");
      });
    },
  },
  {
    name: "JWE strings (openToken): never throws, null for anything not sealed by us",
    async property() {
      const parts = genuineToken.split(".");
      const mutated = fc
        .tuple(fc.nat({ max: genuineToken.length - 1 }), fc.string({ minLength: 0, maxLength: 4 }), fc.nat({ max: 3 }))
        .map(([i, insert, cut]) => genuineToken.slice(0, i) + insert + genuineToken.slice(i + cut));
      const shaped = fc
        .array(
          fc.oneof(
            fc.base64String({ maxLength: 80 }).map((s) => s.replace(/=/g, "")),
            nasty,
          ),
          { minLength: 1, maxLength: 7 },
        )
        .map((p) => p.join("."));
      return fc.property(fc.oneof(mutated, shaped, nasty), (token) => {
        const claims = openToken(token, [SECRET], SALT);
        if (claims === null) return;
        // Accepted only when it decodes to the very bytes we sealed (base64url padding bits aside).
        const same = token
          .split(".")
          .every((part, n) => Buffer.from(part, "base64url").equals(Buffer.from(parts[n] as string, "base64url")));
        expect(same, `accepted a token we did not seal: ${token}`).toBe(true);
      });
    },
  },
  {
    name: "CSRF cookie values: never throws, a token only for a value we signed",
    async property() {
      const keys = deriveCsrfKeys([SECRET]);
      return fc.property(
        fc.oneof(
          nasty,
          fc.tuple(hex64, hex64).map(([a, b]) => `${a}|${b}`),
        ),
        (value) => {
          expect(readCsrfCookie(keys, value)).toBeUndefined();
        },
      );
    },
  },
  {
    name: "e-mail identifiers: a normalised address is exactly one mailbox to a mail parser",
    async property() {
      const address = fc.oneof(
        nasty,
        fc.emailAddress(),
        fc.tuple(fc.emailAddress(), nasty, fc.emailAddress()).map(([a, s, b]) => `${a}${s}${b}`),
      );
      return fc.property(address, (input) => {
        let normalized: string;
        try {
          normalized = normalizeEmailIdentifier(input);
        } catch {
          return;
        }
        const parsed = addressparser(normalized, { flatten: true }) as Array<{ address: string }>;
        expect(parsed).toHaveLength(1);
        expect(parsed[0]?.address).toBe(normalized);
      });
    },
  },
  wholeRequests(),
  redirectTargets(),
  prototypeNames(),
  providerResponses(),
  passwordAccountInputs(),
];

/** Whole requests through `Auth(new Request(...))`: no 5xx, no throw, no hang. */
function wholeRequests(): FuzzTarget {
  let config: AuthConfig;
  let session: CookieJar;
  let csrf: string;
  return {
    name: "whole requests through Auth(): never a 5xx, never a throw, never a hang",
    async property() {
      config = {
        secret: SECRET,
        trustHost: true,
        rateLimit: false,
        adapter: MemoryAdapter(createMemoryStore()),
        session: { strategy: "jwt" },
        logger: { error() {}, warn() {}, debug() {} },
        providers: [
          demoCredentials(),
          { id: "mail", name: "Mail", type: "email", sendVerificationRequest: () => {} },
          OAuth2({
            id: "oauth",
            name: "OAuth",
            clientId: "c",
            clientSecret: "s",
            authorization: "http://127.0.0.1:9/a",
            token: "http://127.0.0.1:9/t",
            userinfo: "http://127.0.0.1:9/u",
          }),
        ],
      };
      session = (await signIn(config)).jar;
      csrf = await csrfToken(config, session);
      const action = fc.constantFrom(
        "signin",
        "signout",
        "session",
        "csrf",
        "providers",
        "callback",
        "error",
        "verify-request",
        "webauthn-options",
        "signin/credentials",
        "signin/mail",
        "signin/oauth",
        "callback/credentials",
        "callback/mail",
        "callback/oauth",
        "callback/nope",
      );
      const path = fc.oneof(
        action.map((a) => `/auth/${a}`),
        nasty.map((s) => `/auth/${encodeURI(s).replace(/%25/g, "%")}`),
        fc.tuple(action, nasty).map(([a, s]) => `/auth/${a}/${encodeURIComponent(s)}`),
      );
      const query = fc.dictionary(
        fc.constantFrom("callbackUrl", "error", "token", "email", "code", "state", "csrfToken", "x"),
        nasty,
        { maxKeys: 4 },
      );
      const form = fc.dictionary(
        fc.constantFrom("callbackUrl", "csrfToken", "email", "username", "password", "token", "data", "x"),
        nasty,
        { maxKeys: 5 },
      );
      const body = fc.oneof(
        form.map((f) => ({
          type: "application/x-www-form-urlencoded",
          text: new URLSearchParams(f).toString(),
          form: f,
        })),
        fc.jsonValue().map((v) => ({ type: "application/json", text: JSON.stringify(v), form: {} })),
        fc.tuple(fc.option(nasty), nasty).map(([type, text]) => ({ type: type ?? "", text, form: {} })),
      );
      const cookies = fc.oneof(
        fc.constant(""),
        nasty,
        fc.constant("SESSION"),
        fc.tuple(fc.constant("SESSION"), nasty).map(([s, n]) => `${s}; ${n}`),
      );
      return fc.asyncProperty(
        fc.constantFrom("GET", "POST", "POST", "PUT", "HEAD", "OPTIONS"),
        path,
        query,
        body,
        cookies,
        fc.boolean(),
        fc.boolean(),
        async (method, pathname, q, b, cookie, withCsrf, asJson) => {
          const headers = new Headers();
          let url: string;
          try {
            url = new URL(`${pathname}?${new URLSearchParams(q)}`, ORIGIN).href;
          } catch {
            return;
          }
          const cookieHeader = cookie.replace("SESSION", session.header());
          try {
            headers.set("cookie", cookieHeader);
          } catch {
            return;
          }
          if (asJson) headers.set("x-auth-return-redirect", "1");
          let text = b.text;
          if (withCsrf && b.type === "application/x-www-form-urlencoded")
            text = new URLSearchParams({ ...b.form, csrfToken: csrf }).toString();
          try {
            headers.set("content-type", b.type);
          } catch {
            // an unusable header value is the client's problem, not a request Auth ever sees
          }
          const hasBody = method !== "GET" && method !== "HEAD";
          const response = await bounded(
            Auth(new Request(url, { method, headers, body: hasBody ? text : undefined }), config),
            5000,
            `${method} ${url}`,
          );
          expectNo5xx(response, `${method} ${url}`);
          await response.arrayBuffer();
        },
      );
    },
  };
}

/** The OAuth callback against a local provider whose token and userinfo answers are arbitrary. */
function providerResponses(): FuzzTarget {
  let server: Server;
  let answer: { status: number; type: string; body: string } = { status: 200, type: "application/json", body: "{}" };
  let userinfo: { status: number; type: string; body: string } = { status: 200, type: "application/json", body: "{}" };
  return {
    name: "provider token and userinfo responses: any JSON or bytes end in a redirect, never a 5xx or a hang",
    async property() {
      server = createServer((req, res) => {
        const reply = req.url?.startsWith("/token") ? answer : userinfo;
        req.resume();
        req.on("end", () => {
          res.writeHead(reply.status, { "content-type": reply.type });
          res.end(reply.body);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const config: AuthConfig = {
        secret: SECRET,
        trustHost: true,
        rateLimit: false,
        logger: { error() {}, warn() {}, debug() {} },
        providers: [
          OAuth2({
            id: "fz",
            name: "Fuzz",
            clientId: "c",
            clientSecret: "s",
            authorization: `${base}/authorize`,
            token: `${base}/token`,
            userinfo: `${base}/userinfo`,
            checks: ["pkce", "state"],
          }),
        ],
      };
      const jar = new CookieJar();
      const token = await csrfToken(config, jar);
      const start = await call(config, "/auth/signin/fz", { jar, form: { csrfToken: token } });
      const state = new URL(start.headers.get("location") as string).searchParams.get("state") as string;
      const tokenLike = fc.record(
        {
          access_token: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
          token_type: fc.oneof(fc.constantFrom("bearer", "Bearer", "DPoP", "mac"), fc.string(), fc.integer()),
          expires_in: fc.oneof(fc.integer(), fc.string(), fc.double()),
          refresh_token: fc.string(),
          scope: fc.oneof(fc.string(), fc.array(fc.string())),
          id_token: fc.string(),
          error: fc.string(),
        },
        { requiredKeys: [] },
      );
      const profileLike = fc.record(
        {
          id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.object()),
          sub: fc.oneof(fc.string(), fc.integer()),
          name: fc.jsonValue(),
          email: fc.jsonValue(),
          image: fc.jsonValue(),
        },
        { requiredKeys: [] },
      );
      const reply = (shape: fc.Arbitrary<unknown>) =>
        fc.record({
          status: fc.constantFrom(200, 200, 200, 201, 204, 301, 400, 401, 404, 500, 503),
          type: fc.constantFrom(
            "application/json",
            "application/json; charset=utf-8",
            "text/html",
            "application/x-www-form-urlencoded",
            "",
          ),
          body: fc.oneof(
            shape.map((v) => JSON.stringify(v)),
            fc.jsonValue().map((v) => JSON.stringify(v)),
            nasty,
            fc.uint8Array({ maxLength: 64 }).map((u) => Buffer.from(u).toString("latin1")),
          ),
        });
      return fc.asyncProperty(reply(tokenLike), reply(profileLike), nasty, async (t, u, code) => {
        answer = t;
        userinfo = u;
        const url = `/auth/callback/fz?${new URLSearchParams({ code: code || "c", state })}`;
        const response = await bounded(
          call(config, url, { jar: Object.assign(new CookieJar(), { cookies: new Map(jar.cookies) }) }),
          15000,
          "the OAuth callback",
        );
        expectNo5xx(
          response,
          `callback with token ${t.status} ${t.body.slice(0, 80)} / userinfo ${u.status} ${u.body.slice(0, 80)}`,
        );
        expect(response.status).toBe(302);
      });
    },
    async teardown() {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}

/** Characters a header, a cookie or a log line cannot carry as they are, mixed with any code point. */
const unruly = fc.oneof(
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom(
    "\u0000",
    "\t",
    "\r",
    "\n",
    "\r\nSet-Cookie: x=1",
    "\u007f",
    "\u0085",
    "\u00a0",
    "\u2028",
    "\u2029",
    "\u202e",
    "\ud800",
    "\udfff",
    "\ud83d\ude00",
    "€",
    "é",
    " ",
    "%",
    "%zz",
    "%E2%82",
    "?",
    "#",
  ),
);

/** A header value as a client can read it: printable ASCII only. */
function expectHeaderSafe(value: string, what: string): void {
  expect(value, what).toMatch(/^[\x21-\x7e]+$/);
}

/**
 * Redirect targets through whole requests: a `callbackUrl` with any code point (control characters,
 * non-ASCII, lone surrogates) in a form or JSON body, through the default redirect and through an
 * application's permissive `redirect` callback, up to `pages.newUser` after a magic link. Every
 * answer is a redirect (or page) with a printable `Location` on our origin: never a throw or a 5xx.
 */
function redirectTargets(): FuzzTarget {
  let mailed: string[] = [];
  const provider = {
    id: "mail",
    name: "Mail",
    type: "email",
    sendVerificationRequest: ({ url }: { url: string }) => void mailed.push(url),
  } as const;
  const base = (extra: Partial<AuthConfig>): AuthConfig => ({
    secret: SECRET,
    trustHost: true,
    rateLimit: false,
    adapter: MemoryAdapter(createMemoryStore()),
    session: { strategy: "jwt" },
    logger: { error() {}, warn() {}, debug() {} },
    providers: [demoCredentials(), provider],
    ...extra,
  });
  return {
    name: "redirect targets: any callbackUrl ends in a printable Location on our origin, never a throw or a 5xx",
    async property() {
      const configs = {
        default: base({}),
        // An application callback that trusts any path, as Auth.js's documentation shows.
        permissive: base({
          pages: { newUser: "/welcome/€ new" },
          callbacks: { redirect: ({ url, baseUrl }) => (url.startsWith("/") ? `${baseUrl}${url}` : url) },
        }),
      };
      const callbackUrl = fc
        .tuple(fc.constantFrom("/", "/a/", `${ORIGIN}/`, "", "/\\", "//"), fc.array(unruly, { maxLength: 5 }))
        .map(([prefix, parts]) => prefix + parts.join(""));
      const flow = fc.constantFrom("signout-form", "signout-json", "credentials", "signin-page", "magic-link");
      return fc.asyncProperty(
        fc.constantFrom("default", "permissive" as const),
        flow,
        callbackUrl,
        async (which, kind, target) => {
          const config = configs[which as keyof typeof configs];
          const jar = new CookieJar();
          const csrf = await csrfToken(config, jar);
          let response: Response;
          if (kind === "signin-page") {
            response = await call(config, `/auth/signin?${new URLSearchParams({ callbackUrl: target })}`, { jar });
            expect(response.status).toBe(200);
            return;
          }
          if (kind === "signout-json") {
            response = await call(config, "/auth/signout", {
              jar,
              json: { csrfToken: csrf, callbackUrl: target },
              headers: { "x-auth-return-redirect": "1" },
            });
            expect(response.status).toBe(200);
            const { url } = (await response.json()) as { url: string };
            expectHeaderSafe(url, "the JSON redirect url");
            if (which === "default") expect(new URL(url).origin).toBe(ORIGIN);
            return;
          }
          if (kind === "signout-form") {
            response = await call(config, "/auth/signout", { jar, form: { csrfToken: csrf, callbackUrl: target } });
          } else if (kind === "credentials") {
            response = await call(config, "/auth/callback/credentials", {
              jar,
              form: { csrfToken: csrf, username: "ada", password: "lovelace", callbackUrl: target },
            });
          } else {
            mailed = [];
            const email = `fuzz-${randomUUID()}@example.com`;
            const sent = await call(config, "/auth/signin/mail", {
              jar,
              json: { csrfToken: csrf, email, callbackUrl: target },
            });
            expect(sent.status).toBe(302);
            const link = new URL(mailed[0] as string);
            response = await call(config, `${link.pathname}${link.search}`, { jar });
          }
          expect(response.status, `${kind} answered ${response.status}`).toBe(302);
          const location = response.headers.get("location") as string;
          expectHeaderSafe(location, `the Location of ${kind}`);
          if (which === "default" || kind === "magic-link") expect(new URL(location, ORIGIN).origin).toBe(ORIGIN);
        },
      );
    },
  };
}

/**
 * `?error=` and `?code=` values named like what every object inherits (`constructor`, `__proto__`,
 * `toString`, ...): the pages treat them as the unknown values they are (the same answer as for a
 * name nothing defines), never a throw, a 5xx or a printed function.
 */
function prototypeNames(): FuzzTarget {
  const inherited = [
    ...Object.getOwnPropertyNames(Object.prototype),
    ...Object.getOwnPropertyNames(Function.prototype),
  ];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    rateLimit: false,
    logger: { error() {}, warn() {}, debug() {} },
    providers: [demoCredentials()],
  };
  /** What a page says to the user: the heading and the alert, without the per-request CSRF token. */
  const said = async (response: Response) => {
    const body = await response.text();
    expect(body).not.toMatch(/\[native code\]|function \w*\(/);
    return {
      status: response.status,
      heading: body.match(/<h1>(.*?)<\/h1>/)?.[1],
      alert: body.match(/role="alert"><p>(.*?)<\/p>/)?.[1],
    };
  };
  return {
    name: "error and code values named like Object.prototype members: the unknown-value answer, never a throw",
    async property() {
      const value = fc.oneof(
        fc.constantFrom(...inherited),
        fc.constantFrom(...inherited).map((n) => n.toUpperCase()),
        nasty,
      );
      const page = fc.constantFrom("/auth/error", "/auth/signin");
      return fc.asyncProperty(page, value, value, async (path, error, code) => {
        const unknown = `Unknown${randomUUID().slice(0, 8)}`;
        const url = (e: string, c: string) => `${path}?${new URLSearchParams({ error: e, code: c })}`;
        const answer = await call(config, url(error, code));
        expect(answer.status, `${path} ${error} answered ${answer.status}`).toBeLessThan(500);
        const shown = await said(answer);
        // No page knows a value named like an inherited member: it reads exactly as an unknown one.
        if (inherited.includes(error)) expect(shown).toEqual(await said(await call(config, url(unknown, code))));
      });
    },
  };
}

/** How a client may send a genuine value: as it is, altered, as another type, or not at all. */
type Mutation = (genuine: string) => unknown;

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Mutation>((g) => g) },
  fc.constantFrom<Mutation>(
    (g) => g.toUpperCase(),
    (g) => ` ${g}`,
    (g) => `${g}\u0000`,
    (g) => `${g}x`,
    (g) => g.slice(0, -1),
    (g) => `${g},${g}`,
    (g) => [g],
    (g) => ({ value: g }),
    () => "",
    () => undefined,
    () => null,
    () => 0,
  ),
  nasty.map(
    (n): Mutation =>
      () =>
        n,
  ),
);

/**
 * The password-account functions with what a client may post: each field the genuine value of
 * this run (a real session, CSRF token, reset link or mailed code), that value altered (case,
 * whitespace, a suffix, another type, repeated), or anything at all, and any extra `Cookie` header.
 * Every call answers a result whose `ok` is a boolean, or throws a 4xx `AuthError` (a change
 * without its CSRF token: `MissingCSRF`); never another throw, a 5xx or a hang. And nothing
 * succeeds on a value that is not the genuine one: a reset only with this link's exact token and
 * user, a change only with the exact CSRF token and current password, a verification only with
 * this sign-up's exact code or link.
 */
function passwordAccountInputs(): FuzzTarget {
  const PASSWORD = "correct horse battery staple";
  const NEW_PASSWORD = "a new passphrase, long enough";
  const mails: AccountMail[] = [];
  const accounts: PasswordAccountsOptions = {
    passwords: new MemoryPasswordStore(),
    urls: { verify: "/account/verify", reset: "/account/reset", signIn: "/auth/signin", signUp: "/account/signup" },
    breached: false,
    hash: { parameters: { ln: 4 } },
    send: async (mail) => void mails.push(mail),
    // The limits have their own tests; here they would turn most inputs into "rate-limited".
    limits: {
      signUpMailPerAddress: { max: 1e9, windowSeconds: 60 },
      resetMailPerAddress: { max: 1e9, windowSeconds: 60 },
      mailPerClient: { max: 1e9, windowSeconds: 60 },
      submitPerAddress: { max: 1e9, windowSeconds: 60 },
      submitPerClient: { max: 1e9, windowSeconds: 60 },
    },
  };
  const adapter = MemoryAdapter(createMemoryStore());
  const { createUser } = adapter;
  if (!createUser) throw new Error("MemoryAdapter has createUser");
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt", revocation: true },
    logger: { error() {}, warn() {}, debug() {} },
    providers: [demoCredentials()],
  };
  const browser = new CookieJar();
  const clientAddress = "192.0.2.1";
  const linkOf = (to: string): Record<string, string | undefined> => {
    const mail = [...mails].reverse().find((m) => m.to === to);
    if (!mail?.url) throw new Error(`no e-mail with a link to ${to}`);
    return { ...Object.fromEntries(new URL(mail.url).searchParams), code: mail.code ?? "" };
  };
  const operation = fc.constantFrom("signUp", "verifyEmail", "requestPasswordReset", "resetPassword", "changePassword");
  return {
    name: "password-account fields as a client may send them: a result or a 4xx AuthError, and success only on the genuine values",
    async property() {
      const csrf = await csrfToken(config, browser);
      const mutations = fc.record({ a: mutation, b: mutation, c: mutation, d: mutation });
      return fc.asyncProperty(operation, mutations, fc.boolean(), nasty, async (op, m, sameBrowser, extraCookies) => {
        // A fresh user per run, with a password and a session begun an hour ago (so a change needs
        // the current password); the flows that need one get a genuine link or code first.
        const email = `${randomUUID().slice(0, 8)}@example.com`;
        const user = await createUser({ id: randomUUID(), email, emailVerified: new Date(), name: "U" });
        await accounts.passwords.setPasswordHash(user.id, await hashPassword(PASSWORD, accounts.hash));
        const session = await sealToken(
          { sub: user.id, email, sid: randomUUID(), auth_time: Math.floor(Date.now() / 1000) - 3600 },
          [SECRET],
          SALT,
          7200,
        );
        const cookieHeader = [sameBrowser ? browser.header() : "", `${SALT}=${session}`, extraCookies].join("; ");
        const request: AccountsRequest = { protocol: "http", host: "localhost:3000", cookieHeader };

        let call: () => Promise<{ ok: unknown }>;
        let genuine: boolean;
        switch (op) {
          case "signUp":
            call = () =>
              signUp(request, config, accounts, { email: m.a(`new-${email}`), password: m.b(PASSWORD), clientAddress });
            genuine = true;
            break;
          case "verifyEmail": {
            const fresh = `v-${email}`;
            const up = await signUp(request, config, accounts, { email: fresh, password: PASSWORD, clientAddress });
            if (!up.ok) throw new Error("the genuine sign-up was refused");
            const link = linkOf(fresh);
            const given = sameBrowser
              ? { code: m.a(link.code ?? "") }
              : {
                  token: m.a(link.token ?? ""),
                  email: m.b(link.email ?? ""),
                  user: m.c(link.user ?? ""),
                  password: m.d(PASSWORD),
                };
            // The browser that signed up holds the cookie that lets it type the code.
            // Only the browser that signed up holds the cookie that lets it type the code (or open
            // the link without the password).
            const there = sameBrowser
              ? { ...request, cookieHeader: `${up.setCookie.map((c) => c.split(";")[0]).join("; ")}; ${extraCookies}` }
              : request;
            call = () => verifyEmail(there, config, accounts, { ...given, clientAddress });
            genuine = sameBrowser
              ? // A typed code may carry spaces and dashes ("123 456", "123-456"), and nothing else.
                typeof given.code === "string" && given.code.replace(/[\s-]/g, "") === link.code
              : given.token === link.token && given.user === link.user && given.password === PASSWORD;
            break;
          }
          case "requestPasswordReset":
            call = () => requestPasswordReset(request, config, accounts, { email: m.a(email), clientAddress });
            genuine = true;
            break;
          case "resetPassword": {
            await requestPasswordReset(request, config, accounts, { email, clientAddress });
            const link = linkOf(email);
            const given = { token: m.a(link.token ?? ""), email: m.b(link.email ?? ""), user: m.c(link.user ?? "") };
            call = () =>
              resetPassword(request, config, accounts, { ...given, password: m.d(NEW_PASSWORD), clientAddress });
            genuine = given.token === link.token && given.user === link.user;
            break;
          }
          default: {
            const given = { csrfToken: m.a(csrf), currentPassword: m.b(PASSWORD), newPassword: m.c(NEW_PASSWORD) };
            call = () => changePassword(request, config, accounts, { ...given, clientAddress });
            genuine = sameBrowser && given.csrfToken === csrf && given.currentPassword === PASSWORD;
          }
        }
        let outcome: { result: { ok: unknown } } | { error: unknown };
        try {
          outcome = { result: await bounded(call(), 10_000, op) };
        } catch (error) {
          outcome = { error };
        }
        if ("error" in outcome) {
          // The caller's mistake or the client's: typed, 4xx. Anything else is a finding.
          const { error } = outcome;
          expect(error, `${op} threw ${String(error)}`).toBeInstanceOf(AuthError);
          if (op === "changePassword") expect(error).toBeInstanceOf(MissingCSRF);
          expect((error as { status?: number }).status ?? 400, `${op} threw ${String(error)}`).toBeLessThan(500);
          return;
        }
        const { result } = outcome;
        expect(typeof result.ok, `${op} answered ${JSON.stringify(result)}`).toBe("boolean");
        if (result.ok) expect(genuine, `${op} succeeded on altered values: ${JSON.stringify(result)}`).toBe(true);
      });
    },
  };
}
