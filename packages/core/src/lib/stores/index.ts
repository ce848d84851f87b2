/**
 * The face of lib/stores/: every name the rest of the library uses from this wing. Entry modules
 * import lib/stores/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/stores/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */

export {
  createMemoryStore,
  MEMORY_AUDIT_LIMIT,
  MemoryAdapter,
  type MemoryStore,
  memoryAccountKey,
  memoryTokenKey,
} from "./memory-adapter.js";
export {
  accountTokenFields,
  adapterMethods,
  auditEventMatches,
  isAnonymousAuditEvent,
  isDate,
  parseAuditEvent,
} from "./records.js";
export {
  ChannelHealth,
  decodeRevocationEntry,
  deliver,
  encodeRevocationEntry,
  encodeSessionChange,
  failAfter,
  revocationHeartbeatMs,
  sessionKeyOf,
} from "./revocation-channel.js";
