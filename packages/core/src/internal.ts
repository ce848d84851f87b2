/**
 * Building blocks for framework packages (`@latchkey/express` and others): the one request
 * pipeline (`serve`), the session read (`sessionOf`) and the conversion of its answer to bytes.
 * Not for applications; this surface follows the framework packages and may change between
 * minor versions.
 *
 * @module internal
 */
export { type IncomingRequest, type SessionRequest, serve, sessionOf } from "./lib/pipeline.js";
export { BadBody, type HeaderReader, MAX_BODY_BYTES } from "./lib/request.js";
export { finalizeResponse } from "./lib/response.js";
