/**
 * An application's admin tools: find users, ban and unban them, give them an application-level
 * role. Who may act is decided on the server, on every call: the owners listed in code
 * (`admins.userIds`) and the users whose role in the admin store is an admin role
 * (`admins.roles`, default `["admin"]`); never the session or the request.
 *
 * - A ban ends every session of the user at once on every instance (database sessions deleted, JWT
 *   sessions through `session.revocation`, which a ban of JWT sessions needs), revokes their API
 *   keys when `apiKeys` is given, and until it expires refuses every sign-in of theirs (OAuth,
 *   e-mail, credentials, password accounts, passkeys) with `AccessDenied`: the user sees the same
 *   page as a `signIn` callback's refusal, nothing about the ban. The authorization server
 *   (`@latchkey/core/authorization-server`) issues the user no token either: a refresh token, a
 *   code or an approved device of theirs is refused (`invalid_grant`); access tokens it issued
 *   before the ban hold until they expire (`ttl.accessToken`).
 * - Nobody acts on themselves; owners are untouchable; only an owner bans another admin, or gives
 *   or takes away an admin role.
 * - Bans and roles live in their own store (`MemoryAdminStore`, `SqlAdminStore`,
 *   `RedisAdminStore`), so any adapter works unchanged; searching users needs an adapter with
 *   `listUsers` (MemoryAdapter, SqlAdapter).
 * - Every change goes to the audit trail (`admin.user.banned`, `admin.user.unbanned`, `admin.role.changed`).
 *
 * @example
 * ```ts
 * import { Admin, MemoryAdminStore } from "@latchkey/core/admin"
 *
 * const store = MemoryAdminStore()
 * const authConfig = { providers, secret, adapter, admin: { store } }
 * const admin = Admin(authConfig, { admins: { userIds: ["ada"] } })
 * const page = await admin.listUsers(session.user.id, { query: "example.com", limit: 20 })
 * await admin.ban(session.user.id, "mallory", { reason: "spam", expiresAt: new Date(Date.now() + 7 * 864e5) })
 * ```
 * @module admin
 */

export {
  Admin,
  type AdminApi,
  type AdminOptions,
  type AdminRefusal,
  type AdminResult,
  type AdminUserPage,
  type AdminUserView,
  MemoryAdminStore,
} from "./lib/admin/index.js";
export type { AdminBan, AdminConfig, AdminStore } from "./shapes/admin.js";
export type { AdminEvent } from "./shapes/audit.js";
