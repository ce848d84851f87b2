/**
 * Organizations: members with roles, and the permissions each role grants, for applications whose
 * users work in teams. Declare the roles once (`defineRoles`), keep organizations in a store
 * (`MemoryOrganizationStore` for tests and demos), and act on behalf of the signed-in user: every
 * call decides with that user's role, read from the store each time.
 *
 * - Only members see an organization; anyone else gets `not-found`, as for one that does not exist.
 * - A member gives, changes or takes away only a role whose permissions are all their own: an
 *   admin cannot make an owner, a member cannot make an admin, and only owners unmake owners.
 * - An organization never loses its last owner; deleting it needs `organization:delete` (owners).
 * - A role change or removal decided on a role that changed meanwhile is not applied (`changed`).
 * - Every change goes to the audit trail (`organization.*`, `member.*`).
 *
 * @example
 * ```ts
 * import { defineRoles, builtInRoles, MemoryOrganizationStore, Organizations } from "@latchkey/core/organizations"
 *
 * const roles = defineRoles({ ...builtInRoles, member: ["project:read"], admin: [...builtInRoles.admin, "project:delete"] })
 * const orgs = Organizations(authConfig, { roles, store: MemoryOrganizationStore() })
 * const acme = await orgs.create(session.user.id, { name: "Acme", slug: "acme" })
 * if (await orgs.can(session.user.id, orgId, "project:delete")) { ... }
 * ```
 * @module organizations
 */

export {
  builtInRoles,
  defineRoles,
  type InvitationLimits,
  type InvitationMail,
  type InvitationOptions,
  type MemberView,
  MemoryOrganizationStore,
  ORGANIZATION_PERMISSIONS,
  type OrganizationRefusal,
  type OrganizationResult,
  Organizations,
  type OrganizationsApi,
  type OrganizationsOptions,
  type PendingInvitation,
  type Permission,
  type PermissionOf,
  type RoleDeclaration,
  type RoleHolder,
  type Roles,
} from "./lib/organizations/index.js";
export type { OrganizationEvent } from "./shapes/audit.js";
export type {
  Invitation,
  KeepOne,
  Membership,
  Organization,
  OrganizationStore,
  OrganizationsConfig,
  Team,
  TeamMembership,
} from "./shapes/organizations.js";
