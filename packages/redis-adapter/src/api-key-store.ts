/**
 * API keys in Redis, for instances that share one.
 * @module api-key-store
 */
import type { ApiKeyRecord, ApiKeyStore } from "@latchkey/core/api-keys";
import type { RedisLike } from "./client.js";

// Keys under the prefix: k:<id> a hash per key (r: the record's fixed fields as JSON, revokedAt and
// lastUsedAt: epoch milliseconds, absent while unset), u:<user> the set of a user's own keys,
// o:<organization> the set of an organization's keys. Every script takes the prefix as ARGV[1].

// ARGV: prefix, id, record JSON, owner set ('u:<user>' or 'o:<organization>'), revokedAt, lastUsedAt ('' when unset).
const CREATE = `
local k = ARGV[1] .. 'k:' .. ARGV[2]
redis.call('DEL', k)
redis.call('HSET', k, 'r', ARGV[3])
if ARGV[5] ~= '' then redis.call('HSET', k, 'revokedAt', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', k, 'lastUsedAt', ARGV[6]) end
redis.call('SADD', ARGV[1] .. ARGV[4], ARGV[2])`;
// ARGV: prefix, id.
const GET = "return redis.call('HMGET', ARGV[1] .. 'k:' .. ARGV[2], 'r', 'revokedAt', 'lastUsedAt')";
// ARGV: prefix, owner set. Answers each key's three fields in turn.
const LIST = `
local found = {}
for _, id in ipairs(redis.call('SMEMBERS', ARGV[1] .. ARGV[2])) do
  local fields = redis.call('HMGET', ARGV[1] .. 'k:' .. id, 'r', 'revokedAt', 'lastUsedAt')
  if fields[1] then
    for i = 1, 3 do table.insert(found, fields[i] or '') end
  end
end
return found`;
// ARGV: prefix, id, at. 1 when the key was live and is now revoked.
const REVOKE = `
local k = ARGV[1] .. 'k:' .. ARGV[2]
if redis.call('EXISTS', k) == 0 then return 0 end
return redis.call('HSETNX', k, 'revokedAt', ARGV[3])`;
// ARGV: prefix, old id, at, new id, new record JSON, owner set.
const ROTATE = `
local p = ARGV[1]
local old = p .. 'k:' .. ARGV[2]
if redis.call('EXISTS', old) == 0 then return 0 end
if redis.call('HSETNX', old, 'revokedAt', ARGV[3]) == 0 then return 0 end
redis.call('HSET', p .. 'k:' .. ARGV[4], 'r', ARGV[5])
redis.call('SADD', p .. ARGV[6], ARGV[4])
return 1`;
// ARGV: prefix, id, at, before.
const TOUCH = `
local k = ARGV[1] .. 'k:' .. ARGV[2]
if redis.call('EXISTS', k) == 0 then return 0 end
local last = redis.call('HGET', k, 'lastUsedAt')
if last and tonumber(last) >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', k, 'lastUsedAt', ARGV[3])
return 1`;

interface StoredKey {
  id: string;
  hash: string;
  name: string;
  userId: string;
  organizationId: string | null;
  scopes: string[];
  createdAt: number;
  expiresAt: number | null;
  rateLimit: { max: number; windowSeconds: number } | null;
}

const fixed = (record: ApiKeyRecord): string =>
  JSON.stringify({
    id: record.id,
    hash: record.hash,
    name: record.name,
    userId: record.userId,
    organizationId: record.organizationId,
    scopes: record.scopes,
    createdAt: record.createdAt.getTime(),
    expiresAt: record.expiresAt?.getTime() ?? null,
    rateLimit: record.rateLimit,
  } satisfies StoredKey);

const ownerSet = (record: Pick<ApiKeyRecord, "userId" | "organizationId">) =>
  record.organizationId === null ? `u:${record.userId}` : `o:${record.organizationId}`;

const time = (value: unknown) => (typeof value === "string" && value !== "" ? new Date(Number(value)) : null);

function recordOf(r: unknown, revokedAt: unknown, lastUsedAt: unknown): ApiKeyRecord | null {
  if (typeof r !== "string") return null;
  const value = JSON.parse(r) as StoredKey;
  return {
    id: value.id,
    hash: value.hash,
    name: value.name,
    userId: value.userId,
    organizationId: value.organizationId,
    scopes: value.scopes,
    createdAt: new Date(value.createdAt),
    expiresAt: value.expiresAt === null ? null : new Date(value.expiresAt),
    lastUsedAt: time(lastUsedAt),
    revokedAt: time(revokedAt),
    rateLimit: value.rateLimit,
  };
}

/**
 * An `ApiKeyStore` (`@latchkey/core/api-keys`) in Redis: a hash per key and a set of each owner's
 * keys. Every method is one Lua script, so a key is revoked once, a rotation revokes the old key
 * and stores the new one together, and `lastUsedAt` is written only when older than the bound,
 * whatever the instances do at once. Sends `EVAL` only. The scripts reach keys they compute: on
 * Redis Cluster, give a `prefix` in one hash slot (`"{latchkey}:apikeys:"`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisApiKeyStore } from "@latchkey/redis-adapter"
 * const keys = ApiKeys(authConfig, { store: RedisApiKeyStore(new Redis(process.env.REDIS_URL)) })
 * ```
 */
export function RedisApiKeyStore(client: Pick<RedisLike, "eval">, options: { prefix?: string } = {}): ApiKeyStore {
  const p = options.prefix ?? "latchkey:apikeys:";
  return {
    async createApiKey(record) {
      await client.eval(
        CREATE,
        0,
        p,
        record.id,
        fixed(record),
        ownerSet(record),
        record.revokedAt ? String(record.revokedAt.getTime()) : "",
        record.lastUsedAt ? String(record.lastUsedAt.getTime()) : "",
      );
    },
    async getApiKey(id) {
      const fields = await client.eval(GET, 0, p, id);
      return Array.isArray(fields) ? recordOf(fields[0], fields[1], fields[2]) : null;
    },
    async listApiKeys(owner) {
      const set = owner.organizationId !== undefined ? `o:${owner.organizationId}` : `u:${owner.userId}`;
      const flat = await client.eval(LIST, 0, p, set);
      const found: ApiKeyRecord[] = [];
      const fields = Array.isArray(flat) ? flat : [];
      for (let i = 0; i + 2 < fields.length; i += 3) {
        const record = recordOf(fields[i], fields[i + 1], fields[i + 2]);
        if (record) found.push(record);
      }
      return found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    },
    async revokeApiKey(id, at) {
      return Number(await client.eval(REVOKE, 0, p, id, String(at.getTime()))) === 1;
    },
    async rotateApiKey(id, at, replacement) {
      const rotated = await client.eval(
        ROTATE,
        0,
        p,
        id,
        String(at.getTime()),
        replacement.id,
        fixed(replacement),
        ownerSet(replacement),
      );
      return Number(rotated) === 1;
    },
    async touchApiKey(id, at, before) {
      await client.eval(TOUCH, 0, p, id, String(at.getTime()), String(before.getTime()));
    },
  };
}
