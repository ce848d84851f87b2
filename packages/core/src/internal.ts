/**
 * Building blocks for framework packages (`@latchkey/express` and others): the one request
 * pipeline (`serve`), the session read (`sessionOf`; `sessionReadOf` with the cookies it re-issues), the `requireAuth` decision (`guard`), the
 * server-side sign-in, sign-out and session update with their origin and CSRF checks
 * (`beginServerCall`, `serverSignIn`, `serverSignOut`, `postServerCall`, `internalRequest`), the
 * sessions functions bound to a request type (`boundSessions`), the conversion of an answer to
 * bytes or a Web `Response` (`finalizeResponse`, `toResponse`), the headers that keep a response
 * carrying a cookie out of every cache (`forbidCaching`), a Web `Request` as the pipeline
 * reads it (`webIncoming`) and a Node request (`nodeIncoming`): the one description of an
 * incoming request every shell hands over; a Web body read within the bound (`readWebBody`), the
 * client's address by one rule (`clientAddressOrPeer`: the `clientAddress` option, else the
 * framework's peer), the one rule of a repeated form field (`formRecord`: the first wins),
 * Latchkey's log lines on a structured logger (`structuredLogger`), the environment's defaults on
 * a copy (`withEnvDefaults`), the configuration a shell hands over (`shellConfig`), where the
 * handler was mounted for `requireAuth` (`noteMount`, `mountNoted`), Node's request headers, body
 * and response (`nodeHeader`, `nodeWebHeaders`, `readNodeBody`, `writeNodeResponse`,
 * `appendSetCookies` for an application's own response), whether an answer must be awaited
 * (`isThenable`),
 * a warning logged once per configuration (`warnOnceFor`), the one encoding of a cookie value
 * (`encodeCookieValue`) for a framework's cookie API that takes an encoder, and the authorization
 * server's answer to a request a framework describes (`serveAuthorization`).
 * Not for applications; this surface follows the framework packages and may change between
 * minor versions.
 *
 * @module internal
 */

import * as accounts from "./accounts.js";
import { accountInputs, type FormFields } from "./lib/accounts/forms.js";
import { type AccountsPagesRequest, accountsPages } from "./lib/accounts/pages-router.js";
import { type WarningCode, warnOnce } from "./lib/base/logger.js";
import { resolveConfig } from "./lib/config/resolve.js";
import type { Env } from "./lib/config/types.js";
import type { SessionRequest } from "./lib/serve/pipeline.js";
import * as core from "./sessions.js";
import type { AuthConfig } from "./types.js";

