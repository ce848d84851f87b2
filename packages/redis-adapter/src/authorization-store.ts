/**
 * The authorization server's store in Redis, for instances that share one.
 * @module authorization-store
 */
import type {
  AuthorizationRecord,
  AuthorizationRecordFilter,
  AuthorizationRecordKind,
  AuthorizationStore,
} from "@latchkey/core/authorization-server";
import type { RedisLike } from "./client.js";

// What every script shares: the index keys of a record (every record of its kind, and its user,
// client and grant), removing a stored record from them, and adding one to them (scored by its
// expiry, so that a read prunes the members whose record Redis has expired).
const LIB = `
local function indexes(prefix, rec)
  local base = prefix .. 'i:' .. rec.kind .. ':'
  local keys = { base .. 'a' }
  if type(rec.userId) == 'string' then table.insert(keys, base .. 'u:' .. rec.userId) end
  if type(rec.clientId) == 'string' then table.insert(keys, base .. 'c:' .. rec.clientId) end
  if type(rec.grantId) == 'string' then table.insert(keys, base .. 'g:' .. rec.grantId) end
  return keys
end
local function unindex(prefix, stored)
  if not stored then return end
  local rec = cjson.decode(stored)
  for _, key in ipairs(indexes(prefix, rec)) do redis.call('ZREM', key, rec.id) end
end
local function write(key, prefix, json, expires, now)
  if expires ~= '' and tonumber(expires) <= tonumber(now) then
    redis.call('DEL', key)
    return
  end
  if expires ~= '' then redis.call('SET', key, json, 'PXAT', expires) else redis.call('SET', key, json) end
  local rec = cjson.decode(json)
  local score = expires ~= '' and expires or '+inf'
  for _, index in ipairs(indexes(prefix, rec)) do
    redis.call('ZREMRANGEBYSCORE', index, '-inf', now)
    redis.call('ZADD', index, score, rec.id)
  end
end
`;

// KEYS[1] the record; ARGV: prefix, record JSON, expiry ('' for none), now.
const SET = `${LIB}
unindex(ARGV[1], redis.call('GET', KEYS[1]))
write(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
return 1`;
const ADD = `${LIB}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
write(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
return 1`;
// ARGV[5]: the version the stored record must have.
const SWAP = `${LIB}
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
if tonumber(cjson.decode(stored).version) ~= tonumber(ARGV[5]) then return 0 end
unindex(ARGV[1], stored)
write(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
return 1`;
// KEYS[1] the record; ARGV[1] the prefix. Answers the record taken, or false.
const TAKE = `${LIB}
local stored = redis.call('GET', KEYS[1])
if not stored then return false end
redis.call('DEL', KEYS[1])
unindex(ARGV[1], stored)
return stored`;
// KEYS[1] an index; ARGV: now, the prefix of its kind's records.
const FIND = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local found = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local stored = redis.call('GET', ARGV[2] .. id)
  if stored then table.insert(found, stored) end
end
return found`;
// KEYS[1] an index; ARGV: the prefix, now, the prefix of its kind's records. Answers how many it deleted.
const DELETE_INDEXED = `${LIB}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local stored = redis.call('GET', ARGV[3] .. id)
  if stored then
    redis.call('DEL', ARGV[3] .. id)
    unindex(ARGV[1], stored)
    count = count + 1
  end
end
redis.call('DEL', KEYS[1])
return count`;

function isRecord(value: unknown): value is AuthorizationRecord {
  if (typeof value !== "object" || value === null) return false;
  const { kind, id, data, version } = value as Record<string, unknown>;
  return (
    typeof kind === "string" &&
    typeof id === "string" &&
    typeof data === "object" &&
    data !== null &&
    typeof version === "number"
  );
}

/** A stored JSON string as its record, or null for anything else. */
function parse(stored: unknown): AuthorizationRecord | null {
  if (typeof stored !== "string") return null;
  const value: unknown = JSON.parse(stored);
  return isRecord(value) ? value : null;
}

/**
 * An `AuthorizationStore` (see `@latchkey/core/authorization-server`) in Redis: a key per record
 * (a JSON string, with Redis's own expiry: `PXAT`), and a sorted set per kind and per user, client
 * and grant naming its records, scored by their expiry (a read prunes what expired). Every method
 * is one Lua script, so `add`, `take` and `swap` are atomic whatever the instances do, and an
 * index never names a record another script is changing. Sends `EVAL` only. The scripts reach keys
 * they compute: on Redis Cluster, give a `prefix` in one hash slot (`"{latchkey}:authz:"`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAuthorizationStore } from "@latchkey/redis-adapter"
 * const server = AuthorizationServer({ issuer, auth: config, store: RedisAuthorizationStore(new Redis(process.env.REDIS_URL)) })
 * ```
 */
export function RedisAuthorizationStore(
  client: Pick<RedisLike, "eval">,
  options: { prefix?: string } = {},
): AuthorizationStore {
  const prefix = options.prefix ?? "latchkey:authz:";
  const keyOf = (kind: AuthorizationRecordKind, id: string) => `${prefix}r:${kind}:${id}`;
  const indexOf = (kind: AuthorizationRecordKind, filter?: AuthorizationRecordFilter) => {
    const base = `${prefix}i:${kind}:`;
    if (!filter) return `${base}a`;
    if ("userId" in filter) return `${base}u:${filter.userId}`;
    if ("clientId" in filter) return `${base}c:${filter.clientId}`;
    return `${base}g:${filter.grantId}`;
  };
  const writeArgs = (record: AuthorizationRecord) => [
    prefix,
    JSON.stringify(record),
    record.expiresAt === undefined ? "" : String(Math.ceil(record.expiresAt)),
    String(Date.now()),
  ];
  return {
    async set(record) {
      await client.eval(SET, 1, keyOf(record.kind, record.id), ...writeArgs(record));
    },
    async add(record) {
      return Number(await client.eval(ADD, 1, keyOf(record.kind, record.id), ...writeArgs(record))) === 1;
    },
    async get(kind, id) {
      return parse(await client.eval("return redis.call('GET', KEYS[1])", 1, keyOf(kind, id)));
    },
    async take(kind, id) {
      return parse(await client.eval(TAKE, 1, keyOf(kind, id), prefix));
    },
    async swap(record) {
      return (
        Number(await client.eval(SWAP, 1, keyOf(record.kind, record.id), ...writeArgs(record), record.version - 1)) ===
        1
      );
    },
    async delete(kind, id) {
      return parse(await client.eval(TAKE, 1, keyOf(kind, id), prefix)) !== null;
    },
    async find(kind, filter) {
      const found = await client.eval(FIND, 1, indexOf(kind, filter), String(Date.now()), `${prefix}r:${kind}:`);
      const records: AuthorizationRecord[] = [];
      for (const stored of Array.isArray(found) ? found : []) {
        const record = parse(stored);
        if (record?.kind === kind) records.push(record);
      }
      return records;
    },
    async deleteWhere(filter, kinds) {
      let count = 0;
      for (const kind of kinds) {
        const now = String(Date.now());
        count += Number(
          await client.eval(DELETE_INDEXED, 1, indexOf(kind, filter), prefix, now, `${prefix}r:${kind}:`),
        );
      }
      return count;
    },
  };
}
