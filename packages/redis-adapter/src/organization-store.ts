/**
 * Organizations and their members in Redis, for instances that share one.
 * @module organization-store
 */
import type {
  Invitation,
  Membership,
  Organization,
  OrganizationStore,
  Team,
  TeamMembership,
} from "@latchkey/core/organizations";
import type { RedisLike } from "./client.js";

// Keys under the prefix: o:<id> the organization (JSON), s:<slug> its id, m:<id> a hash of its
// members (user id → JSON), u:<user> the set of the user's organizations, i:<token hash> an
// invitation (JSON, expiring with it), n:<id> a hash of the organization's invitations (invitation
// id → token hash), t:<id> a hash of the organization's teams (team id → JSON), tn:<id> a hash of
// their names (name → team id), tm:<team id> a hash of a team's members (user id → JSON). Every script takes the prefix as ARGV[1] and computes its keys.

// ARGV: prefix, organization JSON, id, slug, owner's user id, owner's membership JSON.
const CREATE = `
local p = ARGV[1]
if redis.call('SET', p .. 's:' .. ARGV[4], ARGV[3], 'NX') == false then return 0 end
redis.call('SET', p .. 'o:' .. ARGV[3], ARGV[2])
redis.call('HSET', p .. 'm:' .. ARGV[3], ARGV[5], ARGV[6])
redis.call('SADD', p .. 'u:' .. ARGV[5], ARGV[3])
return 1`;
// ARGV: prefix, slug.
const BY_SLUG = `
local id = redis.call('GET', ARGV[1] .. 's:' .. ARGV[2])
if not id then return false end
return redis.call('GET', ARGV[1] .. 'o:' .. id)`;
// ARGV: prefix, id, name ('' to keep), slug ('' to keep).
const UPDATE = `
local p = ARGV[1]
local stored = redis.call('GET', p .. 'o:' .. ARGV[2])
if not stored then return 'missing' end
local org = cjson.decode(stored)
if ARGV[4] ~= '' and ARGV[4] ~= org.slug then
  if redis.call('SET', p .. 's:' .. ARGV[4], ARGV[2], 'NX') == false then return 'slug-taken' end
  redis.call('DEL', p .. 's:' .. org.slug)
  org.slug = ARGV[4]
end
if ARGV[3] ~= '' then org.name = ARGV[3] end
redis.call('SET', p .. 'o:' .. ARGV[2], cjson.encode(org))
return 'updated'`;
// ARGV: prefix, id.
const DELETE = `
local p = ARGV[1]
local stored = redis.call('GET', p .. 'o:' .. ARGV[2])
if not stored then return 0 end
redis.call('DEL', p .. 's:' .. cjson.decode(stored).slug, p .. 'o:' .. ARGV[2])
for _, user in ipairs(redis.call('HKEYS', p .. 'm:' .. ARGV[2])) do redis.call('SREM', p .. 'u:' .. user, ARGV[2]) end
redis.call('DEL', p .. 'm:' .. ARGV[2])
for _, token in ipairs(redis.call('HVALS', p .. 'n:' .. ARGV[2])) do redis.call('DEL', p .. 'i:' .. token) end
redis.call('DEL', p .. 'n:' .. ARGV[2])
for _, team in ipairs(redis.call('HKEYS', p .. 't:' .. ARGV[2])) do redis.call('DEL', p .. 'tm:' .. team) end
redis.call('DEL', p .. 't:' .. ARGV[2], p .. 'tn:' .. ARGV[2])
return 1`;
// ARGV: prefix, user id. Answers the user's membership JSONs, dropping organizations that are gone.
const MEMBERSHIPS = `
local p = ARGV[1]
local found = {}
for _, id in ipairs(redis.call('SMEMBERS', p .. 'u:' .. ARGV[2])) do
  local m = redis.call('HGET', p .. 'm:' .. id, ARGV[2])
  if m then table.insert(found, m) else redis.call('SREM', p .. 'u:' .. ARGV[2], id) end
end
return found`;
// ARGV: prefix, organization id, user id, membership JSON.
const ADD = `
local p = ARGV[1]
if redis.call('EXISTS', p .. 'o:' .. ARGV[2]) == 0 then return 'missing' end
if redis.call('HSETNX', p .. 'm:' .. ARGV[2], ARGV[3], ARGV[4]) == 0 then return 'exists' end
redis.call('SADD', p .. 'u:' .. ARGV[3], ARGV[2])
return 'added'`;
// What setRole and removeMembership share: the member's current role checked against 'from', and
// whether a member other than the user keeps the owner role.
const MEMBER = `
local p, org, user, from, keep = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local stored = redis.call('HGET', p .. 'm:' .. org, user)
if not stored then return 'missing' end
local member = cjson.decode(stored)
if member.role ~= from then return 'changed' end
local function othersKeep()
  local all = redis.call('HGETALL', p .. 'm:' .. org)
  for i = 1, #all, 2 do
    if all[i] ~= user and cjson.decode(all[i + 1]).role == keep then return true end
  end
  return false
end
`;
// ARGV: prefix, organization id, user id, from, keep, to.
const SET_ROLE = `${MEMBER}
local to = ARGV[6]
if from == keep and to ~= keep and not othersKeep() then return 'last-owner' end
member.role = to
redis.call('HSET', p .. 'm:' .. org, user, cjson.encode(member))
return 'updated'`;
// ARGV: prefix, organization id, user id, from, keep.
const REMOVE = `${MEMBER}
if from == keep and not othersKeep() then return 'last-owner' end
redis.call('HDEL', p .. 'm:' .. org, user)
redis.call('SREM', p .. 'u:' .. user, org)
for _, team in ipairs(redis.call('HKEYS', p .. 't:' .. org)) do redis.call('HDEL', p .. 'tm:' .. team, user) end
return 'removed'`;

