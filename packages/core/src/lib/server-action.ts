/**
 * Sign-in and sign-out called by the application on the server (a Next.js Server Action, a
 * SvelteKit form action): each is one POST through the pipeline on the application's behalf, in
 * raw mode, so a wrong password reaches the caller as `CredentialsSignin`. The framework package
 * gives the request's headers and where it arrived, delivers the answer's cookies and redirects
 * with its own function.
 *
 * CSRF: a form posting to `<basePath>/callback/credentials` proves itself with the double-submit
 * token. A server-side call has no such token; its proof is where it came from. A request from
 * another origin or site (`Origin`, `Sec-Fetch-Site`) is refused with `MissingCSRF` before
 * anything is posted, whatever the framework's own check allows. Only then is the pipeline's token
 * minted for the internal request, so the pipeline's own check still runs, and passes only here.
 */
import { MissingCSRF } from "../errors.js";
import type { ResponseInternal } from "../shapes/data.js";
import type { AuthConfig } from "../types.js";
import type { Env } from "./config.js";
import { type IncomingRequest, serve, sessionCookieOf } from "./pipeline.js";
import type { HeaderReader } from "./request.js";

type Cookie = NonNullable<ResponseInternal["cookies"]>[number];

/** Where a request arrived, as the framework decided it. */
export interface Arrival {
  protocol: string;
  host: string | null;
}

/** A server-side call: the configuration, its environment, the request and the cookie delivery. */
export interface ServerCall {
  config: AuthConfig;
  env: Env;
  /** The headers of the request the call runs for. */
  headers: Headers;
  where: Arrival;
  /** The client's address as the framework knows it, for per-client rate limits (`clientAddress` wins). */
  clientIp?: string;
  /** Delivers the cookies of the pipeline's answer (a framework's cookie store, its response). */
  deliver(cookies: Cookie[]): void;
}

/** The headers of the request a call runs for, less those the internal request sets. */
const notForwarded = new Set(["cookie", "content-type", "content-length", "x-auth-return-redirect", "host"]);

/** The origin URLs are built from: `AUTH_URL`'s, else the request's. */
export function originOf(where: Arrival, env: Env): string {
  if (env.AUTH_URL) return new URL(env.AUTH_URL).origin;
  const scheme = where.protocol.endsWith(":") ? where.protocol : `${where.protocol}:`;
  return `${scheme}//${where.host ?? "localhost"}`;
}

/**
 * Refuses a request that another origin or site made (see the module's comment). A request
 * without `Origin` and `Sec-Fetch-Site` (a same-origin GET navigation, a non-browser client)
 * carries no victim's cookies from another site and is let through.
 */
function assertSameOrigin(h: HeaderReader, where: Arrival, env: Env): void {
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
  if (host !== new URL(originOf(where, env)).host)
    throw new MissingCSRF(`A server-side sign-in, sign-out or session update came from the origin ${origin}`);
}

/**
 * Checks a server-side call before anything runs: a configuration that resolves (its error, such
 * as `MissingSecret`, is thrown), a trusted host (`UntrustedHost`), a same-origin request
 * (`MissingCSRF`). Returns the call.
 *
 * @example
 * ```ts
 * const call = beginServerCall({ config, env, headers: request.headers, where, deliver: (c) => write(c) })
 * ```
 */
export function beginServerCall(call: ServerCall): ServerCall {
  sessionCookieOf({ ...call.where, cookieHeader: null }, call.config, { env: call.env });
  assertSameOrigin(call.headers, call.where, call.env);
  return call;
}

/** Headers given as a record, readable by the pipeline and as a Web `Headers`. */
function readerOf(entries: Record<string, string | undefined>): HeaderReader & { toHeaders(): Headers } {
  return {
    get: (name) => entries[name.toLowerCase()] ?? null,
    toHeaders: () => {
      const h = new Headers();
      for (const [name, value] of Object.entries(entries)) if (value !== undefined) h.set(name, value);
      return h;
    },
  };
}

/**
 * A request the application makes of the pipeline itself (its session, a server action's
 * sign-in): `path` under the base path, with only the headers given.
 *
 * @example
 * ```ts
 * await serve(internalRequest(config, where, "GET", "/session", { cookie }), config, { env })
 * ```
 */
