/**
 * An adapter that keeps everything in plain `Map`s in the memory of one process.
 *
 * **For tests and demos only, not for production**: records vanish when the process ends and are not
 * shared between processes. Expired sessions are removed when they are read; expired verification
 * tokens also whenever a new one is created.
 *
 * @example
 * ```ts
 * import { Auth } from "@latchkey/core"
 * import { MemoryAdapter } from "@latchkey/core/memory-adapter"
 * const response = await Auth(request, { adapter: MemoryAdapter(), providers, secret })
 * ```
 * @module memory-adapter
 */

export {
  createMemoryStore,
  MEMORY_AUDIT_LIMIT,
  MemoryAdapter,
  type MemoryStore,
  memoryAccountKey,
  memoryTokenKey,
} from "./lib/stores/index.js";
