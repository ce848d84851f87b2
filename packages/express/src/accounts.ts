/**
 * Password accounts for Express: the functions of `@latchkey/core/accounts` taking an Express
 * request (its parsed body, `req.ip`, its cookies), and `PasswordAccounts`, a router of the
 * built-in pages (sign-up, "check your e-mail", verification link, forgotten password, reset,
 * change).
 * @module accounts
 */
import type { ServerResponse } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import * as core from "@latchkey/core/accounts";
import { MissingCSRF } from "@latchkey/core/errors";
import { formRecord, parsedForm, readNodeBody } from "@latchkey/core/internal";
import { checkCsrf, getCsrfToken } from "@latchkey/core/sessions";
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
type Fields = Record<string, unknown>;

/**
 * The parsed body (`express.urlencoded()` or `express.json()`), or the form read from the stream;
 * the first of a repeated form field wins, as everywhere (`formRecord`).
 */
async function fieldsOf(req: ExpressRequestLike): Promise<Fields> {
  const type = String(req.headers["content-type"] ?? "");
  if (req.body && typeof req.body === "object" && !Buffer.isBuffer(req.body))
    return parsedForm(type, req.body as Fields);
  if (req.method !== "POST") return {};
  const text = await readNodeBody(req);
  if (type.startsWith("application/json")) {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === "object" ? (parsed as Fields) : {};
    } catch {
      return {};
    }
  }
  return formRecord(new URLSearchParams(text));
}

const withEnv = (options: core.PasswordAccountsOptions) => ({ ...options, env: options.env ?? process.env });

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
  const f = await fieldsOf(req);
  const result = await core.signUp(sessionRequest(req), config, withEnv(options), {
    email: f.email,
    password: f.password,
    name: f.name,
    clientAddress: clientAddressOf(req, config),
  });
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
  const f = await fieldsOf(req);
  const result = await core.verifyEmail(sessionRequest(req), config, withEnv(options), {
    code: f.code,
    token: f.token,
    email: f.email,
    user: f.user,
    password: f.password,
    clientAddress: clientAddressOf(req, config),
  });
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
export async function requestPasswordReset(
  req: ExpressRequestLike,
  config: AuthConfig,
  options: core.PasswordAccountsOptions,
) {
  const f = await fieldsOf(req);
  return core.requestPasswordReset(sessionRequest(req), config, withEnv(options), {
    email: f.email,
    clientAddress: clientAddressOf(req, config),
  });
}

/**
 * Sets a new `password` with the reset link's `token`, `email` and `user` from the body, and ends
 * every session of the user. See `resetPassword` of `@latchkey/core/accounts`.
 * @example
 * ```ts
 * app.post("/reset", express.urlencoded({ extended: false }), async (req, res) => res.json(await resetPassword(req, config, accounts)))
 * ```
 */
