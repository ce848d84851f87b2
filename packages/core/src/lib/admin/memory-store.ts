/**
 * Roles and bans in this process's memory, for tests and demos: one instance sees its own changes
 * only. Every method reads and writes without yielding, so each is atomic.
 */
import type { AdminBan, AdminStore } from "../../shapes/admin.js";

/**
 * An in-memory {@link AdminStore}.
 *
 * @example
 * ```ts
 * const store = MemoryAdminStore()
 * await store.setRole("ada", null, "admin") // the first admin, from a setup script
 * ```
 */
export function MemoryAdminStore(): AdminStore {
  const roles = new Map<string, string>();
  const bans = new Map<string, AdminBan>();
  const copy = (ban: AdminBan | undefined): AdminBan | null => (ban ? structuredClone(ban) : null);

  return {
    async getRole(userId) {
      return roles.get(userId) ?? null;
    },
    async setRole(userId, from, to) {
      if ((roles.get(userId) ?? null) !== from) return false;
      if (to === null) roles.delete(userId);
      else roles.set(userId, to);
      return true;
    },
    async getBan(userId, now) {
      const ban = bans.get(userId);
      return ban && (ban.expiresAt === null || ban.expiresAt > now) ? copy(ban) : null;
    },
    async setBan(ban) {
      bans.set(ban.userId, structuredClone(ban));
    },
    async removeBan(userId) {
      return bans.delete(userId);
    },
  };
}
