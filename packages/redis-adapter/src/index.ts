/**
 * A Latchkey adapter over Redis. Sessions and verification tokens expire in Redis itself (`SET
 * ... PXAT` from their `expires`), verification tokens are consumed with `GETDEL`, and each user
 * has sets of its session tokens, accounts and authenticators so that deleting the user deletes
 * them all. A second factor (TOTP) is one record and a set of backup-code hashes per user, spent
 * by Lua scripts: a time step and a backup code are each used once, whatever the concurrency.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAdapter } from "@latchkey/redis-adapter"
 * const config = { adapter: RedisAdapter(new Redis("redis://127.0.0.1:6379")), providers, secret }
 * ```
 * @module redis-adapter
 */
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSecondFactor,
  AdapterSession,
  AdapterUser,
  AuditEventFilter,
  StoredAuditEvent,
  VerificationToken,
} from "@latchkey/core/adapters";
import { auditEventMatches, isAnonymousAuditEvent, parseAuditEvent } from "@latchkey/core/adapters";
import type { RedisLike, RedisTransaction } from "./client.js";

export { RedisAdminStore } from "./admin-store.js";
export { RedisApiKeyStore } from "./api-key-store.js";
export { RedisAuthorizationStore } from "./authorization-store.js";
export type { RedisLike, RedisTransaction } from "./client.js";
export { RedisOrganizationStore } from "./organization-store.js";
export { RedisRateLimitStore } from "./rate-limit-store.js";
export { RedisRefreshStore } from "./refresh-store.js";
export { type RedisRevocationOptions, RedisRevocationStore } from "./revocation-store.js";

/** Options of {@link RedisAdapter}. */
export interface RedisAdapterOptions {
  /**
   * Put in front of every key, to share a database with other data.
   * @default "latchkey:"
   */
  prefix?: string;
  /**
   * The length bound of the stream of anonymous events (failed, limited and locked-out sign-ins,
   * which anonymous requests cause at will: `isAnonymousAuditEvent`): every `XADD` to it trims
   * it to about this many entries (`MAXLEN ~`), whatever the time retention. What happened to an
   * account has a stream of its own that no write trims by count, so neither a flood of failures
   * nor another user's loop of sign-ins (which the core bounds per user) ever pushes it out; it
   * goes with retention (`deleteAuditEvents`, `MINID`) only.
   * @default 100000
   */
  auditMaxLength?: number;
}

/**
 * The keys the adapter stores records under, for a prefix. Exported for tests and for tools that
 * inspect or clean a database.
 *
 * @example
 * ```ts
 * const keys = redisKeys("latchkey:")
 * await redis.pttl(keys.session(sessionToken))
 * ```
 */
export function redisKeys(prefix = "latchkey:") {
  const part = encodeURIComponent;
  return {
    user: (id: string) => `${prefix}user:${part(id)}`,
    userByEmail: (email: string) => `${prefix}user-by-email:${part(email)}`,
    account: (provider: string, providerAccountId: string) =>
      `${prefix}account:${part(provider)}:${part(providerAccountId)}`,
    session: (sessionToken: string) => `${prefix}session:${part(sessionToken)}`,
    verificationToken: (identifier: string, token: string) =>
      `${prefix}verification-token:${part(identifier)}:${part(token)}`,
    authenticator: (credentialID: string) => `${prefix}authenticator:${part(credentialID)}`,
    /** Set of the user's session tokens. */
    userSessions: (userId: string) => `${prefix}user-sessions:${part(userId)}`,
    /** Set of the keys of the user's accounts. */
    userAccounts: (userId: string) => `${prefix}user-accounts:${part(userId)}`,
    /** Set of the user's credential ids. */
    userAuthenticators: (userId: string) => `${prefix}user-authenticators:${part(userId)}`,
    /** The user's second factor (TOTP): `{ userId, secret, active, lastStep }` as JSON. */
    secondFactor: (userId: string) => `${prefix}second-factor:${part(userId)}`,
    /** How many times the user's pending second-factor sign-ins were ended (INCR), apart from the record. */
    secondFactorGeneration: (userId: string) => `${prefix}second-factor-generation:${part(userId)}`,
    /** Set of the hashes of the user's unused backup codes. */
    backupCodes: (userId: string) => `${prefix}backup-codes:${part(userId)}`,
    /** The audit trail: a stream whose entries hold the event as JSON in the field `e`. */
    auditEvents: () => `${prefix}audit-events`,
    /** The failed and limited sign-ins of the audit trail: a stream as above, bounded apart. */
    auditFailures: () => `${prefix}audit-failures`,
  };
}

