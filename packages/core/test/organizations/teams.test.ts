/**
 * Teams inside an organization, attacked from inside and outside: members reaching for
 * `team:manage`, outsiders and users who are not members put in teams, team roles not declared,
 * ids of another organization's teams in every call, and members removed from the organization.
 */
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../../src/audit.js";
import { MemoryOrganizationStore, Organizations } from "../../src/organizations.js";
import { makeConfig } from "../helpers.js";

/** An organization with an owner (olivia), an admin (adam) and two members (mia, max), and another of eve's. */
async function world() {
  const events: AuditEvent[] = [];
  const config = makeConfig({ audit: {}, events: { audit: (event) => void events.push(event) } });
  const store = MemoryOrganizationStore();
  const orgs = Organizations(config, { store, teamRoles: ["member", "lead"] });
  const make = async (owner: string, name: string) => {
    const created = await orgs.create(owner, {
      name,
      slug: `${name.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}`,
    });
    if (!created.ok) throw new Error(created.reason);
    return created.value.id;
  };
  const id = await make("olivia", "Acme");
  const otherId = await make("eve", "Other");
  expect((await orgs.addMember("olivia", id, { userId: "adam", role: "admin" })).ok).toBe(true);
  expect((await orgs.addMember("olivia", id, { userId: "mia", role: "member" })).ok).toBe(true);
  expect((await orgs.addMember("olivia", id, { userId: "max", role: "member" })).ok).toBe(true);
  const core = await orgs.createTeam("adam", id, { name: "Core" });
  if (!core.ok) throw new Error(core.reason);
  const theirs = await orgs.createTeam("eve", otherId, { name: "Theirs" });
  if (!theirs.ok) throw new Error(theirs.reason);
  return { orgs, id, otherId, teamId: core.value.id, theirTeamId: theirs.value.id, events, store };
}

const notFound = { ok: false, reason: "not-found" };
const forbidden = { ok: false, reason: "forbidden" };

