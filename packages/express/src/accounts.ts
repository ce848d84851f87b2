/**
 * Password accounts for Express: the functions of `@latchkey/core/accounts` taking an Express
 * request (its parsed body, its client address, its cookies), and `PasswordAccounts`, a router of
 * the built-in pages (sign-up, "check your e-mail", verification link, forgotten password, reset,
 * change). Conversion only: the core binds the functions to the request (`boundAccounts`) and
 * decides the pages (`accountsPages`); this module reads the Express request and writes the answer.
 * @module accounts
 */
import type { ServerResponse } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import type * as core from "@latchkey/core/accounts";
import { MissingCSRF } from "@latchkey/core/errors";
import { boundAccounts, readNodeForm } from "@latchkey/core/internal";
import { appendCookies, clientAddressOf, type ExpressRequestLike, sessionRequest } from "./convert.js";

export {
  type AccountMail,
  type AccountMailKind,
  type AccountPage,
  accountPage,
  authorizePassword,
  MemoryPasswordStore,
  type PasswordAccountsOptions,
  type PasswordStore,
} from "@latchkey/core/accounts";

type Next = (error?: unknown) => void;

/**
 * The core's account functions bound to an Express request: its parsed body (`express.urlencoded()`
 * or `express.json()`) or the form read from the stream, the first of a repeated field winning.
 */
const bound = boundAccounts<ExpressRequestLike>(
  sessionRequest,
  (req) => readNodeForm(req, req.body),
  clientAddressOf,
  () => process.env,
);

/**
 * Signs up with `email`, `password` (and `name`) from the body; sets the cookie that lets this
 * browser type the mailed code. See `signUp` of `@latchkey/core/accounts`.
 * @example
 * ```ts
 * app.post("/signup", express.urlencoded({ extended: false }), async (req, res) => res.json(await signUp(req, res, config, accounts)))
 * ```
 */
export async function signUp(
  req: ExpressRequestLike,
  res: ServerResponse,
  config: AuthConfig,
  options: core.PasswordAccountsOptions,
) {
  const result = await bound.signUp(req, config, options);
  if (result.ok) appendCookies(res, result.setCookie);
  return result;
}

/**
 * Verifies the address with `code` (this browser's sign-up), or `token`, `email`, `user` (and
 * `password` in another browser) from the link. See `verifyEmail` of `@latchkey/core/accounts`.
 * @example
 * ```ts
 * app.post("/verify", express.urlencoded({ extended: false }), async (req, res) => res.json(await verifyEmail(req, res, config, accounts)))
 * ```
 */
export async function verifyEmail(
  req: ExpressRequestLike,
  res: ServerResponse,
  config: AuthConfig,
  options: core.PasswordAccountsOptions,
) {
  const result = await bound.verifyEmail(req, config, options);
  appendCookies(res, result.setCookie);
  return result;
}

/**
 * Mails a reset link to the body's `email` (the same answer for every address). See
 * `requestPasswordReset` of `@latchkey/core/accounts`.
 * @example
 * ```ts
 * app.post("/forgot", express.urlencoded({ extended: false }), async (req, res) => res.json(await requestPasswordReset(req, config, accounts)))
 * ```
 */
export function requestPasswordReset(
  req: ExpressRequestLike,
  config: AuthConfig,
  options: core.PasswordAccountsOptions,
): Promise<core.ResetRequestResult> {
  return bound.requestPasswordReset(req, config, options);
}

/**
 * Sets a new `password` with the reset link's `token`, `email` and `user` from the body, and ends
 * every session of the user. See `resetPassword` of `@latchkey/core/accounts`.
 * @example
 * ```ts
 * app.post("/reset", express.urlencoded({ extended: false }), async (req, res) => res.json(await resetPassword(req, config, accounts)))
 * ```
 */
export function resetPassword(
  req: ExpressRequestLike,
  config: AuthConfig,
  options: core.PasswordAccountsOptions,
): Promise<core.ResetResult> {
  return bound.resetPassword(req, config, options);
}

/**
 * Changes the signed-in user's password with the body's `csrfToken`, `currentPassword` and
 * `password`; ends the user's other sessions and keeps this one (under JWT sessions it sets this
 * browser's new session cookie). Throws `MissingCSRF` (HTTP 403) without a valid CSRF token. See
 * `changePassword` of `@latchkey/core/accounts`.
 * @example
 * ```ts
 * app.post("/change", express.urlencoded({ extended: false }), async (req, res) => res.json(await changePassword(req, res, config, accounts)))
 * ```
 */
export async function changePassword(
  req: ExpressRequestLike,
  res: ServerResponse,
  config: AuthConfig,
  options: core.PasswordAccountsOptions,
) {
  try {
    const result = await bound.changePassword(req, config, options);
    if (result.ok) appendCookies(res, result.setCookie);
    return result;
  } catch (e) {
    if (e instanceof MissingCSRF) Object.assign(e, { status: 403, statusCode: 403, expose: true });
    throw e;
  }
}

/** Options of {@link PasswordAccounts}: `urls` default to the router's own pages. */
export type PasswordAccountsRouterOptions = Omit<core.PasswordAccountsOptions, "urls"> & {
  urls?: Partial<core.PasswordAccountsOptions["urls"]>;
};

/**
 * The built-in pages of password accounts, served under the path it is mounted on:
 * `/signup`, `/check-email` (the mailed code), `/verify` (the mailed link), `/forgot`, `/reset`
 * (the reset link) and `/change` (signed in). Every form posts the CSRF token and is checked; a
 * GET never spends a token. `urls.signIn` defaults to `/auth/signin`. The pages are the core's
 * (`accountsPages`); this router converts the request and writes the answer.
 *
 * @example
 * ```ts
 * const accounts = { passwords: myPasswordTable }
 * app.use("/account", PasswordAccounts(config, accounts))
 * // Credentials({ authorize: (c) => authorizePassword(config, accounts, c) })
 * ```
 */
export function PasswordAccounts(config: AuthConfig, options: PasswordAccountsRouterOptions) {
  return async function passwordAccounts(req: ExpressRequestLike, res: ServerResponse, next: Next): Promise<void> {
    try {
      const url = new URL(req.url ?? "/", "http://x");
      const request = {
        method: req.method ?? "GET",
        route: url.pathname.replace(/\/+$/, "") || "/",
        base: req.baseUrl ?? "",
        query: url.searchParams,
      };
      const answer = await bound.pages(req, request, config, options);
      if (!answer) return next();
      appendCookies(res, answer.setCookie);
      res.statusCode = answer.status;
      for (const [header, value] of Object.entries(answer.headers)) res.setHeader(header, value);
      res.end(answer.body);
    } catch (e) {
      next(e);
    }
  };
}
