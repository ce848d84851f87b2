/**
 * An application's admin tools on behalf of an admin: list and search users, ban and unban, set a
 * user's application-level role. Every function takes the acting user's id first and decides who
 * may act from the server's own facts, read from the store on every call (an `adminUserIds` list in
 * code, or a role in the admin store that is one of `adminRoles`): never from a session or a
 * request, so a role taken away on any instance holds on every other at the next call.
 *
 * The rules: only admins act (anyone else: "forbidden", and a banned admin is no admin); nobody
 * acts on themselves ("self"); the owners (`adminUserIds`) are untouchable, and only an owner bans,
 * or changes the role of, another admin, or makes one ("protected" / "forbidden").
 */

import type { AdapterUser } from "../../shapes/adapters.js";
import type { AdminBan, AdminStore } from "../../shapes/admin.js";
import type { AdminEvent } from "../../shapes/audit.js";
import { recordAudit } from "../audit/record.js";
import { hasMethods } from "../base/adapter-for.js";
import { errorOf, messageOf } from "../base/error-of.js";
import { MissingAdapterMethods, SignOutError, UnsupportedStrategy } from "../base/errors.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig, sessionStrategyOf } from "../config/resolve.js";
import type { ResolvedConfig } from "../config/types.js";
import { isIdentifier, visibleText } from "../organizations/checks.js";
import { revokeUserSessions } from "../session/manage.js";
import { adminStoreOf } from "./config.js";

/** Why a call was refused. */
export type AdminRefusal =
  /** The acting user is no admin (or is banned), or an admin who is no owner tried what only owners may. */
  | "forbidden"
  /** An admin acting on themselves. */
  | "self"
  /** The user is an owner (`adminUserIds`), or an admin and the acting admin is no owner. */
  | "protected"
  /** The ban's reason is not 1 to 500 visible characters. */
  | "invalid-reason"
  /** `expiresAt` is not a valid date in the future. */
  | "invalid-expiry"
  /** The role is not one of `roles`. */
  | "unknown-role"
  /** The search or cursor holds invisible characters or is too long, or the limit is not 1 to 100. */
  | "invalid-query"
  /** The user id is not a non-empty string of at most 255 visible characters. */
  | "invalid-user"
  /** `unban` of a user who is not banned. */
  | "not-found"
  /** The user's role changed while the call was deciding: nothing was written; ask again. */
  | "changed";

/** What a call answers: its value, or why it was refused. */
export type AdminResult<T> = { ok: true; value: T } | { ok: false; reason: AdminRefusal };

/** A user as the admin tools show them: the adapter's record, their role and their ban (if any). */
export interface AdminUserView {
  user: AdapterUser;
  role: string | null;
  ban: AdminBan | null;
}

/** A page of users: `nextCursor` asks for the next one (null on the last). */
export interface AdminUserPage {
  users: AdminUserView[];
  nextCursor: string | null;
}

export interface AdminOptions {
  /** Where roles and bans are kept: the same store as the configuration's `admin: { store }`. @default config.admin.store */
  store?: AdminStore;
  /** Who may act: users holding one of `roles` in the store (default `["admin"]`), and the owners, `userIds`, fixed in code. */
  admins?: { roles?: readonly string[]; userIds?: readonly string[] };
  /** The roles `setRole` may give. @default ["admin", "user"] (with every admin role) */
  roles?: readonly string[];
  /** When given, a ban also revokes every API key of the user (`revokeUserKeys`). */
  apiKeys?: { revokeUserKeys(userId: string): Promise<number> };
  /** Fill unset options of `config` from this environment, as framework packages do. */
  env?: Env;
}

const refused = <T>(reason: AdminRefusal): AdminResult<T> => ({ ok: false, reason });
const done = <T>(value: T): AdminResult<T> => ({ ok: true, value });

/** The acting user's id, which the application takes from the session: anything else is a mistake in its code. */
function actorOf(value: unknown): string {
  if (!isIdentifier(value)) {
    throw new TypeError("admin: the acting user's id must be the session user's id (a non-empty string)");
  }
  return value;
}

const listOf = (value: unknown, name: string): readonly string[] | undefined => {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every(isIdentifier)) {
    throw new TypeError(`Admin: \`${name}\` must be an array of non-empty strings`);
  }
  return value;
};

/**
 * The admin tools of an application: `config` is its configuration (whose `admin: { store }` every
 * sign-in checks, and whose audit trail receives every change).
 *
 * @example
 * ```ts
 * const store = SqlAdminStore(db)
 * const authConfig = { ...rest, admin: { store } }
 * const admin = Admin(authConfig, { store, admins: { userIds: [process.env.OWNER_ID] }, apiKeys: keys })
 * const banned = await admin.ban(session.user.id, userId, { reason: "spam", expiresAt: inAWeek })
 * if (!banned.ok) return new Response(banned.reason, { status: 403 })
 * ```
 */
