// The code of @latchkey/core's public module src/memory-adapter.ts (which documents it and re-exports it).
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSecondFactor,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "../../shapes/adapters.js";
import type { StoredAuditEvent } from "../../shapes/audit.js";
import { accountTokenFields, auditEventMatches, isAnonymousAuditEvent } from "./records.js";

/** The maps a {@link MemoryAdapter} stores its records in; pass your own to look inside in tests. */
export interface MemoryStore {
  /** Users by id. */
  users: Map<string, AdapterUser>;
  /** Accounts by {@link memoryAccountKey}. */
  accounts: Map<string, AdapterAccount>;
  /** Sessions by session token. */
  sessions: Map<string, AdapterSession>;
  /** Verification tokens by {@link memoryTokenKey}. */
  verificationTokens: Map<string, VerificationToken>;
  /** Authenticators by credential id. */
  authenticators: Map<string, AdapterAuthenticator>;
  /** Second factors (TOTP) by user id, each with the hashes of its unused backup codes. */
  secondFactors?: Map<string, { record: Omit<AdapterSecondFactor, "backupCodesLeft">; backupCodes: Set<string> }>;
  /**
   * Audit events, oldest first. Those anonymous requests can cause (`isAnonymousAuditEvent`) are
   * at most {@link MEMORY_AUDIT_LIMIT} (over it, the oldest of them is dropped); the others go
   * only with retention.
   */
  auditEvents?: StoredAuditEvent[];
}

/**
 * How many anonymous audit events (failed, limited, locked-out sign-ins) a {@link MemoryAdapter}
 * keeps at most. Only they are dropped by count: a flood of them, or of one user's own sign-ins
 * (which the core bounds per user), never pushes out another account's events.
 */
export const MEMORY_AUDIT_LIMIT = 10_000;

/**
 * Makes an empty {@link MemoryStore}.
 *
 * @example
 * ```ts
 * const store = createMemoryStore()
 * const adapter = MemoryAdapter(store)
 * await adapter.createSession!({ sessionToken: "t", userId: "u", expires: new Date() })
 * store.sessions.has("t") // true
 * ```
 */
export function createMemoryStore(): MemoryStore {
  return {
    users: new Map(),
    accounts: new Map(),
    sessions: new Map(),
    verificationTokens: new Map(),
    authenticators: new Map(),
    secondFactors: new Map(),
    auditEvents: [],
  };
}

/**
 * The key of an account in {@link MemoryStore.accounts}.
 *
 * @example
 * ```ts
 * store.accounts.get(memoryAccountKey("github", "12345"))
 * ```
 */
export function memoryAccountKey(provider: string, providerAccountId: string): string {
  // JSON keeps the pair unambiguous whatever characters the two parts contain.
  return JSON.stringify([provider, providerAccountId]);
}

/**
 * The key of a verification token in {@link MemoryStore.verificationTokens}.
 *
 * @example
 * ```ts
 * store.verificationTokens.has(memoryTokenKey("ada@example.com", hashedToken))
 * ```
 */
export function memoryTokenKey(identifier: string, token: string): string {
  return JSON.stringify([identifier, token]);
}

/** The entries of `patch` that are not `undefined`: an absent field leaves the stored one alone. */
function defined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * What `createSession` answers: the session as Auth.js's adapters answer it, its token, user and
 * expiry. The metadata it was also given (device, times, factors) is stored and read back by
 * `getSessionAndUser` and `listSessions`; Auth.js's adapter suite compares this answer exactly.
 */
function createdSession({ sessionToken, userId, expires }: AdapterSession): AdapterSession {
  return { sessionToken, userId, expires: new Date(expires.getTime()) };
}

function isExpired(record: { expires: Date }): boolean {
  return record.expires.getTime() <= Date.now();
}

/**
 * Creates an adapter over plain `Map`s. Records are copied on the way in and out (callers cannot
 * change stored data by mutating what they passed or got), duplicate e-mails and accounts are
 * rejected as a database's unique indexes would, expired sessions and verification tokens read as
 * missing and are removed, a verification token is deleted by the read that returns it, and
 * deleting a user deletes its sessions, accounts and authenticators. Every method is `async`, so
 * every failure is a rejected promise, never a synchronous throw (as Auth.js's adapter suite expects).
 *
 * **For tests and demos only, not for production.**
 *
 * @param store Where to keep the records; a fresh {@link createMemoryStore} by default.
 * @example
 * ```ts
 * import { MemoryAdapter } from "@latchkey/core/memory-adapter"
 * const adapter = MemoryAdapter()
 * const user = await adapter.createUser!({ id: "1", email: "ada@example.com", emailVerified: null })
 * await adapter.getUserByEmail!("ada@example.com") // { id: "1", ... }
 * ```
 */
