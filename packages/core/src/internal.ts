/**
 * Building blocks for framework packages (`@latchkey/express` and others): the one request
 * pipeline (`serve`), the one session read (`sessionReadOf`, with the cookies it re-issues or clears), the `requireAuth` decision (`guard`), the
 * server-side sign-in, sign-out and session update with their origin and CSRF checks
 * (`beginServerCall`, `serverSignIn`, `serverSignOut`, `postServerCall`, `internalRequest`), the
 * sessions functions bound to a request type (`boundSessions`), the conversion of an answer to
 * bytes or a Web `Response` (`finalizeResponse`, `toResponse`), the headers that keep a response
 * carrying a cookie out of every cache (`forbidCaching`), a Web `Request` as the pipeline
 * reads it (`webIncoming`) and a Node request (`nodeIncoming`): the one description of an
 * incoming request every shell hands over; the
 * client's address by one rule (`clientAddressOrPeer`: the `clientAddress` option, else the
 * framework's peer), the one rule of a repeated form field (`formRecord`: the first wins),
 * Latchkey's log lines on a structured logger (`structuredLogger`), the configuration a shell hands
 * over (`shellConfig`), where the
 * handler was mounted for `requireAuth` (`noteMount`, `mountNoted`), Node's request headers, body
 * and response (`nodeHeader`, `readNodeForm`, `writeNodeResponse`,
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

export {
  type AccountsPagesAnswer,
  type AccountsPagesRequest,
  accountInputs,
  type FormFields,
} from "./lib/accounts/index.js";
export { describeWith, type ServableServer, serveAuthorization } from "./lib/authorization-server/index.js";
export { isThenable, type StructuredLog, shellConfig, structuredLogger, trimBasePath } from "./lib/base/index.js";
export {
  appendSetCookies,
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
  parsedForm,
  readNodeForm,
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
  type SwitchedOrganization,
  serve,
  serverSignIn,
  serverSignOut,
  serverSwitchOrganization,
} from "./lib/serve/index.js";
export { type SessionReadAnswer, sessionReadOf } from "./lib/session/index.js";
export { boundAccounts, boundSessions, warnOnceFor } from "./lib/shell/index.js";
