/**
 * The face of lib/api-keys/: every name the rest of the library uses from this wing.
 */
export { type ApiKeyRequirement, requireApiKey, verifyApiKey } from "./guard.js";
export { MemoryApiKeyStore } from "./memory-store.js";
export type { ApiKeyInput } from "./presented.js";
export {
  type ApiKeyCheck,
  type ApiKeyPrincipal,
  type ApiKeyRefusal,
  type ApiKeyResult,
  ApiKeys,
  type ApiKeysApi,
  type ApiKeysOptions,
  type ApiKeyView,
  type CreatedApiKey,
} from "./service.js";
