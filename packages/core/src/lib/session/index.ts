/**
 * The face of lib/session/: every name the rest of the library uses from this wing. Entry modules
 * import lib/session/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/session/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { goneEvenIfRefused } from "./database-strategy.js";
export { describeUserAgent } from "./device.js";
export { JWT_CLOCK_TOLERANCE, jwtExpired } from "./expiry.js";
export {
  amrOf,
  decodeSessionToken,
  keepSessionIdentity,
  mayExtend,
  nowSeconds,
  openJwtSession,
  sessionTokenCookies,
  sessionTokenCookiesNow,
} from "./jwt-strategy.js";
export { listAccounts, unlinkAccount } from "./linked-accounts.js";
export {
  announceSessionChange,
  type ChangeOptions,
  type CsrfTokenAnswer,
  checkCsrf,
  getCsrfToken,
  type LinkedAccount,
  listSessions,
  type RevokeUserSessionsOptions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  type SessionInfo,
  type SessionsOptions,
  type SessionsRequest,
  type UnlinkOptions,
  type UnlinkResult,
} from "./manage.js";
export { liveSessionOf, readSession, signedInOf } from "./read.js";
export type { LiveSession } from "./read-shapes.js";
export { readingOf, type SessionReadAnswer, sessionReadOf } from "./request-read.js";
export {
  endingEntry,
  entryLifetimeMs,
  isEntry,
  MAX_HEARTBEAT_MS,
  MemoryRevocationStore,
  type ResolvedRevocation,
  resolveRevocation,
  sessionIdOf,
} from "./revocation-list.js";
export { revokeJwtSession } from "./revoke-jwt.js";
export { announcingAdapter, carriesSessionCache, resolveSessionCache, type SessionCache } from "./session-cache.js";
export { databaseSessionId } from "./session-id.js";