export { accountInputs, type FormFields } from "./lib/accounts/forms.js";
export {
  type AccountsPagesAnswer,
  type AccountsPagesCalls,
  type AccountsPagesRequest,
  accountsPages,
} from "./lib/accounts/pages-router.js";
export { type ServableServer, serveAuthorization } from "./lib/authorization-server/incoming.js";
export { shellConfig } from "./lib/base/application.js";
export { isThenable } from "./lib/base/awaitable.js";
export { type StructuredLog, structuredLogger } from "./lib/base/logger.js";
export { withEnvDefaults } from "./lib/config/env.js";
export { encodeCookieValue } from "./lib/http/cookies.js";
export {
  appendSetCookies,
  type NodeArrival,
  nodeClientAddress,
  nodeHeader,
  nodeIncoming,
  nodeWebHeaders,
  readNodeBody,
  readNodeForm,
  writeNodeResponse,
} from "./lib/http/node-http.js";
export {
  BadBody,
  clientAddressFrom,
  clientAddressOrPeer,
  formRecord,
  type HeaderReader,
  MAX_BODY_BYTES,
  parsedForm,
  readWebBody,
} from "./lib/http/request.js";
export { finalizeResponse, forbidCaching, type HeaderSetter, toResponse } from "./lib/http/response.js";
export { type WebArrival, webIncoming } from "./lib/http/web-incoming.js";
export { type GuardOptions, type GuardRequest, guard, mountNoted, noteMount } from "./lib/serve/guard.js";
export {
  type IncomingRequest,
  type SessionReadAnswer,
  type SessionRequest,
  serve,
  sessionCookieOf,
  sessionOf,
  sessionReadOf,
} from "./lib/serve/pipeline.js";
export {
  type AccountsServerCall,
  type Arrival,
  accountsServerCall,
  beginServerCall,
  type CheckedServerCall,
  formFields,
  internalRequest,
  originOf,
  postServerCall,
  type ServerCall,
  type SignInAuthorizationParams,
  serverSignIn,
  serverSignOut,
} from "./lib/serve/server-action.js";

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
  type Change = Omit<core.ChangeOptions, "env">;
  return {
    listSessions: (req: R, config: AuthConfig) => core.listSessions(describe(req), config, o()),
    revokeSession: (req: R, config: AuthConfig, id: unknown, options: Change = {}) =>
      core.revokeSession(describe(req), config, id, { csrfToken: submitted(req), ...options, ...o() }),
    revokeOtherSessions: (req: R, config: AuthConfig, options: Change = {}) =>
      core.revokeOtherSessions(describe(req), config, { csrfToken: submitted(req), ...options, ...o() }),
    getCsrfToken: (req: R, config: AuthConfig) => core.getCsrfToken(describe(req), config, o()),
    checkCsrf: (req: R, config: AuthConfig, token: unknown = submitted(req)) =>
      core.checkCsrf(describe(req), config, token, o()),
    revokeUserSessions: (
      config: AuthConfig,
      userId: string,
      options: Omit<core.RevokeUserSessionsOptions, "env"> = {},
    ) => core.revokeUserSessions(config, userId, { ...options, ...o() }),
    listAccounts: (req: R, config: AuthConfig) => core.listAccounts(describe(req), config, o()),
    unlinkAccount: (
      req: R,
      config: AuthConfig,
      target: { provider: unknown; providerAccountId: unknown },
      options: Omit<core.UnlinkOptions, "env"> = {},
    ) => core.unlinkAccount(describe(req), config, target, { csrfToken: submitted(req), ...options, ...o() }),
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
  type Options = accounts.PasswordAccountsOptions;
  const withEnv = (options: Options): Options => ({ ...options, env: options.env ?? env() });
  const fieldsOf = async (req: R, given: FormFields | undefined) => given ?? (await form(req));
  return {
    signUp: async (req: R, config: AuthConfig, options: Options, fields?: FormFields) =>
      accounts.signUp(
        describe(req),
        config,
        withEnv(options),
        accountInputs.signUp(await fieldsOf(req, fields), clientAddress(req, config)),
      ),
    verifyEmail: async (req: R, config: AuthConfig, options: Options, fields?: FormFields) =>
      accounts.verifyEmail(
        describe(req),
        config,
        withEnv(options),
        accountInputs.verifyEmail(await fieldsOf(req, fields), clientAddress(req, config)),
      ),
    requestPasswordReset: async (req: R, config: AuthConfig, options: Options, fields?: FormFields) =>
      accounts.requestPasswordReset(
        describe(req),
        config,
        withEnv(options),
        accountInputs.requestPasswordReset(await fieldsOf(req, fields), clientAddress(req, config)),
      ),
    resetPassword: async (req: R, config: AuthConfig, options: Options, fields?: FormFields) =>
      accounts.resetPassword(
        describe(req),
        config,
        withEnv(options),
        accountInputs.resetPassword(await fieldsOf(req, fields), clientAddress(req, config)),
      ),
    changePassword: async (req: R, config: AuthConfig, options: Options, fields?: FormFields) =>
      accounts.changePassword(
        describe(req),
        config,
        withEnv(options),
        accountInputs.changePassword(await fieldsOf(req, fields), clientAddress(req, config)),
      ),
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
      const self = boundAccounts(describe, form, clientAddress, env);
      return accountsPages({ ...request, fields: () => form(req) }, urls, {
        csrf: async () => {
          const { token, setCookie } = await core.getCsrfToken(describe(req), config, on);
          return { token, setCookie };
        },
        checkCsrf: (token) => core.checkCsrf(describe(req), config, token, on),
        signUp: (f) => self.signUp(req, config, bound, f),
        verifyEmail: (f) => self.verifyEmail(req, config, bound, f),
        requestPasswordReset: (f) => self.requestPasswordReset(req, config, bound, f),
        resetPassword: (f) => self.resetPassword(req, config, bound, f),
        changePassword: (f) => self.changePassword(req, config, bound, f),
        page: (name, props, status) =>
          accounts.accountPage(config, name as accounts.AccountPageName, props as never, { status, env: bound.env }),
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
