/**
 * Building blocks for framework packages (`@latchkey/express` and others): the one request
 * pipeline (`serve`), the session read (`sessionOf`), the `requireAuth` decision (`guard`), the
 * sessions functions bound to a request type (`boundSessions`), the conversion of an answer to
 * bytes, and Node's request headers, body and response (`nodeHeader`, `nodeWebHeaders`,
 * `readNodeBody`, `writeNodeResponse`).
 * Not for applications; this surface follows the framework packages and may change between
 * minor versions.
 *
 * @module internal
 */

export { boundSessions } from "./lib/bound-sessions.js";
export { type GuardOptions, type GuardRequest, guard } from "./lib/guard.js";
export { nodeHeader, nodeWebHeaders, readNodeBody, writeNodeResponse } from "./lib/node-http.js";
export {
  type IncomingRequest,
  type SessionRequest,
  serve,
  sessionOf,
} from "./lib/pipeline.js";
export { BadBody, type HeaderReader, MAX_BODY_BYTES } from "./lib/request.js";
