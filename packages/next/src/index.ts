/**
 * Latchkey for Next.js (App Router and Pages Router), with the interface of `next-auth` v5:
 * `NextAuth(config)` gives the route handlers of `/api/auth/*`, `auth()` for every place Next.js
 * runs server code, and the server actions `signIn`, `signOut` and `unstable_update`.
 * Runs on the Node.js runtime (see the README for middleware on Next.js 15 and 16).
 *
 * @example
 * ```ts
 * // auth.ts
 * import NextAuth from "@latchkey/next"
 * import GitHub from "@latchkey/next/providers/github"
 * export const { handlers, auth, signIn, signOut } = NextAuth({ providers: [GitHub] })
 *
 * // app/api/auth/[...nextauth]/route.ts
 * export const { GET, POST } = handlers
 * ```
 * @module @latchkey/next
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthConfig, Awaitable, Session } from "@latchkey/core";
import {
  appendSetCookies,
  forbidCaching,
  isThenable,
  nodeHeader,
  serve,
  toResponse,
  warnOnceFor,
} from "@latchkey/core/internal";
import type { NextFetchEvent, NextMiddleware, NextRequest } from "next/server.js";
import {
  type SignInAuthorizationParams,
  type SwitchedOrganization,
  signIn,
  signOut,
  switchOrganization,
  update,
} from "./actions.js";
import {
  arrival,
  type CookieWriter,
  readSession,
  routeIncoming,
  type SessionRead,
  setCookieHeaders,
  writeCookies,
} from "./convert.js";
import { nextConfig, nextEnv } from "./env.js";
import { nextRequireAuth } from "./guard.js";
import { loadedNextHeaders, loadedNextServer, nextHeaders, nextServer } from "./next-modules.js";

export { customFetch, skipCSRFCheck } from "@latchkey/core";
export * from "@latchkey/core/errors";
export type { Account, DefaultSession, Profile, Session, User } from "@latchkey/core/types";
export type { SignInAuthorizationParams, SignInOptions, SwitchedOrganization } from "./actions.js";
export { requireApiKey } from "./api-keys.js";
export type { GuardedRouteHandler, NextGuardOptions } from "./guard.js";
export { EdgeRuntimeUnsupported } from "./runtime.js";

/** The configuration of `NextAuth`: Latchkey's, with the `authorized` callback of middleware. */
export interface NextAuthConfig extends Omit<AuthConfig, "callbacks"> {
  callbacks?: AuthConfig["callbacks"] & {
    /**
     * Decides, in middleware (`export { auth as middleware }`), whether a request may go on:
     * `true` lets it, `false` redirects to the sign-in page (with the URL as `callbackUrl`), a
     * `Response` is answered instead. Not called without it: every request goes on.
     */
    authorized?: (params: { request: NextRequest; auth: Session | null }) => Awaitable<boolean | Response | undefined>;
  };
}

/** A request in middleware or a route handler wrapped by `auth`, with its session. */
export interface NextAuthRequest extends NextRequest {
  auth: Session | null;
}

/** Middleware wrapped by `auth((req) => ...)`. */
export type NextAuthMiddleware = (request: NextAuthRequest, event: NextFetchEvent) => ReturnType<NextMiddleware>;

/** The second argument of an App Router route handler. */
// biome-ignore lint/suspicious/noExplicitAny: Next.js's own type for the route's parameters
export type AppRouteHandlerFnContext = { params: Promise<any> };

/** An App Router route handler. */
export type AppRouteHandlerFn = (
  req: NextRequest,
  ctx: AppRouteHandlerFnContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler may return nothing, as Next.js's type says
) => void | Response | Promise<void | Response>;

