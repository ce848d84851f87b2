/**
 * The face of lib/organizations/: every name the rest of the library uses from this wing.
 */
export {
  activeOrganizationCookie,
  activeOrganizationOf,
  clearedActiveOrganizationCookie,
  clearedActiveOrganizationIfHeld,
  organizationsOf,
  type ResolvedOrganizations,
  readActiveOrganization,
  withActiveOrganization,
} from "./active.js";
export { isIdentifier, visibleText } from "./checks.js";

export type {
  InvitationLimits,
  InvitationMail,
  InvitationOptions,
  PendingInvitation,
} from "./invitations.js";
export { MemoryOrganizationStore } from "./memory-store.js";
export type { OrganizationRefusal, OrganizationResult } from "./result.js";
export {
  builtInRoles,
  defineRoles,
  ORGANIZATION_PERMISSIONS,
  type Permission,
  type PermissionOf,
  type RoleDeclaration,
  type RoleHolder,
  type Roles,
} from "./roles.js";
export {
  type MemberView,
  Organizations,
  type OrganizationsApi,
  type OrganizationsOptions,
} from "./service.js";
