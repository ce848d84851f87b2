/**
 * `signIn`, `signOut` and `unstable_update` for Server Actions (and Route Handlers): each is one
 * POST through the core pipeline on the application's behalf, its cookies put in Next.js's cookie
 * store, its redirect done with Next.js's own `redirect()`. In raw mode the pipeline throws its
 * client-safe errors, so a wrong password reaches the action as `CredentialsSignin`.
 *
 * CSRF: a form posting to `<basePath>/callback/credentials` proves itself with the double-submit
 * token. A server action has no such token; its proof is where it came from. Next.js refuses a
 * server action whose `Origin` is not the host's, and these functions check again, whatever
 * Next.js is configured to allow and wherever they are called from (a Route Handler has no check
 * of Next.js's own): a request from another origin or site (`Sec-Fetch-Site` `cross-site` or
 * `same-site`, an `Origin` whose scheme, host or port is not the application's) is refused with
 * `MissingCSRF` before anything is posted. Only a request that proved its origin (a matching
 * `Origin`, or `Sec-Fetch-Site: same-origin`) has the pipeline's token minted for the internal
 * request, so the pipeline's own check still runs, and passes only here. A request with neither
 * header proves nothing (every browser of the last years sends `Origin` on a POST): it must carry
 * the pipeline's token itself (`csrfToken` in the form or the options, with the CSRF cookie), as a
 * form posted to the route handlers does; without one it is refused with `MissingCSRF`.
 */
import type { AuthConfig, Session } from "@latchkey/core";
import { MissingCSRF } from "@latchkey/core/errors";
import { clientAddressFrom, type HeaderReader, serve, sessionCookieOf } from "@latchkey/core/internal";
import { arrival, type CookieWriter, internalRequest, writeCookies } from "./convert.js";
import { nextEnv } from "./env.js";
import { nextHeaders, nextNavigation } from "./next-modules.js";

type Where = { protocol: string; host: string | null };

/** The headers of the request a server action runs for, less those the internal request sets. */
const notForwarded = new Set(["cookie", "content-type", "content-length", "x-auth-return-redirect", "host"]);

/** The origin URLs are built from: `AUTH_URL`'s, else the request's. */
function originOf(where: Where): string {
  const envUrl = nextEnv.AUTH_URL;
  if (envUrl) return new URL(envUrl).origin;
  const scheme = where.protocol.endsWith(":") ? where.protocol : `${where.protocol}:`;
  return `${scheme}//${where.host ?? "localhost"}`;
}