/** The result of `NextAuth(config)`. */
export interface NextAuthResult {
  /** The route handlers of `app/api/auth/[...nextauth]/route.ts`: `export const { GET, POST } = handlers`. */
  handlers: Record<"GET" | "POST", (req: NextRequest | Request) => Promise<Response>>;
  /**
   * The session, wherever Next.js runs server code: `await auth()` in Server Components, Route
   * Handlers, Server Actions and `generateMetadata`; `auth(req, res)` or `auth(context)` in the
   * Pages Router; `export { auth as middleware }` (or `as proxy`) and `auth((req) => ...)` with
   * `req.auth`. A session cookie the read renews is delivered where Next.js lets a response
   * carry it (middleware, Route Handlers, Server Actions, Pages Router responses).
   */
  auth: ((...args: []) => Promise<Session | null>) &
    ((...args: [IncomingMessage, ServerResponse]) => Promise<Session | null>) &
    ((...args: [PagesContext]) => Promise<Session | null>) &
    ((
      ...args: [(req: NextAuthRequest, ctx: AppRouteHandlerFnContext) => ReturnType<AppRouteHandlerFn>]
    ) => AppRouteHandlerFn) &
    ((...args: [NextAuthMiddleware]) => NextMiddleware) &
    ((...args: [NextRequest, NextFetchEvent?]) => Promise<Response>);
  /**
   * Signs in from a Server Action: redirects (with Next.js's `redirect()`) to the provider, or
   * for credentials to `redirectTo` (the current page by default). A wrong password throws
   * `CredentialsSignin` (with its `code`); every other failure an `AuthError` subclass.
   * `redirect: false` returns the URL (a string) instead; its type is `any`, as `next-auth`
   * declares it, so that code written against `next-auth` compiles unchanged.
   */
  signIn: <R extends boolean = true>(
    provider?: string,
    options?: FormData | ({ redirectTo?: string; redirect?: R } & Record<string, unknown>),
    authorizationParams?: SignInAuthorizationParams,
    // biome-ignore lint/suspicious/noExplicitAny: next-auth's type (the URL, a string, at run time)
  ) => Promise<R extends false ? any : never>;
  /**
   * Signs out from a Server Action and redirects to `redirectTo` (the current page by default).
   * `csrfToken` is needed only where the request shows no origin (neither `Origin` nor
   * `Sec-Fetch-Site`, as from a script): the pipeline's token, checked against the CSRF cookie.
   * `redirect: false` returns `{ redirect: url }` instead; its type is `any`, as `next-auth`
   * declares it.
   */
  signOut: <R extends boolean = true>(options?: {
    redirectTo?: string;
    redirect?: R;
    csrfToken?: string;
    // biome-ignore lint/suspicious/noExplicitAny: next-auth's type (`{ redirect: string }` at run time)
  }) => Promise<R extends false ? any : never>;
  /** Updates the session from the server (the `jwt` callback's `trigger: "update"`); returns the new session. */
  unstable_update: (data: Partial<Session | { user: Partial<Session["user"]> }>) => Promise<Session | null>;
  /**
   * The route guard (core's `requireAuth`: signed in, `factors`/`amr`, and with `organizations`
   * configured `organization`, `role`, `permission` in the active organization). In a Server
   * Component or Server Action, `await requireAuth(options)` returns the session, or calls
   * Next.js's `redirect()` to sign in (back to `callbackUrl`), and for a refusal `forbidden()`
   * (with `experimental.authInterrupts`; else `notFound()`). `requireAuth(options, handler)` wraps
   * a Route Handler: the session on `req.auth`, or a browser redirected to sign in and another
   * client answered `401`/`403` JSON (`SessionRequired`, `OrganizationRequired`, `Forbidden`).
   */
  requireAuth: ReturnType<typeof nextRequireAuth>;
  /**
   * A Server Action making `organizationId` the active organization of the signed-in user (a
   * string, `null` to clear it, or a form with `organizationId`), after the store confirms the
   * membership: `{ ok: true, activeOrganization }`, or `{ ok: false, status, error, message }`
   * (400 `InvalidOrganization`, 401 `SessionRequired`, 404 `OrganizationNotFound`).
   */
  switchOrganization: (
    input: FormData | string | null | { organizationId?: string | null; csrfToken?: string },
  ) => Promise<SwitchedOrganization>;
}

