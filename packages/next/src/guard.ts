/**
 * `requireAuth` for Next.js: core's one guard (`requireAuth` of every framework: signed in, the
 * factors, the active organization, a role or a permission there), converted to Next.js's
 * answers. In a Server Component or a Server Action it returns the session, or ends the render
 * with Next.js's own functions: `redirect()` to sign in, and `forbidden()` for a refusal
 * (403, the application's `forbidden.tsx`), or `notFound()` where the application has not enabled
 * `experimental.authInterrupts`, which `forbidden()` needs. Wrapping a Route Handler, it answers
 * as core's guard does: a redirect for a browser, `401`/`403` JSON for another client.
 */
import type { AuthConfig, Session } from "@latchkey/core";
import { type GuardOptions, guard, toResponse } from "@latchkey/core/internal";
import type { NextRequest } from "next/server.js";
import { arrival, type CookieWriter, writeCookies } from "./convert.js";
import { nextEnv } from "./env.js";
import { nextHeaders, nextNavigation } from "./next-modules.js";

/** What `requireAuth` demands, and where a Server Component's visitor comes back to after signing in. */
export interface NextGuardOptions extends GuardOptions {
  /**
   * The page to return to after signing in, for a Server Component or Server Action (Next.js
   * tells neither the page's URL): its path, such as `/projects/42`. @default "/"
   */
  callbackUrl?: string;
}

/** A Route Handler `requireAuth` wraps: its request carries the session as `req.auth`. */
export type GuardedRouteHandler<C> = (req: NextRequest & { auth: Session }, ctx: C) => Response | Promise<Response>;

type Check = ReturnType<typeof guard>;

/**
 * The guard of one `requireAuth(options)`, made once for a configuration object (its options are
 * checked then) and per call for a configuration that is a function of the request.
 */
function checkOf(config: AuthConfig | ((req?: NextRequest) => Promise<AuthConfig>), options: GuardOptions) {
  if (typeof config !== "function") {
    const check = guard(config, options);
    return async () => check;
  }
  return async (req?: NextRequest): Promise<Check> => guard(await config(req), options);
}

/** Ends a Server Component's render or a Server Action with Next.js's 403 (`forbidden()`), or its 404 without `authInterrupts`. */
async function refuse(): Promise<never> {
  const navigation = (await nextNavigation()) as { forbidden?: () => never; notFound: () => never };
  try {
    if (navigation.forbidden) navigation.forbidden();
  } catch (e) {
    // Next.js's interruption carries a digest; the error of a disabled `forbidden()` has none.
    if ((e as { digest?: unknown })?.digest !== undefined) throw e;
  }
  return navigation.notFound();
}

/**
 * `requireAuth` of `NextAuth(config)`.
 *
 * @example
 * ```ts
 * // a Server Component or a Server Action
 * const session = await requireAuth({ permission: "project:delete", callbackUrl: "/projects" })
 * // a Route Handler
 * export const DELETE = requireAuth({ permission: "project:delete" }, async (req) => Response.json(await remove(req.auth)))
 * ```
 */
export function nextRequireAuth(config: AuthConfig | ((req?: NextRequest) => Promise<AuthConfig>)) {
  function requireAuth(options?: NextGuardOptions): Promise<Session>;
  function requireAuth<C>(
    options: NextGuardOptions,
    handler: GuardedRouteHandler<C>,
  ): (req: NextRequest, ctx: C) => Promise<Response>;
  function requireAuth<C>(
    options: NextGuardOptions = {},
    handler?: GuardedRouteHandler<C>,
  ): Promise<Session> | ((req: NextRequest, ctx: C) => Promise<Response>) {
    const { callbackUrl = "/", ...demand } = options;
    const checkFor = checkOf(config, demand);
    if (handler) {
      return async (req: NextRequest, ctx: C) => {
        const url = new URL(req.url);
        const result = await (await checkFor(req))(
          {
            ...arrival(req.headers, { host: url.host }),
            cookieHeader: req.headers.get("cookie"),
            accept: req.headers.get("accept"),
            url: `${url.pathname}${url.search}`,
          },
          { env: nextEnv },
        );
        if (result.response) return toResponse(result.response);
        const augmented = req as NextRequest & { auth: Session };
        augmented.auth = result.session;
        return handler(augmented, ctx);
      };
    }
    return (async () => {
      const check = await checkFor();
      const { headers, cookies } = await nextHeaders();
      const h = await headers();
      const result = await check(
        { ...arrival(h), cookieHeader: h.get("cookie"), accept: "text/html", url: callbackUrl },
        { env: nextEnv },
      );
      if (result.session) return result.session;
      const answer = result.response;
      // A cookie that is not a live session is cleared where Next.js lets this call write one.
      if (answer.cookies?.length) writeCookies((await cookies()) as unknown as CookieWriter, answer.cookies);
      if (answer.redirect) (await nextNavigation()).redirect(answer.redirect);
      return refuse();
    })();
  }
  return requireAuth;
}
