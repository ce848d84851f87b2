/**
 * Organizations on behalf of a user, attacked from inside: members and admins reaching for roles
 * above their own, ids of other organizations, outsiders probing, decisions made on a role that
 * changed meanwhile, many owners leaving at once, and names and slugs that deceive.
 */
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../../src/audit.js";
import {
  builtInRoles,
  defineRoles,
  MemoryOrganizationStore,
  type OrganizationStore,
  Organizations,
} from "../../src/organizations.js";
import { makeConfig } from "../helpers.js";

const roles = defineRoles({
  ...builtInRoles,
  member: ["project:read"],
  admin: [...builtInRoles.admin, "project:read", "project:delete"],
  billing: ["invoice:read"],
});

/** An organization with an owner, an admin and a member, and the audit events recorded. */
async function world(store: OrganizationStore = MemoryOrganizationStore()) {
  const events: AuditEvent[] = [];
  const config = makeConfig({ audit: {}, events: { audit: (event) => void events.push(event) } });
  const orgs = Organizations(config, { roles, store });
  const created = await orgs.create("olivia", { name: "Acme", slug: `acme-${crypto.randomUUID().slice(0, 8)}` });
  if (!created.ok) throw new Error(created.reason);
  const id = created.value.id;
  expect((await orgs.addMember("olivia", id, { userId: "adam", role: "admin" })).ok).toBe(true);
  expect((await orgs.addMember("adam", id, { userId: "mia", role: "member" })).ok).toBe(true);
  return { orgs, id, events, store };
}

const roleOf = async (orgs: Awaited<ReturnType<typeof world>>["orgs"], id: string, userId: string) => {
  const members = await orgs.members("olivia", id);
  return members.ok ? members.value.find((m) => m.userId === userId)?.role : undefined;
};

describe("defineRoles", () => {
  it("gives the owner every permission any role declares, and checks each role's own", () => {
    expect(roles.can("owner", "invoice:read")).toBe(true);
    expect(roles.can("owner", "project:delete")).toBe(true);
    expect(roles.can("admin", "project:delete")).toBe(true);
    expect(roles.can("member", "project:delete")).toBe(false);
    expect(roles.can("billing", "project:read")).toBe(false);
    expect(roles.can("nobody", "project:read")).toBe(false);
    expect(roles.can("__proto__", "project:read")).toBe(false);
  });

  it("covers a role only when every permission of it is held, and the owner role only from an owner", () => {
    expect(roles.covers("admin", "member")).toBe(true);
    expect(roles.covers("admin", "admin")).toBe(true);
    expect(roles.covers("admin", "owner")).toBe(false);
    expect(roles.covers("admin", "billing")).toBe(false);
    expect(roles.covers("member", "admin")).toBe(false);
    expect(roles.covers("owner", "owner")).toBe(true);
    const flat = defineRoles({ owner: [], peer: [] });
    expect(flat.covers("peer", "owner"), "a role declared with the owner's permissions is still not an owner").toBe(
      false,
    );
  });

  it.each([
    [{ admin: [] }, /declare the "owner" role/],
    [{ owner: [], Admin: [] }, /role name "Admin"/],
    [{ owner: ["delete-everything"] }, /is not a permission/],
    [{ owner: "all" }, /must be an array/],
    [null, /must be an object/],
  ])("refuses the declaration %j, naming the mistake", (declaration, message) => {
    expect(() => defineRoles(declaration as never)).toThrow(message);
  });
});

