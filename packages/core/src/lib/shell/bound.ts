// The code of @latchkey/core's public module src/internal.ts (which documents it and re-exports it).

import { accountPage } from "../accounts/account-page.js";
import { changePassword } from "../accounts/change.js";
import { accountInputs, type FormFields } from "../accounts/forms.js";
import { type AccountsPagesRequest, accountsPages } from "../accounts/pages-router.js";
import type { PasswordAccountsOptions } from "../accounts/password-accounts.js";
import { requestPasswordReset, resetPassword } from "../accounts/reset.js";
import { signUp, verifyEmail } from "../accounts/sign-up.js";
import { type WarningCode, warnOnce } from "../base/logger.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import type { AccountPageName } from "../pages/accounts.js";
import type { SessionRequest } from "../serve/pipeline.js";
import { listAccounts, unlinkAccount } from "../session/linked-accounts.js";
import {
  type ChangeOptions,
  checkCsrf,
  getCsrfToken,
  listSessions,
  type RevokeUserSessionsOptions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  type UnlinkOptions,
} from "../session/manage.js";

/**
 * The functions of `@latchkey/core/sessions` bound to a framework's request type: each takes the
 * framework's request (described by `describe`) and fills the environment's defaults from `env`,
 * read at every call. The functions that change something are given the CSRF token the request
 * submitted (`submitted`, such as the parsed body's `csrfToken`) unless the caller passes one.
 * Framework packages re-export them under the same names.
 *
 * @example
 * ```ts
 * const sessions = boundSessions((req: IncomingMessage) => ({ protocol: "https", host: req.headers.host, cookieHeader: req.headers.cookie }), () => process.env, (req) => req.body?.csrfToken)
 * export const listSessions = sessions.listSessions // (req, config) => Promise<SessionInfo[] | null>
 * ```
 */
export function boundSessions<R>(
  describe: (req: R) => SessionRequest,
  env: () => Env,
  submitted: (req: R) => unknown = () => undefined,
) {
  const o = () => ({ env: env() });
  type Change = Omit<ChangeOptions, "env">;
  return {
    listSessions: (req: R, config: AuthConfig) => listSessions(describe(req), config, o()),
    revokeSession: (req: R, config: AuthConfig, id: unknown, options: Change = {}) =>
      revokeSession(describe(req), config, id, { csrfToken: submitted(req), ...options, ...o() }),
    revokeOtherSessions: (req: R, config: AuthConfig, options: Change = {}) =>
      revokeOtherSessions(describe(req), config, { csrfToken: submitted(req), ...options, ...o() }),
    getCsrfToken: (req: R, config: AuthConfig) => getCsrfToken(describe(req), config, o()),
    checkCsrf: (req: R, config: AuthConfig, token: unknown = submitted(req)) =>
      checkCsrf(describe(req), config, token, o()),
    revokeUserSessions: (config: AuthConfig, userId: string, options: Omit<RevokeUserSessionsOptions, "env"> = {}) =>
      revokeUserSessions(config, userId, { ...options, ...o() }),
    listAccounts: (req: R, config: AuthConfig) => listAccounts(describe(req), config, o()),
    unlinkAccount: (
      req: R,
      config: AuthConfig,
      target: { provider: unknown; providerAccountId: unknown },
      options: Omit<UnlinkOptions, "env"> = {},
    ) => unlinkAccount(describe(req), config, target, { csrfToken: submitted(req), ...options, ...o() }),
  };
}

/**
 * The functions of `@latchkey/core/accounts` bound to a framework's request type, each given the
 * request's form: where it arrived and its cookies (`describe`), its posted fields (`form`, the
 * first of a repeated field winning), the client's address by the one rule (`clientAddress`) and
 * the environment's defaults (`env`, unless the options give one). Each also takes the fields
 * already read, for a caller that read them first (the built-in pages). Framework packages
 * convert the results (their cookies) and nothing else.
 *
 * @example
 * ```ts
 * const bound = boundAccounts((req: IncomingMessage) => ({ protocol, host, cookieHeader }), (req) => readNodeForm(req), (req, config) => req.socket.remoteAddress, () => process.env)
 * const result = await bound.signUp(req, config, options)
 * ```
 */
export function boundAccounts<R>(
  describe: (req: R) => SessionRequest,
  form: (req: R) => Promise<FormFields>,
  clientAddress: (req: R, config: AuthConfig) => string | undefined,
  env: () => Env,
) {
  type Options = PasswordAccountsOptions;
  type Fields = FormFields | undefined;
  const withEnv = (options: Options): Options => ({ ...options, env: options.env ?? env() });
  /** The core's function `fn`, given the request's description, the options and its input from the form. */
  function bind<I, T>(
    fn: (request: SessionRequest, config: AuthConfig, options: Options, input: I) => Promise<T>,
    input: (fields: FormFields, clientAddress: string | undefined) => I,
  ) {
    return async (req: R, config: AuthConfig, options: Options, fields?: Fields): Promise<T> =>
      fn(describe(req), config, withEnv(options), input(fields ?? (await form(req)), clientAddress(req, config)));
  }
  const api = {
    signUp: bind(signUp, accountInputs.signUp),
    verifyEmail: bind(verifyEmail, accountInputs.verifyEmail),
    requestPasswordReset: bind(requestPasswordReset, accountInputs.requestPasswordReset),
    resetPassword: bind(resetPassword, accountInputs.resetPassword),
    changePassword: bind(changePassword, (f, address) => accountInputs.changePassword(f, address)),
  };
  return {
    ...api,
    /**
     * The password-account pages for `req` under `base` (see `accountsPages`), with the built-in
     * pages' own URLs as the defaults of `options.urls`.
     */
    pages: (
      req: R,
      request: Omit<AccountsPagesRequest, "fields">,
      config: AuthConfig,
      options: Omit<Options, "urls"> & { urls?: Partial<Options["urls"]> },
    ) => {
      const { base } = request;
      const urls = {
        verify: `${base}/verify`,
        reset: `${base}/reset`,
        signUp: `${base}/signup`,
        signIn: "/auth/signin",
        ...options.urls,
      };
      const bound = withEnv({ ...options, urls });
      const on = { env: bound.env };
      return accountsPages({ ...request, fields: () => form(req) }, urls, {
        csrf: async () => {
          const { token, setCookie } = await getCsrfToken(describe(req), config, on);
          return { token, setCookie };
        },
        checkCsrf: (token) => checkCsrf(describe(req), config, token, on),
        signUp: (f) => api.signUp(req, config, bound, f),
        verifyEmail: (f) => api.verifyEmail(req, config, bound, f),
        requestPasswordReset: (f) => api.requestPasswordReset(req, config, bound, f),
        resetPassword: (f) => api.resetPassword(req, config, bound, f),
        changePassword: (f) => api.changePassword(req, config, bound, f),
        page: (name, props, status) =>
          accountPage(config, name as AccountPageName, props as never, { status, env: bound.env }),
      });
    },
  };
}

/**
 * Logs the warning `code` through the configuration's logger, once per resolved configuration
 * (a framework package's own findings, such as a handler mounted where its guard does not look).
 *
 * @example
 * ```ts
 * warnOnceFor(config, "require-auth-mount", process.env)
 * ```
 */
export function warnOnceFor(config: AuthConfig, code: WarningCode, env?: Env): void {
  warnOnce(resolveConfig(config, env), code);
}