const isExpired = (expires: Date) => expires.getTime() <= Date.now();

function reviveUser(json: string): AdapterUser {
  const user = JSON.parse(json) as AdapterUser & { emailVerified: string | null };
  return { ...user, emailVerified: user.emailVerified == null ? null : new Date(user.emailVerified) };
}
function reviveWithExpiry<T extends { expires: Date }>(json: string): T {
  const record = JSON.parse(json) as T & { expires: string };
  return { ...record, expires: new Date(record.expires) };
}

function reviveSession(json: string): AdapterSession {
  const session = reviveWithExpiry<AdapterSession>(json);
  // Metadata dates are ISO strings in JSON; absent ones stay absent.
  for (const field of ["createdAt", "lastSeenAt"] as const) {
    const value = session[field] as unknown;
    if (typeof value === "string") session[field] = new Date(value);
  }
  return session;
}

/** The entries of `patch` that are not `undefined`: an absent field leaves the stored one alone. */
function defined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Runs a queued transaction and throws the first error it reports. */
async function run(transaction: RedisTransaction): Promise<void> {
  const results = await transaction.exec();
  if (results === null) throw new Error("@latchkey/redis-adapter: the Redis transaction was aborted");
  if (!Array.isArray(results)) return;
  for (const entry of results) {
    if (entry instanceof Error) throw entry;
    if (Array.isArray(entry) && entry[0] instanceof Error) throw entry[0];
  }
}

// Compare-and-set scripts. Each checks that a record still holds the JSON the adapter read (GET of
// a missing key is `false` in Lua, which equals no string) and only then writes, all in one atomic
// step: a concurrent delete makes the write a no-op instead of bringing the record back. They
// answer 1 when they wrote, 0 when the record changed or vanished (the caller reads it again).

/** KEYS: session, old owner's session set, new owner's session set. ARGV: read, new, PXAT, token. */
const updateSessionScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[3])
if KEYS[2] ~= KEYS[3] then
  redis.call('SREM', KEYS[2], ARGV[4])
  redis.call('SADD', KEYS[3], ARGV[4])
end
return 1`;

/**
 * KEYS: user, old e-mail index, new e-mail index (the user key when there is none).
 * ARGV: read, new, user id, "1" to claim the new address, "1" to release the old one.
 * Answers -1 when the new address belongs to another user.
 */
const updateUserScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[4] == '1' then
  local owner = redis.call('GET', KEYS[3])
  if owner and owner ~= ARGV[3] then return -1 end
  redis.call('SET', KEYS[3], ARGV[3])
end
if ARGV[5] == '1' and redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

/** KEYS: record. ARGV: read, new. Keeps no TTL (authenticators have none). */
const replaceScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

/**
 * KEYS: user, e-mail index (the user key when there is none). ARGV: read, user id. Deletes the
 * user and the e-mail index entry if it still points at this user.
 */
const deleteUserScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1`;

/** KEYS: a user's session set, then the key of each listed token. ARGV: the tokens. */
const pruneSessionsScript = `
for i, token in ipairs(ARGV) do
  if redis.call('EXISTS', KEYS[i + 1]) == 0 then redis.call('SREM', KEYS[1], token) end
end
return 1`;