/** The serialised origin of a URL, or undefined for none (`null`, garbage). */
function parsedOrigin(value: string): string | undefined {
  try {
    const { origin } = new URL(value);
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * The CSRF check of server-side sign-in, sign-out and session update (see the module's comment).
 * A request another site made is refused: `Sec-Fetch-Site` `cross-site` or `same-site` (a
 * sibling subdomain is another origin), or an `Origin` that is not this application's whole
 * origin (scheme, host and port; `AUTH_URL`'s when it is set, else the one the request arrived
 * at). Returns whether the request proved it came from this origin: a request with neither header
 * (a non-browser client, a browser too old to send them) proves nothing and must carry the
 * pipeline's CSRF token itself (`csrfToken`, the double-submit pair with the CSRF cookie).
 */
function sameOrigin(h: HeaderReader, where: Where): boolean {
  const site = h.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none")
    throw new MissingCSRF(`A server-side sign-in, sign-out or session update came from a ${site} request`);
  const origin = h.get("origin");
  if (origin === null) return site !== null;
  const expected = parsedOrigin(originOf(where));
  if (expected === undefined || parsedOrigin(origin) !== expected)
    throw new MissingCSRF(`A server-side sign-in, sign-out or session update came from the origin ${origin}`);
  return true;
}

/** The `name=value` parts of a `Cookie` header, less every one named `name`. */
function without(header: string | null, name: string): string[] {
  if (!header) return [];
  return header.split(";").filter((part) => {
    const eq = part.indexOf("=");
    return (eq === -1 ? part : part.slice(0, eq)).replace(/^[ \t]+|[ \t]+$/g, "") !== name;
  });
}

interface Call {
  config: AuthConfig;
  headers: Headers;
  where: Where;
  store: CookieWriter;
  /** The request proved it came from this origin (`Origin`, `Sec-Fetch-Site`). */
  proven: boolean;
}

const RENDERING =
  "signIn, signOut and unstable_update of @latchkey/next must run in a Server Action or a Route Handler: Next.js forbids setting cookies while a Server Component renders. Call them from a form's action or an onClick server action instead.";

/**
 * Whether a cookie store is the read-only one Next.js gives a Server Component: all its writing
 * methods are the one function that throws. Read without writing anything, so that a call made
 * while a page renders is refused before the pipeline creates a session, sends an email or counts
 * an attempt. A store that turns read-only later (Next.js's phases) still throws at its first
 * write (see `post`).
 */
function readOnly(store: CookieWriter & { delete?: unknown }): boolean {
  return typeof store.set !== "function" || store.set === store.delete;
}

/**
 * Everything a server-side call needs, after its checks: a configuration that resolves (its
 * error, such as `MissingSecret`, is thrown), a trusted host (`UntrustedHost`), a request another
 * site did not make (`MissingCSRF`).
 */
async function begin(config: AuthConfig): Promise<Call> {
  const { headers, cookies } = await nextHeaders();
  const h = await headers();
  const where = arrival(h, config);
  sessionCookieOf({ ...where, cookieHeader: null }, config, { env: nextEnv });
  const proven = sameOrigin(h, where);
  return {
    config,
    headers: h as unknown as Headers,
    where,
    store: (await cookies()) as unknown as CookieWriter,
    proven,
  };
}

/**
 * Posts `body` to `path` through the pipeline in raw mode, and delivers the cookies of the
 * answer. A request that proved its origin is given a CSRF token minted for this one request; one
 * that did not must have submitted the pipeline's own (`submitted`), checked by the pipeline
 * against the browser's CSRF cookie.
 */
async function post(call: Call, path: string, body: Record<string, unknown>, contentType: string, submitted?: unknown) {
  const { config, where } = call;
  if (readOnly(call.store)) throw new Error(RENDERING);
  const cookieHeader = call.headers.get("cookie");
  let cookie = cookieHeader;
  let csrfToken = submitted;
  if (call.proven) {
    const csrf = await serve(
      internalRequest(config, where, "GET", "/csrf", { cookie: cookieHeader ?? undefined }),
      config,
      { env: nextEnv },
    );
    csrfToken = (csrf.body as { csrfToken?: string } | null)?.csrfToken;
    const minted = csrf.cookies?.[0];
    // The minted cookie replaces the browser's own (one that no longer verifies, which is why one
    // was minted): the pipeline reads a name sent twice as no cookie at all.
    if (minted) cookie = [`${minted.name}=${minted.value}`, ...without(cookieHeader, minted.name)].join("; ");
  } else if (typeof submitted !== "string" || !submitted) {
    throw new MissingCSRF(
      "A server-side sign-in, sign-out or session update came with neither Origin nor Sec-Fetch-Site, and without the CSRF token (csrfToken) that would stand in for them",
    );
  }
  const forwarded: Record<string, string | undefined> = {};
  call.headers.forEach((value, name) => {
    if (!notForwarded.has(name)) forwarded[name] = value;
  });
  const incoming = internalRequest(
    config,
    where,
    "POST",
    path,
    { ...forwarded, host: where.host ?? undefined, cookie: cookie ?? undefined, "content-type": contentType },
    { ...body, csrfToken },
  );
  if (typeof config.clientAddress === "function")
    incoming.clientIp = clientAddressFrom(
      config,
      new Request(`${originOf(where)}${config.basePath}${path}`, { headers: call.headers }),
    );
  const res = await serve(incoming, config, { env: nextEnv, raw: true });
  if (res.cookies?.length && !writeCookies(call.store, res.cookies)) throw new Error(RENDERING);
  return res;
}

/** The fields of a form, as `Object.fromEntries` gives them (files are not sign-in fields). */
function fieldsOf(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  form.forEach((value, key) => {
    if (typeof value === "string" && !key.startsWith("$ACTION")) out[key] = value;
  });
  return out;
}

export type SignInAuthorizationParams = string[][] | Record<string, string> | string | URLSearchParams;

export interface SignInOptions<R extends boolean = true> extends Record<string, unknown> {
  /** Where to go after signing in; the current page (`Referer`) by default. */
  redirectTo?: string;
  /** `false`: return the URL instead of redirecting to it. */
  redirect?: R;
}

/** The id and type of a configured provider, as the resolved configuration has it. */
function providerOf(config: AuthConfig, id: string): { id: string; type: string } | undefined {
  for (const p of config.providers) {
    const instance = (typeof p === "function" ? (p as () => unknown)() : p) as {
      id: string;
      type: string;
      options?: { id?: string; type?: string };
    };
    const pid = instance.options?.id ?? instance.id;
    if (pid === id) return { id: pid, type: instance.options?.type ?? instance.type };
  }
  return undefined;
}

/** The server-side `signIn` (see `NextAuthResult.signIn`). */
export async function signIn(
  config: AuthConfig,
  provider?: string,
  options: FormData | SignInOptions<boolean> = {},
  authorizationParams?: SignInAuthorizationParams,
): Promise<string> {
  const call = await begin(config);
  const {
    redirect: shouldRedirect = true,
    redirectTo,
    ...rest
  } = options instanceof FormData ? (fieldsOf(options) as SignInOptions<boolean>) : options;
  const callbackUrl = String(redirectTo ?? call.headers.get("referer") ?? "/");
  const signInPage = `${originOf(call.where)}${config.basePath}/signin`;
  const found = provider ? providerOf(config, provider) : undefined;
  if (!found) {
    const url = `${signInPage}?${new URLSearchParams({ callbackUrl })}`;
    if (shouldRedirect !== false) (await nextNavigation()).redirect(url);
    return url;
  }
  const query = new URLSearchParams(authorizationParams).toString();
  const path = `/${found.type === "credentials" ? "callback" : "signin"}/${encodeURIComponent(found.id)}${query ? `?${query}` : ""}`;
  const res = await post(call, path, { ...rest, callbackUrl }, "application/x-www-form-urlencoded", rest.csrfToken);
  const url = res.redirect ?? `${originOf(call.where)}${config.basePath}${path}`;
  if (shouldRedirect !== false) (await nextNavigation()).redirect(url);
  return url;
}

/** The server-side `signOut` (see `NextAuthResult.signOut`). */
export async function signOut(
  config: AuthConfig,
  options: { redirectTo?: string; redirect?: boolean; csrfToken?: string } = {},
): Promise<{ redirect: string }> {
  const call = await begin(config);
  const callbackUrl = String(options.redirectTo ?? call.headers.get("referer") ?? "/");
  const res = await post(call, "/signout", { callbackUrl }, "application/x-www-form-urlencoded", options.csrfToken);
  const url = res.redirect ?? callbackUrl;
  if (options.redirect !== false) (await nextNavigation()).redirect(url);
  return { redirect: url };
}

/** The server-side session update (see `NextAuthResult.unstable_update`). */
export async function update(config: AuthConfig, data: unknown): Promise<Session | null> {
  const call = await begin(config);
  const res = await post(call, "/session", { data }, "application/json");
  const body = res.body;
  return (res.status ?? 200) === 200 && body && typeof body === "object" ? (body as unknown as Session) : null;
}
