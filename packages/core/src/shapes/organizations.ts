/**
 * The data of organizations (`@latchkey/core/organizations`): an organization, a user's membership
 * of it with one role, and the store that keeps both. Plain shapes: this file imports nothing.
 */

/** An organization. `slug` is unique among organizations: lower-case ASCII letters, digits and inner hyphens. */
export interface Organization {
  id: string;
  name: string;
  slug: string;
  createdAt: Date;
}

/**
 * The configuration's `organizations` option: the store and roles given to `Organizations` (roles
 * made by `defineRoles`, default the built-in ones), for the active organization and the guards.
 */
export interface OrganizationsConfig {
  store: OrganizationStore;
  roles?: {
    readonly declared: object;
    has(role: string): boolean;
    covers(holder: string, role: string): boolean;
    can(holder: never, permission: never): boolean;
  };
}

/** A user's membership of an organization, with one role. */
export interface Membership {
  organizationId: string;
  userId: string;
  role: string;
  createdAt: Date;
}

/**
 * The rule a role change or a removal must keep: after it, at least one member of the organization
 * still has `role` (the owner role). A store applies the change and checks the rule as one step,
 * so that two owners demoting each other at once cannot both succeed.
 */
export interface KeepOne {
  role: string;
}

/**
 * Where organizations and memberships are kept. Each method is one atomic step: a store shared by
 * several instances (SQL, Redis) makes it one transaction or one script. Role changes and removals
 * are compare-and-set on the member's current role (`from`), so that a decision taken on a role
 * that changed meanwhile is never applied ("changed").
 */
export interface OrganizationStore {
  /** Creates the organization with its first member, both or neither. */
  createOrganization(organization: Organization, owner: Membership): Promise<"created" | "slug-taken">;
  getOrganization(id: string): Promise<Organization | null>;
  getOrganizationBySlug(slug: string): Promise<Organization | null>;
  updateOrganization(
    id: string,
    change: { name?: string; slug?: string },
  ): Promise<"updated" | "slug-taken" | "missing">;
  /** Deletes the organization and every membership of it; false when there was none. */
  deleteOrganization(id: string): Promise<boolean>;
  getMembership(organizationId: string, userId: string): Promise<Membership | null>;
  /** The organization's members, oldest first. */
  listMembers(organizationId: string): Promise<Membership[]>;
  /** The user's memberships, oldest first. */
  listMemberships(userId: string): Promise<Membership[]>;
  /** Adds a member; "exists" when the user already is one, "missing" when the organization is not there. */
  addMembership(membership: Membership): Promise<"added" | "exists" | "missing">;
  /** Sets the member's role from `from` to `to`, unless that leaves no member with `keep.role`. */
  setRole(
    organizationId: string,
    userId: string,
    from: string,
    to: string,
    keep: KeepOne,
  ): Promise<"updated" | "changed" | "missing" | "last-owner">;
  /** Removes the member whose role is `from`, unless that leaves no member with `keep.role`. */
  removeMembership(
    organizationId: string,
    userId: string,
    from: string,
    keep: KeepOne,
  ): Promise<"removed" | "changed" | "missing" | "last-owner">;
}