/**
 * KEYS: second factor, backup codes, generation. Answers the record (or false), how many codes are
 * left and the generation (or false).
 */
const readSecondFactorScript = `
return { redis.call('GET', KEYS[1]), redis.call('SCARD', KEYS[2]), redis.call('GET', KEYS[3]) }`;

/** KEYS: second factor, generation. Adds one to the generation of an existing record. */
const endSignInsScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('INCR', KEYS[2])`;

/**
 * KEYS: second factor. ARGV: expected step, next step. Moves `lastStep` of an active record
 * from the expected value to the next one, in one atomic step: of concurrent callers with one
 * expected value exactly one answers 1. Steps are integers far below 2^53, exact in Lua's numbers
 * and in cjson's output.
 */
const useStepScript = `
local json = redis.call('GET', KEYS[1])
if not json then return 0 end
local record = cjson.decode(json)
if record.active ~= true or record.lastStep ~= tonumber(ARGV[1]) then return 0 end
record.lastStep = tonumber(ARGV[2])
redis.call('SET', KEYS[1], cjson.encode(record))
return 1`;

/**
 * KEYS: second factor, backup codes. ARGV: the record's JSON, then whether to replace the backup
 * codes ("1" / "0"), then the codes' hashes. Writes only while there is no record or an inactive
 * one, in one atomic step: a new enrolment never overwrites a factor confirmed meanwhile.
 */
const setInactiveScript = `
local json = redis.call('GET', KEYS[1])
if json and cjson.decode(json).active == true then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  redis.call('DEL', KEYS[2])
  for i = 3, #ARGV do redis.call('SADD', KEYS[2], ARGV[i]) end
end
return 1`;

/** KEYS: backup codes. ARGV: a code's hash. SREM answers 1 for exactly one of concurrent callers. */
// The audit stream, through EVAL so that RedisLike needs no stream commands of its own.
// XADD trims to about ARGV[1] entries as it appends (MAXLEN ~: whole macro nodes, cheap). The
// entry's id is the event's time (ARGV[3] ms, Redis 7), so the retention sweep (MINID) goes by
// it; an event older than the stream's newest entry (concurrent writers) takes the server's time.
const auditAddScript = `
local ok, id = pcall(redis.call, 'XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], ARGV[3] .. '-*', 'e', ARGV[2])
if ok then return id end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[2])`;
// The same without a length bound: the stream of account events, which only retention trims.
const auditAppendScript = `
local ok, id = pcall(redis.call, 'XADD', KEYS[1], ARGV[2] .. '-*', 'e', ARGV[1])
if ok then return id end
return redis.call('XADD', KEYS[1], '*', 'e', ARGV[1])`;
// Deletes every entry older than the id ARGV[1] (the retention sweep).
const auditTrimScript = `return redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])`;
// One page of entries, newest first, from ARGV[1] (an id, "(" for exclusive, or "+").
const auditPageScript = `return redis.call('XREVRANGE', KEYS[1], ARGV[1], '-', 'COUNT', ARGV[2])`;
const auditPage = 500;

/** True when stream entry id `a` ("ms-seq") is newer than `b`. */
function newerId(a: string, b: string): boolean {
  const [am = 0, as = 0] = a.split("-").map(Number);
  const [bm = 0, bs = 0] = b.split("-").map(Number);
  return am !== bm ? am > bm : as > bs;
}

const useBackupCodeScript = `
return redis.call('SREM', KEYS[1], ARGV[1])`;

/**
 * How often a compare-and-set is tried before giving up. Each failed try means another write
 * landed, so this is only reached under a storm of writes to one record.
 */
const maxAttempts = 100;

/** The token fields `updateAccount` writes. */
const accountTokenFields = ["access_token", "refresh_token", "expires_at", "token_type", "scope", "id_token"] as const;

/** Marks a compare-and-set that lost to a concurrent write: read again and retry. */
const changed = Symbol("changed");

/**
 * Runs `attempt` (read, compute, compare-and-set) until it does not answer {@link changed}.
 * Each retry means another call's write landed, so the calls as a whole always progress.
 */
async function retrying<T>(what: string, attempt: () => Promise<T | typeof changed>): Promise<T> {
  for (let tries = 0; tries < maxAttempts; tries++) {
    const result = await attempt();
    if (result !== changed) return result;
  }
  throw new Error(`@latchkey/redis-adapter: ${what}: the record kept changing during ${maxAttempts} attempts`);
}

/**
 * Creates a Latchkey adapter over a Redis client (see {@link RedisLike}). Needs Redis 6.2 or later
 * (`GETDEL`, `SET ... PXAT`). Records are JSON strings; sessions and verification tokens carry a
 * TTL from their `expires`; `useVerificationToken` is one `GETDEL`, so of concurrent calls exactly
 * one wins; `createUser`, `linkAccount` and `createAuthenticator` reject a taken e-mail, account
 * or credential id (`SET ... NX`); every write of a record together with its index entries is one
 * `MULTI`; updates and `deleteUser` are compare-and-set Lua scripts, so an update racing a delete
 * never brings the record back. Expired tokens leave a user's session set when the user signs in
 * again. There is no `transaction()`: Redis has no rollback.
 *
 * @param client An ioredis client, or any object with the adapter's commands of `RedisLike`.
 * @param options The key prefix.
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAdapter } from "@latchkey/redis-adapter"
 * const adapter = RedisAdapter(new Redis(), { prefix: "myapp:auth:" })
 * ```
 */
