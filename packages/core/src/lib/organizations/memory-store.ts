/**
 * Organizations in this process's memory, for tests and demos: one instance sees its own changes
 * only. Every method runs its check and its write without yielding, so each is atomic.
 */
import type {
  Invitation,
  KeepOne,
  Membership,
  Organization,
  OrganizationStore,
  Team,
  TeamMembership,
} from "../../shapes/organizations.js";

/** An in-memory {@link OrganizationStore}. */
export function MemoryOrganizationStore(): OrganizationStore {
  const organizations = new Map<string, Organization>();
  const slugs = new Map<string, string>();
  // organizationId → userId → membership, in the order members joined.
  const members = new Map<string, Map<string, Membership>>();
  // tokenHash → invitation.
  const invitations = new Map<string, Invitation>();
  // teamId → team, and teamId → userId → team membership.
  const teams = new Map<string, Team>();
  const teamMembers = new Map<string, Map<string, TeamMembership>>();
  const teamOf = (organizationId: string, teamId: string) => {
    const team = teams.get(teamId);
    return team?.organizationId === organizationId ? team : undefined;
  };
  const nameTaken = (organizationId: string, name: string, except?: string) => {
    for (const team of teams.values())
      if (team.organizationId === organizationId && team.name === name && team.id !== except) return true;
    return false;
  };

  const copy = <T extends object>(value: T | undefined): T | null => (value ? structuredClone(value) : null);
  /** True when someone other than `userId` has `keep.role`. */
  const othersKeep = (organizationId: string, userId: string, keep: KeepOne) => {
    for (const m of members.get(organizationId)?.values() ?? [])
      if (m.userId !== userId && m.role === keep.role) return true;
    return false;
  };

  return {
    async createOrganization(organization, owner) {
      if (slugs.has(organization.slug)) return "slug-taken";
      organizations.set(organization.id, structuredClone(organization));
      slugs.set(organization.slug, organization.id);
      members.set(organization.id, new Map([[owner.userId, structuredClone(owner)]]));
      return "created";
    },
    async getOrganization(id) {
      return copy(organizations.get(id));
    },
    async getOrganizationBySlug(slug) {
      const id = slugs.get(slug);
      return copy(id === undefined ? undefined : organizations.get(id));
    },
    async updateOrganization(id, change) {
      const organization = organizations.get(id);
      if (!organization) return "missing";
      if (change.slug !== undefined && change.slug !== organization.slug) {
        if (slugs.has(change.slug)) return "slug-taken";
        slugs.delete(organization.slug);
        slugs.set(change.slug, id);
        organization.slug = change.slug;
      }
      if (change.name !== undefined) organization.name = change.name;
      return "updated";
    },
    async deleteOrganization(id) {
      const organization = organizations.get(id);
      if (!organization) return false;
      organizations.delete(id);
      slugs.delete(organization.slug);
      members.delete(id);
      for (const [key, invitation] of invitations) if (invitation.organizationId === id) invitations.delete(key);
      for (const team of teams.values()) {
        if (team.organizationId !== id) continue;
        teams.delete(team.id);
        teamMembers.delete(team.id);
      }
      return true;
    },
    async getMembership(organizationId, userId) {
      return copy(members.get(organizationId)?.get(userId));
    },
    async listMembers(organizationId) {
      return [...(members.get(organizationId)?.values() ?? [])].map((m) => structuredClone(m));
    },
    async listMemberships(userId) {
      const found: Membership[] = [];
      for (const of of members.values()) {
        const m = of.get(userId);
        if (m) found.push(structuredClone(m));
      }
      return found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    },
    async addMembership(membership) {
      const of = members.get(membership.organizationId);
      if (!of) return "missing";
      if (of.has(membership.userId)) return "exists";
      of.set(membership.userId, structuredClone(membership));
      return "added";
    },
    async setRole(organizationId, userId, from, to, keep) {
      const m = members.get(organizationId)?.get(userId);
      if (!m) return "missing";
      if (m.role !== from) return "changed";
      if (from === keep.role && to !== keep.role && !othersKeep(organizationId, userId, keep)) return "last-owner";
      m.role = to;
      return "updated";
    },
    async removeMembership(organizationId, userId, from, keep) {
      const of = members.get(organizationId);
      const m = of?.get(userId);
      if (!of || !m) return "missing";
      if (m.role !== from) return "changed";
      if (from === keep.role && !othersKeep(organizationId, userId, keep)) return "last-owner";
      of.delete(userId);
      for (const team of teams.values())
        if (team.organizationId === organizationId) teamMembers.get(team.id)?.delete(userId);
      return "removed";
    },
    async createInvitation(invitation) {
      if (!organizations.has(invitation.organizationId)) return "missing";
      invitations.set(invitation.tokenHash, structuredClone(invitation));
      return "created";
    },
    async getInvitationByToken(tokenHash, now) {
      const invitation = invitations.get(tokenHash);
      return invitation && invitation.expiresAt > now ? structuredClone(invitation) : null;
    },
    async listInvitations(organizationId, now) {
      const found: Invitation[] = [];
      for (const [key, invitation] of invitations) {
        if (invitation.expiresAt <= now) invitations.delete(key);
        else if (invitation.organizationId === organizationId) found.push(structuredClone(invitation));
      }
      return found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    },
    async deleteInvitation(organizationId, id) {
      for (const [key, invitation] of invitations) {
        if (invitation.id !== id || invitation.organizationId !== organizationId) continue;
        invitations.delete(key);
        return structuredClone(invitation);
      }
      return null;
    },
    async acceptInvitation(tokenHash, userId, now) {
      const invitation = invitations.get(tokenHash);
      if (!invitation || invitation.expiresAt <= now) return null;
      invitations.delete(tokenHash);
      const of = members.get(invitation.organizationId);
      if (!of) return null;
      if (of.has(userId)) return { outcome: "exists", invitation: structuredClone(invitation) };
      of.set(userId, { organizationId: invitation.organizationId, userId, role: invitation.role, createdAt: now });
      return { outcome: "accepted", invitation: structuredClone(invitation) };
    },
    async createTeam(team) {
      if (!organizations.has(team.organizationId)) return "missing";
      if (nameTaken(team.organizationId, team.name)) return "name-taken";
      teams.set(team.id, structuredClone(team));
      teamMembers.set(team.id, new Map());
      return "created";
    },
    async getTeam(organizationId, teamId) {
      return copy(teamOf(organizationId, teamId));
    },
    async listTeams(organizationId) {
      return [...teams.values()]
        .filter((team) => team.organizationId === organizationId)
        .map((team) => structuredClone(team))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    },
    async renameTeam(organizationId, teamId, name) {
      const team = teamOf(organizationId, teamId);
      if (!team) return "missing";
      if (nameTaken(organizationId, name, teamId)) return "name-taken";
      team.name = name;
      return "updated";
    },
    async deleteTeam(organizationId, teamId) {
      if (!teamOf(organizationId, teamId)) return false;
      teams.delete(teamId);
      teamMembers.delete(teamId);
      return true;
    },
    async addTeamMember(membership) {
      const of = teamOf(membership.organizationId, membership.teamId) && teamMembers.get(membership.teamId);
      if (!of) return "missing";
      if (!members.get(membership.organizationId)?.has(membership.userId)) return "not-member";
      if (of.has(membership.userId)) return "exists";
      of.set(membership.userId, structuredClone(membership));
      return "added";
    },
    async setTeamRole(organizationId, teamId, userId, role) {
      const m = teamOf(organizationId, teamId) && teamMembers.get(teamId)?.get(userId);
      if (!m) return "missing";
      m.role = role;
      return "updated";
    },
    async removeTeamMember(organizationId, teamId, userId) {
      return !!teamOf(organizationId, teamId) && (teamMembers.get(teamId)?.delete(userId) ?? false);
    },
    async listTeamMembers(organizationId, teamId) {
      if (!teamOf(organizationId, teamId)) return [];
      return [...(teamMembers.get(teamId)?.values() ?? [])].map((m) => structuredClone(m));
    },
  };
}
