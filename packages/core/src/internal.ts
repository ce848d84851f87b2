/**
 * Building blocks for framework packages (`@latchkey/express` and others): the one request
 * pipeline (`serve`), the one session read (`sessionReadOf`, with the cookies it re-issues or clears), the `requireAuth` decision (`guard`), the
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
import { type AccountsPagesRequest, accountInputs, accountsPages, type FormFields } from "./lib/accounts/index.js";
import { type WarningCode, warnOnce } from "./lib/base/index.js";
import type { Env } from "./lib/config/index.js";
import { resolveConfig } from "./lib/config/index.js";
import type { SessionRequest } from "./lib/serve/index.js";
import * as core from "./sessions.js";
import type { AuthConfig } from "./types.js";

export {
  type AccountsPagesAnswer,
  type AccountsPagesCalls,
  type AccountsPagesRequest,
  accountInputs,
  accountsPages,
  type FormFields,
} from "./lib/accounts/index.js";
export { describeWith, type ServableServer, serveAuthorization } from "./lib/authorization-server/index.js";
export { isThenable, type StructuredLog, shellConfig, structuredLogger } from "./lib/base/index.js";
export { withEnvDefaults } from "./lib/config/index.js";
export {
  appendSetCookies,
  BadBody,
  clientAddressFrom,
  clientAddressOrPeer,
  encodeCookieValue,
  finalizeResponse,
  forbidCaching,
  formRecord,
  type HeaderReader,
  type HeaderSetter,
  MAX_BODY_BYTES,
  type NodeArrival,
  nodeClientAddress,
  nodeHeader,
  nodeIncoming,
  nodeWebHeaders,
  parsedForm,
  readNodeBody,
  readNodeForm,
  readWebBody,
  toResponse,
  type WebArrival,
  webIncoming,
  writeNodeResponse,
} from "./lib/http/index.js";
export {
  type AccountsServerCall,
  type Arrival,
  accountsServerCall,
  beginServerCall,
  type CheckedServerCall,
  formFields,
  type GuardOptions,
  type GuardRequest,
  guard,
  type IncomingRequest,
  internalRequest,
  mountNoted,
  noteMount,
  originOf,
  postServerCall,
  type ServerCall,
  type SessionRequest,
  type SignInAuthorizationParams,
  serve,
  serverSignIn,
  serverSignOut,
  sessionCookieOf,
} from "./lib/serve/index.js";
export { type SessionReadAnswer, sessionReadOf } from "./lib/session/index.js";

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
    signUp: bind(accounts.signUp, accountInputs.signUp),
    verifyEmail: bind(accounts.verifyEmail, accountInputs.verifyEmail),
    requestPasswordReset: bind(accounts.requestPasswordReset, accountInputs.requestPasswordReset),
    resetPassword: bind(accounts.resetPassword, accountInputs.resetPassword),
    changePassword: bind(accounts.changePassword, (f, address) => accountInputs.changePassword(f, address)),
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
          const { token, setCookie } = await core.getCsrfToken(describe(req), config, on);
          return { token, setCookie };
        },
        checkCsrf: (token) => core.checkCsrf(describe(req), config, token, on),
        signUp: (f) => api.signUp(req, config, bound, f),
        verifyEmail: (f) => api.verifyEmail(req, config, bound, f),
        requestPasswordReset: (f) => api.requestPasswordReset(req, config, bound, f),
        resetPassword: (f) => api.resetPassword(req, config, bound, f),
        changePassword: (f) => api.changePassword(req, config, bound, f),
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
