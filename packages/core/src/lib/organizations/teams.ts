/**
 * Teams inside an organization: created, renamed and deleted by members with `team:manage`, who
 * also put members of the organization in them with a team role. Anyone sees the teams of an
 * organization they are a member of; a member may leave a team. Removing a member from the
 * organization removes them from its teams (the store does it in the same step).
 */
import type { Team, TeamMembership } from "../../shapes/organizations.js";
import { actorOf, isIdentifier, organizationName } from "./checks.js";
import { audit, membershipOf, type OrganizationsContext, trailOf } from "./context.js";
import { done, type OrganizationResult, refused } from "./result.js";

const ROLE = /^[a-z][a-z0-9_-]{0,31}$/;

/** The `teamRoles` option checked once: the team roles an application declares. */
function checkTeamRoles(given: readonly string[] | undefined): ReadonlySet<string> {
  const roles = given ?? ["member", "lead"];
  if (
    !Array.isArray(roles) ||
    roles.length === 0 ||
    !roles.every((role) => typeof role === "string" && ROLE.test(role))
  ) {
    throw new TypeError(
      'Organizations: `teamRoles` must be a non-empty array of lower-case role names, e.g. ["member", "lead"]',
    );
  }
  return new Set(roles);
}

/** The team calls of `Organizations`, over its context. */
export function teamCalls(context: OrganizationsContext, given: readonly string[] | undefined) {
  const { store, roles } = context;
  const teamRoles = checkTeamRoles(given);
  const defaultRole = [...teamRoles][0] as string;
  /** The acting member when they may manage teams, else the refusal. */
  const manager = async (organizationId: string, userId: string) => {
    const membership = await membershipOf(context, organizationId, userId);
    if (!membership) return refused<never>("not-found");
    if (!roles.can(membership.role, "team:manage")) return refused<never>("forbidden");
    return membership;
  };
  /** The organization's team, read only when `teamId` can be an id. */
  const teamOf = async (organizationId: string, teamId: unknown) =>
    isIdentifier(teamId) ? ((await store.getTeam(organizationId, teamId)) ?? undefined) : undefined;

  return {
    /** The team roles declared (`teamRoles`), the first the default. */
    teamRoles: [...teamRoles],

    /** Creates a team (`team:manage`); its name is 1 to 100 visible characters, unique in the organization. */
    async createTeam(
      actorId: string,
      organizationId: string,
      input: { name: string },
    ): Promise<OrganizationResult<Team>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const name = organizationName(input?.name);
      if (name === undefined) return refused("invalid-name");
      const member = await manager(organizationId, userId);
      if (!("userId" in member)) return member;
      const team: Team = { id: crypto.randomUUID(), organizationId, name, createdAt: new Date() };
      const outcome = await store.createTeam(team);
      if (outcome !== "created") return refused(outcome === "missing" ? "not-found" : outcome);
      await audit(trail, { type: "team.created", userId, organizationId, teamId: team.id });
      return done(team);
    },

    /** The organization's teams, oldest first, for its members. */
    async teams(actorId: string, organizationId: string): Promise<OrganizationResult<Team[]>> {
      if (!(await membershipOf(context, organizationId, actorOf(actorId)))) return refused("not-found");
      return done(await store.listTeams(organizationId));
    },

    /** Renames a team (`team:manage`). */
    async renameTeam(
      actorId: string,
      organizationId: string,
      teamId: string,
      input: { name: string },
    ): Promise<OrganizationResult<Team>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const name = organizationName(input?.name);
      if (name === undefined) return refused("invalid-name");
      const member = await manager(organizationId, userId);
      if (!("userId" in member)) return member;
      if (!isIdentifier(teamId)) return refused("not-found");
      const outcome = await store.renameTeam(organizationId, teamId, name);
      if (outcome !== "updated") return refused(outcome === "missing" ? "not-found" : outcome);
      await audit(trail, { type: "team.updated", userId, organizationId, teamId });
      const team = await store.getTeam(organizationId, teamId);
      return team ? done(team) : refused("not-found");
    },

    /** Deletes a team and its memberships (`team:manage`); the organization's members stay. */
    async deleteTeam(actorId: string, organizationId: string, teamId: string): Promise<OrganizationResult<void>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const member = await manager(organizationId, userId);
      if (!("userId" in member)) return member;
      if (!isIdentifier(teamId) || !(await store.deleteTeam(organizationId, teamId))) return refused("not-found");
      await audit(trail, { type: "team.deleted", userId, organizationId, teamId });
      return done(undefined);
    },

    /** The team's members with their team roles, for the organization's members. */
    async teamMembers(
      actorId: string,
      organizationId: string,
      teamId: string,
    ): Promise<OrganizationResult<TeamMembership[]>> {
      if (!(await membershipOf(context, organizationId, actorOf(actorId)))) return refused("not-found");
      if (!(await teamOf(organizationId, teamId))) return refused("not-found");
      return done(await store.listTeamMembers(organizationId, teamId));
    },

    /**
     * Puts a member of the organization in a team with a team role (`team:manage`; the role one
     * of `teamRoles`, the first by default). A user who is not a member of the organization is
     * `not-found`, as is a team of another organization.
     */
    async addTeamMember(
      actorId: string,
      organizationId: string,
      teamId: string,
      input: { userId: string; role?: string },
    ): Promise<OrganizationResult<TeamMembership>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const role = input?.role ?? defaultRole;
      const member = await manager(organizationId, userId);
      if (!("userId" in member)) return member;
      if (!isIdentifier(teamId) || !isIdentifier(input?.userId)) return refused("not-found");
      if (!teamRoles.has(role)) return refused("unknown-role");
      const added: TeamMembership = { teamId, organizationId, userId: input.userId, role, createdAt: new Date() };
      const outcome = await store.addTeamMember(added);
      if (outcome !== "added") return refused(outcome === "exists" ? "exists" : "not-found");
      await audit(trail, {
        type: "team.member-added",
        userId,
        organizationId,
        teamId,
        memberId: input.userId,
        role,
      });
      return done(added);
    },

    /** Changes a team member's team role (`team:manage`). */
    async setTeamRole(
      actorId: string,
      organizationId: string,
      teamId: string,
      memberId: string,
      role: string,
    ): Promise<OrganizationResult<void>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const member = await manager(organizationId, userId);
      if (!("userId" in member)) return member;
      if (!isIdentifier(teamId) || !isIdentifier(memberId)) return refused("not-found");
      if (!teamRoles.has(role)) return refused("unknown-role");
      if ((await store.setTeamRole(organizationId, teamId, memberId, role)) !== "updated") return refused("not-found");
      await audit(trail, { type: "team.role-changed", userId, organizationId, teamId, memberId, role });
      return done(undefined);
    },

    /** Takes a user out of a team (`team:manage`); any member may leave a team. */
    async removeTeamMember(
      actorId: string,
      organizationId: string,
      teamId: string,
      memberId: string,
    ): Promise<OrganizationResult<void>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const actor = await membershipOf(context, organizationId, userId);
      if (!actor || !isIdentifier(teamId) || !isIdentifier(memberId)) return refused("not-found");
      if (memberId !== userId && !roles.can(actor.role, "team:manage")) return refused("forbidden");
      if (!(await store.removeTeamMember(organizationId, teamId, memberId))) return refused("not-found");
      await audit(trail, { type: "team.member-removed", userId, organizationId, teamId, memberId });
      return done(undefined);
    },
  };
}
