/**
 * The conformance suite every `OrganizationStore` runs: organizations and memberships kept and
 * read back from the other instance, unique slugs under concurrent claims, a deletion that takes
 * every membership with it, and the compare-and-set rules of role changes and removals — above all
 * that an organization never loses its last owner, however many owners demote or remove each
 * other at once; invitations found by their token's hash on the other instance, accepted exactly
 * once however many accept at once, never after they expire, revoked only within their own
 * organization; teams with names unique in their organization, whose members are members of the
 * organization (checked in the same step as the add), and who leave them when they leave it.
 * @module organization-store
 */
import { randomUUID } from "node:crypto";
import type {
  Invitation,
  Membership,
  Organization,
  OrganizationStore,
  Team,
  TeamMembership,
} from "@latchkey/core/organizations";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** What an organization store's setup hands the suite. */
export interface OrganizationStoreFixture {
  /** Two stores over one shared backend, as two instances of an application hold them. */
  stores: [OrganizationStore, OrganizationStore];
  /** Closes connections and removes what the run stored. */
  teardown: () => Promise<void>;
}

const keep = { role: "owner" };

/**
 * Registers the conformance tests of one organization store with vitest, in a `describe` block
 * named `name`. Every test uses ids and slugs of its own.
 *
 * @example
 * ```ts
 * import { runOrganizationStoreConformance } from "@latchkey/adapter-test/organization-store"
 * runOrganizationStoreConformance("MemoryOrganizationStore", async () => {
 *   const store = MemoryOrganizationStore()
 *   return { stores: [store, store], teardown: async () => {} }
 * })
 * ```
 */
