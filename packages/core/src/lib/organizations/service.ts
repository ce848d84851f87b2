/**
 * Organizations, their members and roles, on behalf of a user: every function takes the acting
 * user's id first and decides with that user's own role, read from the store each time (no cache:
 * a change made on any instance holds on every other at the next call).
 *
 * The rules: only members see an organization (anyone else is told "not-found", so ids and slugs
 * cannot be probed); a member acts only with a permission of their role; a member gives, changes
 * or takes away only a role whose permissions are all their own (so only owners make or unmake
 * owners); an organization never loses its last owner; a role change or removal decided on a role
 * that changed meanwhile is not applied ("changed").
 */

import type { Membership, Organization, OrganizationStore } from "../../shapes/organizations.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { actorOf, isIdentifier, organizationName, organizationSlug } from "./checks.js";
import { audit, membershipOf as memberOf, type OrganizationsContext, trailOf } from "./context.js";
import { type InvitationOptions, invitationCalls } from "./invitations.js";
import { done, type OrganizationResult, refused } from "./result.js";
import { builtInRoles, defineRoles, OWNER, type Permission, type RoleDeclaration, type Roles } from "./roles.js";
import { teamCalls } from "./teams.js";

/** An organization as one of its members sees it. */
export interface MemberView {
  organization: Organization;
  /** The viewing user's role in it. */
  role: string;
}

export interface OrganizationsOptions<R extends RoleDeclaration> {
  /** Where organizations and memberships are kept (`MemoryOrganizationStore`, or a shared store). */
  store: OrganizationStore;
  /** The roles, made by `defineRoles`. @default defineRoles(builtInRoles) */
  roles?: Roles<R>;
  /** Fill unset options of `config` from this environment, as framework packages do. */
  env?: Env;
  /** Invitations by e-mail: the page that accepts them, and optionally the sender, their life and limits. */
  invitations?: InvitationOptions;
  /** The roles a member may have in a team, the first the default. @default ["member", "lead"] */
  teamRoles?: readonly string[];
}

/**
 * The organizations of an application: `config` is the application's own configuration (its
 * audit trail receives every change), `store` where they are kept.
 *
 * @example
 * ```ts
 * const orgs = Organizations(authConfig, { store: MemoryOrganizationStore() })
 * const created = await orgs.create(session.user.id, { name: "Acme", slug: "acme" })
 * if (created.ok) await orgs.addMember(session.user.id, created.value.id, { userId: bob.id, role: "admin" })
 * ```
 */
