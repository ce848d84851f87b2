/**
 * Application-level roles and bans in Redis, for instances that share one.
 * @module admin-store
 */
import type { AdminBan, AdminStore } from "@latchkey/core/admin";
import type { RedisLike } from "./client.js";

// Keys under the prefix: r:<user> the user's role (a string), b:<user> the user's ban (JSON). Every
// script takes the prefix as ARGV[1] and the user as ARGV[2].

// ARGV: prefix, user, has from ('1'/'0'), from, has to ('1'/'0'), to. 1 when the role was `from` and is now `to`.
const SET_ROLE = `
local k = ARGV[1] .. 'r:' .. ARGV[2]
local current = redis.call('GET', k)
if ARGV[3] == '1' then
  if current ~= ARGV[4] then return 0 end
elseif current then
  return 0
end
if ARGV[5] == '1' then redis.call('SET', k, ARGV[6]) else redis.call('DEL', k) end
return 1`;
// ARGV: prefix, user.
const GET_ROLE = "return redis.call('GET', ARGV[1] .. 'r:' .. ARGV[2])";
// ARGV: prefix, user.
const GET_BAN = "return redis.call('GET', ARGV[1] .. 'b:' .. ARGV[2])";
// ARGV: prefix, user, ban JSON.
const SET_BAN = "return redis.call('SET', ARGV[1] .. 'b:' .. ARGV[2], ARGV[3])";
// ARGV: prefix, user.
const REMOVE_BAN = "return redis.call('DEL', ARGV[1] .. 'b:' .. ARGV[2])";

interface StoredBan {
  reason: string | null;
  bannedBy: string;
  bannedAt: number;
  expiresAt: number | null;
}

/**
 * An `AdminStore` (`@latchkey/core/admin`) in Redis: a key per user's role and per ban. A role
 * change is one Lua script comparing the role it expects (of two changes decided on one role, one
 * is applied); an expired ban is read as none and stays until replaced or removed. Sends `EVAL`
 * only. On Redis Cluster, give a `prefix` in one hash slot (`"{latchkey}:admin:"`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAdminStore } from "@latchkey/redis-adapter"
 * const store = RedisAdminStore(new Redis(process.env.REDIS_URL))
 * const admin = Admin({ ...authConfig, admin: { store } }, { admins: { userIds: [process.env.OWNER_ID] } })
 * ```
 */
export function RedisAdminStore(client: Pick<RedisLike, "eval">, options: { prefix?: string } = {}): AdminStore {
  const p = options.prefix ?? "latchkey:admin:";
  return {
    async getRole(userId) {
      const role = await client.eval(GET_ROLE, 0, p, userId);
      return typeof role === "string" ? role : null;
    },
    async setRole(userId, from, to) {
      const flags = [from === null ? "0" : "1", from ?? "", to === null ? "0" : "1", to ?? ""];
      return Number(await client.eval(SET_ROLE, 0, p, userId, ...flags)) === 1;
    },
    async getBan(userId, now) {
      const stored = await client.eval(GET_BAN, 0, p, userId);
      if (typeof stored !== "string") return null;
      const value = JSON.parse(stored) as StoredBan;
      if (value.expiresAt !== null && value.expiresAt <= now.getTime()) return null;
      return {
        userId,
        reason: value.reason,
        bannedBy: value.bannedBy,
        bannedAt: new Date(value.bannedAt),
        expiresAt: value.expiresAt === null ? null : new Date(value.expiresAt),
      } satisfies AdminBan;
    },
    async setBan(ban) {
      const value: StoredBan = {
        reason: ban.reason,
        bannedBy: ban.bannedBy,
        bannedAt: ban.bannedAt.getTime(),
        expiresAt: ban.expiresAt?.getTime() ?? null,
      };
      await client.eval(SET_BAN, 0, p, ban.userId, JSON.stringify(value));
    },
    async removeBan(userId) {
      return Number(await client.eval(REMOVE_BAN, 0, p, userId)) > 0;
    },
  };
}