describe("Organizations: who may do what", () => {
  it("rule: a member cannot grant admin, an admin cannot grant owner, nor promote themselves", async () => {
    const { orgs, id } = await world();
    expect(await orgs.addMember("mia", id, { userId: "eve", role: "admin" })).toEqual({
      ok: false,
      reason: "forbidden",
    });
    expect(await orgs.addMember("adam", id, { userId: "eve", role: "owner" })).toEqual({
      ok: false,
      reason: "forbidden",
    });
    expect(await orgs.setRole("adam", id, "mia", "owner")).toEqual({ ok: false, reason: "forbidden" });
    expect(await orgs.setRole("adam", id, "adam", "owner")).toEqual({ ok: false, reason: "forbidden" });
    expect(await orgs.setRole("mia", id, "mia", "admin")).toEqual({ ok: false, reason: "forbidden" });
    expect(
      await orgs.addMember("adam", id, { userId: "eve", role: "billing" }),
      "a role with a permission the admin lacks",
    ).toEqual({
      ok: false,
      reason: "forbidden",
    });
    expect(await roleOf(orgs, id, "mia")).toBe("member");
    expect(await roleOf(orgs, id, "adam")).toBe("admin");
    expect(await roleOf(orgs, id, "eve")).toBeUndefined();
  });

  it("rule: no one below owner demotes or removes an owner", async () => {
    const { orgs, id } = await world();
    expect(await orgs.setRole("adam", id, "olivia", "member")).toEqual({ ok: false, reason: "forbidden" });
    expect(await orgs.removeMember("adam", id, "olivia")).toEqual({ ok: false, reason: "forbidden" });
    expect(await orgs.removeMember("mia", id, "adam")).toEqual({ ok: false, reason: "forbidden" });
    expect(await roleOf(orgs, id, "olivia")).toBe("owner");
  });

  it("admins manage members and admins; owners make owners; anyone may leave or lower their own role", async () => {
    const { orgs, id } = await world();
    expect((await orgs.addMember("adam", id, { userId: "ann", role: "admin" })).ok).toBe(true);
    expect((await orgs.setRole("adam", id, "mia", "admin")).ok).toBe(true);
    expect((await orgs.setRole("ann", id, "mia", "member")).ok).toBe(true);
    expect((await orgs.removeMember("adam", id, "ann")).ok).toBe(true);
    expect((await orgs.setRole("olivia", id, "adam", "owner")).ok).toBe(true);
    expect((await orgs.setRole("adam", id, "adam", "member")).ok).toBe(true);
    expect((await orgs.removeMember("mia", id, "mia")).ok).toBe(true);
    expect((await orgs.members("olivia", id)).ok && (await orgs.members("olivia", id))).toMatchObject({
      value: [
        { userId: "olivia", role: "owner" },
        { userId: "adam", role: "member" },
      ],
    });
  });

  it("rule: the last owner can neither leave nor step down; with a second owner, one can", async () => {
    const { orgs, id } = await world();
    expect(await orgs.removeMember("olivia", id, "olivia")).toEqual({ ok: false, reason: "last-owner" });
    expect(await orgs.setRole("olivia", id, "olivia", "admin")).toEqual({ ok: false, reason: "last-owner" });
    expect((await orgs.setRole("olivia", id, "adam", "owner")).ok).toBe(true);
    expect((await orgs.setRole("olivia", id, "olivia", "admin")).ok).toBe(true);
    expect(await orgs.removeMember("adam", id, "adam")).toEqual({ ok: false, reason: "last-owner" });
  });

  it("rule: an outsider is told 'not-found' for an organization that exists, exactly as for one that does not", async () => {
    const { orgs, id } = await world();
    const missing = crypto.randomUUID();
    for (const target of [id, missing]) {
      expect(await orgs.get("stranger", target)).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.members("stranger", target)).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.update("stranger", target, { name: "Pwned" })).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.delete("stranger", target)).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.addMember("stranger", target, { userId: "stranger", role: "owner" })).toEqual({
        ok: false,
        reason: "not-found",
      });
      expect(await orgs.setRole("stranger", target, "olivia", "member")).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.removeMember("stranger", target, "olivia")).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.can("stranger", target, "project:read")).toBe(false);
    }
  });

  it("rule: an admin of one organization has no power in another, even naming its members", async () => {
    const store = MemoryOrganizationStore();
    const a = await world(store);
    const b = await world(store);
    // adam is admin of both; mia of b is only a member of b. An admin of a alone:
    expect((await a.orgs.addMember("olivia", a.id, { userId: "zed", role: "admin" })).ok).toBe(true);
    expect(await a.orgs.removeMember("zed", b.id, "mia")).toEqual({ ok: false, reason: "not-found" });
    expect(await a.orgs.setRole("zed", b.id, "mia", "admin")).toEqual({ ok: false, reason: "not-found" });
    expect(await a.orgs.addMember("zed", b.id, { userId: "zed", role: "member" })).toEqual({
      ok: false,
      reason: "not-found",
    });
    // A member of b acting on a's members through b's id finds no one of a's.
    expect(await b.orgs.removeMember("adam", b.id, "zed")).toEqual({ ok: false, reason: "not-found" });
    expect(await a.orgs.can("zed", b.id, "project:read")).toBe(false);
    expect(await a.orgs.can("zed", a.id, "project:delete")).toBe(true);
  });

  it("rule: an unknown role, or a prototype's name, is refused as unknown", async () => {
    const { orgs, id } = await world();
    for (const role of ["superuser", "__proto__", "constructor", "toString", "OWNER"]) {
      expect(await orgs.addMember("olivia", id, { userId: "eve", role })).toEqual({
        ok: false,
        reason: "unknown-role",
      });
      expect(await orgs.setRole("olivia", id, "mia", role)).toEqual({ ok: false, reason: "unknown-role" });
    }
  });

  it("rule: a removal decided on the member's old role is not applied once an owner has promoted them ('changed')", async () => {
    const inner = MemoryOrganizationStore();
    let promote: (() => Promise<unknown>) | undefined;
    // The store as it is, but the owner's promotion lands between the admin's reading and writing.
    const racing: OrganizationStore = {
      ...inner,
      async removeMembership(...args) {
        await promote?.();
        return inner.removeMembership(...args);
      },
    };
    const { orgs, id } = await world(racing);
    promote = () => orgs.setRole("olivia", id, "mia", "owner");
    expect(await orgs.removeMember("adam", id, "mia")).toEqual({ ok: false, reason: "changed" });
    expect(await roleOf(orgs, id, "mia")).toBe("owner");
  });

  it("rule: 30 requests of the same member to make themselves admin, and 30 of an admin to make them owner, all fail at once", async () => {
    const { orgs, id } = await world();
    const attempts = await Promise.all([
      ...Array.from({ length: 30 }, () => orgs.setRole("mia", id, "mia", "admin")),
      ...Array.from({ length: 30 }, () => orgs.setRole("adam", id, "mia", "owner")),
    ]);
    expect(attempts.every((x) => !x.ok && x.reason === "forbidden")).toBe(true);
    expect(await roleOf(orgs, id, "mia")).toBe("member");
  });

  it("rule: 30 organizations created at once with one slug: one is made, the others are told 'slug-taken'", async () => {
    const { orgs } = await world();
    const slug = `race-${crypto.randomUUID().slice(0, 8)}`;
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => orgs.create(`u${i}`, { name: "Race", slug })),
    );
    expect(outcomes.filter((x) => x.ok)).toHaveLength(1);
    expect(outcomes.filter((x) => !x.ok && x.reason === "slug-taken")).toHaveLength(29);
  });
});

