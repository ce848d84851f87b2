/**
 * `signIn`, `signOut` and `unstable_update` for Server Actions (and Route Handlers): the core's
 * server-side calls (`serverSignIn`, `serverSignOut`, `postServerCall`, one POST through the
 * pipeline each, checked for a same-origin request first) with the request's headers from
 * `next/headers`, the cookies put in Next.js's cookie store and the redirect done with Next.js's
 * own `redirect()`. In raw mode the pipeline throws its client-safe errors, so a wrong password
 * reaches the action as `CredentialsSignin`. Next.js refuses a server action whose `Origin` is not
 * the host's, and the core checks again, whatever Next.js is configured to allow and wherever these
 * are called from (a Route Handler has no check of Next.js's own).
 */
import type { AuthConfig, Session } from "@latchkey/core";
import {
  beginServerCall,
  formFields,
  postServerCall,
  type ServerCall,
  type SignInAuthorizationParams,
  serverSignIn,
  serverSignOut,
} from "@latchkey/core/internal";
import { arrival, type CookieWriter, writeCookies } from "./convert.js";
import { nextEnv } from "./env.js";
import { nextHeaders, nextNavigation } from "./next-modules.js";

export type { SignInAuthorizationParams };

/** The checked call of a server action, its cookies going to Next.js's cookie store. */
async function begin(config: AuthConfig): Promise<ServerCall> {
  const { headers, cookies } = await nextHeaders();
  const h = await headers();
  let store: CookieWriter | undefined;
  const call = beginServerCall({
    config,
    env: nextEnv,
    headers: h as unknown as Headers,
    where: arrival(h, config),
    deliver: (list) => {
      if (!store || !writeCookies(store, list))
        throw new Error(
          "signIn, signOut and unstable_update of @latchkey/next must run in a Server Action or a Route Handler: Next.js forbids setting cookies while a Server Component renders. Call them from a form's action or an onClick server action instead.",
        );
    },
  });
  store = (await cookies()) as unknown as CookieWriter;
  return call;
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
  options: { redirectTo?: string; redirect?: boolean } = {},
): Promise<{ redirect: string }> {
  const url = await serverSignOut(await begin(config), options.redirectTo);
  if (options.redirect !== false) (await nextNavigation()).redirect(url);
  return { redirect: url };
}

/** The server-side session update (see `NextAuthResult.unstable_update`). */
export async function update(config: AuthConfig, data: unknown): Promise<Session | null> {
  const res = await postServerCall(await begin(config), "/session", { data }, "application/json");
  const body = res.body;
  return (res.status ?? 200) === 200 && body && typeof body === "object" ? (body as unknown as Session) : null;
}
