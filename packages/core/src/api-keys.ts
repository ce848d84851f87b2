/**
 * API keys for machines: made by a user for themselves or for an organization, shown once, kept
 * as a keyed hash, found by their public id and compared in constant time, checked on every
 * request by one guard that every framework uses.
 *
 * - A key is `<prefix>_<id>_<secret>` (`lk_3f9a..._...`): the prefix names the application, the
 *   id finds the record and names the key in lists, the secret is 32 random bytes.
 * - Its scopes are permissions its creator holds: a user's own (`userScopes`), or in an
 *   organization their role's (`Organizations`); nobody grants more than they hold.
 * - Expiry, a per-key limit counted once per request, `lastUsedAt` written at most once a minute.
 * - Revocation holds at once on every instance: the store is read on every request.
 * - Every change goes to the audit trail (`apikey.created`, `apikey.revoked`, `apikey.rotated`);
 *   no key ever reaches a log.
 *
 * @example
 * ```ts
 * import { ApiKeys, MemoryApiKeyStore, requireApiKey } from "@latchkey/core/api-keys"
 *
 * const keys = ApiKeys(authConfig, { store: MemoryApiKeyStore(), organizations: orgs })
 * const made = await keys.create(session.user.id, { name: "CI", organizationId, scopes: ["project:read"] })
 * // in a route:
 * const key = await requireApiKey(request, keys, { scopes: ["project:read"] })
 * if (key instanceof Response) return key
 * ```
 * @module api-keys
 */

export {
  type ApiKeyCheck,
  type ApiKeyInput,
  type ApiKeyPrincipal,
  type ApiKeyRefusal,
  type ApiKeyRequirement,
  type ApiKeyResult,
  ApiKeys,
  type ApiKeysApi,
  type ApiKeysOptions,
  type ApiKeyView,
  type CreatedApiKey,
  MemoryApiKeyStore,
  requireApiKey,
  verifyApiKey,
} from "./lib/api-keys/index.js";
export type { ApiKeyOwner, ApiKeyRateLimit, ApiKeyRecord, ApiKeyStore } from "./shapes/api-keys.js";
export type { ApiKeyEvent } from "./shapes/audit.js";