/**
 * The Pages Router's `getServerSideProps` context, as far as `auth(context)` reads it (Next.js's
 * `GetServerSidePropsContext` is one). Declared here rather than imported from `next`, whose
 * types also declare globals (a read-only `process.env.NODE_ENV`) in every program that sees them.
 */
export interface PagesContext {
  req: IncomingMessage;
  res: ServerResponse;
}

type NextServerModule = NonNullable<ReturnType<typeof loadedNextServer>>;

type ConfigSource = NextAuthConfig | ((request: NextRequest | undefined) => Awaitable<NextAuthConfig>);

function isRequest(value: unknown): value is Request {
  return (
    value instanceof Request ||
    (typeof value === "object" && value !== null && "nextUrl" in value && "headers" in value && "method" in value)
  );
}

/**
 * Adds the cookies a session read renewed to the response middleware or a handler returns, and
 * keeps that response out of every cache (`forbidCaching`): through the proxy, a statically
 * generated or ISR page is served with `s-maxage`, and a CDN would store one user's session cookie
 * with it and hand it to the next visitor. Next.js keeps a proxy's `Cache-Control` on the page.
 */
function withCookies(response: Response, read: SessionRead): Response {
  if (!read.cookies.length) return response;
  const jar = (response as { cookies?: CookieWriter }).cookies;
  try {
    // A NextResponse: its cookie store also hands the renewed cookie to this request's rendering.
    if (!(jar && typeof jar.set === "function" && writeCookies(jar, read.cookies)))
      for (const value of setCookieHeaders(read.cookies)) response.headers.append("set-cookie", value);
    forbidCaching((name, value) => response.headers.set(name, value));
    return response;
  } catch {
    // a Response with immutable headers (Response.redirect): copied with the cookies added
    const copy = new Response(response.body, response);
    for (const value of setCookieHeaders(read.cookies)) copy.headers.append("set-cookie", value);
    forbidCaching((name, value) => copy.headers.set(name, value));
    return copy;
  }
}

/**
 * The request with `AUTH_URL`'s origin, so that URLs middleware builds from it are public ones.
 * A request Next.js made is used as it is: a Route Handler's comes from Next.js's route runtime,
 * which carries its own copy of the `NextRequest` class (not `instanceof` this one), and copying
 * it would cost a new request on every call; only a plain `Request` is made a `NextRequest`.
 */
function withEnvOrigin(request: Request, { NextRequest }: NextServerModule): NextRequest {
  const next =
    request instanceof NextRequest || "nextUrl" in request ? (request as NextRequest) : new NextRequest(request);
  const envUrl = nextEnv.AUTH_URL;
  if (!envUrl) return next;
  const { origin } = new URL(envUrl);
  if (next.nextUrl.origin === origin) return next;
  return new NextRequest(next.nextUrl.href.replace(next.nextUrl.origin, origin), next);
}

/**
 * Middleware and the route handlers `auth(handler)` wraps: the session of the request they are
 * given (never `next/headers`), the `authorized` callback, the handler with `req.auth`, and the
 * renewed cookies added to the response. Waits on nothing it has already: `next/server` once
 * loaded, a JWT session's read, a handler that answers without a promise.
 */
