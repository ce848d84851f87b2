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

import { type WarningCode, warnOnce } from "./lib/base/logger.js";
import { resolveConfig } from "./lib/config/resolve.js";
import type { Env } from "./lib/config/types.js";
import type { SessionRequest } from "./lib/serve/pipeline.js";
import * as core from "./sessions.js";
import type { AuthConfig } from "./types.js";

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
export { type IncomingRequest, type SessionRequest, serve, sessionCookieOf } from "./lib/serve/pipeline.js";
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
export { type SessionReadAnswer, sessionReadOf } from "./lib/session/request-read.js";

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