export function runOrganizationStoreConformance(
  name: string,
  setup: () => Promise<OrganizationStoreFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(name, () => {
    let fixture: OrganizationStoreFixture;
    const slug = () => `org-${randomUUID().slice(0, 8)}`;
    const organization = (overrides: Partial<Organization> = {}): Organization => ({
      id: randomUUID(),
      name: "Acme",
      slug: slug(),
      createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
      ...overrides,
    });
    const membership = (org: Organization, userId: string, role: string, offset = 0): Membership => ({
      organizationId: org.id,
      userId,
      role,
      createdAt: new Date(org.createdAt.getTime() + offset * 1000),
    });
    /** An organization made on the first store, with `owners` owners and `others` members. */
    async function made(owners = 1, others: Record<string, string> = {}) {
      const [one] = fixture.stores;
      const org = organization();
      const ownerIds = Array.from({ length: owners }, () => `u-${randomUUID()}`);
      expect(await one.createOrganization(org, membership(org, ownerIds[0] as string, "owner"))).toBe("created");
      let offset = 1;
      for (const id of ownerIds.slice(1))
        expect(await one.addMembership(membership(org, id, "owner", offset++))).toBe("added");
      for (const [id, role] of Object.entries(others))
        expect(await one.addMembership(membership(org, id, role, offset++))).toBe("added");
      return { org, ownerIds };
    }

    /** An invitation of `org` (expiring in an hour unless said), its token hash made up. */
    const invitation = (org: Organization, overrides: Partial<Invitation> = {}): Invitation => {
      const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
      return {
        id: randomUUID(),
        organizationId: org.id,
        email: `${randomUUID().slice(0, 8)}@example.com`,
        role: "admin",
        invitedBy: "u-inviter",
        tokenHash: randomUUID(),
        createdAt,
        expiresAt: new Date(createdAt.getTime() + 3600_000),
        ...overrides,
      };
    };

    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.teardown();
    });

    it("an organization and its first owner are read back on the other instance, by id and by slug", async () => {
      const [, two] = fixture.stores;
      const { org, ownerIds } = await made();
      expect(await two.getOrganization(org.id)).toEqual(org);
      expect(await two.getOrganizationBySlug(org.slug)).toEqual(org);
      expect(await two.getMembership(org.id, ownerIds[0] as string)).toEqual(
        membership(org, ownerIds[0] as string, "owner"),
      );
      expect(await two.getOrganization(randomUUID())).toBeNull();
      expect(await two.getOrganizationBySlug(slug())).toBeNull();
    });

    it("rule: 30 organizations claiming one slug at once from two instances: exactly one has it, and no other was half made", async () => {
      const taken = slug();
      const orgs = Array.from({ length: 30 }, () => organization({ slug: taken }));
      const outcomes = await Promise.all(
        orgs.map((org, i) =>
          (fixture.stores[i % 2] as OrganizationStore).createOrganization(org, membership(org, `u-${i}`, "owner")),
        ),
      );
      expect(outcomes.filter((x) => x === "created")).toHaveLength(1);
      const winner = orgs[outcomes.indexOf("created")] as Organization;
      expect((await fixture.stores[1].getOrganizationBySlug(taken))?.id).toBe(winner.id);
      for (const [i, org] of orgs.entries()) {
        if (org === winner) continue;
        expect(await fixture.stores[0].getOrganization(org.id)).toBeNull();
        expect(await fixture.stores[0].getMembership(org.id, `u-${i}`)).toBeNull();
      }
    });

    it("an update renames and re-slugs; a slug another organization holds is refused and changes nothing; the old slug is free again", async () => {
      const [one, two] = fixture.stores;
      const { org } = await made();
      const { org: other } = await made();
      const next = slug();
      expect(await one.updateOrganization(org.id, { name: "Acme EU", slug: next })).toBe("updated");
      expect(await two.getOrganization(org.id)).toEqual({ ...org, name: "Acme EU", slug: next });
      expect(await two.getOrganizationBySlug(org.slug)).toBeNull();
      expect(await one.updateOrganization(org.id, { name: "Taken", slug: other.slug })).toBe("slug-taken");
      expect((await two.getOrganization(org.id))?.name).toBe("Acme EU");
      expect(await one.updateOrganization(randomUUID(), { name: "x" })).toBe("missing");
      const reuse = organization({ slug: org.slug });
      expect(await two.createOrganization(reuse, membership(reuse, "u-reuse", "owner"))).toBe("created");
    });

    it("members are listed oldest first, and a user's memberships across organizations", async () => {
      const [one, two] = fixture.stores;
      const user = `u-${randomUUID()}`;
      const { org, ownerIds } = await made(1, { [user]: "member" });
      const { org: second } = await made(1, { [user]: "admin" });
      expect((await two.listMembers(org.id)).map((m) => [m.userId, m.role])).toEqual([
        [ownerIds[0], "owner"],
        [user, "member"],
      ]);
      const mine = await one.listMemberships(user);
      // Both organizations may have been made within one second: compared as a set.
      expect(mine.map((m) => [m.organizationId, m.role])).toHaveLength(2);
      expect(mine.map((m) => [m.organizationId, m.role])).toEqual(
        expect.arrayContaining([
          [org.id, "member"],
          [second.id, "admin"],
        ]),
      );
      expect(await two.addMembership(membership(org, user, "admin", 9))).toBe("exists");
      expect((await one.getMembership(org.id, user))?.role).toBe("member");
      expect(await one.addMembership(membership(organization(), user, "member"))).toBe("missing");
    });

    it("deleting an organization deletes every membership of it, and frees its slug", async () => {
      const [one, two] = fixture.stores;
      const user = `u-${randomUUID()}`;
      const { org, ownerIds } = await made(1, { [user]: "member" });
      expect(await one.deleteOrganization(org.id)).toBe(true);
      expect(await two.getOrganization(org.id)).toBeNull();
      expect(await two.getOrganizationBySlug(org.slug)).toBeNull();
      expect(await two.getMembership(org.id, user)).toBeNull();
      expect(await two.listMembers(org.id)).toEqual([]);
      expect((await two.listMemberships(ownerIds[0] as string)).some((m) => m.organizationId === org.id)).toBe(false);
      expect(await one.deleteOrganization(org.id)).toBe(false);
    });

    it("rule: a role change or a removal applies only from the role it was decided on (compare-and-set)", async () => {
      const [one, two] = fixture.stores;
      const user = `u-${randomUUID()}`;
      const { org } = await made(1, { [user]: "member" });
      expect(await one.setRole(org.id, user, "admin", "owner", keep)).toBe("changed");
      expect(await one.removeMembership(org.id, user, "admin", keep)).toBe("changed");
      expect(await one.setRole(org.id, user, "member", "admin", keep)).toBe("updated");
      expect((await two.getMembership(org.id, user))?.role).toBe("admin");
      expect(await two.removeMembership(org.id, user, "admin", keep)).toBe("removed");
      expect(await one.removeMembership(org.id, user, "admin", keep)).toBe("missing");
      expect(await one.setRole(org.id, user, "admin", "member", keep)).toBe("missing");
    });

    it("rule: the last owner can be neither demoted nor removed; with a second owner, one can", async () => {
      const [one, two] = fixture.stores;
      const { org, ownerIds } = await made(2);
      const [first, second] = ownerIds as [string, string];
      expect(await one.setRole(org.id, first, "owner", "admin", keep)).toBe("updated");
      expect(await two.setRole(org.id, second, "owner", "member", keep)).toBe("last-owner");
      expect(await two.removeMembership(org.id, second, "owner", keep)).toBe("last-owner");
      expect((await one.getMembership(org.id, second))?.role).toBe("owner");
      // Promoting is never refused by the rule, nor a change between two roles that are not the owner's.
      expect(await one.setRole(org.id, first, "admin", "owner", keep)).toBe("updated");
      expect(await two.removeMembership(org.id, second, "owner", keep)).toBe("removed");
    });

    it("rule: 10 owners demoting and removing one another, 50 calls at once from two instances, leave at least one owner", async () => {
      const { org, ownerIds } = await made(10);
      const calls = Array.from({ length: 50 }, (_, i) => {
        const store = fixture.stores[i % 2] as OrganizationStore;
        const target = ownerIds[i % ownerIds.length] as string;
        return i % 3 === 0
          ? store.removeMembership(org.id, target, "owner", keep)
          : store.setRole(org.id, target, "owner", i % 2 ? "admin" : "member", keep);
      });
      const outcomes = await Promise.all(calls);
      const owners = (await fixture.stores[1].listMembers(org.id)).filter((m) => m.role === "owner");
      expect(owners.length).toBeGreaterThanOrEqual(1);
      expect(outcomes).toContain("last-owner");
      expect(outcomes.filter((x) => x === "updated" || x === "removed")).toHaveLength(9);
    });

    it("an invitation is found by its token's hash and listed on the other instance, oldest first; an organization that is not there takes none", async () => {
      const [one, two] = fixture.stores;
      const { org } = await made();
      const first = invitation(org);
      const second = invitation(org, { createdAt: new Date(first.createdAt.getTime() + 1000), role: "member" });
      expect(await one.createInvitation(second)).toBe("created");
      expect(await one.createInvitation(first)).toBe("created");
      expect(await two.getInvitationByToken(first.tokenHash, new Date())).toEqual(first);
      expect(await two.getInvitationByToken(randomUUID(), new Date())).toBeNull();
      expect(await two.listInvitations(org.id, new Date())).toEqual([first, second]);
      const { org: other } = await made();
      expect(await two.listInvitations(other.id, new Date())).toEqual([]);
      expect(await one.createInvitation(invitation(organization()))).toBe("missing");
    });

    it("rule: an expired invitation is neither found, listed nor accepted", async () => {
      const [one, two] = fixture.stores;
      const { org } = await made();
      const made1 = invitation(org);
      expect(await one.createInvitation(made1)).toBe("created");
      const after = new Date(made1.expiresAt.getTime() + 1);
      expect(await two.getInvitationByToken(made1.tokenHash, after)).toBeNull();
      expect(await two.listInvitations(org.id, after)).toEqual([]);
      expect(await two.acceptInvitation(made1.tokenHash, "u-late", after)).toBeNull();
      expect(await one.getMembership(org.id, "u-late")).toBeNull();
    });

    it("rule: 50 accepts of one invitation at once from two instances, by one user and by others: exactly one joins, with the invitation's role", async () => {
      const { org } = await made();
      const sent = invitation(org, { role: "member" });
      expect(await fixture.stores[0].createInvitation(sent)).toBe("created");
      const now = new Date();
      const users = Array.from({ length: 50 }, (_, i) => (i % 2 ? "u-invited" : `u-other-${i}`));
      const outcomes = await Promise.all(
        users.map((user, i) =>
          (fixture.stores[i % 2] as OrganizationStore).acceptInvitation(sent.tokenHash, user, now),
        ),
      );
      const winners = outcomes.flatMap((outcome, i) => (outcome ? [{ outcome, user: users[i] as string }] : []));
      expect(winners).toHaveLength(1);
      const [winner] = winners as [{ outcome: { outcome: string; invitation: Invitation }; user: string }];
      expect(winner.outcome).toEqual({ outcome: "accepted", invitation: sent });
      const members = await fixture.stores[1].listMembers(org.id);
      expect(members.filter((m) => m.userId !== members[0]?.userId).map((m) => [m.userId, m.role])).toEqual([
        [winner.user, "member"],
      ]);
      expect(await fixture.stores[1].getInvitationByToken(sent.tokenHash, new Date())).toBeNull();
      expect(await fixture.stores[0].listInvitations(org.id, new Date())).toEqual([]);
    });

    it("an invitation accepted by a member is used up and changes nothing of their role", async () => {
      const [one, two] = fixture.stores;
      const user = `u-${randomUUID()}`;
      const { org } = await made(1, { [user]: "member" });
      const sent = invitation(org, { role: "admin" });
      expect(await one.createInvitation(sent)).toBe("created");
      expect(await two.acceptInvitation(sent.tokenHash, user, new Date())).toEqual({
        outcome: "exists",
        invitation: sent,
      });
      expect((await one.getMembership(org.id, user))?.role).toBe("member");
      expect(await one.acceptInvitation(sent.tokenHash, user, new Date())).toBeNull();
    });

    it("rule: an invitation is revoked only through its own organization's id, and cannot be accepted after", async () => {
      const [one, two] = fixture.stores;
      const { org } = await made();
      const { org: other } = await made();
      const sent = invitation(org);
      expect(await one.createInvitation(sent)).toBe("created");
      expect(await two.deleteInvitation(other.id, sent.id)).toBeNull();
      expect(await two.getInvitationByToken(sent.tokenHash, new Date())).toEqual(sent);
      expect(await two.deleteInvitation(org.id, sent.id)).toEqual(sent);
      expect(await one.deleteInvitation(org.id, sent.id)).toBeNull();
      expect(await one.acceptInvitation(sent.tokenHash, "u-after", new Date())).toBeNull();
      expect(await one.getMembership(org.id, "u-after")).toBeNull();
    });

    it("deleting an organization deletes its invitations", async () => {
      const [one, two] = fixture.stores;
      const { org } = await made();
      const sent = invitation(org);
      expect(await one.createInvitation(sent)).toBe("created");
      expect(await one.deleteOrganization(org.id)).toBe(true);
      expect(await two.getInvitationByToken(sent.tokenHash, new Date())).toBeNull();
      expect(await two.acceptInvitation(sent.tokenHash, "u-after", new Date())).toBeNull();
      expect(await two.listInvitations(org.id, new Date())).toEqual([]);
    });

    /** A team of `org`, named uniquely unless said. */
    const team = (org: Organization, overrides: Partial<Team> = {}): Team => ({
      id: randomUUID(),
      organizationId: org.id,
      name: `Team ${randomUUID().slice(0, 8)}`,
      createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
      ...overrides,
    });
    const teamMember = (t: Team, userId: string, role = "member", offset = 0): TeamMembership => ({
      teamId: t.id,
      organizationId: t.organizationId,
      userId,
      role,
      createdAt: new Date(t.createdAt.getTime() + offset * 1000),
    });

    it("teams are read back on the other instance; a name is unique within its organization only; renames keep it so", async () => {
      const [one, two] = fixture.stores;
      const { org } = await made();
      const { org: other } = await made();
      const first = team(org, { name: "Core" });
      const second = team(org, { name: "Web", createdAt: new Date(first.createdAt.getTime() + 1000) });
      expect(await one.createTeam(first)).toBe("created");
      expect(await one.createTeam(second)).toBe("created");
      expect(await two.createTeam(team(org, { name: "Core" }))).toBe("name-taken");
      expect(await two.createTeam(team(other, { name: "Core" }))).toBe("created");
      expect(await two.createTeam(team(organization()))).toBe("missing");
      expect(await two.listTeams(org.id)).toEqual([first, second]);
      expect(await two.getTeam(org.id, first.id)).toEqual(first);
      expect(await two.getTeam(other.id, first.id)).toBeNull();
      expect(await one.renameTeam(org.id, second.id, "Core")).toBe("name-taken");
      expect(await one.renameTeam(other.id, second.id, "Mobile")).toBe("missing");
      expect(await one.renameTeam(org.id, second.id, "Mobile")).toBe("updated");
      expect((await two.getTeam(org.id, second.id))?.name).toBe("Mobile");
      expect(await two.createTeam(team(org, { name: "Web" }))).toBe("created");
    });

    it("rule: only members of the organization join its teams, and a team of another organization takes no one", async () => {
      const [one, two] = fixture.stores;
      const user = `u-${randomUUID()}`;
      const { org } = await made(1, { [user]: "member" });
      const { org: other } = await made();
      const core = team(org);
      expect(await one.createTeam(core)).toBe("created");
      expect(await two.addTeamMember(teamMember(core, user, "lead"))).toBe("added");
      expect(await two.addTeamMember(teamMember(core, user, "member"))).toBe("exists");
      expect(await one.addTeamMember(teamMember(core, "u-outsider"))).toBe("not-member");
      expect(await one.addTeamMember({ ...teamMember(core, user), organizationId: other.id })).toBe("missing");
      expect((await two.listTeamMembers(org.id, core.id)).map((m) => [m.userId, m.role])).toEqual([[user, "lead"]]);
      expect(await two.listTeamMembers(other.id, core.id)).toEqual([]);
      expect(await one.setTeamRole(other.id, core.id, user, "member")).toBe("missing");
      expect(await one.setTeamRole(org.id, core.id, user, "member")).toBe("updated");
      expect((await two.listTeamMembers(org.id, core.id))[0]?.role).toBe("member");
      expect(await one.removeTeamMember(other.id, core.id, user)).toBe(false);
      expect(await one.removeTeamMember(org.id, core.id, user)).toBe(true);
      expect(await two.listTeamMembers(org.id, core.id)).toEqual([]);
    });

    it("rule: a member removed from the organization leaves every team of it, even when added to one at the same moment", async () => {
      const [one, two] = fixture.stores;
      const users = Array.from({ length: 10 }, () => `u-${randomUUID()}`);
      const { org } = await made(1, Object.fromEntries(users.map((u) => [u, "member"])));
      const teams = [team(org), team(org)];
      for (const t of teams) expect(await one.createTeam(t)).toBe("created");
      for (const u of users.slice(0, 5)) expect(await one.addTeamMember(teamMember(teams[0] as Team, u))).toBe("added");
      // Each user is removed from the organization while being added to the second team, from the other instance.
      await Promise.all(
        users.flatMap((u) => [
          two.removeMembership(org.id, u, "member", keep),
          one.addTeamMember(teamMember(teams[1] as Team, u)),
        ]),
      );
      for (const t of teams) expect(await two.listTeamMembers(org.id, t.id)).toEqual([]);
      for (const u of users) {
        expect(await one.addTeamMember(teamMember(teams[0] as Team, u))).toBe("not-member");
        // Back in the organization, they are in no team until added again.
        expect(await one.addMembership(membership(org, u, "member", 99))).toBe("added");
      }
      for (const t of teams) expect(await two.listTeamMembers(org.id, t.id)).toEqual([]);
    });

    it("deleting a team deletes its memberships only; deleting the organization deletes its teams", async () => {
      const [one, two] = fixture.stores;
      const user = `u-${randomUUID()}`;
      const { org } = await made(1, { [user]: "member" });
      const core = team(org);
      expect(await one.createTeam(core)).toBe("created");
      expect(await one.addTeamMember(teamMember(core, user))).toBe("added");
      expect(await two.deleteTeam(organization().id, core.id)).toBe(false);
      expect(await two.deleteTeam(org.id, core.id)).toBe(true);
      expect(await one.getTeam(org.id, core.id)).toBeNull();
      expect(await one.listTeamMembers(org.id, core.id)).toEqual([]);
      expect((await one.getMembership(org.id, user))?.role).toBe("member");
      expect(await two.deleteTeam(org.id, core.id)).toBe(false);
      const web = team(org);
      expect(await one.createTeam(web)).toBe("created");
      expect(await one.addTeamMember(teamMember(web, user))).toBe("added");
      expect(await one.deleteOrganization(org.id)).toBe(true);
      expect(await two.listTeams(org.id)).toEqual([]);
      expect(await two.getTeam(org.id, web.id)).toBeNull();
      expect(await two.listTeamMembers(org.id, web.id)).toEqual([]);
    });
  });
}