// ARGV: prefix, organization id, invitation id, token hash, invitation JSON, milliseconds to live.
const INVITE = `
local p = ARGV[1]
if redis.call('EXISTS', p .. 'o:' .. ARGV[2]) == 0 then return 'missing' end
redis.call('SET', p .. 'i:' .. ARGV[4], ARGV[5], 'PX', ARGV[6])
redis.call('HSET', p .. 'n:' .. ARGV[2], ARGV[3], ARGV[4])
return 'created'`;
// ARGV: prefix, organization id. Answers the invitation JSONs, dropping those that expired.
const INVITATIONS = `
local p = ARGV[1]
local found = {}
local all = redis.call('HGETALL', p .. 'n:' .. ARGV[2])
for i = 1, #all, 2 do
  local stored = redis.call('GET', p .. 'i:' .. all[i + 1])
  if stored then table.insert(found, stored) else redis.call('HDEL', p .. 'n:' .. ARGV[2], all[i]) end
end
return found`;
// ARGV: prefix, organization id, invitation id. Answers the deleted invitation's JSON.
const UNINVITE = `
local p = ARGV[1]
local token = redis.call('HGET', p .. 'n:' .. ARGV[2], ARGV[3])
if not token then return false end
redis.call('HDEL', p .. 'n:' .. ARGV[2], ARGV[3])
local stored = redis.call('GET', p .. 'i:' .. token)
redis.call('DEL', p .. 'i:' .. token)
return stored`;
// ARGV: prefix, token hash, user id, now (epoch milliseconds). Answers { outcome, invitation JSON }.
const ACCEPT = `
local p, token, user, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local stored = redis.call('GET', p .. 'i:' .. token)
if not stored then return false end
local invitation = cjson.decode(stored)
if invitation.expiresAt <= now then return false end
local org = invitation.organizationId
redis.call('DEL', p .. 'i:' .. token)
redis.call('HDEL', p .. 'n:' .. org, invitation.id)
if redis.call('EXISTS', p .. 'o:' .. org) == 0 then return false end
local member = cjson.encode({ organizationId = org, userId = user, role = invitation.role, createdAt = now })
if redis.call('HSETNX', p .. 'm:' .. org, user, member) == 0 then return { 'exists', stored } end
redis.call('SADD', p .. 'u:' .. user, org)
return { 'accepted', stored }`;