describe("Teams", () => {
  it("an admin creates, renames and deletes a team and puts members in it with a team role; every change is audited", async () => {
    const w = await world();
    expect((await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "mia", role: "lead" })).ok).toBe(true);
    expect((await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "max" })).ok).toBe(true);
    const members = await w.orgs.teamMembers("mia", w.id, w.teamId);
    expect(members.ok && members.value.map((m) => [m.userId, m.role])).toEqual([
      ["mia", "lead"],
      ["max", "member"],
    ]);
    expect((await w.orgs.setTeamRole("adam", w.id, w.teamId, "max", "lead")).ok).toBe(true);
    const renamed = await w.orgs.renameTeam("adam", w.id, w.teamId, { name: "Platform" });
    expect(renamed.ok && renamed.value.name).toBe("Platform");
    const listed = await w.orgs.teams("max", w.id);
    expect(listed.ok && listed.value.map((t) => t.name)).toEqual(["Platform"]);
    expect(await w.orgs.deleteTeam("adam", w.id, w.teamId)).toEqual({ ok: true, value: undefined });
    expect(await w.orgs.teamMembers("mia", w.id, w.teamId)).toEqual(notFound);
    expect((await w.orgs.members("olivia", w.id)).ok).toBe(true);
    expect(
      w.events
        .filter((e) => e.type.startsWith("team.") && "organizationId" in e && e.organizationId === w.id)
        .map((e) => e.type),
    ).toEqual([
      "team.created",
      "team.member-added",
      "team.member-added",
      "team.role-changed",
      "team.updated",
      "team.deleted",
    ]);
  });

  it("rule: a member cannot create, rename or delete a team, nor put anyone in one; an outsider sees nothing", async () => {
    const w = await world();
    expect(await w.orgs.createTeam("mia", w.id, { name: "Mine" })).toEqual(forbidden);
    expect(await w.orgs.renameTeam("mia", w.id, w.teamId, { name: "Mine" })).toEqual(forbidden);
    expect(await w.orgs.deleteTeam("mia", w.id, w.teamId)).toEqual(forbidden);
    expect(await w.orgs.addTeamMember("mia", w.id, w.teamId, { userId: "mia", role: "lead" })).toEqual(forbidden);
    expect(await w.orgs.setTeamRole("mia", w.id, w.teamId, "mia", "lead")).toEqual(forbidden);
    expect((await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "max" })).ok).toBe(true);
    expect(await w.orgs.removeTeamMember("mia", w.id, w.teamId, "max")).toEqual(forbidden);
    for (const outsider of ["eve", "nobody"]) {
      expect(await w.orgs.teams(outsider, w.id)).toEqual(notFound);
      expect(await w.orgs.teamMembers(outsider, w.id, w.teamId)).toEqual(notFound);
      expect(await w.orgs.createTeam(outsider, w.id, { name: "Mine" })).toEqual(notFound);
    }
  });

  it("rule: only members of the organization join its teams, with a declared team role", async () => {
    const w = await world();
    expect(await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "eve" })).toEqual(notFound);
    expect(await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "mia", role: "owner" })).toEqual({
      ok: false,
      reason: "unknown-role",
    });
    expect(await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "mia", role: "__proto__" })).toEqual({
      ok: false,
      reason: "unknown-role",
    });
    expect((await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "mia" })).ok).toBe(true);
    expect(await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "mia" })).toEqual({
      ok: false,
      reason: "exists",
    });
    expect(await w.orgs.setTeamRole("adam", w.id, w.teamId, "mia", "admin")).toEqual({
      ok: false,
      reason: "unknown-role",
    });
  });

  it("rule: a member removed from the organization leaves its teams; joining again puts them in none", async () => {
    const w = await world();
    expect((await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "mia", role: "lead" })).ok).toBe(true);
    expect((await w.orgs.removeMember("adam", w.id, "mia")).ok).toBe(true);
    const after = await w.orgs.teamMembers("adam", w.id, w.teamId);
    expect(after.ok && after.value).toEqual([]);
    expect((await w.orgs.addMember("adam", w.id, { userId: "mia", role: "member" })).ok).toBe(true);
    const again = await w.orgs.teamMembers("adam", w.id, w.teamId);
    expect(again.ok && again.value).toEqual([]);
  });

  it("a member may leave a team themselves", async () => {
    const w = await world();
    expect((await w.orgs.addTeamMember("adam", w.id, w.teamId, { userId: "mia" })).ok).toBe(true);
    expect(await w.orgs.removeTeamMember("mia", w.id, w.teamId, "mia")).toEqual({ ok: true, value: undefined });
    expect(await w.orgs.removeTeamMember("mia", w.id, w.teamId, "mia")).toEqual(notFound);
  });

  it("rule: ids of another organization's teams give nothing in any call", async () => {
    const w = await world();
    const theirs = w.theirTeamId;
    expect(await w.orgs.teamMembers("adam", w.id, theirs)).toEqual(notFound);
    expect(await w.orgs.teamMembers("adam", w.otherId, theirs)).toEqual(notFound);
    expect(await w.orgs.teams("adam", w.otherId)).toEqual(notFound);
    expect(await w.orgs.renameTeam("adam", w.id, theirs, { name: "Taken" })).toEqual(notFound);
    expect(await w.orgs.deleteTeam("adam", w.id, theirs)).toEqual(notFound);
    expect(await w.orgs.addTeamMember("adam", w.id, theirs, { userId: "mia" })).toEqual(notFound);
    expect((await w.orgs.addMember("eve", w.otherId, { userId: "mia", role: "member" })).ok).toBe(true);
    expect(await w.orgs.addTeamMember("adam", w.id, theirs, { userId: "mia" })).toEqual(notFound);
    expect((await w.orgs.addTeamMember("eve", w.otherId, theirs, { userId: "mia" })).ok).toBe(true);
    expect(await w.orgs.setTeamRole("adam", w.id, theirs, "mia", "lead")).toEqual(notFound);
    expect(await w.orgs.removeTeamMember("adam", w.id, theirs, "mia")).toEqual(notFound);
    const still = await w.orgs.teamMembers("eve", w.otherId, theirs);
    expect(still.ok && still.value.map((m) => [m.userId, m.role])).toEqual([["mia", "member"]]);
    const name = await w.orgs.teams("eve", w.otherId);
    expect(name.ok && name.value.map((t) => t.name)).toEqual(["Theirs"]);
  });

  it("refuses names that deceive, and a name another team of the organization has", async () => {
    const w = await world();
    for (const name of ["", " ", "a".repeat(101), "Core\u202eevil", "x\u0000y"])
      expect(await w.orgs.createTeam("adam", w.id, { name })).toEqual({ ok: false, reason: "invalid-name" });
    expect(await w.orgs.createTeam("adam", w.id, { name: "Core" })).toEqual({ ok: false, reason: "name-taken" });
    expect((await w.orgs.createTeam("eve", w.otherId, { name: "Core" })).ok).toBe(true);
  });

  it("names the mistake in a teamRoles declaration", () => {
    for (const teamRoles of [[], ["Lead"], "lead"]) {
      expect(() =>
        Organizations(makeConfig(), { store: MemoryOrganizationStore(), teamRoles: teamRoles as string[] }),
      ).toThrow(/teamRoles/);
    }
  });
});
