/**
 * A Latchkey adapter over Redis. Sessions and verification tokens expire in Redis itself (`SET
 * ... PXAT` from their `expires`), verification tokens are consumed with `GETDEL`, and each user
 * has sets of its session tokens, accounts and authenticators so that deleting the user deletes
 * them all.
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
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@latchkey/core/adapters";

/** The commands the adapter queues in a `MULTI` transaction. Return values are not used. */
export interface RedisTransaction {
  set(key: string, value: string): unknown;
  /** `SET key value PXAT unixTimeMilliseconds`. */
  set(key: string, value: string, pxat: "PXAT", unixTimeMilliseconds: number): unknown;
  del(...keys: string[]): unknown;
  sadd(key: string, ...members: string[]): unknown;
  srem(key: string, ...members: string[]): unknown;
  /**
   * Runs the queued commands. ioredis resolves `[error, result]` pairs (an error in any pair is
   * thrown by the adapter); other clients may resolve the results or reject.
   */
  exec(): Promise<unknown>;
}

/**
 * The few Redis commands the adapter calls, described structurally so that any client fits.
 * An ioredis `Redis` (or `Cluster`, with a prefix in one hash slot) satisfies it as it is.
 * node-redis (v4/v5) needs a thin wrapper, because its methods are camel-cased and take options
 * objects:
 *
 * @example
 * ```ts
 * import { createClient } from "redis"
 * const client = await createClient({ url: "redis://127.0.0.1:6379" }).connect()
 * const redis: RedisLike = {
 *   get: (key) => client.get(key),
 *   getdel: (key) => client.getDel(key),
 *   smembers: (key) => client.sMembers(key),
 *   set: (key, value) => client.set(key, value, { NX: true }),
 *   multi() {
 *     const multi = client.multi()
 *     return {
 *       set: (key: string, value: string, _pxat?: "PXAT", at?: number) =>
 *         multi.set(key, value, at === undefined ? {} : { PXAT: at }),
 *       del: (...keys: string[]) => multi.del(keys),
 *       sadd: (key: string, ...members: string[]) => multi.sAdd(key, members),
 *       srem: (key: string, ...members: string[]) => multi.sRem(key, members),
 *       exec: () => multi.exec(),
 *     }
 *   },
 * }
 * const adapter = RedisAdapter(redis)
 * ```
 */
export interface RedisLike {
  get(key: string): Promise<string | null>;
  /** `GETDEL key` (Redis 6.2 or later). */
  getdel(key: string): Promise<string | null>;
  smembers(key: string): Promise<string[]>;
  /** `SET key value NX`: resolves `"OK"` when it set the key, `null` when the key existed. */
  set(key: string, value: string, nx: "NX"): Promise<string | null>;
  /** Starts a `MULTI` transaction. */
  multi(): RedisTransaction;
}

