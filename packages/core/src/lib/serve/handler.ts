import type { LoggerInstance, ResponseInternal, Theme } from "../../shapes/data.js";
import { failureReasonOf, recordSignInFailure } from "../audit/sign-in.js";
import {
  AuthError,
  CredentialsSignin,
  ErrorPageLoop,
  RateLimited,
  SignOutError,
  UnknownAction,
} from "../base/errors.js";
import { createLogger } from "../base/logger.js";
import type { AuthConfig } from "../config/options.js";
import type { ResolvedConfig } from "../config/types.js";
import { BadBody, type RequestInternal } from "../http/request.js";
import { withQuery } from "../http/url.js";
import { page } from "../pages/layout.js";
import { errorPage } from "../pages/other-pages.js";
import { clientErrorValue } from "./client-errors.js";
import { type Context, createContext } from "./context.js";
import { route } from "./router.js";

const configurationMessage =
  "There was a problem with the server configuration. Check the server logs for more information.";
const htmlActions = new Set(["signin", "signout", "error", "verify-request"]);

/**
 * The answer when the configuration itself is wrong: the error page for page requests, a 500
 * JSON message otherwise. The details go to the log only.
 */
export function configurationErrorResponse(
  error: unknown,
  request: { method: string; action?: string; origin?: string; url?: URL; basePath?: string; callbackUrl?: string },
  options: { logger: LoggerInstance; basePath: string; pages?: { error?: string }; theme?: Theme },
): ResponseInternal {
  options.logger.error(error instanceof Error ? error : new AuthError(String(error)));
  if (request.method !== "GET" || !request.action || !htmlActions.has(request.action)) {
    return { status: 500, headers: { "Content-Type": "application/json" }, body: { message: configurationMessage } };
  }
  const origin = request.origin ?? request.url?.origin ?? "";
  const errorPagePath = options.pages?.error;
  const callbackUrl = request.callbackUrl ?? request.url?.searchParams.get("callbackUrl") ?? undefined;
  if (errorPagePath && isSamePage(callbackUrl, errorPagePath, origin)) {
    // The application's error page asked to sign in (callbackUrl is the error page itself):
    // sending the browser there again would loop, so the built-in page answers instead.
    options.logger.error(new ErrorPageLoop(`The error page ${errorPagePath} should not require authentication`));
  } else if (errorPagePath) {
    return { redirect: `${origin}${withQuery(errorPagePath, "error=Configuration")}` };
  }
  const { title, status, content } = errorPage({
    authUrl: `${origin}${request.basePath ?? options.basePath}`,
    origin,
    error: "Configuration",
  });
  return page({ title, status, content, theme: options.theme ?? {} });
}

/** True when `url` (absolute or relative to `origin`) names the page at `path` on that origin. */
function isSamePage(url: string | undefined, path: string, origin: string): boolean {
  if (!url) return false;
  try {
    const base = origin || "http://localhost";
    const [target, page] = [new URL(url, base), new URL(path, base)];
    return target.origin === page.origin && target.pathname === page.pathname;
  } catch {
    return false;
  }
}

/**
 * The answer when the configuration could not be resolved, from what the raw configuration and
 * the request's path say (the framework shells and `Auth` share it).
 */
export function unresolvedConfigResponse(
  error: unknown,
  config: AuthConfig,
  request: { method: string; pathname: string; origin: string; callbackUrl?: string },
): ResponseInternal {
  const basePath = typeof config.basePath === "string" ? config.basePath : "/auth";
  const action = request.pathname.startsWith(`${basePath}/`)
    ? request.pathname.slice(basePath.length + 1).split("/")[0]
    : undefined;
  return configurationErrorResponse(
    error,
    { method: request.method, action, origin: request.origin, callbackUrl: request.callbackUrl },
    {
      logger: createLogger(config.logger, !!config.debug),
      basePath,
      pages: config.pages,
      theme: config.theme,
    },
  );
}

/**
 * The answer to a request that could not be turned into an internal request (no action, wrong
 * method, unreadable body); undefined for any other error.
 */
export function unparsableRequestResponse(error: unknown, logger: LoggerInstance): ResponseInternal | undefined {
  if (error instanceof UnknownAction) return badRequest(error.message);
  if (!(error instanceof BadBody)) return undefined;
  logger.debug(`bad request body: ${error.message}`);
  return {
    status: error.status,
    headers: { "Content-Type": "application/json" },
    body: { error: "BadRequest", message: error.message },
  };
}

/** A 400 for requests that name no action or use the wrong method. */
export function badRequest(message: string): ResponseInternal {
  return { status: 400, headers: { "Content-Type": "application/json" }, body: { error: "UnknownAction", message } };
}

/** Runs an action; turns every failure into its redirect, page or JSON answer. */
export async function handle(
  req: RequestInternal,
  config: ResolvedConfig,
  options: { raw: boolean },
): Promise<ResponseInternal> {
  const ctx = createContext(req, config);
  try {
    return await route(req, ctx);
  } catch (e) {
    // Every sign-in that fails by throwing ends here: its one record, with the internal reason
    // (the answer below is the same for all reasons). A limited attempt was recorded by its limit.
    if (req.action === "callback" && !(e instanceof RateLimited) && !(e instanceof UnknownAction)) {
      await recordSignInFailure(req, ctx, failureReasonOf(e));
    }
    return errorResponse(e, req, ctx, options.raw);
  }
}

function errorResponse(e: unknown, req: RequestInternal, ctx: Context, rawMode: boolean): ResponseInternal {
  const { config } = ctx;
  if (e instanceof UnknownAction) {
    config.logger.debug(`unknown action: ${e.message}`);
    return badRequest(e.message);
  }
  config.logger.error(e instanceof Error ? e : new AuthError(String(e)));
  if (rawMode && e instanceof AuthError && !req.returnRedirectAsJson) throw e;
  // Only deletions survive an error: a half-made session or check cookie must not be set.
  const cookies = ctx.cookies.filter((c) => c.options?.maxAge === 0);
  if (req.method === "POST" && req.action === "session") {
    return { status: 400, headers: { "Content-Type": "application/json" }, body: null, cookies };
  }
  const params = new URLSearchParams({ error: clientErrorValue(e) });
  if (e instanceof CredentialsSignin) params.set("code", e.code);
  const kind = e instanceof AuthError ? e.kind : "error";
  const path =
    kind === "signIn"
      ? (config.pages.signIn ?? `${req.basePath}/signin`)
      : (config.pages.error ?? `${req.basePath}/error`);
  const url = `${ctx.origin}${withQuery(path, params)}`;
  if (e instanceof RateLimited) {
    // Scripts get a real 429; browsers posting a form get the sign-in page with the error.
    const retryAfter = String(Math.max(1, Math.ceil(e.retryAfter)));
    if (req.returnRedirectAsJson || !req.headers.get("accept")?.includes("text/html")) {
      return {
        status: 429,
        headers: { "Content-Type": "application/json", "Retry-After": retryAfter },
        body: { error: "RateLimited", url },
        cookies,
      };
    }
    return { redirect: url, headers: { "Retry-After": retryAfter }, cookies };
  }
  if (e instanceof SignOutError && (req.returnRedirectAsJson || !req.headers.get("accept")?.includes("text/html"))) {
    // Scripts (Auth.js's `signOut()` included, which follows `url`) hear that it did not happen.
    return {
      status: 503,
      headers: { "Content-Type": "application/json" },
      body: { error: "SignOutError", url },
      cookies,
    };
  }
  return { redirect: url, cookies };
}
