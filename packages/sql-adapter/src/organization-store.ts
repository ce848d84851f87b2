/**
 * `SqlOrganizationStore`: organizations and their members in two tables that `migrate` creates,
 * shared by every instance of an application.
 * @module organization-store
 */
import type {
  Invitation,
  KeepOne,
  Membership,
  Organization,
  OrganizationStore,
  Team,
  TeamMembership,
} from "@latchkey/core/organizations";
import { sql, type Transaction } from "kysely";
import { type AnyKysely, dialectOf, isDriverError, type SqlOptions, tableNames } from "./schema.js";

interface OrganizationRow {
  id: string;
  name: string;
  slug: string;
  createdAt: number | string | bigint;
}

interface MemberRow {
  organizationId: string;
  userId: string;
  role: string;
  createdAt: number | string | bigint;
}

interface InvitationRow {
  id: string;
  organizationId: string;
  email: string;
  role: string;
  invitedBy: string;
  tokenHash: string;
  createdAt: number | string | bigint;
  expiresAt: number | string | bigint;
}

interface TeamRow {
  id: string;
  organizationId: string;
  name: string;
  createdAt: number | string | bigint;
}

interface TeamMemberRow {
  teamId: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: number | string | bigint;
}

const UNIQUE = { postgres: "23505", mysql: "ER_DUP_ENTRY", errno: 1062, sqlite: /UNIQUE constraint failed/i };
const NO_TABLE = { postgres: "42P01", mysql: "ER_NO_SUCH_TABLE", errno: 1146, sqlite: /no such table/i };

const organizationOf = (row: OrganizationRow): Organization => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  createdAt: new Date(Number(row.createdAt)),
});
const membershipOf = (row: MemberRow): Membership => ({
  organizationId: row.organizationId,
  userId: row.userId,
  role: row.role,
  createdAt: new Date(Number(row.createdAt)),
});

const invitationOf = (row: InvitationRow): Invitation => ({
  id: row.id,
  organizationId: row.organizationId,
  email: row.email,
  role: row.role,
  invitedBy: row.invitedBy,
  tokenHash: row.tokenHash,
  createdAt: new Date(Number(row.createdAt)),
  expiresAt: new Date(Number(row.expiresAt)),
});

const teamOf = (row: TeamRow): Team => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  createdAt: new Date(Number(row.createdAt)),
});
const teamMembershipOf = (row: TeamMemberRow): TeamMembership => ({
  teamId: row.teamId,
  organizationId: row.organizationId,
  userId: row.userId,
  role: row.role,
  createdAt: new Date(Number(row.createdAt)),
});

/**
 * An `OrganizationStore` (`@latchkey/core/organizations`) in the tables `organizations`,
 * `organization_members`, `organization_invitations`, `organization_teams` and
 * `organization_team_members`, which `migrate` (`npx latchkey migrate <url>`) creates: for an
 * application whose instances share a SQL database (PostgreSQL, MySQL/MariaDB, SQLite). Each
 * method is one transaction. A role change or a removal first writes the organization's row (a
 * row lock on PostgreSQL and MySQL, the database's write lock on SQLite), so that the changes of
 * one organization's members take turns: two owners demoting each other at once cannot both
 * succeed, and the last owner stays.
 *
 * @example
 * ```ts
 * import { SqlOrganizationStore, openDatabase } from "@latchkey/sql-adapter"
 * const orgs = Organizations(authConfig, { store: SqlOrganizationStore(await openDatabase(process.env.DATABASE_URL)) })
 * ```
 */