/** Options of {@link RedisAdapter}. */
export interface RedisAdapterOptions {
  /**
   * Put in front of every key, to share a database with other data.
   * @default "latchkey:"
   */
  prefix?: string;
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

/**
 * Creates a Latchkey adapter over a Redis client (see {@link RedisLike}). Needs Redis 6.2 or later
 * (`GETDEL`, `SET ... PXAT`). Records are JSON strings; sessions and verification tokens carry a
 * TTL from their `expires`; `useVerificationToken` is one `GETDEL`, so of concurrent calls exactly
 * one wins; `createUser`, `linkAccount` and `createAuthenticator` reject a taken e-mail, account
 * or credential id (`SET ... NX`); every write of a record together with its index entries is one
 * `MULTI`. There is no `transaction()`: Redis has no rollback.
 *
 * @param client An ioredis client, or any object with the commands of {@link RedisLike}.
 * @param options The key prefix.
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAdapter } from "@latchkey/redis-adapter"
 * const adapter = RedisAdapter(new Redis(), { prefix: "myapp:auth:" })
 * ```
 */
export function RedisAdapter(client: RedisLike, options: RedisAdapterOptions = {}): Adapter {
  const key = redisKeys(options.prefix ?? "latchkey:");

  async function getUser(id: string): Promise<AdapterUser | null> {
    const json = await client.get(key.user(id));
    return json ? reviveUser(json) : null;
  }
  async function getSession(sessionToken: string): Promise<AdapterSession | null> {
    const json = await client.get(key.session(sessionToken));
    return json ? reviveWithExpiry<AdapterSession>(json) : null;
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
    async updateUser(patch) {
      const user = await getUser(patch.id);
      if (!user) throw new Error(`@latchkey/redis-adapter: updateUser: no user with id ${patch.id}`);
      const updated: AdapterUser = { ...user, ...defined(patch) };
      const emailChanged = updated.email !== user.email;
      if (emailChanged && updated.email != null) {
        await claim(key.userByEmail(updated.email), updated.id, "a user with this e-mail already exists");
      }
      const transaction = client.multi();
      transaction.set(key.user(updated.id), JSON.stringify(updated));
      if (emailChanged && user.email != null) transaction.del(key.userByEmail(user.email));
      if (emailChanged && updated.email != null) await runOrRelease(transaction, key.userByEmail(updated.email));
      else await run(transaction);
      return updated;
    },
    async deleteUser(userId) {
      const user = await getUser(userId);
      const [sessionTokens, accountKeys, credentialIDs] = await Promise.all([
        client.smembers(key.userSessions(userId)),
        client.smembers(key.userAccounts(userId)),
        client.smembers(key.userAuthenticators(userId)),
      ]);
      const keys = [
        key.user(userId),
        key.userSessions(userId),
        key.userAccounts(userId),
        key.userAuthenticators(userId),
        ...sessionTokens.map(key.session),
        ...accountKeys,
        ...credentialIDs.map(key.authenticator),
      ];
      // The e-mail index only if it still points at this user.
      if (user?.email != null && (await client.get(key.userByEmail(user.email))) === userId) {
        keys.push(key.userByEmail(user.email));
      }
      const transaction = client.multi();
      transaction.del(...keys);
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
    async createSession(session) {
      const transaction = client.multi();
      transaction.set(key.session(session.sessionToken), JSON.stringify(session), "PXAT", session.expires.getTime());
      transaction.sadd(key.userSessions(session.userId), session.sessionToken);
      await run(transaction);
      return { ...session, expires: new Date(session.expires.getTime()) };
    },
    async getSessionAndUser(sessionToken) {
      const session = await getSession(sessionToken);
      // Redis expires the key; this check covers a Redis clock behind the application's.
      if (!session || isExpired(session.expires)) return null;
      const user = await getUser(session.userId);
      return user ? { session, user } : null;
    },
    async updateSession(patch) {
      const session = await getSession(patch.sessionToken);
      if (!session) return null;
      const updated: AdapterSession = { ...session, ...defined(patch) };
      const transaction = client.multi();
      transaction.set(key.session(updated.sessionToken), JSON.stringify(updated), "PXAT", updated.expires.getTime());
      if (updated.userId !== session.userId) {
        transaction.srem(key.userSessions(session.userId), session.sessionToken);
        transaction.sadd(key.userSessions(updated.userId), session.sessionToken);
      }
      await run(transaction);
      return updated;
    },
    async deleteSession(sessionToken) {
      const session = await getSession(sessionToken);
      const transaction = client.multi();
      transaction.del(key.session(sessionToken));
      if (session) transaction.srem(key.userSessions(session.userId), sessionToken);
      await run(transaction);
      return session;
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
    async updateAuthenticatorCounter(credentialID, newCounter) {
      const authenticator = await getAuthenticator(credentialID);
      if (!authenticator) {
        throw new Error(`@latchkey/redis-adapter: updateAuthenticatorCounter: no authenticator ${credentialID}`);
      }
      const updated = { ...authenticator, counter: newCounter };
      const transaction = client.multi();
      transaction.set(key.authenticator(credentialID), JSON.stringify(updated));
      await run(transaction);
      return updated;
    },
  };
}
