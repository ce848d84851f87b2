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
 * of Next.js's own): a request from another origin or site (`Origin`, `Sec-Fetch-Site`) is
 * refused with `MissingCSRF` before anything is posted. Only then is the pipeline's token minted
 * for the internal request, so the pipeline's own check still runs, and passes only here.
 */
import type { AuthConfig, Session } from "@latchkey/core";
import { MissingCSRF } from "@latchkey/core/errors";
import { type HeaderReader, serve, sessionCookieOf } from "@latchkey/core/internal";
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

/**
 * Refuses a request that another origin or site made: the CSRF check of server-side sign-in,
 * sign-out and session update (see the module's comment). A request without `Origin` and
 * `Sec-Fetch-Site` (a same-origin GET navigation, a non-browser client) carries no victim's
 * cookies from another site and is let through.
 */
function assertSameOrigin(h: HeaderReader, where: Where): void {
  const site = h.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none")
    throw new MissingCSRF(`A server-side sign-in, sign-out or session update came from a ${site} request`);
  const origin = h.get("origin");
  if (origin === null) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined; // "null" (a sandboxed or privacy-sensitive context) is no origin of ours
  }
  const expected = new URL(originOf(where)).host;
  if (host !== expected)
    throw new MissingCSRF(`A server-side sign-in, sign-out or session update came from the origin ${origin}`);
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
}

/**
 * Everything a server-side call needs, after its checks: a configuration that resolves (its
 * error, such as `MissingSecret`, is thrown), a trusted host (`UntrustedHost`), a same-origin
 * request (`MissingCSRF`).
 */
async function begin(config: AuthConfig): Promise<Call> {
  const { headers, cookies } = await nextHeaders();
  const h = await headers();
  const where = arrival(h, config);
  sessionCookieOf({ ...where, cookieHeader: null }, config, { env: nextEnv });
  assertSameOrigin(h, where);
  return { config, headers: h as unknown as Headers, where, store: (await cookies()) as unknown as CookieWriter };
}

/**
 * Posts `body` to `path` through the pipeline in raw mode with a CSRF token minted for this one
 * request, and delivers the cookies of the answer.
 */
async function post(call: Call, path: string, body: Record<string, unknown>, contentType: string) {
  const { config, where } = call;
  const cookieHeader = call.headers.get("cookie");
  const csrf = await serve(
    internalRequest(config, where, "GET", "/csrf", { cookie: cookieHeader ?? undefined }),
    config,
    {
      env: nextEnv,
    },
  );
  const csrfToken = (csrf.body as { csrfToken?: string } | null)?.csrfToken;
  const minted = csrf.cookies?.[0];
  // The minted cookie replaces the browser's own (one that no longer verifies, which is why one was
  // minted): the pipeline reads a name sent twice as no cookie at all.
  const cookie = minted
    ? [`${minted.name}=${minted.value}`, ...without(cookieHeader, minted.name)].join("; ")
    : cookieHeader;
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
  if (typeof config.clientAddress === "function") {
    try {
      const address = config.clientAddress(
        new Request(`${originOf(where)}${config.basePath}${path}`, { headers: call.headers }),
      );
      if (typeof address === "string" && address) incoming.clientIp = address;
    } catch {
      // an address that cannot be read counts as unknown, as for every other request
    }
  }
  const res = await serve(incoming, config, { env: nextEnv, raw: true });
  if (res.cookies?.length && !writeCookies(call.store, res.cookies))
    throw new Error(
      "signIn, signOut and unstable_update of @latchkey/next must run in a Server Action or a Route Handler: Next.js forbids setting cookies while a Server Component renders. Call them from a form's action or an onClick server action instead.",
    );
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
  const res = await post(call, path, { ...rest, callbackUrl }, "application/x-www-form-urlencoded");
  const url = res.redirect ?? `${originOf(call.where)}${config.basePath}${path}`;
  if (shouldRedirect !== false) (await nextNavigation()).redirect(url);
  return url;
}

/** The server-side `signOut` (see `NextAuthResult.signOut`). */
export async function signOut(
  config: AuthConfig,
  options: { redirectTo?: string; redirect?: boolean } = {},
): Promise<{ redirect: string }> {
  const call = await begin(config);
  const callbackUrl = String(options.redirectTo ?? call.headers.get("referer") ?? "/");
  const res = await post(call, "/signout", { callbackUrl }, "application/x-www-form-urlencoded");
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
