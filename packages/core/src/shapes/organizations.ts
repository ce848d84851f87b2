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
 * An invitation to join an organization with a role, mailed to one address. The token itself is
 * never stored: `tokenHash` is its SHA-256 (base64url), which is how a store finds the invitation.
 */
export interface Invitation {
  id: string;
  organizationId: string;
  /** The invited address, normalised (trimmed, lower case, ASCII only). */
  email: string;
  /** The role the invited user gets on accepting. */
  role: string;
  /** The user who invited. */
  invitedBy: string;
  tokenHash: string;
  createdAt: Date;
  /** After this, the invitation cannot be accepted, and a store may delete it. */
  expiresAt: Date;
}

/** A team inside an organization. `name` is unique within the organization. */
export interface Team {
  id: string;
  organizationId: string;
  name: string;
  createdAt: Date;
}

/** A member of the organization in one of its teams, with a team role. */
export interface TeamMembership {
  teamId: string;
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
  /** Deletes the organization and every membership, invitation and team of it; false when there was none. */
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
  /** Removes the member whose role is `from`, unless that leaves no member with `keep.role`; their team memberships go with it. */
  removeMembership(
    organizationId: string,
    userId: string,
    from: string,
    keep: KeepOne,
  ): Promise<"removed" | "changed" | "missing" | "last-owner">;

  /** Stores an invitation; "missing" when the organization is not there. */
  createInvitation(invitation: Invitation): Promise<"created" | "missing">;
  /** The invitation whose token hashes to `tokenHash`, unless it expired before `now`. */
  getInvitationByToken(tokenHash: string, now: Date): Promise<Invitation | null>;
  /** The organization's invitations that have not expired before `now`, oldest first. */
  listInvitations(organizationId: string, now: Date): Promise<Invitation[]>;
  /** Deletes the organization's invitation `id` and answers it; null when there was none (an id of another organization deletes nothing). */
  deleteInvitation(organizationId: string, id: string): Promise<Invitation | null>;
  /**
   * Accepts an invitation in one step: deletes it (found by `tokenHash`, unexpired at `now`) and
   * makes `userId` a member of its organization with its role, joined at `now`. Null when no such
   * invitation is there (used, revoked, expired, or its organization gone): of many calls at once
   * with one token, exactly one answers. "exists" when the user already is a member: the
   * invitation is used up all the same, and their role stays.
   */
  acceptInvitation(
    tokenHash: string,
    userId: string,
    now: Date,
  ): Promise<{ outcome: "accepted" | "exists"; invitation: Invitation } | null>;

  /** Creates a team; "name-taken" when another team of the organization has its name, "missing" when the organization is not there. */
  createTeam(team: Team): Promise<"created" | "name-taken" | "missing">;
  /** The organization's team `teamId` (a team of another organization is null). */
  getTeam(organizationId: string, teamId: string): Promise<Team | null>;
  /** The organization's teams, oldest first. */
  listTeams(organizationId: string): Promise<Team[]>;
  renameTeam(organizationId: string, teamId: string, name: string): Promise<"updated" | "name-taken" | "missing">;
  /** Deletes the organization's team and its memberships; false when there was none. */
  deleteTeam(organizationId: string, teamId: string): Promise<boolean>;
  /**
   * Adds a member of the organization to one of its teams, in one step with both checks: "missing"
   * when the organization has no such team, "not-member" when the user is not a member of the
   * organization (now), "exists" when they are in the team already.
   */
  addTeamMember(membership: TeamMembership): Promise<"added" | "exists" | "missing" | "not-member">;
  /** Sets a team member's team role; "missing" when they are not in that team of that organization. */
  setTeamRole(organizationId: string, teamId: string, userId: string, role: string): Promise<"updated" | "missing">;
  /** Removes a user from the organization's team; false when they were not in it. */
  removeTeamMember(organizationId: string, teamId: string, userId: string): Promise<boolean>;
  /** The team's members who are members of the organization, oldest first. */
  listTeamMembers(organizationId: string, teamId: string): Promise<TeamMembership[]>;
}
