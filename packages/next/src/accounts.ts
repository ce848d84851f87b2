/**
 * Password accounts in Next.js Server Actions: sign-up, address verification, forgotten password
 * and change of password, the functions of `@latchkey/core/accounts` given the request of the
 * action (`next/headers`), their cookies put in Next.js's cookie store. Each holds the rule of
 * every server-side call of `@latchkey/next` (core's `lib/serve/server-action.ts`): a request another
 * site or origin made is refused with `MissingCSRF`, and one with neither `Origin` nor
 * `Sec-Fetch-Site` must post the pipeline's CSRF token (`csrfToken`) with its cookie.
 *
 * The results are core's with their cookie lists emptied: the cookies are delivered already, and
 * some are `HttpOnly`, so they never reach the page's JavaScript through an action's return value.
 *
 * @example
 * ```ts
 * // auth.ts
 * import { PasswordAccounts, authorizePassword } from "@latchkey/next/accounts"
 * export const accountOptions = { passwords: myPasswordTable, urls: { verify: "/verify", reset: "/reset", signIn: "/signin", signUp: "/signup" } }
 * export const accounts = PasswordAccounts(authConfig, accountOptions)
 * // app/signup/actions.ts
 * "use server"
 * export async function signUpAction(_: unknown, form: FormData) { return accounts.signUp(form) }
 * ```
 * @module @latchkey/next/accounts
 */
import type { AuthConfig } from "@latchkey/core";
import * as core from "@latchkey/core/accounts";
import { type AccountsServerCall, accountInputs, accountsServerCall, formFields } from "@latchkey/core/internal";
import { begin } from "./actions.js";
import { nextConfig, nextEnv } from "./env.js";

export {
  type AccountMail,
  type AccountMailKind,
  authorizePassword,
  MemoryPasswordStore,
  type PasswordAccountsOptions,
  type PasswordStore,
} from "@latchkey/core/accounts";

/** A form as an action receives it, or its fields. */
export type AccountsInput = FormData | Record<string, unknown>;

/** The password-account actions of {@link PasswordAccounts}. */
export interface PasswordAccountsActions {
  /** `email`, `password` (and `name`): see `signUp` of `@latchkey/core/accounts`. */
  signUp(form: AccountsInput): Promise<core.SignUpResult>;
  /** `code` (this browser's sign-up), or the link's `token`, `email`, `user` (and `password` elsewhere). */
  verifyEmail(form: AccountsInput): Promise<core.VerifyEmailResult>;
  /** `email`: the same answer for every address. */
  requestPasswordReset(form: AccountsInput): Promise<core.ResetRequestResult>;
  /** The link's `token`, `email`, `user`, and the new `password`; ends every session of the user. */
  resetPassword(form: AccountsInput): Promise<core.ResetResult>;
  /** `currentPassword` and the new `password`; ends the user's other sessions, keeps this one. */
  changePassword(form: AccountsInput): Promise<core.ChangeResult>;
}

/** The cookie lists of a delivered result, emptied. */
const none = { setCookie: [], cookies: [] };

/**
 * The password-account functions for Server Actions, bound to a configuration and the accounts'
 * options (`env` defaults to Next.js's environment). Call them from your own `"use server"`
 * functions with the form they receive; each checks the request first (see the module), puts the
 * result's cookies in Next.js's cookie store (the verification cookie; under JWT sessions the new
 * session of the browser that changed its password) and returns the result.
 *
 * @example
 * ```ts
 * "use server"
 * export async function changePasswordAction(_: unknown, form: FormData) {
 *   const result = await accounts.changePassword(form)
 *   if (result.ok) redirect("/account?changed=1")
 *   return result
 * }
 * ```
 */
export function PasswordAccounts(config: AuthConfig, options: core.PasswordAccountsOptions): PasswordAccountsActions {
  const accounts = { ...options, env: options.env ?? nextEnv };
  /** The checked call and the form's fields. */
  // The object NextAuth prepares (its base path, its environment; a copy of a frozen one): the
  // internal requests go to its routes, and a reset ends the sessions its auth() reads (an
  // in-memory revocation list or session cache belongs to one configuration object).
  const start = async (
    form: AccountsInput,
  ): Promise<{ call: AccountsServerCall; f: Record<string, unknown>; config: AuthConfig }> => {
    const f = form instanceof FormData ? formFields(form) : form;
    const prepared = nextConfig(config);
    return { call: await accountsServerCall(await begin(prepared), f.csrfToken), f, config: prepared };
  };
  return {
    async signUp(form) {
      const { call, f, config } = await start(form);
      const result = await core.signUp(call.request, config, accounts, accountInputs.signUp(f, call.clientAddress));
      if (!result.ok) return result;
      call.deliver(result.cookies);
      return { ...result, ...none };
    },
    async verifyEmail(form) {
      const { call, f, config } = await start(form);
      const input = accountInputs.verifyEmail(f, call.clientAddress);
      const result = await core.verifyEmail(call.request, config, accounts, input);
      call.deliver(result.cookies);
      return { ...result, ...none };
    },
    async requestPasswordReset(form) {
      const { call, f, config } = await start(form);
      const input = accountInputs.requestPasswordReset(f, call.clientAddress);
      return core.requestPasswordReset(call.request, config, accounts, input);
    },
    async resetPassword(form) {
      const { call, f, config } = await start(form);
      return core.resetPassword(call.request, config, accounts, accountInputs.resetPassword(f, call.clientAddress));
    },
    async changePassword(form) {
      const { call, f, config } = await start(form);
      const input = accountInputs.changePassword(f, call.clientAddress, call.csrfToken);
      const result = await core.changePassword(call.request, config, accounts, input);
      if (!result.ok) return result;
      call.deliver(result.cookies);
      return { ...result, ...none };
    },
  };
}