// ARGV: prefix, organization id, team id, name, team JSON.
const CREATE_TEAM = `
local p = ARGV[1]
if redis.call('EXISTS', p .. 'o:' .. ARGV[2]) == 0 then return 'missing' end
if redis.call('HSETNX', p .. 'tn:' .. ARGV[2], ARGV[4], ARGV[3]) == 0 then return 'name-taken' end
redis.call('HSET', p .. 't:' .. ARGV[2], ARGV[3], ARGV[5])
return 'created'`;
// ARGV: prefix, organization id, team id, name.
const RENAME_TEAM = `
local p, org, id, name = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local stored = redis.call('HGET', p .. 't:' .. org, id)
if not stored then return 'missing' end
local team = cjson.decode(stored)
if team.name == name then return 'updated' end
if redis.call('HSETNX', p .. 'tn:' .. org, name, id) == 0 then return 'name-taken' end
redis.call('HDEL', p .. 'tn:' .. org, team.name)
team.name = name
redis.call('HSET', p .. 't:' .. org, id, cjson.encode(team))
return 'updated'`;
// ARGV: prefix, organization id, team id.
const DELETE_TEAM = `
local p, org, id = ARGV[1], ARGV[2], ARGV[3]
local stored = redis.call('HGET', p .. 't:' .. org, id)
if not stored then return 0 end
redis.call('HDEL', p .. 'tn:' .. org, cjson.decode(stored).name)
redis.call('HDEL', p .. 't:' .. org, id)
redis.call('DEL', p .. 'tm:' .. id)
return 1`;
// ARGV: prefix, organization id, team id, user id, team membership JSON.
const ADD_TEAM_MEMBER = `
local p, org, id, user = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('HEXISTS', p .. 't:' .. org, id) == 0 then return 'missing' end
if redis.call('HEXISTS', p .. 'm:' .. org, user) == 0 then return 'not-member' end
if redis.call('HSETNX', p .. 'tm:' .. id, user, ARGV[5]) == 0 then return 'exists' end
return 'added'`;
// ARGV: prefix, organization id, team id, user id, role.
const SET_TEAM_ROLE = `
local p, org, id, user = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('HEXISTS', p .. 't:' .. org, id) == 0 then return 'missing' end
local stored = redis.call('HGET', p .. 'tm:' .. id, user)
if not stored then return 'missing' end
local member = cjson.decode(stored)
member.role = ARGV[5]
redis.call('HSET', p .. 'tm:' .. id, user, cjson.encode(member))
return 'updated'`;
// ARGV: prefix, organization id, team id, user id.
const REMOVE_TEAM_MEMBER = `
local p, org, id = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HEXISTS', p .. 't:' .. org, id) == 0 then return 0 end
return redis.call('HDEL', p .. 'tm:' .. id, ARGV[4])`;
// ARGV: prefix, organization id, team id. Answers the JSONs of the team's members.
const TEAM_MEMBERS = `
local p, org, id = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HEXISTS', p .. 't:' .. org, id) == 0 then return {} end
return redis.call('HVALS', p .. 'tm:' .. id)`;

interface StoredOrganization {
  id: string;
  name: string;
  slug: string;
  createdAt: number;
}
interface StoredMembership {
  organizationId: string;
  userId: string;
  role: string;
  createdAt: number;
}

function organizationOf(stored: unknown): Organization | null {
  if (typeof stored !== "string") return null;
  const value = JSON.parse(stored) as StoredOrganization;
  return { id: value.id, name: value.name, slug: value.slug, createdAt: new Date(value.createdAt) };
}
function membershipOf(stored: string): Membership {
  const value = JSON.parse(stored) as StoredMembership;
  return {
    organizationId: value.organizationId,
    userId: value.userId,
    role: value.role,
    createdAt: new Date(value.createdAt),
  };
}
const stored = (m: Membership) =>
  JSON.stringify({
    organizationId: m.organizationId,
    userId: m.userId,
    role: m.role,
    createdAt: m.createdAt.getTime(),
  });