export function Organizations<R extends RoleDeclaration = typeof builtInRoles>(
  config: AuthConfig,
  options: OrganizationsOptions<R>,
) {
  const store = options?.store;
  if (!store || typeof store.createOrganization !== "function") {
    throw new TypeError(
      "Organizations: `store` must be an OrganizationStore (MemoryOrganizationStore(), or a shared store)",
    );
  }
  const roles: Roles = (options.roles as Roles | undefined) ?? defineRoles<RoleDeclaration>(builtInRoles);
  const keep = { role: OWNER };
  const context: OrganizationsContext = { config, env: options.env, store, roles };
  const membershipOf = (organizationId: unknown, userId: string) => memberOf(context, organizationId, userId);

  return {
    roles,
    ...invitationCalls(context, options.invitations),
    ...teamCalls(context, options.teamRoles),

    /** Creates an organization with `actorId` as its owner. */
    async create(actorId: string, input: { name: string; slug: string }): Promise<OrganizationResult<Organization>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const name = organizationName(input?.name);
      const slug = organizationSlug(input?.slug);
      if (name === undefined) return refused("invalid-name");
      if (slug === undefined) return refused("invalid-slug");
      const organization: Organization = { id: crypto.randomUUID(), name, slug, createdAt: new Date() };
      const owner: Membership = {
        organizationId: organization.id,
        userId,
        role: OWNER,
        createdAt: organization.createdAt,
      };
      if ((await store.createOrganization(organization, owner)) === "slug-taken") return refused("slug-taken");
      await audit(trail, {
        type: "organization.created",
        userId,
        organizationId: organization.id,
        memberId: userId,
        role: OWNER,
      });
      return done(organization);
    },

    /** The organization and the acting user's role in it, for its members only. */
    async get(actorId: string, organizationId: string): Promise<OrganizationResult<MemberView>> {
      const userId = actorOf(actorId);
      const id = organizationId;
      const membership = await membershipOf(id, userId);
      const organization = membership ? await store.getOrganization(id) : null;
      return membership && organization ? done({ organization, role: membership.role }) : refused("not-found");
    },

    /** The organizations the acting user is a member of, with their role in each, oldest membership first. */
    async list(actorId: string): Promise<MemberView[]> {
      const userId = actorOf(actorId);
      const views: MemberView[] = [];
      for (const membership of await store.listMemberships(userId)) {
        const organization = await store.getOrganization(membership.organizationId);
        if (organization) views.push({ organization, role: membership.role });
      }
      return views;
    },

    /** True when `userId` is a member of the organization and their role grants `permission`. */
    async can(userId: string, organizationId: string, permission: Permission): Promise<boolean> {
      if (!isIdentifier(userId)) return false;
      const membership = await membershipOf(organizationId, userId);
      return membership !== undefined && roles.can(membership.role, permission);
    },

    /** Renames the organization or changes its slug (`organization:update`). */
    async update(
      actorId: string,
      organizationId: string,
      change: { name?: string; slug?: string },
    ): Promise<OrganizationResult<Organization>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const id = organizationId;
      const checked = {
        name: change?.name === undefined ? undefined : organizationName(change.name),
        slug: change?.slug === undefined ? undefined : organizationSlug(change.slug),
      };
      if (change?.name !== undefined && checked.name === undefined) return refused("invalid-name");
      if (change?.slug !== undefined && checked.slug === undefined) return refused("invalid-slug");
      const membership = await membershipOf(id, userId);
      if (!membership) return refused("not-found");
      if (!roles.can(membership.role, "organization:update")) return refused("forbidden");
      const outcome = await store.updateOrganization(id, checked);
      if (outcome !== "updated") return refused(outcome === "missing" ? "not-found" : outcome);
      await audit(trail, { type: "organization.updated", userId, organizationId: id });
      const organization = await store.getOrganization(id);
      return organization ? done(organization) : refused("not-found");
    },

    /**
     * Deletes the organization and every membership of it (`organization:delete`). The
     * application's own data that belongs to it is the application's to delete: the audit trail's
     * `organization.deleted` event (`events.audit`) says when.
     */
    async delete(actorId: string, organizationId: string): Promise<OrganizationResult<void>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const id = organizationId;
      const membership = await membershipOf(id, userId);
      if (!membership) return refused("not-found");
      if (!roles.can(membership.role, "organization:delete")) return refused("forbidden");
      if (!(await store.deleteOrganization(id))) return refused("not-found");
      await audit(trail, { type: "organization.deleted", userId, organizationId: id });
      return done(undefined);
    },

    /** The organization's members, for its members only. */
    async members(actorId: string, organizationId: string): Promise<OrganizationResult<Membership[]>> {
      const id = organizationId;
      if (!(await membershipOf(id, actorOf(actorId)))) return refused("not-found");
      return done(await store.listMembers(id));
    },

    /**
     * Adds a user with `role` (`member:add`, and a role whose permissions are all the acting
     * user's). For the application's own tools; people join by invitation.
     */
    async addMember(
      actorId: string,
      organizationId: string,
      input: { userId: string; role: string },
    ): Promise<OrganizationResult<Membership>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const id = organizationId;
      const memberId = input?.userId;
      const membership = await membershipOf(id, userId);
      if (!membership || !isIdentifier(memberId)) return refused("not-found");
      if (!roles.has(input.role)) return refused("unknown-role");
      if (!roles.can(membership.role, "member:add") || !roles.covers(membership.role, input.role))
        return refused("forbidden");
      const added: Membership = { organizationId: id, userId: memberId, role: input.role, createdAt: new Date() };
      const outcome = await store.addMembership(added);
      if (outcome !== "added") return refused(outcome === "missing" ? "not-found" : outcome);
      await audit(trail, { type: "member.added", userId, organizationId: id, memberId, role: input.role });
      return done(added);
    },

    /**
     * Changes a member's role (`member:update-role`, and both the old and the new role covered by
     * the acting user's). Members may lower their own role; the last owner may not.
     */
    async setRole(
      actorId: string,
      organizationId: string,
      memberId: string,
      role: string,
    ): Promise<OrganizationResult<Membership>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const id = organizationId;
      const targetId = memberId;
      const actor = await membershipOf(id, userId);
      if (!actor || !isIdentifier(targetId)) return refused("not-found");
      if (!roles.has(role)) return refused("unknown-role");
      const target = targetId === userId ? actor : await membershipOf(id, targetId);
      if (!target) return refused("not-found");
      const own = targetId === userId && roles.covers(target.role, role);
      const allowed =
        own ||
        (roles.can(actor.role, "member:update-role") &&
          roles.covers(actor.role, target.role) &&
          roles.covers(actor.role, role));
      if (!allowed) return refused("forbidden");
      if (target.role === role) return done(target);
      const outcome = await store.setRole(id, targetId, target.role, role, keep);
      if (outcome !== "updated") return refused(outcome === "missing" ? "not-found" : outcome);
      await audit(trail, {
        type: "member.role-changed",
        userId,
        organizationId: id,
        memberId: targetId,
        role,
        previousRole: target.role,
      });
      return done({ ...target, role });
    },

    /**
     * Removes a member (`member:remove`, and their role covered by the acting user's); any member
     * may leave. The last owner may do neither. Their team memberships go with it.
     */
    async removeMember(actorId: string, organizationId: string, memberId: string): Promise<OrganizationResult<void>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const id = organizationId;
      const targetId = memberId;
      const actor = await membershipOf(id, userId);
      if (!actor || !isIdentifier(targetId)) return refused("not-found");
      const target = targetId === userId ? actor : await membershipOf(id, targetId);
      if (!target) return refused("not-found");
      const allowed =
        targetId === userId || (roles.can(actor.role, "member:remove") && roles.covers(actor.role, target.role));
      if (!allowed) return refused("forbidden");
      const outcome = await store.removeMembership(id, targetId, target.role, keep);
      if (outcome !== "removed") return refused(outcome === "missing" ? "not-found" : outcome);
      await audit(trail, { type: "member.removed", userId, organizationId: id, memberId: targetId, role: target.role });
      return done(undefined);
    },
  };
}

/** What {@link Organizations} gives. */
export type OrganizationsApi = ReturnType<typeof Organizations>;
