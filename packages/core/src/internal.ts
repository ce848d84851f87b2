/**
 * Building blocks for framework packages (`@latchkey/express` and others): the internal request
 * and response, configuration resolution and the action handler. Not for applications; this
 * surface follows the framework packages and may change between minor versions.
 *
 * @module internal
 */
export { cookiesFor, type InternalProvider, type ResolvedConfig, resolveConfig } from "./lib/config.js";
export { parseCookieHeader, serializeCookie } from "./lib/cookies.js";
export { badRequest, handle, unparsableRequestResponse, unresolvedConfigResponse } from "./lib/handler.js";
export { createLogger } from "./lib/logger.js";
export { shareRateLimitState } from "./lib/rate-limiter.js";
export {
  BadBody,
  type HeaderReader,
  MAX_BODY_BYTES,
  parseActionPath,
  parseBody,
  queryRecord,
  type RequestInternal,
  rebuildRequest,
} from "./lib/request.js";
export { finalizeResponse, toResponse } from "./lib/response.js";
export { readSession } from "./lib/session/index.js";