function invitationOf(stored: unknown): Invitation | null {
  if (typeof stored !== "string") return null;
  const value = JSON.parse(stored) as Omit<Invitation, "createdAt" | "expiresAt"> & {
    createdAt: number;
    expiresAt: number;
  };
  return {
    id: value.id,
    organizationId: value.organizationId,
    email: value.email,
    role: value.role,
    invitedBy: value.invitedBy,
    tokenHash: value.tokenHash,
    createdAt: new Date(value.createdAt),
    expiresAt: new Date(value.expiresAt),
  };
}
function teamOf(stored: unknown): Team | null {
  if (typeof stored !== "string") return null;
  const value = JSON.parse(stored) as Omit<Team, "createdAt"> & { createdAt: number };
  return { id: value.id, organizationId: value.organizationId, name: value.name, createdAt: new Date(value.createdAt) };
}
function teamMembershipOf(stored: string): TeamMembership {
  const value = JSON.parse(stored) as Omit<TeamMembership, "createdAt"> & { createdAt: number };
  return {
    teamId: value.teamId,
    organizationId: value.organizationId,
    userId: value.userId,
    role: value.role,
    createdAt: new Date(value.createdAt),
  };
}
const byTimeThen = <T extends { createdAt: Date }>(list: T[], tie: (value: T) => string) =>
  list.sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0),
  );

/**
 * An `OrganizationStore` (`@latchkey/core/organizations`) in Redis: a key per organization, one
 * per slug, a hash of each organization's members and a set of each user's organizations. Every
 * change is one Lua script, so a slug is claimed once and an organization never loses its last
 * owner, whatever the instances do at once. Sends `EVAL` only. The scripts reach keys they compute: on Redis Cluster, give a `prefix` in one hash
 * slot (`"{latchkey}:orgs:"`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisOrganizationStore } from "@latchkey/redis-adapter"
 * const orgs = Organizations(authConfig, { store: RedisOrganizationStore(new Redis(process.env.REDIS_URL)) })
 * ```
 */
