/**
 * The built-in pages of password accounts, for any framework: which page a request to a route
 * under the mount gets (`/signup`, `/check-email`, `/verify`, `/forgot`, `/reset`, `/change`),
 * the CSRF check of every form, the account function each form calls, and the page or redirect
 * its result gives. A framework package converts its request to {@link AccountsPagesRequest},
 * gives the calls bound to that request ({@link AccountsPagesCalls}) and writes the answer
 * (`@latchkey/express`'s `PasswordAccounts` router).
 */
import { MissingCSRF } from "../base/errors.js";
import type { FormFields } from "./forms.js";

/** A request to the pages, as the framework's router sees it. */
export interface AccountsPagesRequest {
  method: string;
  /** The path under the mount, without trailing slashes (`/signup`; `/` for the mount itself). */
  route: string;
  /** Where the pages are mounted (`/account`); "" at the root. */
  base: string;
  query: URLSearchParams;
  /** The posted form (read once, for a POST). */
  fields(): Promise<FormFields>;
}

/** What an account function's result says, as far as the pages read it. */
interface Outcome {
  ok: boolean;
  error?: string;
  reasons?: unknown;
  setCookie?: string[];
  signedOut?: boolean;
}

/** The calls of the pages, bound by the framework to the request (its cookies, address, options). */
export interface AccountsPagesCalls {
  /** The CSRF token of the request's signed cookie, or a new one with its cookie. */
  csrf(): Promise<{ token: string; setCookie: string[] }>;
  /** Throws `MissingCSRF` unless `token` is the token of the request's CSRF cookie. */
  checkCsrf(token: unknown): void;
  signUp(fields: FormFields): Promise<Outcome>;
  verifyEmail(fields: FormFields): Promise<Outcome>;
  requestPasswordReset(fields: FormFields): Promise<Outcome>;
  resetPassword(fields: FormFields): Promise<Outcome>;
  changePassword(fields: FormFields): Promise<Outcome>;
  /** A page of `accountPage` with these props and status. */
  page(
    name: string,
    props: Record<string, unknown>,
    status: number,
  ): { status: number; headers: Record<string, string>; body: string };
}

/** The answer to write: a page or a redirect (`Location`), with the cookies to set. */
export interface AccountsPagesAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  setCookie: string[];
}

const ROUTES = new Set(["/signup", "/check-email", "/verify", "/forgot", "/reset", "/change"]);
const statusOf = (error: string | undefined) => (error === "rate-limited" ? 429 : 400);

/**
 * The answer of the password-account pages to a request, or undefined for a route or method
 * they do not serve (the framework passes it on). Every form posts the CSRF token and is checked
 * first (403 and the "Form expired" page otherwise); a GET never spends a token.
 *
 * @example
 * ```ts
 * const answer = await accountsPages({ method, route, base, query, fields }, { signIn: "/auth/signin" }, calls)
 * if (!answer) return next()
 * ```
 */
export async function accountsPages(
  request: AccountsPagesRequest,
  urls: { signIn: string },
  calls: AccountsPagesCalls,
): Promise<AccountsPagesAnswer | undefined> {
  const { method, route, base, query } = request;
  if (!ROUTES.has(route) || (method !== "GET" && method !== "POST")) return undefined;
  const csrf = await calls.csrf();
  const setCookie = [...csrf.setCookie];
  const show = (name: string, props: Record<string, unknown>, status = 200): AccountsPagesAnswer => ({
    ...calls.page(name, { action: `${base}${route}`, csrfToken: csrf.token, ...props }, status),
    setCookie,
  });
  const redirect = (location: string): AccountsPagesAnswer => ({
    status: 303,
    headers: { Location: location },
    body: "",
    setCookie,
  });
  const forgot = `${base}/forgot`;
  const link = { token: query.get("token") ?? "", email: query.get("email") ?? "", user: query.get("user") ?? "" };

  if (method === "GET") {
    if (route === "/signup") return show("signUp", { signIn: urls.signIn, forgot });
    if (route === "/check-email") return show("checkEmail", {});
    if (route === "/verify") return show("verifyLink", { ...link, askPassword: false });
    if (route === "/forgot") return show("forgot", {});
    if (route === "/reset") return show("reset", link);
    return show("change", {});
  }

  const f = await request.fields();
  try {
    calls.checkCsrf(f.csrfToken);
  } catch (e) {
    if (!(e instanceof MissingCSRF)) throw e;
    const text = "This form was not sent with a valid CSRF token. Open the page again.";
    return show("done", { heading: "Form expired", text, link: { label: "Try again", href: `${base}${route}` } }, 403);
  }
  /** Runs an account function, keeping the cookies its result sets. */
  const run = async (call: (fields: FormFields) => Promise<Outcome>): Promise<Outcome> => {
    const result = await call(f);
    if (result.setCookie?.length) setCookie.push(...result.setCookie);
    return result;
  };
  const differ = (f.password !== undefined || f.confirm !== undefined) && f.password !== f.confirm;
  const signInLink = { label: "Sign in", href: urls.signIn };
  const reasons = (result: Outcome) => ("reasons" in result ? result.reasons : undefined);

  if (route === "/signup") {
    const props = { email: f.email, signIn: urls.signIn, forgot };
    if (differ) return show("signUp", { ...props, error: "passwords-differ" }, 400);
    const result = await run(calls.signUp);
    if (!result.ok)
      return show("signUp", { ...props, error: result.error, reasons: reasons(result) }, statusOf(result.error));
    return redirect(`${base}/check-email`);
  }
  if (route === "/check-email" || route === "/verify") {
    const result = await run(calls.verifyEmail);
    if (result.ok) {
      const text = "Your e-mail address is confirmed. You can sign in now.";
      return show("done", { heading: "Address confirmed", text, link: signInLink });
    }
    if (route === "/check-email") return show("checkEmail", { error: result.error }, statusOf(result.error));
    const fields = { token: f.token, email: f.email, user: f.user };
    const status = result.error === "password-required" ? 200 : statusOf(result.error);
    return show("verifyLink", { ...fields, askPassword: result.error !== "invalid", error: result.error }, status);
  }
  if (route === "/forgot") {
    const result = await run(calls.requestPasswordReset);
    if (!result.ok) return show("forgot", { error: result.error }, statusOf(result.error));
    return show("forgot", { sent: true });
  }
  if (route === "/reset") {
    const fields = { token: f.token, email: f.email, user: f.user };
    if (differ) return show("reset", { ...fields, error: "passwords-differ" }, 400);
    const result = await run(calls.resetPassword);
    if (!result.ok)
      return show("reset", { ...fields, error: result.error, reasons: reasons(result) }, statusOf(result.error));
    const text =
      "Your new password is set, and every session of your account was signed out. Sign in with the new password.";
    return show("done", { heading: "Password changed", text, link: signInLink });
  }
  if (differ) return show("change", { error: "passwords-differ" }, 400);
  const result = await run(calls.changePassword);
  if (!result.ok) {
    const status = result.error === "signed-out" ? 401 : statusOf(result.error);
    return show("change", { error: result.error, reasons: reasons(result) }, status);
  }
  const text = result.signedOut
    ? "Your new password is set and every session was signed out, this one too. Sign in with the new password."
    : "Your new password is set, and your other sessions were signed out.";
  const next = result.signedOut ? signInLink : { label: "Continue", href: "/" };
  return show("done", { heading: "Password changed", text, link: next });
}
