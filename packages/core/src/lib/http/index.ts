/**
 * The face of lib/http/: every name the rest of the library uses from this wing. Entry modules
 * import lib/http/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/http/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export {
  type CookieRole,
  clearChunkedCookie,
  cookieValues,
  defaultCookieName,
  defaultCookies,
  encodeCookieValue,
  expiredCookie,
  parseCookieHeader,
  readChunkedCookie,
  serializeCookie,
  unreadableChunks,
  writeChunkedCookie,
} from "./cookies.js";
export {
  appendSetCookies,
  type NodeArrival,
  nodeClientAddress,
  nodeHeader,
  nodeIncoming,
  readNodeForm,
  writeNodeResponse,
} from "./node-http.js";
export { type ArrivalDescription, arrivalOf, linksMailable, proxiedArrival, unmailableOrigin } from "./origin.js";
export { readCapped } from "./read-capped.js";
export { defaultRedirect, headerSafeUrl } from "./redirect.js";
export {
  BadBody,
  clientAddressFrom,
  clientAddressOrPeer,
  formRecord,
  type HeaderReader,
  isAuthAction,
  lazyRequest,
  MAX_BODY_BYTES,
  parseActionPath,
  parseBody,
  parsedForm,
  queryRecord,
  type RequestInternal,
  rebuildRequest,
} from "./request.js";
export { finalizeResponse, forbidCaching, type HeaderSetter, noStore, toResponse } from "./response.js";
export { withQuery } from "./url.js";
export { type WebArrival, webIncoming } from "./web-incoming.js";