describe("Organizations: values", () => {
  it.each(["Acme", "acme_eu", "-acme", "acme-", "ac me", "acme.eu", "аcme", "a".repeat(49), ""])(
    "refuses the slug %j (lower-case ASCII letters, digits and inner hyphens only)",
    async (slug) => {
      const { orgs, id } = await world();
      expect(await orgs.create("olivia", { name: "Acme", slug })).toEqual({ ok: false, reason: "invalid-slug" });
      expect(await orgs.update("olivia", id, { slug })).toEqual({ ok: false, reason: "invalid-slug" });
    },
  );

  it.each(["", "   ", "Acme\u202egnp.exe", "Acme\u0000", "Ac\u200bme", "x".repeat(101)])(
    "refuses the name %j (1 to 100 visible characters)",
    async (name) => {
      const { orgs, id } = await world();
      expect(await orgs.create("olivia", { name, slug: "fine" })).toEqual({ ok: false, reason: "invalid-name" });
      expect(await orgs.update("olivia", id, { name })).toEqual({ ok: false, reason: "invalid-name" });
    },
  );

  it("throws for an acting user id that is not a plain identifier (the application's mistake: it comes from the session)", async () => {
    const { orgs, id } = await world();
    for (const actor of ["", "a\r\nb", 42, undefined]) {
      await expect(orgs.get(actor as string, id)).rejects.toThrow(TypeError);
    }
  });

  it("answers not-found for an organization or member id no record can have (control characters, not a string, too long)", async () => {
    const { orgs, id } = await world();
    for (const bad of ["", "a\r\nb", "x".repeat(256), 42, null]) {
      expect(await orgs.get("olivia", bad as string)).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.removeMember("olivia", id, bad as string)).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.setRole("olivia", id, bad as string, "admin")).toEqual({ ok: false, reason: "not-found" });
      expect(await orgs.addMember("olivia", id, { userId: bad as string, role: "member" })).toEqual({
        ok: false,
        reason: "not-found",
      });
      expect(await orgs.can(bad as string, id, "project:read")).toBe(false);
    }
  });

  it("renames and re-slugs for admins (organization:update); only owners delete, which ends every membership", async () => {
    const { orgs, id, events } = await world();
    expect((await orgs.update("mia", id, { name: "Mine now" })).ok).toBe(false);
    const renamed = await orgs.update("adam", id, { name: "Acme EU", slug: `acme-eu-${id.slice(0, 8)}` });
    expect(renamed.ok && renamed.value.name).toBe("Acme EU");
    expect(await orgs.delete("adam", id)).toEqual({ ok: false, reason: "forbidden" });
    expect(await orgs.delete("olivia", id)).toEqual({ ok: true, value: undefined });
    expect(await orgs.list("mia")).toEqual([]);
    expect(await orgs.can("adam", id, "project:read")).toBe(false);
    expect(events.map((e) => e.type)).toEqual([
      "organization.created",
      "member.added",
      "member.added",
      "organization.updated",
      "organization.deleted",
    ]);
  });

  it("records every change in the audit trail with who made it, on whom, and the roles", async () => {
    const { orgs, id, events } = await world();
    await orgs.setRole("adam", id, "mia", "admin");
    await orgs.removeMember("olivia", id, "mia");
    expect(events.slice(1)).toMatchObject([
      { type: "member.added", userId: "olivia", organizationId: id, memberId: "adam", role: "admin" },
      { type: "member.added", userId: "adam", organizationId: id, memberId: "mia", role: "member" },
      {
        type: "member.role-changed",
        userId: "adam",
        organizationId: id,
        memberId: "mia",
        role: "admin",
        previousRole: "member",
      },
      { type: "member.removed", userId: "olivia", organizationId: id, memberId: "mia", role: "admin" },
    ]);
  });
});