export function Admin(config: AuthConfig, options: AdminOptions = {}) {
  const configured = adminStoreOf(config);
  const store = options.store ?? configured;
  if (!store || typeof store.getBan !== "function") {
    throw new TypeError(
      "Admin: give the AdminStore in the configuration, `admin: { store }` (MemoryAdminStore(), SqlAdminStore(db), RedisAdminStore(redis)), so that every sign-in refuses a banned user",
    );
  }
  if (configured !== store) {
    throw new TypeError(
      "Admin: the configuration's `admin.store` must be the store given to Admin, or sign-ins would not see its bans: set `admin: { store }` in the configuration",
    );
  }
  const adminRoles = listOf(options.admins?.roles, "admins.roles") ?? ["admin"];
  const owners = listOf(options.admins?.userIds, "admins.userIds") ?? [];
  const roles = new Set([...(listOf(options.roles, "roles") ?? ["admin", "user"]), ...adminRoles]);
  const { apiKeys, env } = options;
  if (apiKeys !== undefined && typeof apiKeys?.revokeUserKeys !== "function") {
    throw new TypeError("Admin: `apiKeys` must be the ApiKeys instance whose keys a ban revokes");
  }

  /** The configuration, resolved before anything is read or written (a mistake is thrown with its fix). */
  const resolved = (): ResolvedConfig => resolveConfig(config, env ?? globalThis.process?.env);
  const audit = (trail: ResolvedConfig, event: Omit<AdminEvent, "at">) =>
    recordAudit(trail, { ...event, at: new Date() } as AdminEvent);
  const isAdminRole = (role: string | null) => role !== null && adminRoles.includes(role);

  /** Whether `userId` may use the admin tools now: an owner, or the holder of an admin role; never while banned. */
  async function mayAct(userId: string): Promise<boolean> {
    if (!owners.includes(userId) && !isAdminRole(await store!.getRole(userId))) return false;
    return (await store!.getBan(userId, new Date())) === null;
  }

  /**
   * Whether the acting admin may act on `targetId` (ban, unban, set its role): "self", "protected"
   * or undefined when allowed; `role` is the target's role, read once for the caller.
   */
  async function standing(actorId: string, targetId: string): Promise<AdminRefusal | { role: string | null }> {
    if (targetId === actorId) return "self";
    if (owners.includes(targetId)) return "protected";
    const role = await store!.getRole(targetId);
    if (isAdminRole(role) && !owners.includes(actorId)) return "protected";
    return { role };
  }

  /** What ending the user's sessions needs, checked before anything is written. */
  function checkSessionsCanEnd(trail: ResolvedConfig): void {
    if (sessionStrategyOf(config) === "jwt") {
      if (!trail.revocation) {
        throw new UnsupportedStrategy(
          "ban needs `session.revocation` with JWT sessions (`session: { revocation: { store } }`, a store every instance shares): without it a signed-in user's session cannot be ended, so nothing was banned.",
        );
      }
    } else if (!hasMethods(trail.adapter, "deleteSessions")) {
      throw new MissingAdapterMethods(
        "ban needs the adapter method deleteSessions to end a user's database sessions (SqlAdapter, RedisAdapter and MemoryAdapter have it), so nothing was banned.",
      );
    }
  }

  return {
    /** True when `userId` may use the admin tools now (for the application's admin pages). */
    async isAdmin(userId: string): Promise<boolean> {
      return isIdentifier(userId) && (await mayAct(userId));
    },

    /**
     * Users ordered by id, `limit` at a time (default 20, at most 100), those whose e-mail or name
     * contains `query` (case aside, taken literally) when it is given; `cursor` is the previous
     * page's `nextCursor`. Needs an adapter with `listUsers` (MemoryAdapter, SqlAdapter): another
     * one throws `MissingAdapterMethods` saying so.
     */
    async listUsers(
      actorId: string,
      input: { query?: string; limit?: number; cursor?: string } = {},
    ): Promise<AdminResult<AdminUserPage>> {
      const userId = actorOf(actorId);
      const trail = resolved();
      const adapter = trail.adapter;
      if (!hasMethods(adapter, "listUsers")) {
        throw new MissingAdapterMethods(
          "listUsers needs an adapter that can list users (the adapter method listUsers): MemoryAdapter and SqlAdapter of @latchkey/sql-adapter have it; an Auth.js adapter does not.",
        );
      }
      const limit = input?.limit ?? 20;
      const query = input?.query === undefined || input.query === "" ? undefined : visibleText(input.query, 200);
      const cursor = input?.cursor;
      if (
        !Number.isInteger(limit) ||
        limit < 1 ||
        limit > 100 ||
        (input?.query !== undefined && input.query !== "" && query === undefined) ||
        (input?.query !== undefined && typeof input.query !== "string") ||
        (cursor !== undefined && !isIdentifier(cursor))
      ) {
        return refused("invalid-query");
      }
      if (!(await mayAct(userId))) return refused("forbidden");
      const found = await adapter.listUsers({
        limit: limit + 1,
        ...(query !== undefined && { query }),
        ...(cursor !== undefined && { after: cursor }),
      });
      const page = found.slice(0, limit);
      const now = new Date();
      const users = await Promise.all(
        page.map(async (user) => ({ user, role: await store.getRole(user.id), ban: await store.getBan(user.id, now) })),
      );
      return done({ users, nextCursor: found.length > limit ? (page.at(-1)?.id ?? null) : null });
    },

    /** The user's role and ban, as an admin sees them. */
    async status(actorId: string, userId: string): Promise<AdminResult<{ role: string | null; ban: AdminBan | null }>> {
      const actor = actorOf(actorId);
      if (!(await mayAct(actor))) return refused("forbidden");
      if (!isIdentifier(userId)) return done({ role: null, ban: null });
      return done({ role: await store.getRole(userId), ban: await store.getBan(userId, new Date()) });
    },

    /**
     * Bans the user: from now on (until `expiresAt`, or `unban`) every sign-in of theirs is refused,
     * and every session they have ends at once on every instance (database sessions deleted, JWT
     * sessions through the revocation list), and with `apiKeys` every API key of theirs is revoked.
     * When the sessions cannot be ended (a store that fails), the ban is undone and the error thrown:
     * nothing was banned, and retrying is safe.
     */
    async ban(
      actorId: string,
      userId: string,
      input: { reason?: string; expiresAt?: Date } = {},
    ): Promise<AdminResult<AdminBan>> {
      const actor = actorOf(actorId);
      const trail = resolved();
      checkSessionsCanEnd(trail);
      if (!isIdentifier(userId)) return refused("invalid-user");
      const reason = input?.reason === undefined ? null : (visibleText(input.reason, 500) ?? false);
      if (reason === false) return refused("invalid-reason");
      const expiresAt = input?.expiresAt;
      if (expiresAt !== undefined && (!(expiresAt instanceof Date) || !(expiresAt.getTime() > Date.now())))
        return refused("invalid-expiry");
      if (!(await mayAct(actor))) return refused("forbidden");
      const standingOf = await standing(actor, userId);
      if (typeof standingOf === "string") return refused(standingOf);
      const ban: AdminBan = {
        userId,
        reason,
        bannedBy: actor,
        bannedAt: new Date(),
        expiresAt: expiresAt ? new Date(expiresAt) : null,
      };
      // The ban first, then the sessions: a sign-in racing it either sees the ban, or its session
      // existed before the sessions were ended (and is ended with them).
      const before = await store.getBan(userId, new Date());
      await store.setBan(ban);
      try {
        await revokeUserSessions(config, userId, { reason: "banned", ...(env && { env }) });
        if (apiKeys) await apiKeys.revokeUserKeys(userId);
      } catch (e) {
        const undone = await (before ? store.setBan(before) : store.removeBan(userId)).then(
          () => true,
          () => false,
        );
        throw new SignOutError(
          undone
            ? `Nothing was banned: the user's sessions or keys could not be ended (${messageOf(e)}). Retrying is safe.`
            : `The ban is stored but the user's sessions or keys could not be ended, and the ban could not be undone (${messageOf(e)}): ban again once the stores answer.`,
          { err: errorOf(e) },
        );
      }
      await audit(trail, {
        type: "admin.user.banned",
        userId: actor,
        targetUserId: userId,
        ...(reason !== null && { reason }),
        ...(ban.expiresAt && { expiresAt: ban.expiresAt }),
      });
      return done(ban);
    },

    /** Lifts the user's ban ("not-found" when they are not banned). */
    async unban(actorId: string, userId: string): Promise<AdminResult<AdminBan>> {
      const actor = actorOf(actorId);
      const trail = resolved();
      if (!(await mayAct(actor))) return refused("forbidden");
      if (!isIdentifier(userId)) return refused("invalid-user");
      const standingOf = await standing(actor, userId);
      if (typeof standingOf === "string") return refused(standingOf);
      const ban = await store.getBan(userId, new Date());
      if (!ban || !(await store.removeBan(userId))) return refused("not-found");
      await audit(trail, { type: "admin.user.unbanned", userId: actor, targetUserId: userId });
      return done(ban);
    },

    /**
     * Gives the user `role` (one of `roles`), or takes their role away (`null`). Giving or taking
     * away an admin role needs an owner.
     */
    async setRole(actorId: string, userId: string, role: string | null): Promise<AdminResult<string | null>> {
      const actor = actorOf(actorId);
      const trail = resolved();
      if (role !== null && (typeof role !== "string" || !roles.has(role))) return refused("unknown-role");
      if (!(await mayAct(actor))) return refused("forbidden");
      if (!isIdentifier(userId)) return refused("invalid-user");
      const standingOf = await standing(actor, userId);
      if (typeof standingOf === "string") return refused(standingOf);
      if (isAdminRole(role) && !owners.includes(actor)) return refused("forbidden");
      const previousRole = standingOf.role;
      // Compare-and-set on the role the rules were checked against: a change meanwhile (an owner
      // making them an admin) is never overwritten by a decision taken before it.
      if (previousRole === role) return done(role);
      if (!(await store.setRole(userId, previousRole, role))) return refused("changed");
      await audit(trail, { type: "admin.role.changed", userId: actor, targetUserId: userId, role, previousRole });
      return done(role);
    },
  };
}

/** What {@link Admin} gives. */
export type AdminApi = ReturnType<typeof Admin>;