export function internalRequest(
  config: AuthConfig,
  where: Arrival,
  method: "GET" | "POST",
  path: string,
  headers: Record<string, string | undefined>,
  body?: Record<string, unknown>,
): IncomingRequest {
  const reader = readerOf(headers);
  return {
    method,
    path: `${config.basePath}${path}`,
    protocol: where.protocol,
    host: where.host,
    headers: reader,
    body: async () => body,
    webHeaders: () => reader.toHeaders(),
  };
}

/** The `name=value` parts of a `Cookie` header, less every one named `name`. */
function without(header: string | null, name: string): string[] {
  if (!header) return [];
  return header.split(";").filter((part) => {
    const eq = part.indexOf("=");
    return (eq === -1 ? part : part.slice(0, eq)).replace(/^[ \t]+|[ \t]+$/g, "") !== name;
  });
}

/**
 * Posts `body` to `path` through the pipeline in raw mode with a CSRF token minted for this one
 * request, and delivers the cookies of the answer.
 *
 * @example
 * ```ts
 * const res = await postServerCall(call, "/session", { data }, "application/json")
 * ```
 */
export async function postServerCall(
  call: ServerCall,
  path: string,
  body: Record<string, unknown>,
  contentType: string,
): Promise<ResponseInternal> {
  const { config, where, env } = call;
  const cookieHeader = call.headers.get("cookie");
  const csrf = await serve(
    internalRequest(config, where, "GET", "/csrf", { cookie: cookieHeader ?? undefined }),
    config,
    {
      env,
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
  incoming.clientIp = call.clientIp;
  if (typeof config.clientAddress === "function") {
    try {
      const address = config.clientAddress(
        new Request(`${originOf(where, env)}${config.basePath}${path}`, { headers: call.headers }),
      );
      if (typeof address === "string" && address) incoming.clientIp = address;
    } catch {
      // an address that cannot be read counts as unknown, as for every other request
    }
  }
  const res = await serve(incoming, config, { env, raw: true });
  if (res.cookies?.length) call.deliver(res.cookies);
  return res;
}

/**
 * The fields of a form, as `Object.fromEntries` gives them (files are not sign-in fields, nor
 * Next.js's `$ACTION` fields).
 *
 * @example
 * ```ts
 * const { providerId, ...rest } = formFields(await request.formData())
 * ```
 */
export function formFields(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  form.forEach((value, key) => {
    if (typeof value === "string" && !key.startsWith("$ACTION")) out[key] = value;
  });
  return out;
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

export type SignInAuthorizationParams = string[][] | Record<string, string> | string | URLSearchParams;

/**
 * Signs in on the server: the URL to go to next. Without a known provider, that is the sign-in
 * page (nothing is posted); else the provider's sign-in (or, for credentials, its callback) is
 * posted with the remaining options as fields. A wrong password throws `CredentialsSignin`.
 *
 * @example
 * ```ts
 * redirect(303, await serverSignIn(call, "credentials", { email, password, redirectTo: "/" }))
 * ```
 */
export async function serverSignIn(
  call: ServerCall,
  provider: string | undefined,
  options: Record<string, unknown>,
  authorizationParams?: SignInAuthorizationParams,
): Promise<string> {
  const { config, where, env } = call;
  const { redirect: _redirect, redirectTo, ...rest } = options;
  const callbackUrl = String(redirectTo ?? call.headers.get("referer") ?? "/");
  const found = provider ? providerOf(config, provider) : undefined;
  if (!found) return `${originOf(where, env)}${config.basePath}/signin?${new URLSearchParams({ callbackUrl })}`;
  const query = new URLSearchParams(authorizationParams).toString();
  const path = `/${found.type === "credentials" ? "callback" : "signin"}/${encodeURIComponent(found.id)}${query ? `?${query}` : ""}`;
  const res = await postServerCall(call, path, { ...rest, callbackUrl }, "application/x-www-form-urlencoded");
  return res.redirect ?? `${originOf(where, env)}${config.basePath}${path}`;
}

/**
 * Signs out on the server: the URL to go to next (`redirectTo`, else the page the call came from).
 *
 * @example
 * ```ts
 * redirect(303, await serverSignOut(call, "/"))
 * ```
 */
export async function serverSignOut(call: ServerCall, redirectTo?: unknown): Promise<string> {
  const callbackUrl = String(redirectTo ?? call.headers.get("referer") ?? "/");
  const res = await postServerCall(call, "/signout", { callbackUrl }, "application/x-www-form-urlencoded");
  return res.redirect ?? callbackUrl;
}