async function handleAuth(
  args: [Request, unknown?],
  source: NextAuthConfig,
  handler?: (req: NextAuthRequest, ctx: never) => unknown,
): Promise<Response> {
  const config = nextConfig(source as AuthConfig);
  const server = loadedNextServer() ?? (await nextServer());
  const { NextResponse } = server;
  const request = withEnvOrigin(args[0], server);
  const where = arrival(request.headers, { host: request.nextUrl.host });
  const reading = readSession(config, where, request.headers.get("cookie"));
  const read = reading instanceof Promise ? await reading : reading;
  let authorized: boolean | Response | undefined = true;
  const check = source.callbacks?.authorized;
  // Latchkey's own actions are never held back: a matcher that includes them would otherwise
  // lock signed-out users out of signing in.
  const own = request.nextUrl.pathname.startsWith(`${config.basePath}/`);
  if (check && !own) authorized = await check({ request, auth: read.session });
  let response: Response | undefined;
  if (authorized instanceof Response) {
    response = authorized;
  } else if (handler) {
    const augmented = request as NextAuthRequest;
    augmented.auth = read.session;
    const answer = handler(augmented, args[1] as never);
    response = ((isThenable(answer) ? await answer : answer) as Response | undefined) ?? NextResponse.next();
  } else if (!authorized) {
    const signInPage = config.pages?.signIn ?? `${config.basePath}/signin`;
    if (request.nextUrl.pathname !== signInPage) {
      const url = request.nextUrl.clone();
      url.pathname = signInPage;
      url.search = "";
      // Next.js builds the proxy's URL from its own host name and port, not the one the browser
      // used (and makes a redirect to that host relative): without AUTH_URL, only the path says
      // where the visitor was, and the core resolves it against the origin it trusts.
      const { href, origin } = request.nextUrl;
      url.searchParams.set("callbackUrl", nextEnv.AUTH_URL ? href : href.slice(origin.length));
      response = NextResponse.redirect(url);
    }
  }
  return withCookies(response ?? NextResponse.next(), read);
}

/** `auth()` in Server Components, Route Handlers, Server Actions and `generateMetadata`. */
async function sessionOfCurrentRequest(config: AuthConfig): Promise<Session | null> {
  const { headers, cookies } = loadedNextHeaders() ?? (await nextHeaders());
  const h = await headers();
  // The read itself takes no promise when it has nothing to wait for (a JWT session).
  const reading = readSession(config, arrival(h), h.get("cookie"));
  const read = reading instanceof Promise ? await reading : reading;
  if (read.cookies.length) writeCookies((await cookies()) as unknown as CookieWriter, read.cookies);
  return read.session;
}

/** `auth(req, res)` and `auth({ req, res })` of the Pages Router. */
async function sessionOfNodeRequest(config: AuthConfig, args: unknown[]): Promise<Session | null> {
  const first = args[0] as { req?: IncomingMessage; res?: ServerResponse } & IncomingMessage;
  const req = (first.req ?? first) as IncomingMessage;
  const res = first.req ? first.res : args[1];
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted;
  const headers = { get: (name: string) => nodeHeader(req, name) };
  const where = arrival(headers, { encrypted });
  const reading = readSession(config, where, headers.get("cookie"));
  const read = reading instanceof Promise ? await reading : reading;
  appendSetCookies(res, setCookieHeaders(read.cookies));
  return read.session;
}

/** The providers whose attempts the rate limits count per client address (and identifier). */
const LIMITED = new Set(["credentials", "email", "webauthn"]);
const advised = new WeakSet<AuthConfig>();

/**
 * Warns once per configuration (`client-address-missing`, naming the fix) when its rate limits
 * would have no client address to count by: Next.js hands a Route Handler no peer address, so
 * without the `clientAddress` option the limits of sign-in attempts key on the identifier alone,
 * which lets anyone lock an account out. Called when `NextAuth` is given the configuration, and
 * again at the first request while it could not be resolved yet (no secret in the environment).
 */
function adviseClientAddress(config: AuthConfig): void {
  if (advised.has(config)) return;
  const limited = (config.providers ?? []).some((p) => typeof p !== "function" && LIMITED.has(p.type));
  if (config.rateLimit === false || typeof config.clientAddress === "function" || !limited) {
    advised.add(config);
    return;
  }
  try {
    warnOnceFor(config, "client-address-missing", nextEnv);
    advised.add(config);
  } catch {
    // not resolvable yet (no secret): the next use tries again, and the pipeline names the error
  }
}