export function SqlOrganizationStore(db: AnyKysely, options: SqlOptions = {}): OrganizationStore {
  const dialect = dialectOf(db);
  const t = tableNames(options);
  // A database not migrated yet fails with the fix named, not the driver's bare message.
  const guarded = <T>(work: () => Promise<T>): Promise<T> =>
    work().catch((error: unknown) => {
      if (!isDriverError(error, NO_TABLE)) throw error;
      throw new Error(
        `@latchkey/sql-adapter: SqlOrganizationStore needs the tables ${t.organizations}, ${t.organizationMembers}, ${t.organizationInvitations}, ${t.organizationTeams} and ${t.organizationTeamMembers}: run \`npx latchkey migrate <database-url>\` (@latchkey/cli) or \`migrate(db)\``,
        { cause: error },
      );
    });
  /** An insert that does nothing when a unique key is taken. */
  const insertOnce = (trx: Transaction<unknown> | AnyKysely, table: string, row: Record<string, unknown>) => {
    const insert = (trx as AnyKysely).insertInto(table).values(row);
    return (dialect === "mysql" ? insert.ignore() : insert.onConflict((oc) => oc.doNothing())).executeTakeFirst();
  };
  /** Takes the organization's turn for the rest of the transaction; false when there is no such organization. */
  const lockOrganization = async (trx: AnyKysely, id: string) => {
    await trx
      .updateTable(t.organizations)
      .set({ id: sql.ref("id") })
      .where("id", "=", id)
      .execute();
    return (await trx.selectFrom(t.organizations).select("id").where("id", "=", id).executeTakeFirst()) !== undefined;
  };
  /** True when a member other than `userId` has `keep.role`. */
  const othersKeep = async (trx: AnyKysely, organizationId: string, userId: string, keep: KeepOne) =>
    (await trx
      .selectFrom(t.organizationMembers)
      .select("userId")
      .where("organizationId", "=", organizationId)
      .where("userId", "!=", userId)
      .where("role", "=", keep.role)
      .limit(1)
      .executeTakeFirst()) !== undefined;
  const roleOf = async (trx: AnyKysely, organizationId: string, userId: string) =>
    (
      await trx
        .selectFrom(t.organizationMembers)
        .select("role")
        .where("organizationId", "=", organizationId)
        .where("userId", "=", userId)
        .executeTakeFirst()
    )?.role as string | undefined;

  const dropTeamMemberships = (trx: AnyKysely, organizationId: string, userId: string) =>
    trx
      .deleteFrom(t.organizationTeamMembers)
      .where("organizationId", "=", organizationId)
      .where("userId", "=", userId)
      .execute();

  // SQLite takes one writer at a time for the whole database, but two connections of one process
  // (two instances, or a module loaded once per bundler layer) deadlock on a transaction held
  // across awaits: the one waiting blocks the event loop the other needs to commit. So SQLite
  // gets single statements, each atomic, ordered so that a failure between two leaves nothing
  // that opens anything.
  /** `exists (a member other than userId with keep.role)`, inside one statement. */
  const otherKeeper = (organizationId: string, userId: string, keep: KeepOne) =>
    sql`exists (select 1 from ${sql.table(t.organizationMembers)} where "organizationId" = ${organizationId}
      and "userId" <> ${userId} and "role" = ${keep.role})`;
  /** Why a conditional change of a member changed nothing. */
  const whyNot = async (organizationId: string, userId: string, from: string) => {
    const role = await roleOf(db, organizationId, userId);
    return role === undefined ? ("missing" as const) : role !== from ? ("changed" as const) : ("last-owner" as const);
  };
  /** The owner's row first: one left by a failure before the organization's belongs to no organization. */
  const createOnSqlite = async (organization: Organization, owner: Membership) => {
    await db
      .insertInto(t.organizationMembers)
      .values({ ...owner, createdAt: owner.createdAt.getTime() })
      .execute();
    const created = await insertOnce(db, t.organizations, {
      id: organization.id,
      name: organization.name,
      slug: organization.slug,
      createdAt: organization.createdAt.getTime(),
    });
    if (Number(created.numInsertedOrUpdatedRows ?? 0) === 1) return "created" as const;
    await db.deleteFrom(t.organizationMembers).where("organizationId", "=", organization.id).execute();
    return "slug-taken" as const;
  };

  return {
    createOrganization: (organization, owner) =>
      guarded(async () => {
        if (dialect === "sqlite") return createOnSqlite(organization, owner);
        return db.transaction().execute(async (trx) => {
          const created = await insertOnce(trx, t.organizations, {
            id: organization.id,
            name: organization.name,
            slug: organization.slug,
            createdAt: organization.createdAt.getTime(),
          });
          if (Number(created.numInsertedOrUpdatedRows ?? 0) !== 1) return "slug-taken";
          await trx
            .insertInto(t.organizationMembers)
            .values({ ...owner, createdAt: owner.createdAt.getTime() })
            .execute();
          return "created";
        });
      }),
    getOrganization: (id) =>
      guarded(async () => {
        const row = await db.selectFrom(t.organizations).selectAll().where("id", "=", id).executeTakeFirst();
        return row ? organizationOf(row as OrganizationRow) : null;
      }),
    getOrganizationBySlug: (slug) =>
      guarded(async () => {
        const row = await db.selectFrom(t.organizations).selectAll().where("slug", "=", slug).executeTakeFirst();
        return row ? organizationOf(row as OrganizationRow) : null;
      }),
    updateOrganization: (id, change) =>
      guarded(async () => {
        const exists = await db.selectFrom(t.organizations).select("id").where("id", "=", id).executeTakeFirst();
        if (!exists) return "missing";
        const set: Record<string, string> = {};
        if (change.name !== undefined) set.name = change.name;
        if (change.slug !== undefined) set.slug = change.slug;
        if (Object.keys(set).length === 0) return "updated";
        try {
          await db.updateTable(t.organizations).set(set).where("id", "=", id).execute();
        } catch (error) {
          if (isDriverError(error, UNIQUE)) return "slug-taken";
          throw error;
        }
        return "updated";
      }),
    deleteOrganization: (id) =>
      guarded(async () => {
        // The organization first: members left by a failure in between belong to no organization.
        const work = async (trx: AnyKysely) => {
          const { numDeletedRows } = await trx
            .deleteFrom(t.organizations)
            .where("id", "=", id)
            .executeTakeFirstOrThrow();
          await trx.deleteFrom(t.organizationMembers).where("organizationId", "=", id).execute();
          await trx.deleteFrom(t.organizationInvitations).where("organizationId", "=", id).execute();
          await trx.deleteFrom(t.organizationTeamMembers).where("organizationId", "=", id).execute();
          await trx.deleteFrom(t.organizationTeams).where("organizationId", "=", id).execute();
          return Number(numDeletedRows) > 0;
        };
        return dialect === "sqlite" ? work(db) : db.transaction().execute(work);
      }),
    getMembership: (organizationId, userId) =>
      guarded(async () => {
        const row = await db
          .selectFrom(t.organizationMembers)
          .selectAll()
          .where("organizationId", "=", organizationId)
          .where("userId", "=", userId)
          .executeTakeFirst();
        return row ? membershipOf(row as MemberRow) : null;
      }),
    listMembers: (organizationId) =>
      guarded(async () =>
        (
          await db
            .selectFrom(t.organizationMembers)
            .selectAll()
            .where("organizationId", "=", organizationId)
            .orderBy("createdAt")
            .orderBy("userId")
            .execute()
        ).map((row) => membershipOf(row as MemberRow)),
      ),
    listMemberships: (userId) =>
      guarded(async () =>
        (
          await db
            .selectFrom(t.organizationMembers)
            .selectAll()
            .where("userId", "=", userId)
            .orderBy("createdAt")
            .orderBy("organizationId")
            .execute()
        ).map((row) => membershipOf(row as MemberRow)),
      ),
    addMembership: (membership) =>
      guarded(async () => {
        if (dialect === "sqlite") {
          // One statement: the row is added only while the organization exists.
          const { numAffectedRows } = await sql`insert into ${sql.table(t.organizationMembers)}
            ("organizationId", "userId", "role", "createdAt")
            select ${membership.organizationId}, ${membership.userId}, ${membership.role}, ${membership.createdAt.getTime()}
            where exists (select 1 from ${sql.table(t.organizations)} where "id" = ${membership.organizationId})
            on conflict do nothing`.execute(db);
          if (Number(numAffectedRows ?? 0) === 1) return "added";
          const organization = await db
            .selectFrom(t.organizations)
            .select("id")
            .where("id", "=", membership.organizationId)
            .executeTakeFirst();
          return organization ? "exists" : "missing";
        }
        return db.transaction().execute(async (trx) => {
          if (!(await lockOrganization(trx, membership.organizationId))) return "missing";
          const added = await insertOnce(trx, t.organizationMembers, {
            ...membership,
            createdAt: membership.createdAt.getTime(),
          });
          return Number(added.numInsertedOrUpdatedRows ?? 0) === 1 ? "added" : "exists";
        });
      }),
    setRole: (organizationId, userId, from, to, keep) =>
      guarded(async () => {
        if (dialect === "sqlite") {
          const keepsOwner = from !== keep.role || to === keep.role;
          const { numAffectedRows } = await sql`update ${sql.table(t.organizationMembers)} set "role" = ${to}
            where "organizationId" = ${organizationId} and "userId" = ${userId} and "role" = ${from}
            and (${keepsOwner ? 1 : 0} = 1 or ${otherKeeper(organizationId, userId, keep)})`.execute(db);
          return Number(numAffectedRows ?? 0) === 1 ? "updated" : whyNot(organizationId, userId, from);
        }
        return db.transaction().execute(async (trx) => {
          if (!(await lockOrganization(trx, organizationId))) return "missing";
          const role = await roleOf(trx, organizationId, userId);
          if (role === undefined) return "missing";
          if (role !== from) return "changed";
          if (from === keep.role && to !== keep.role && !(await othersKeep(trx, organizationId, userId, keep)))
            return "last-owner";
          await trx
            .updateTable(t.organizationMembers)
            .set({ role: to })
            .where("organizationId", "=", organizationId)
            .where("userId", "=", userId)
            .execute();
          return "updated";
        });
      }),
    removeMembership: (organizationId, userId, from, keep) =>
      guarded(async () => {
        if (dialect === "sqlite") {
          const { numAffectedRows } = await sql`delete from ${sql.table(t.organizationMembers)}
            where "organizationId" = ${organizationId} and "userId" = ${userId} and "role" = ${from}
            and (${from !== keep.role ? 1 : 0} = 1 or ${otherKeeper(organizationId, userId, keep)})`.execute(db);
          if (Number(numAffectedRows ?? 0) !== 1) return whyNot(organizationId, userId, from);
          // After the membership: a failure between leaves team rows that listTeamMembers does not show.
          await dropTeamMemberships(db, organizationId, userId);
          return "removed";
        }
        return db.transaction().execute(async (trx) => {
          if (!(await lockOrganization(trx, organizationId))) return "missing";
          const role = await roleOf(trx, organizationId, userId);
          if (role === undefined) return "missing";
          if (role !== from) return "changed";
          if (from === keep.role && !(await othersKeep(trx, organizationId, userId, keep))) return "last-owner";
          await trx
            .deleteFrom(t.organizationMembers)
            .where("organizationId", "=", organizationId)
            .where("userId", "=", userId)
            .execute();
          await dropTeamMemberships(trx, organizationId, userId);
          return "removed";
        });
      }),
    createInvitation: (invitation) =>
      guarded(async () => {
        // Expired invitations go as new ones come: the table holds what can still be accepted.
        await db.deleteFrom(t.organizationInvitations).where("expiresAt", "<=", Date.now()).execute();
        const row = {
          ...invitation,
          createdAt: invitation.createdAt.getTime(),
          expiresAt: invitation.expiresAt.getTime(),
        };
        if (dialect === "sqlite") {
          // One statement: the row is added only while the organization exists.
          const { numAffectedRows } = await sql`insert into ${sql.table(t.organizationInvitations)}
            ("id", "organizationId", "email", "role", "invitedBy", "tokenHash", "createdAt", "expiresAt")
            select ${row.id}, ${row.organizationId}, ${row.email}, ${row.role}, ${row.invitedBy}, ${row.tokenHash},
            ${row.createdAt}, ${row.expiresAt}
            where exists (select 1 from ${sql.table(t.organizations)} where "id" = ${row.organizationId})`.execute(db);
          return Number(numAffectedRows ?? 0) === 1 ? "created" : "missing";
        }
        return db.transaction().execute(async (trx) => {
          if (!(await lockOrganization(trx, invitation.organizationId))) return "missing";
          await trx.insertInto(t.organizationInvitations).values(row).execute();
          return "created";
        });
      }),
    getInvitationByToken: (tokenHash, now) =>
      guarded(async () => {
        const row = await db
          .selectFrom(t.organizationInvitations)
          .selectAll()
          .where("tokenHash", "=", tokenHash)
          .where("expiresAt", ">", now.getTime())
          .executeTakeFirst();
        return row ? invitationOf(row as InvitationRow) : null;
      }),
    listInvitations: (organizationId, now) =>
      guarded(async () =>
        (
          await db
            .selectFrom(t.organizationInvitations)
            .selectAll()
            .where("organizationId", "=", organizationId)
            .where("expiresAt", ">", now.getTime())
            .orderBy("createdAt")
            .orderBy("id")
            .execute()
        ).map((row) => invitationOf(row as InvitationRow)),
      ),
    deleteInvitation: (organizationId, id) =>
      guarded(async () => {
        const work = async (trx: AnyKysely) => {
          const row = await trx
            .selectFrom(t.organizationInvitations)
            .selectAll()
            .where("organizationId", "=", organizationId)
            .where("id", "=", id)
            .$call((q) => (dialect === "sqlite" ? q : q.forUpdate()))
            .executeTakeFirst();
          if (!row) return null;
          const { numDeletedRows } = await trx
            .deleteFrom(t.organizationInvitations)
            .where("organizationId", "=", organizationId)
            .where("id", "=", id)
            .executeTakeFirstOrThrow();
          return Number(numDeletedRows) === 1 ? invitationOf(row as InvitationRow) : null;
        };
        return dialect === "sqlite" ? work(db) : db.transaction().execute(work);
      }),
    acceptInvitation: (tokenHash, userId, now) =>
      guarded(async () => {
        const membershipRow = (invitation: Invitation) => ({
          organizationId: invitation.organizationId,
          userId,
          role: invitation.role,
          createdAt: now.getTime(),
        });
        if (dialect === "sqlite") {
          // The delete decides: of many accepts at once, one deletes the row. A failure before the
          // member is added leaves an invitation used up, never a member nobody invited.
          const deleted = await sql<InvitationRow>`delete from ${sql.table(t.organizationInvitations)}
            where "tokenHash" = ${tokenHash} and "expiresAt" > ${now.getTime()} returning *`.execute(db);
          const row = deleted.rows[0];
          if (!row) return null;
          const invitation = invitationOf(row);
          const member = membershipRow(invitation);
          const { numAffectedRows } = await sql`insert into ${sql.table(t.organizationMembers)}
            ("organizationId", "userId", "role", "createdAt")
            select ${member.organizationId}, ${member.userId}, ${member.role}, ${member.createdAt}
            where exists (select 1 from ${sql.table(t.organizations)} where "id" = ${member.organizationId})
            on conflict do nothing`.execute(db);
          if (Number(numAffectedRows ?? 0) === 1) return { outcome: "accepted" as const, invitation };
          return (await roleOf(db, member.organizationId, userId)) === undefined
            ? null
            : { outcome: "exists" as const, invitation };
        }
        // The organization's row first, then the invitation's: the order every change of an
        // organization takes its locks in, so that an accept and a deletion never wait on each other.
        const seen = await db
          .selectFrom(t.organizationInvitations)
          .select("organizationId")
          .where("tokenHash", "=", tokenHash)
          .executeTakeFirst();
        if (!seen) return null;
        return db.transaction().execute(async (trx) => {
          if (!(await lockOrganization(trx, seen.organizationId as string))) return null;
          const row = await trx
            .selectFrom(t.organizationInvitations)
            .selectAll()
            .where("tokenHash", "=", tokenHash)
            .where("expiresAt", ">", now.getTime())
            .forUpdate()
            .executeTakeFirst();
          if (!row) return null;
          const { numDeletedRows } = await trx
            .deleteFrom(t.organizationInvitations)
            .where("tokenHash", "=", tokenHash)
            .executeTakeFirstOrThrow();
          if (Number(numDeletedRows) !== 1) return null;
          const invitation = invitationOf(row as InvitationRow);
          const added = await insertOnce(trx, t.organizationMembers, membershipRow(invitation));
          return { outcome: Number(added.numInsertedOrUpdatedRows ?? 0) === 1 ? "accepted" : "exists", invitation };
        });
      }),
    createTeam: (team) =>
      guarded(async () => {
        const row = { ...team, createdAt: team.createdAt.getTime() };
        const insert = async (trx: AnyKysely) => {
          try {
            await trx.insertInto(t.organizationTeams).values(row).execute();
          } catch (error) {
            if (isDriverError(error, UNIQUE)) return "name-taken" as const;
            throw error;
          }
          return "created" as const;
        };
        if (dialect === "sqlite") {
          // One statement: the row is added only while the organization exists.
          try {
            const { numAffectedRows } = await sql`insert into ${sql.table(t.organizationTeams)}
              ("id", "organizationId", "name", "createdAt")
              select ${row.id}, ${row.organizationId}, ${row.name}, ${row.createdAt}
              where exists (select 1 from ${sql.table(t.organizations)} where "id" = ${row.organizationId})`.execute(
              db,
            );
            return Number(numAffectedRows ?? 0) === 1 ? "created" : "missing";
          } catch (error) {
            if (isDriverError(error, UNIQUE)) return "name-taken";
            throw error;
          }
        }
        // A unique violation would abort a PostgreSQL transaction: the name is checked first, under
        // the organization's lock, which every team change of the organization takes.
        return db.transaction().execute(async (trx) => {
          if (!(await lockOrganization(trx, team.organizationId))) return "missing";
          const taken = await trx
            .selectFrom(t.organizationTeams)
            .select("id")
            .where("organizationId", "=", team.organizationId)
            .where("name", "=", team.name)
            .executeTakeFirst();
          return taken ? "name-taken" : insert(trx);
        });
      }),
    getTeam: (organizationId, teamId) =>
      guarded(async () => {
        const row = await db
          .selectFrom(t.organizationTeams)
          .selectAll()
          .where("organizationId", "=", organizationId)
          .where("id", "=", teamId)
          .executeTakeFirst();
        return row ? teamOf(row as TeamRow) : null;
      }),
    listTeams: (organizationId) =>
      guarded(async () =>
        (
          await db
            .selectFrom(t.organizationTeams)
            .selectAll()
            .where("organizationId", "=", organizationId)
            .orderBy("createdAt")
            .orderBy("id")
            .execute()
        ).map((row) => teamOf(row as TeamRow)),
      ),
    renameTeam: (organizationId, teamId, name) =>
      guarded(async () => {
        const work = async (trx: AnyKysely) => {
          const found = await trx
            .selectFrom(t.organizationTeams)
            .select(["id", "name"])
            .where("organizationId", "=", organizationId)
            .where("id", "=", teamId)
            .executeTakeFirst();
          if (!found) return "missing" as const;
          const taken = await trx
            .selectFrom(t.organizationTeams)
            .select("id")
            .where("organizationId", "=", organizationId)
            .where("name", "=", name)
            .where("id", "!=", teamId)
            .executeTakeFirst();
          if (taken) return "name-taken" as const;
          try {
            await trx
              .updateTable(t.organizationTeams)
              .set({ name })
              .where("organizationId", "=", organizationId)
              .where("id", "=", teamId)
              .execute();
          } catch (error) {
            if (isDriverError(error, UNIQUE)) return "name-taken" as const;
            throw error;
          }
          return "updated" as const;
        };
        if (dialect === "sqlite") return work(db);
        return db.transaction().execute(async (trx) => {
          if (!(await lockOrganization(trx, organizationId))) return "missing";
          return work(trx);
        });
      }),
    deleteTeam: (organizationId, teamId) =>
      guarded(async () => {
        // The team first: members left by a failure in between belong to no team anyone can name.
        const work = async (trx: AnyKysely) => {
          const { numDeletedRows } = await trx
            .deleteFrom(t.organizationTeams)
            .where("organizationId", "=", organizationId)
            .where("id", "=", teamId)
            .executeTakeFirstOrThrow();
          if (Number(numDeletedRows) === 0) return false;
          await trx.deleteFrom(t.organizationTeamMembers).where("teamId", "=", teamId).execute();
          return true;
        };
        return dialect === "sqlite" ? work(db) : db.transaction().execute(work);
      }),
    addTeamMember: (membership) =>
      guarded(async () => {
        const row = { ...membership, createdAt: membership.createdAt.getTime() };
        /** Why nothing was added: no such team, the user not a member, or in the team already. */
        const whyNotAdded = async (trx: AnyKysely) => {
          const team = await trx
            .selectFrom(t.organizationTeams)
            .select("id")
            .where("organizationId", "=", row.organizationId)
            .where("id", "=", row.teamId)
            .executeTakeFirst();
          if (!team) return "missing" as const;
          if ((await roleOf(trx, row.organizationId, row.userId)) === undefined) return "not-member" as const;
          return "exists" as const;
        };
        if (dialect === "sqlite") {
          // One statement: the row is added only while the team and the membership both exist.
          const { numAffectedRows } = await sql`insert into ${sql.table(t.organizationTeamMembers)}
            ("teamId", "userId", "organizationId", "role", "createdAt")
            select ${row.teamId}, ${row.userId}, ${row.organizationId}, ${row.role}, ${row.createdAt}
            where exists (select 1 from ${sql.table(t.organizationTeams)} where "id" = ${row.teamId} and "organizationId" = ${row.organizationId})
            and exists (select 1 from ${sql.table(t.organizationMembers)} where "organizationId" = ${row.organizationId} and "userId" = ${row.userId})
            on conflict do nothing`.execute(db);
          return Number(numAffectedRows ?? 0) === 1 ? "added" : whyNotAdded(db);
        }
        // Under the organization's lock, which a removal from the organization takes too: a member
        // removed at the same moment is either not added, or added and then removed with it.
        return db.transaction().execute(async (trx) => {
          if (!(await lockOrganization(trx, row.organizationId))) return "missing";
          const why = await whyNotAdded(trx);
          if (why !== "exists") return why;
          const added = await insertOnce(trx, t.organizationTeamMembers, row);
          return Number(added.numInsertedOrUpdatedRows ?? 0) === 1 ? "added" : "exists";
        });
      }),
    setTeamRole: (organizationId, teamId, userId, role) =>
      guarded(async () => {
        const { numUpdatedRows } = await db
          .updateTable(t.organizationTeamMembers)
          .set({ role })
          .where("organizationId", "=", organizationId)
          .where("teamId", "=", teamId)
          .where("userId", "=", userId)
          .executeTakeFirstOrThrow();
        return Number(numUpdatedRows) === 1 ? "updated" : "missing";
      }),
    removeTeamMember: (organizationId, teamId, userId) =>
      guarded(async () => {
        const { numDeletedRows } = await db
          .deleteFrom(t.organizationTeamMembers)
          .where("organizationId", "=", organizationId)
          .where("teamId", "=", teamId)
          .where("userId", "=", userId)
          .executeTakeFirstOrThrow();
        return Number(numDeletedRows) === 1;
      }),
    listTeamMembers: (organizationId, teamId) =>
      guarded(async () => {
        const rows = await db
          .selectFrom(`${t.organizationTeamMembers} as tm`)
          .selectAll("tm")
          .where("tm.organizationId", "=", organizationId)
          .where("tm.teamId", "=", teamId)
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom(`${t.organizationMembers} as m`)
                .select("m.userId")
                .whereRef("m.organizationId", "=", "tm.organizationId")
                .whereRef("m.userId", "=", "tm.userId"),
            ),
          )
          .orderBy("tm.createdAt")
          .orderBy("tm.userId")
          .execute();
        return rows.map((row) => teamMembershipOf(row as TeamMemberRow));
      }),
  };
}