export function MemoryAdapter(store: MemoryStore = createMemoryStore()): Adapter {
  const { users, accounts, sessions, verificationTokens, authenticators } = store;
  store.secondFactors ??= new Map();
  const secondFactors = store.secondFactors;
  const copy = <T>(value: T): T => structuredClone(value);
  let auditSequence = 0;
  // How many anonymous events `counted` (the store's array when last counted) holds.
  let counted: StoredAuditEvent[] | undefined;
  let anonymous = 0;
  // Replaced (not changed in place) by deleteAuditEvents, so read through the store each time.
  store.auditEvents ??= [];
  const auditEvents = () => (store.auditEvents ??= []);

  function findUserByEmail(email: string): AdapterUser | undefined {
    for (const user of users.values()) if (user.email === email) return user;
    return undefined;
  }

  return {
    async createUser(user) {
      if (users.has(user.id)) throw new Error(`MemoryAdapter: a user with id ${user.id} already exists`);
      if (user.email != null && findUserByEmail(user.email)) {
        throw new Error("MemoryAdapter: a user with this e-mail already exists");
      }
      users.set(user.id, copy(user));
      return copy(user);
    },
    async getUser(id) {
      const user = users.get(id);
      return user ? copy(user) : null;
    },
    async listUsers({ query, after, limit }) {
      const needle = query?.toLowerCase();
      const holds = (text: string | null | undefined) =>
        typeof text === "string" && text.toLowerCase().includes(needle ?? "");
      return [...users.values()]
        .filter(
          (u) => (after === undefined || u.id > after) && (needle === undefined || holds(u.email) || holds(u.name)),
        )
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit)
        .map(copy);
    },
    async getUserByEmail(email) {
      const user = findUserByEmail(email);
      return user ? copy(user) : null;
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const account = accounts.get(memoryAccountKey(provider, providerAccountId));
      const user = account && users.get(account.userId);
      return user ? copy(user) : null;
    },
    async updateUser(patch) {
      const user = users.get(patch.id);
      if (!user) throw new Error(`MemoryAdapter: no user with id ${patch.id}`);
      if (patch.email != null && patch.email !== user.email) {
        const other = findUserByEmail(patch.email);
        if (other && other.id !== user.id) throw new Error("MemoryAdapter: a user with this e-mail already exists");
      }
      const updated = { ...user, ...defined(copy(patch)) };
      users.set(updated.id, updated);
      return copy(updated);
    },
    async getSecondFactor(userId) {
      const found = secondFactors.get(userId);
      return found ? { ...copy(found.record), backupCodesLeft: found.backupCodes.size } : null;
    },
    async setSecondFactor(record, backupCodes, expected) {
      const { backupCodesLeft: _left, ...stored } = record as AdapterSecondFactor;
      const earlier = secondFactors.get(record.userId);
      // The compare and the set with no await in between.
      if (expected && earlier?.record.active) return false;
      const codes = backupCodes ? new Set(backupCodes) : (earlier?.backupCodes ?? new Set());
      const generation = earlier?.record.generation ?? 0;
      secondFactors.set(record.userId, { record: { ...copy(stored), generation }, backupCodes: codes });
      return true;
    },
    async deleteSecondFactor(userId) {
      secondFactors.delete(userId);
    },
    async useSecondFactorStep(userId, expected, next) {
      // Compare and set with no await in between: of concurrent calls, one sees `expected`.
      const found = secondFactors.get(userId);
      if (!found?.record.active || found.record.lastStep !== expected) return false;
      found.record.lastStep = next;
      return true;
    },
    async endSecondFactorSignIns(userId) {
      const found = secondFactors.get(userId);
      if (found) found.record.generation = (found.record.generation ?? 0) + 1;
    },
    async useBackupCode(userId, codeHash) {
      return secondFactors.get(userId)?.backupCodes.delete(codeHash) ?? false;
    },
    async deleteUser(userId) {
      secondFactors.delete(userId);
      const user = users.get(userId);
      for (const [token, session] of sessions) if (session.userId === userId) sessions.delete(token);
      for (const [key, account] of accounts) if (account.userId === userId) accounts.delete(key);
      for (const [id, authenticator] of authenticators) if (authenticator.userId === userId) authenticators.delete(id);
      users.delete(userId);
      return user ? copy(user) : null;
    },
    async linkAccount(account) {
      const key = memoryAccountKey(account.provider, account.providerAccountId);
      if (accounts.has(key)) throw new Error("MemoryAdapter: this account is already linked");
      accounts.set(key, copy(account));
      return copy(account);
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const key = memoryAccountKey(provider, providerAccountId);
      const account = accounts.get(key);
      accounts.delete(key);
      return account ? copy(account) : undefined;
    },
    async getAccount(providerAccountId, provider) {
      const account = accounts.get(memoryAccountKey(provider, providerAccountId));
      return account ? copy(account) : null;
    },
    async getAccountsByUserId(userId) {
      return [...accounts.values()].filter((a) => a.userId === userId).map(copy);
    },
    async updateAccount({ provider, providerAccountId, ...changes }, expected) {
      // Read, compare and write with no await in between: atomic within the process.
      const key = memoryAccountKey(provider, providerAccountId);
      const account = accounts.get(key);
      if (!account) return null;
      if (expected && (account.refresh_token ?? null) !== expected.refresh_token) return null;
      const updated: AdapterAccount = { ...account };
      for (const field of accountTokenFields) {
        const value = changes[field];
        if (value === null) delete updated[field];
        else if (value !== undefined) Object.assign(updated, { [field]: value });
      }
      accounts.set(key, updated);
      return copy(updated);
    },
    async createSession(session) {
      if (sessions.has(session.sessionToken)) throw new Error("MemoryAdapter: this session token already exists");
      sessions.set(session.sessionToken, copy(session));
      return createdSession(session);
    },
    async getSessionAndUser(sessionToken) {
      const session = sessions.get(sessionToken);
      if (!session) return null;
      if (isExpired(session)) {
        sessions.delete(sessionToken);
        return null;
      }
      const user = users.get(session.userId);
      return user ? { session: copy(session), user: copy(user) } : null;
    },
    async updateSession(patch) {
      const session = sessions.get(patch.sessionToken);
      if (!session) return null;
      const updated = { ...session, ...defined(copy(patch)) };
      sessions.set(updated.sessionToken, updated);
      return copy(updated);
    },
    async deleteSession(sessionToken) {
      const session = sessions.get(sessionToken);
      sessions.delete(sessionToken);
      return session ? copy(session) : null;
    },
    async listSessions(userId) {
      const live: AdapterSession[] = [];
      for (const [token, session] of sessions) {
        if (session.userId !== userId) continue;
        if (isExpired(session)) sessions.delete(token);
        else live.push(copy(session));
      }
      return live;
    },
    async deleteSessions(userId, exceptSessionToken) {
      // No await inside: a concurrent call cannot interleave, so nothing deleted here comes back.
      const deleted: AdapterSession[] = [];
      for (const [token, session] of sessions) {
        if (session.userId !== userId || token === exceptSessionToken) continue;
        sessions.delete(token);
        deleted.push(copy(session));
      }
      return deleted;
    },
    async listAccounts(userId) {
      return [...accounts.values()].filter((account) => account.userId === userId).map(copy);
    },
    async createVerificationToken(token) {
      // Anyone can make the core create a token (a WebAuthn options request needs no session):
      // dropping the expired ones here keeps the map as large as what is still live.
      for (const [key, stored] of verificationTokens) if (isExpired(stored)) verificationTokens.delete(key);
      verificationTokens.set(memoryTokenKey(token.identifier, token.token), copy(token));
      return copy(token);
    },
    async useVerificationToken({ identifier, token }) {
      // Read and delete with no await in between: no other call can run in between.
      const key = memoryTokenKey(identifier, token);
      const found = verificationTokens.get(key);
      verificationTokens.delete(key);
      return found && !isExpired(found) ? copy(found) : null;
    },
    async getAuthenticator(credentialID) {
      const authenticator = authenticators.get(credentialID);
      return authenticator ? copy(authenticator) : null;
    },
    async createAuthenticator(authenticator) {
      if (authenticators.has(authenticator.credentialID)) {
        throw new Error("MemoryAdapter: an authenticator with this credential id already exists");
      }
      authenticators.set(authenticator.credentialID, copy(authenticator));
      return copy(authenticator);
    },
    async deleteAuthenticator(credentialID) {
      const authenticator = authenticators.get(credentialID);
      authenticators.delete(credentialID);
      return authenticator ? copy(authenticator) : null;
    },
    async listAuthenticatorsByUserId(userId) {
      return [...authenticators.values()].filter((a) => a.userId === userId).map(copy);
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      const authenticator = authenticators.get(credentialID);
      if (!authenticator) throw new Error(`MemoryAdapter: no authenticator with credential id ${credentialID}`);
      authenticator.counter = newCounter;
      return copy(authenticator);
    },
    async createAuditEvent(event) {
      const events = auditEvents();
      auditSequence += 1;
      events.push({ ...copy(event), id: String(auditSequence) });
      if (!isAnonymousAuditEvent(event)) return;
      // Only the anonymous side is bounded by count, and only its own oldest goes: a flood of
      // failures never pushes out what happened to an account.
      if (counted !== events) {
        counted = events;
        anonymous = events.filter(isAnonymousAuditEvent).length;
      } else anonymous += 1;
      while (anonymous > MEMORY_AUDIT_LIMIT) {
        events.splice(events.findIndex(isAnonymousAuditEvent), 1);
        anonymous -= 1;
      }
    },
    async deleteAuditEvents(before) {
      const events = auditEvents();
      const kept = events.filter((e) => e.at.getTime() >= before.getTime());
      store.auditEvents = kept;
      return events.length - kept.length;
    },
    async listAuditEvents(filter) {
      const matching = auditEvents().filter((e) => auditEventMatches(e, filter));
      return matching
        .reverse()
        .slice(0, filter.limit ?? 100)
        .map(copy);
    },
  };
}