/**
 * Configures Latchkey for a Next.js application. `config` is the configuration, or a function
 * of the request that returns it (called for each request; `undefined` where there is none,
 * as in Server Components). Unset options are filled from the environment as `next-auth` does:
 * `AUTH_SECRET` (or `NEXTAUTH_SECRET`), `AUTH_URL` (or `NEXTAUTH_URL`; its path is the base path),
 * `AUTH_TRUST_HOST`, `AUTH_<PROVIDER>_ID` and `_SECRET`; the base path is `/api/auth` otherwise.
 *
 * @example
 * ```ts
 * // auth.ts
 * import NextAuth from "@latchkey/next"
 * import Credentials from "@latchkey/next/providers/credentials"
 * export const { handlers, auth, signIn, signOut } = NextAuth({
 *   providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: checkPassword })],
 * })
 * ```
 */
export default function NextAuth(config: ConfigSource): NextAuthResult {
  // A configuration object is prepared now, as next-auth does: the application's own object then
  // carries the secret and the base path for the core's server-side functions it is passed to
  // (`secondFactorStatus(config, ...)`), before any request has been served.
  const fixed = typeof config === "function" ? undefined : nextConfig(config as AuthConfig);
  if (fixed) adviseClientAddress(fixed);
  const configFor = async (request: NextRequest | undefined): Promise<NextAuthConfig> =>
    typeof config === "function" ? await config(request) : config;
  const resolved = async (request?: NextRequest) =>
    fixed ? nextConfig(fixed) : nextConfig((await configFor(request)) as AuthConfig);

  const httpHandler = async (request: NextRequest | Request): Promise<Response> => {
    const c = await resolved(request as NextRequest);
    adviseClientAddress(c);
    return toResponse(await serve(routeIncoming(request, c), c, { env: nextEnv }));
  };

  function auth(...args: unknown[]): unknown {
    // The configuration object's own path stays synchronous: a Route Handler calling auth() pays
    // for no promise it does not need (each costs more under Next.js's async context tracking).
    if (args.length === 0)
      return fixed ? sessionOfCurrentRequest(nextConfig(fixed)) : resolved().then(sessionOfCurrentRequest);
    const [first] = args;
    if (typeof first === "function") {
      const handler = first as (req: NextAuthRequest, ctx: never) => unknown;
      // A configuration object is passed as it is, with no promise of its own per request.
      if (typeof config !== "function") return (...inner: [Request, unknown?]) => handleAuth(inner, config, handler);
      return async (...inner: [Request, unknown?]) =>
        handleAuth(inner, await configFor(inner[0] as NextRequest), handler);
    }
    if (isRequest(first)) {
      if (typeof config !== "function") return handleAuth(args as [Request, unknown?], config);
      return (async () => handleAuth(args as [Request, unknown?], await configFor(first as NextRequest)))();
    }
    const req = ((first as { req?: unknown }).req ?? first) as NextRequest;
    return resolved(req).then((c) => sessionOfNodeRequest(c, args));
  }

  return {
    handlers: { GET: httpHandler, POST: httpHandler },
    auth: auth as NextAuthResult["auth"],
    signIn: (async (provider, options, authorizationParams) => {
      const c = await resolved();
      adviseClientAddress(c);
      return signIn(c, provider, options, authorizationParams);
    }) as NextAuthResult["signIn"],
    signOut: (async (options) => signOut(await resolved(), options)) as NextAuthResult["signOut"],
    unstable_update: async (data) => update(await resolved(), data),
    requireAuth: nextRequireAuth(fixed ? nextConfig(fixed) : resolved),
    switchOrganization: async (input) => switchOrganization(await resolved(), input),
  };
}

export { NextAuth };
