/**
 * The face of lib/admin/: every name the rest of the library uses from this wing.
 */
export { refuseBanned } from "./config.js";
export { MemoryAdminStore } from "./memory-store.js";
export {
  Admin,
  type AdminApi,
  type AdminOptions,
  type AdminRefusal,
  type AdminResult,
  type AdminUserPage,
  type AdminUserView,
} from "./service.js";