export async function resetPassword(
  req: ExpressRequestLike,
  config: AuthConfig,
  options: core.PasswordAccountsOptions,
) {
  const f = await fieldsOf(req);
  return core.resetPassword(sessionRequest(req), config, withEnv(options), {
    token: f.token,
    email: f.email,
    user: f.user,
    password: f.password,
    clientAddress: clientAddressOf(req, config),
  });
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
  const f = await fieldsOf(req);
  try {
    const result = await core.changePassword(sessionRequest(req), config, withEnv(options), {
      csrfToken: f.csrfToken,
      currentPassword: f.currentPassword,
      newPassword: f.password,
      clientAddress: clientAddressOf(req, config),
    });
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

const statusOf = (error: string) => (error === "rate-limited" ? 429 : 400);

/**
 * The built-in pages of password accounts, served under the path it is mounted on:
 * `/signup`, `/check-email` (the mailed code), `/verify` (the mailed link), `/forgot`, `/reset`
 * (the reset link) and `/change` (signed in). Every form posts the CSRF token and is checked; a
 * GET never spends a token. `urls.signIn` defaults to `/auth/signin`.
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
      const base = req.baseUrl ?? "";
      const url = new URL(req.url ?? "/", "http://x");
      const route = url.pathname.replace(/\/+$/, "") || "/";
      const urls = {
        verify: `${base}/verify`,
        reset: `${base}/reset`,
        signUp: `${base}/signup`,
        signIn: "/auth/signin",
        ...options.urls,
      };
      const accounts = withEnv({ ...options, urls } as core.PasswordAccountsOptions);
      const known = ["/signup", "/check-email", "/verify", "/forgot", "/reset", "/change"];
      if (!known.includes(route) || (req.method !== "GET" && req.method !== "POST")) return next();

      const csrf = await getCsrfToken(sessionRequest(req), config, { env: process.env });
      appendCookies(res, csrf.setCookie);
      const show = (name: core.AccountPageName, props: Record<string, unknown>, status = 200) => {
        const page = core.accountPage(
          config,
          name,
          { action: `${base}${route}`, csrfToken: csrf.token, ...props } as never,
          {
            status,
            env: process.env,
          },
        );
        res.statusCode = page.status;
        for (const [header, value] of Object.entries(page.headers)) res.setHeader(header, value);
        res.end(page.body);
      };
      const query = Object.fromEntries(url.searchParams);
      const link = { token: query.token ?? "", email: query.email ?? "", user: query.user ?? "" };

      if (req.method === "GET") {
        if (route === "/signup") return show("signUp", { signIn: urls.signIn, forgot: `${base}/forgot` });
        if (route === "/check-email") return show("checkEmail", {});
        if (route === "/verify") return show("verifyLink", { ...link, askPassword: false });
        if (route === "/forgot") return show("forgot", {});
        if (route === "/reset") return show("reset", link);
        return show("change", {});
      }

      const f = await fieldsOf(req);
      // Read once: the helpers below take the fields from here.
      req.body = f;
      try {
        checkCsrf(sessionRequest(req), config, f.csrfToken, { env: process.env });
      } catch (e) {
        if (!(e instanceof MissingCSRF)) throw e;
        return show(
          "done",
          {
            heading: "Form expired",
            text: "This form was not sent with a valid CSRF token. Open the page again.",
            link: { label: "Try again", href: `${base}${route}` },
          },
          403,
        );
      }
      const differ = (f.password !== undefined || f.confirm !== undefined) && f.password !== f.confirm;
      const signInLink = { label: "Sign in", href: urls.signIn };

      if (route === "/signup") {
        if (differ)
          return show(
            "signUp",
            { email: f.email, error: "passwords-differ", signIn: urls.signIn, forgot: `${base}/forgot` },
            400,
          );
        const result = await signUp(req, res, config, accounts);
        if (!result.ok) {
          return show(
            "signUp",
            {
              email: f.email,
              error: result.error,
              reasons: "reasons" in result ? result.reasons : undefined,
              signIn: urls.signIn,
              forgot: `${base}/forgot`,
            },
            statusOf(result.error),
          );
        }
        res.statusCode = 303;
        res.setHeader("Location", `${base}/check-email`);
        return void res.end();
      }
      if (route === "/check-email" || route === "/verify") {
        const result = await verifyEmail(req, res, config, accounts);
        if (result.ok)
          return show("done", {
            heading: "Address confirmed",
            text: "Your e-mail address is confirmed. You can sign in now.",
            link: signInLink,
          });
        if (route === "/check-email") return show("checkEmail", { error: result.error }, statusOf(result.error));
        const fields = { token: f.token, email: f.email, user: f.user };
        return show(
          "verifyLink",
          { ...fields, askPassword: result.error !== "invalid", error: result.error },
          result.error === "password-required" ? 200 : statusOf(result.error),
        );
      }
      if (route === "/forgot") {
        const result = await requestPasswordReset(req, config, accounts);
        if (!result.ok) return show("forgot", { error: result.error }, statusOf(result.error));
        return show("forgot", { sent: true });
      }
      if (route === "/reset") {
        const fields = { token: f.token, email: f.email, user: f.user };
        if (differ) return show("reset", { ...fields, error: "passwords-differ" }, 400);
        const result = await resetPassword(req, config, accounts);
        if (!result.ok)
          return show(
            "reset",
            { ...fields, error: result.error, reasons: "reasons" in result ? result.reasons : undefined },
            statusOf(result.error),
          );
        return show("done", {
          heading: "Password changed",
          text: "Your new password is set, and every session of your account was signed out. Sign in with the new password.",
          link: signInLink,
        });
      }
      if (differ) return show("change", { error: "passwords-differ" }, 400);
      const result = await changePassword(req, res, config, accounts);
      if (!result.ok)
        return show(
          "change",
          { error: result.error, reasons: "reasons" in result ? result.reasons : undefined },
          result.error === "signed-out" ? 401 : statusOf(result.error),
        );
      return show("done", {
        heading: "Password changed",
        text: result.signedOut
          ? "Your new password is set and every session was signed out, this one too. Sign in with the new password."
          : "Your new password is set, and your other sessions were signed out.",
        link: result.signedOut ? signInLink : { label: "Continue", href: "/" },
      });
    } catch (e) {
      next(e);
    }
  };
}
