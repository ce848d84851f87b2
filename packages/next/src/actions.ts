/**
 * `signIn`, `signOut` and `unstable_update` for Server Actions (and Route Handlers): the core's
 * server-side calls (`serverSignIn`, `serverSignOut`, `postServerCall`, one POST through the
 * pipeline each) with the request's headers from `next/headers`, the cookies put in Next.js's
 * cookie store and the redirect done with Next.js's own `redirect()`. In raw mode the pipeline
 * throws its client-safe errors, so a wrong password reaches the action as `CredentialsSignin`.
 *
 * CSRF: Next.js refuses a server action whose `Origin` is not the host's, and the core checks
 * again, whatever Next.js is configured to allow and wherever these are called from (a Route
 * Handler has no check of Next.js's own): another origin or site is refused with `MissingCSRF`
 * (a credentials sign-in with no field of its own, a guest, excepted while no session is live),
 * and a request with neither `Origin` nor `Sec-Fetch-Site` must carry the pipeline's CSRF token
 * (`csrfToken` in the form or the options, with the CSRF cookie). See the core's
 * `lib/serve/server-action.ts`.
 */
import type { AuthConfig, Session } from "@latchkey/core";
import {
  beginServerCall,
  type CheckedServerCall,
  formFields,
  postServerCall,
  type SignInAuthorizationParams,
  type SwitchedOrganization,
  serverSignIn,
  serverSignOut,
  serverSwitchOrganization,
} from "@latchkey/core/internal";
import { arrival, type CookieWriter, writeCookies } from "./convert.js";
import { nextEnv } from "./env.js";
import { nextHeaders, nextNavigation } from "./next-modules.js";

export type { SignInAuthorizationParams, SwitchedOrganization };

const RENDERING =
  "signIn, signOut, unstable_update and switchOrganization of @latchkey/next must run in a Server Action or a Route Handler: Next.js forbids setting cookies while a Server Component renders. Call them from a form's action or an onClick server action instead.";

/**
 * Whether a cookie store is the read-only one Next.js gives a Server Component: all its writing
 * methods are the one function that throws. Read without writing anything, so that a call made
 * while a page renders is refused before the pipeline creates a session, sends an email or counts
 * an attempt. A store that turns read-only later (Next.js's phases) still throws at its first
 * write (see `deliver`).
 */
function readOnly(store: CookieWriter & { delete?: unknown }): boolean {
  return typeof store.set !== "function" || store.set === store.delete;
}

/** The checked call of a server action, its cookies going to Next.js's cookie store (also of `@latchkey/next/accounts`). */
export async function begin(config: AuthConfig): Promise<CheckedServerCall> {
  const { headers, cookies } = await nextHeaders();
  const h = await headers();
  const store = (await cookies()) as unknown as CookieWriter;
  return beginServerCall({
    config,
    env: nextEnv,
    headers: h as unknown as Headers,
    where: arrival(h),
    undeliverable: readOnly(store) ? RENDERING : undefined,
    deliver: (list) => {
      if (!writeCookies(store, list)) throw new Error(RENDERING);
    },
  });
}

export interface SignInOptions<R extends boolean = true> extends Record<string, unknown> {
  /** Where to go after signing in; the current page (`Referer`) by default. */
  redirectTo?: string;
  /** `false`: return the URL instead of redirecting to it. */
  redirect?: R;
}

/** The server-side `signIn` (see `NextAuthResult.signIn`). */
export async function signIn(
  config: AuthConfig,
  provider?: string,
  options: FormData | SignInOptions<boolean> = {},
  authorizationParams?: SignInAuthorizationParams,
): Promise<string> {
  const call = await begin(config);
  const fields = options instanceof FormData ? formFields(options) : options;
  const url = await serverSignIn(call, provider, fields, authorizationParams);
  if (fields.redirect !== false) (await nextNavigation()).redirect(url);
  return url;
}

/** The server-side `signOut` (see `NextAuthResult.signOut`). */
export async function signOut(
  config: AuthConfig,
  options: { redirectTo?: string; redirect?: boolean; csrfToken?: string } = {},
): Promise<{ redirect: string }> {
  const url = await serverSignOut(await begin(config), options.redirectTo, options.csrfToken);
  if (options.redirect !== false) (await nextNavigation()).redirect(url);
  return { redirect: url };
}

/** The server-side session update (see `NextAuthResult.unstable_update`). */
export async function update(config: AuthConfig, data: unknown): Promise<Session | null> {
  const res = await postServerCall(await begin(config), "/session", { data }, "application/json");
  const body = res.body;
  return (res.status ?? 200) === 200 && body && typeof body === "object" ? (body as unknown as Session) : null;
}

/** The server-side switch of the active organization (see `NextAuthResult.switchOrganization`). */
export async function switchOrganization(
  config: AuthConfig,
  input: FormData | string | null | { organizationId?: string | null; csrfToken?: string },
): Promise<SwitchedOrganization> {
  const fields =
    input instanceof FormData
      ? formFields(input)
      : typeof input === "object" && input !== null
        ? input
        : { organizationId: input };
  return serverSwitchOrganization(await begin(config), fields.organizationId, fields.csrfToken);
}