export function RedisAdapter(
  client: Pick<RedisLike, "get" | "getdel" | "smembers" | "set" | "multi" | "eval">,
  options: RedisAdapterOptions = {},
): Adapter {
  const key = redisKeys(options.prefix ?? "latchkey:");
  const auditMaxLength = options.auditMaxLength ?? 100_000;
  if (!Number.isInteger(auditMaxLength) || auditMaxLength < 1) {
    throw new TypeError("@latchkey/redis-adapter: `auditMaxLength` must be an integer of at least 1");
  }

  async function getUser(id: string): Promise<AdapterUser | null> {
    const json = await client.get(key.user(id));
    return json ? reviveUser(json) : null;
  }
  async function getSession(sessionToken: string): Promise<AdapterSession | null> {
    const json = await client.get(key.session(sessionToken));
    return json ? reviveSession(json) : null;
  }
  async function getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    const json = await client.get(key.authenticator(credentialID));
    return json ? (JSON.parse(json) as AdapterAuthenticator) : null;
  }
  async function getAccount(provider: string, providerAccountId: string): Promise<AdapterAccount | null> {
    const json = await client.get(key.account(provider, providerAccountId));
    return json ? (JSON.parse(json) as AdapterAccount) : null;
  }
  /** Claims a key with `SET NX`, or throws `message` when it is taken. */
  async function claim(claimed: string, value: string, message: string): Promise<void> {
    if ((await client.set(claimed, value, "NX")) === null) throw new Error(`@latchkey/redis-adapter: ${message}`);
  }
  /** Runs `transaction`; when it fails, releases the key claimed before it. */
  async function runOrRelease(transaction: RedisTransaction, claimed: string): Promise<void> {
    try {
      await run(transaction);
    } catch (error) {
      const release = client.multi();
      release.del(claimed);
      await run(release).catch(() => {});
      throw error;
    }
  }
  /** The events of `stream` matching `filter`, newest first, a page at a time (the stream is bounded, so is the walk). */
  async function* matchingEvents(stream: string, filter: AuditEventFilter): AsyncGenerator<StoredAuditEvent> {
    let end = "+";
    for (;;) {
      const page = (await client.eval(auditPageScript, 1, stream, end, auditPage)) as [string, string[]][];
      for (const [id, fields] of page) {
        const event = parseAuditEvent(id, fields[fields.indexOf("e") + 1] ?? "");
        if (event && auditEventMatches(event, filter)) yield event;
        // Stream time is the server's, `at` is Latchkey's: stop only once both are well past.
        if (filter.since && Number(id.split("-")[0]) < filter.since.getTime() - 60_000) return;
      }
      if (page.length < auditPage) return;
      end = `(${(page.at(-1) as [string, string[]])[0]}`;
    }
  }

  return {
    async createUser(user) {
      const json = JSON.stringify(user);
      if (user.email == null) {
        await claim(key.user(user.id), json, `a user with id ${user.id} already exists`);
        return reviveUser(json);
      }
      await claim(key.userByEmail(user.email), user.id, "a user with this e-mail already exists");
      const transaction = client.multi();
      transaction.set(key.user(user.id), json);
      await runOrRelease(transaction, key.userByEmail(user.email));
      return reviveUser(json);
    },
    getUser,
    async getUserByEmail(email) {
      const id = await client.get(key.userByEmail(email));
      return id ? getUser(id) : null;
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const account = await getAccount(provider, providerAccountId);
      return account ? getUser(account.userId) : null;
    },
    updateUser(patch) {
      const userKey = key.user(patch.id);
      return retrying("updateUser", async () => {
        const json = await client.get(userKey);
        if (!json) throw new Error(`@latchkey/redis-adapter: updateUser: no user with id ${patch.id}`);
        const user = reviveUser(json);
        const updated: AdapterUser = { ...user, ...defined(patch) };
        const emailChanged = updated.email !== user.email;
        const claiming = emailChanged && updated.email != null;
        const releasing = emailChanged && user.email != null;
        const written = await client.eval(
          updateUserScript,
          3,
          userKey,
          releasing ? key.userByEmail(user.email) : userKey,
          claiming ? key.userByEmail(updated.email) : userKey,
          json,
          JSON.stringify(updated),
          updated.id,
          claiming ? "1" : "0",
          releasing ? "1" : "0",
        );
        if (Number(written) === -1) throw new Error("@latchkey/redis-adapter: a user with this e-mail already exists");
        return Number(written) === 1 ? updated : changed;
      });
    },
    async deleteUser(userId) {
      const userKey = key.user(userId);
      // The user record and its e-mail index entry go in one compare-and-set, so that an updateUser
      // that moved the address meanwhile cannot leave the new entry pointing at a deleted user.
      const user = await retrying("deleteUser", async () => {
        const json = await client.get(userKey);
        if (!json) return null;
        const found = reviveUser(json);
        const emailKey = found.email != null ? key.userByEmail(found.email) : userKey;
        const deleted = await client.eval(deleteUserScript, 2, userKey, emailKey, json, userId);
        return Number(deleted) === 1 ? found : changed;
      });
      const [sessionTokens, accountKeys, credentialIDs] = await Promise.all([
        client.smembers(key.userSessions(userId)),
        client.smembers(key.userAccounts(userId)),
        client.smembers(key.userAuthenticators(userId)),
      ]);
      const transaction = client.multi();
      transaction.del(
        key.userSessions(userId),
        key.userAccounts(userId),
        key.userAuthenticators(userId),
        key.secondFactor(userId),
        key.secondFactorGeneration(userId),
        key.backupCodes(userId),
        ...sessionTokens.map(key.session),
        ...accountKeys,
        ...credentialIDs.map(key.authenticator),
      );
      await run(transaction);
      return user;
    },
    async linkAccount(account) {
      const accountKey = key.account(account.provider, account.providerAccountId);
      await claim(accountKey, JSON.stringify(account), "this account is already linked");
      const transaction = client.multi();
      transaction.sadd(key.userAccounts(account.userId), accountKey);
      await runOrRelease(transaction, accountKey);
      return account;
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const account = await getAccount(provider, providerAccountId);
      if (!account) return undefined;
      const accountKey = key.account(provider, providerAccountId);
      const transaction = client.multi();
      transaction.del(accountKey);
      transaction.srem(key.userAccounts(account.userId), accountKey);
      await run(transaction);
      return account;
    },
    getAccount: (providerAccountId, provider) => getAccount(provider, providerAccountId),
    async getAccountsByUserId(userId) {
      const keys = await client.smembers(key.userAccounts(userId));
      const found = await Promise.all(keys.map((k) => client.get(k)));
      return found.filter((json): json is string => !!json).map((json) => JSON.parse(json) as AdapterAccount);
    },
    updateAccount({ provider, providerAccountId, ...changes }, expected) {
      const accountKey = key.account(provider, providerAccountId);
      // Compare-and-set on the whole record: the expected refresh token is checked on what was
      // read, and the script writes only if that record is still there unchanged.
      return retrying("updateAccount", async () => {
        const json = await client.get(accountKey);
        if (!json) return null;
        const account = JSON.parse(json) as Record<string, unknown>;
        if (expected && (account.refresh_token ?? null) !== expected.refresh_token) return null;
        for (const field of accountTokenFields) {
          const value = changes[field];
          if (value === null) delete account[field];
          else if (value !== undefined) account[field] = value;
        }
        const written = await client.eval(replaceScript, 1, accountKey, json, JSON.stringify(account));
        return Number(written) === 1 ? (account as unknown as AdapterAccount) : changed;
      });
    },
    async createSession(session) {
      const sessionsKey = key.userSessions(session.userId);
      const transaction = client.multi();
      transaction.set(key.session(session.sessionToken), JSON.stringify(session), "PXAT", session.expires.getTime());
      transaction.sadd(sessionsKey, session.sessionToken);
      await run(transaction);
      // Redis expires session keys but not their tokens in the user's set: drop the tokens whose
      // session is gone, so the set stays as large as the user's live sessions.
      const tokens = (await client.smembers(sessionsKey)).filter((token) => token !== session.sessionToken);
      if (tokens.length > 0) {
        await client.eval(pruneSessionsScript, tokens.length + 1, sessionsKey, ...tokens.map(key.session), ...tokens);
      }
      // Auth.js's answer: token, user and expiry (its adapter suite compares it exactly); the
      // metadata is read back by getSessionAndUser and listSessions.
      return {
        sessionToken: session.sessionToken,
        userId: session.userId,
        expires: new Date(session.expires.getTime()),
      };
    },
    async getSessionAndUser(sessionToken) {
      const session = await getSession(sessionToken);
      // Redis expires the key; this check covers a Redis clock behind the application's.
      if (!session || isExpired(session.expires)) return null;
      const user = await getUser(session.userId);
      return user ? { session, user } : null;
    },
    updateSession(patch) {
      const sessionKey = key.session(patch.sessionToken);
      return retrying("updateSession", async () => {
        const json = await client.get(sessionKey);
        if (!json) return null;
        const session = reviveSession(json);
        const updated: AdapterSession = { ...session, ...defined(patch) };
        const written = await client.eval(
          updateSessionScript,
          3,
          sessionKey,
          key.userSessions(session.userId),
          key.userSessions(updated.userId),
          json,
          JSON.stringify(updated),
          updated.expires.getTime(),
          session.sessionToken,
        );
        return Number(written) === 1 ? updated : changed;
      });
    },
    async deleteSession(sessionToken) {
      const session = await getSession(sessionToken);
      const transaction = client.multi();
      transaction.del(key.session(sessionToken));
      if (session) transaction.srem(key.userSessions(session.userId), sessionToken);
      await run(transaction);
      return session;
    },
    async listSessions(userId) {
      const tokens = await client.smembers(key.userSessions(userId));
      const sessions = await Promise.all(tokens.map(getSession));
      return sessions.filter(
        (session): session is AdapterSession =>
          session !== null && session.userId === userId && !isExpired(session.expires),
      );
    },
    async deleteSessions(userId, exceptSessionToken) {
      const sessionsKey = key.userSessions(userId);
      const tokens = (await client.smembers(sessionsKey)).filter((token) => token !== exceptSessionToken);
      if (tokens.length === 0) return [];
      const found = await Promise.all(tokens.map(getSession));
      // One MULTI: each key is deleted outright, and updateSession's compare-and-set then finds
      // nothing to write, so no revoked session comes back.
      const transaction = client.multi();
      transaction.del(...tokens.map(key.session));
      transaction.srem(sessionsKey, ...tokens);
      await run(transaction);
      return found.filter((session): session is AdapterSession => session !== null && session.userId === userId);
    },
    async listAccounts(userId) {
      const accountKeys = await client.smembers(key.userAccounts(userId));
      const accounts = await Promise.all(
        accountKeys.map(async (accountKey) => {
          const json = await client.get(accountKey);
          return json ? (JSON.parse(json) as AdapterAccount) : null;
        }),
      );
      return accounts.filter((account): account is AdapterAccount => account !== null && account.userId === userId);
    },
    async createVerificationToken(token) {
      const transaction = client.multi();
      transaction.set(
        key.verificationToken(token.identifier, token.token),
        JSON.stringify(token),
        "PXAT",
        token.expires.getTime(),
      );
      await run(transaction);
      return { ...token, expires: new Date(token.expires.getTime()) };
    },
    async useVerificationToken({ identifier, token }) {
      const json = await client.getdel(key.verificationToken(identifier, token));
      if (!json) return null;
      const found = reviveWithExpiry<VerificationToken>(json);
      return isExpired(found.expires) ? null : found;
    },
    getAuthenticator,
    async createAuthenticator(authenticator) {
      const authenticatorKey = key.authenticator(authenticator.credentialID);
      await claim(authenticatorKey, JSON.stringify(authenticator), "an authenticator with this credential id exists");
      const transaction = client.multi();
      transaction.sadd(key.userAuthenticators(authenticator.userId), authenticator.credentialID);
      await runOrRelease(transaction, authenticatorKey);
      return authenticator;
    },
    async listAuthenticatorsByUserId(userId) {
      const credentialIDs = await client.smembers(key.userAuthenticators(userId));
      const authenticators = await Promise.all(credentialIDs.map(getAuthenticator));
      return authenticators.filter((authenticator) => authenticator !== null);
    },
    async deleteAuthenticator(credentialID) {
      const authenticator = await getAuthenticator(credentialID);
      if (!authenticator) return null;
      const transaction = client.multi();
      transaction.del(key.authenticator(credentialID));
      transaction.srem(key.userAuthenticators(authenticator.userId), credentialID);
      await run(transaction);
      return authenticator;
    },
    updateAuthenticatorCounter(credentialID, newCounter) {
      const authenticatorKey = key.authenticator(credentialID);
      return retrying("updateAuthenticatorCounter", async () => {
        const json = await client.get(authenticatorKey);
        if (!json) {
          throw new Error(`@latchkey/redis-adapter: updateAuthenticatorCounter: no authenticator ${credentialID}`);
        }
        const updated = { ...(JSON.parse(json) as AdapterAuthenticator), counter: newCounter };
        const written = await client.eval(replaceScript, 1, authenticatorKey, json, JSON.stringify(updated));
        return Number(written) === 1 ? updated : changed;
      });
    },
    async getSecondFactor(userId) {
      const [json, left, generation] = (await client.eval(
        readSecondFactorScript,
        3,
        key.secondFactor(userId),
        key.backupCodes(userId),
        key.secondFactorGeneration(userId),
      )) as [string | null | false, number, string | null | false];
      if (!json) return null;
      const record = JSON.parse(json) as AdapterSecondFactor;
      return {
        userId: record.userId,
        secret: record.secret,
        active: record.active === true,
        lastStep: Number(record.lastStep),
        backupCodesLeft: Number(left),
        generation: Number(generation || 0),
      };
    },
    async setSecondFactor({ userId, secret, active, lastStep }, backupCodes, expected) {
      const record = JSON.stringify({ userId, secret, active, lastStep });
      if (expected) {
        const keys = [key.secondFactor(userId), key.backupCodes(userId)];
        const args = [record, backupCodes ? "1" : "0", ...(backupCodes ?? [])];
        return Number(await client.eval(setInactiveScript, 2, ...keys, ...args)) === 1;
      }
      // The record and its codes in one MULTI: a reader never sees new codes next to an old secret.
      const transaction = client.multi();
      transaction.set(key.secondFactor(userId), record);
      if (backupCodes) {
        transaction.del(key.backupCodes(userId));
        if (backupCodes.length > 0) transaction.sadd(key.backupCodes(userId), ...backupCodes);
      }
      await run(transaction);
    },
    async deleteSecondFactor(userId) {
      const transaction = client.multi();
      transaction.del(key.secondFactor(userId), key.backupCodes(userId), key.secondFactorGeneration(userId));
      await run(transaction);
    },
    async endSecondFactorSignIns(userId) {
      await client.eval(endSignInsScript, 2, key.secondFactor(userId), key.secondFactorGeneration(userId));
    },
    async useSecondFactorStep(userId, expected, next) {
      return Number(await client.eval(useStepScript, 1, key.secondFactor(userId), expected, next)) === 1;
    },
    async useBackupCode(userId, codeHash) {
      return Number(await client.eval(useBackupCodeScript, 1, key.backupCodes(userId), codeHash)) === 1;
    },
    async createAuditEvent(event) {
      const at = Math.max(0, Math.floor(event.at.getTime()));
      if (isAnonymousAuditEvent(event)) {
        await client.eval(auditAddScript, 1, key.auditFailures(), auditMaxLength, JSON.stringify(event), at);
      } else {
        await client.eval(auditAppendScript, 1, key.auditEvents(), JSON.stringify(event), at);
      }
    },
    async deleteAuditEvents(before) {
      const minId = `${Math.max(0, before.getTime())}-0`;
      const trimmed = await Promise.all(
        [key.auditEvents(), key.auditFailures()].map((stream) => client.eval(auditTrimScript, 1, stream, minId)),
      );
      return trimmed.reduce<number>((sum, n) => sum + Number(n), 0);
    },
    async listAuditEvents(filter) {
      const limit = filter.limit ?? 100;
      // `signin.locked-out` went to the account stream before it counted as anonymous: both are read.
      const streams =
        filter.type === undefined || filter.type === "signin.locked-out"
          ? [key.auditEvents(), key.auditFailures()]
          : [isAnonymousAuditEvent({ type: filter.type }) ? key.auditFailures() : key.auditEvents()];
      // Each stream newest first, merged by entry id (the time the event names).
      const walks = streams.map((stream) => matchingEvents(stream, filter));
      const heads = await Promise.all(walks.map((walk) => walk.next()));
      const found: StoredAuditEvent[] = [];
      while (found.length < limit) {
        let pick: number | undefined;
        for (const [i, head] of heads.entries()) {
          const best = pick === undefined ? undefined : heads[pick];
          if (!head.done && (!best || best.done || newerId(head.value.id, best.value.id))) pick = i;
        }
        const head = pick === undefined ? undefined : heads[pick];
        if (pick === undefined || !head || head.done) break;
        found.push(head.value);
        heads[pick] = await (walks[pick] as AsyncGenerator<StoredAuditEvent>).next();
      }
      await Promise.all(walks.map((walk) => walk.return(undefined)));
      return found;
    },
  };
}
