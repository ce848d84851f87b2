/**
 * API keys in this process's memory, for tests, demos and a single instance. Every method runs
 * its check and its write without yielding, so each is atomic.
 */
import type { ApiKeyRecord, ApiKeyStore } from "../../shapes/api-keys.js";

/** An in-memory {@link ApiKeyStore}. */
export function MemoryApiKeyStore(): ApiKeyStore {
  const keys = new Map<string, ApiKeyRecord>();
  const copy = (record: ApiKeyRecord): ApiKeyRecord => ({
    ...record,
    scopes: [...record.scopes],
    rateLimit: record.rateLimit ? { ...record.rateLimit } : null,
  });
  const live = (id: string) => {
    const record = keys.get(id);
    return record && record.revokedAt === null ? record : undefined;
  };
  return {
    async createApiKey(record) {
      keys.set(record.id, copy(record));
    },
    async getApiKey(id) {
      const record = keys.get(id);
      return record ? copy(record) : null;
    },
    async listApiKeys(owner) {
      const found: ApiKeyRecord[] = [];
      for (const record of keys.values()) {
        const mine =
          owner.organizationId !== undefined
            ? record.organizationId === owner.organizationId
            : record.organizationId === null && record.userId === owner.userId;
        if (mine) found.push(copy(record));
      }
      return found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    },
    async revokeApiKey(id, at) {
      const record = live(id);
      if (!record) return false;
      record.revokedAt = at;
      return true;
    },
    async rotateApiKey(id, at, replacement) {
      const record = live(id);
      if (!record) return false;
      record.revokedAt = at;
      keys.set(replacement.id, copy(replacement));
      return true;
    },
    async touchApiKey(id, at, before) {
      const record = keys.get(id);
      if (record && (record.lastUsedAt === null || record.lastUsedAt < before)) record.lastUsedAt = at;
    },
  };
}