export function RedisOrganizationStore(
  client: Pick<RedisLike, "eval">,
  options: { prefix?: string } = {},
): OrganizationStore {
  const p = options.prefix ?? "latchkey:orgs:";
  const text = async (script: string, ...args: string[]) => String(await client.eval(script, 0, p, ...args));
  return {
    async createOrganization(organization, owner) {
      const json = JSON.stringify({ ...organization, createdAt: organization.createdAt.getTime() });
      const created = await client.eval(
        CREATE,
        0,
        p,
        json,
        organization.id,
        organization.slug,
        owner.userId,
        stored(owner),
      );
      return Number(created) === 1 ? "created" : "slug-taken";
    },
    async getOrganization(id) {
      return organizationOf(await client.eval("return redis.call('GET', ARGV[1] .. 'o:' .. ARGV[2])", 0, p, id));
    },
    async getOrganizationBySlug(slug) {
      return organizationOf(await client.eval(BY_SLUG, 0, p, slug));
    },
    async updateOrganization(id, change) {
      return (await text(UPDATE, id, change.name ?? "", change.slug ?? "")) as "updated" | "slug-taken" | "missing";
    },
    async deleteOrganization(id) {
      return Number(await client.eval(DELETE, 0, p, id)) === 1;
    },
    async getMembership(organizationId, userId) {
      const found = await client.eval(
        "return redis.call('HGET', ARGV[1] .. 'm:' .. ARGV[2], ARGV[3])",
        0,
        p,
        organizationId,
        userId,
      );
      return typeof found === "string" ? membershipOf(found) : null;
    },
    async listMembers(organizationId) {
      const all = await client.eval("return redis.call('HVALS', ARGV[1] .. 'm:' .. ARGV[2])", 0, p, organizationId);
      return byTimeThen(
        (Array.isArray(all) ? all : []).map((m) => membershipOf(String(m))),
        (m) => m.userId,
      );
    },
    async listMemberships(userId) {
      const all = await client.eval(MEMBERSHIPS, 0, p, userId);
      return byTimeThen(
        (Array.isArray(all) ? all : []).map((m) => membershipOf(String(m))),
        (m) => m.organizationId,
      );
    },
    async addMembership(membership) {
      return (await text(ADD, membership.organizationId, membership.userId, stored(membership))) as
        | "added"
        | "exists"
        | "missing";
    },
    async setRole(organizationId, userId, from, to, keep) {
      return (await text(SET_ROLE, organizationId, userId, from, keep.role, to)) as
        | "updated"
        | "changed"
        | "missing"
        | "last-owner";
    },
    async removeMembership(organizationId, userId, from, keep) {
      return (await text(REMOVE, organizationId, userId, from, keep.role)) as
        | "removed"
        | "changed"
        | "missing"
        | "last-owner";
    },
    async createInvitation(invitation) {
      const json = JSON.stringify({
        ...invitation,
        createdAt: invitation.createdAt.getTime(),
        expiresAt: invitation.expiresAt.getTime(),
      });
      const ttl = Math.max(1, invitation.expiresAt.getTime() - Date.now());
      return (await text(INVITE, invitation.organizationId, invitation.id, invitation.tokenHash, json, String(ttl))) as
        | "created"
        | "missing";
    },
    async getInvitationByToken(tokenHash, now) {
      const found = invitationOf(
        await client.eval("return redis.call('GET', ARGV[1] .. 'i:' .. ARGV[2])", 0, p, tokenHash),
      );
      return found && found.expiresAt > now ? found : null;
    },
    async listInvitations(organizationId, now) {
      const all = await client.eval(INVITATIONS, 0, p, organizationId);
      return (Array.isArray(all) ? all : [])
        .map((stored) => invitationOf(String(stored)) as Invitation)
        .filter((invitation) => invitation.expiresAt > now)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async deleteInvitation(organizationId, id) {
      return invitationOf(await client.eval(UNINVITE, 0, p, organizationId, id));
    },
    async acceptInvitation(tokenHash, userId, now) {
      const answer = await client.eval(ACCEPT, 0, p, tokenHash, userId, String(now.getTime()));
      if (!Array.isArray(answer)) return null;
      const invitation = invitationOf(String(answer[1]));
      if (!invitation) return null;
      return { outcome: String(answer[0]) === "accepted" ? "accepted" : "exists", invitation };
    },
    async createTeam(team) {
      const json = JSON.stringify({ ...team, createdAt: team.createdAt.getTime() });
      return (await text(CREATE_TEAM, team.organizationId, team.id, team.name, json)) as
        | "created"
        | "name-taken"
        | "missing";
    },
    async getTeam(organizationId, teamId) {
      return teamOf(
        await client.eval(
          "return redis.call('HGET', ARGV[1] .. 't:' .. ARGV[2], ARGV[3])",
          0,
          p,
          organizationId,
          teamId,
        ),
      );
    },
    async listTeams(organizationId) {
      const all = await client.eval("return redis.call('HVALS', ARGV[1] .. 't:' .. ARGV[2])", 0, p, organizationId);
      return byTimeThen(
        (Array.isArray(all) ? all : []).map((stored) => teamOf(String(stored)) as Team),
        (team) => team.id,
      );
    },
    async renameTeam(organizationId, teamId, name) {
      return (await text(RENAME_TEAM, organizationId, teamId, name)) as "updated" | "name-taken" | "missing";
    },
    async deleteTeam(organizationId, teamId) {
      return Number(await client.eval(DELETE_TEAM, 0, p, organizationId, teamId)) === 1;
    },
    async addTeamMember(membership) {
      const json = JSON.stringify({ ...membership, createdAt: membership.createdAt.getTime() });
      return (await text(ADD_TEAM_MEMBER, membership.organizationId, membership.teamId, membership.userId, json)) as
        | "added"
        | "exists"
        | "missing"
        | "not-member";
    },
    async setTeamRole(organizationId, teamId, userId, role) {
      return (await text(SET_TEAM_ROLE, organizationId, teamId, userId, role)) as "updated" | "missing";
    },
    async removeTeamMember(organizationId, teamId, userId) {
      return Number(await client.eval(REMOVE_TEAM_MEMBER, 0, p, organizationId, teamId, userId)) === 1;
    },
    async listTeamMembers(organizationId, teamId) {
      const all = await client.eval(TEAM_MEMBERS, 0, p, organizationId, teamId);
      return byTimeThen(
        (Array.isArray(all) ? all : []).map((stored) => teamMembershipOf(String(stored))),
        (m) => m.userId,
      );
    },
  };
}