describe("Organizations: a configuration mistake", () => {
  it("without a secret, a change is refused before anything is stored, naming the fix", async () => {
    const store = MemoryOrganizationStore();
    const orgs = Organizations({ providers: [] }, { store, env: {} });
    await expect(orgs.create("olivia", { name: "Acme", slug: "acme-nosecret" })).rejects.toThrow(/secret/i);
    expect(await store.getOrganizationBySlug("acme-nosecret")).toBeNull();
  });
});

describe("can: one check for a role's name, a membership and a session", () => {
  it("reads the role a membership or a session's active organization holds", () => {
    const { can } = roles; // needs no `this`
    expect(can({ role: "admin" }, "project:delete")).toBe(true);
    expect(can({ role: "member" }, "project:delete")).toBe(false);
    expect(can({ activeOrganization: { role: "admin" } }, "project:delete")).toBe(true);
    expect(can({ activeOrganization: { role: "member" } }, "project:delete")).toBe(false);
  });

  it("holds no permission for a session without an active organization, or a holder of the wrong shape", () => {
    const { can } = roles;
    for (const holder of [
      null,
      undefined,
      {},
      { activeOrganization: null },
      { activeOrganization: {} },
      { activeOrganization: { role: 1 } },
      { role: ["admin"] },
      Object.create({ role: "admin" }), // an inherited role is not the holder's
      { activeOrganization: Object.create({ role: "owner" }) },
    ]) {
      expect(can(holder as never, "project:read")).toBe(false);
    }
  });
});
