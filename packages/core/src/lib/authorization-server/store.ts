/**
 * Where the authorization server keeps what it must share between instances: clients, grants
 * (a user's consent to a client), pending interactions, authorization codes, refresh-token
 * families, opaque access tokens, device codes, used assertion ids and signing keys. The store
 * knows none of these: it keeps records of a kind under an id, with the few atomic operations
 * the server's rules need (insert if absent, take once, compare-and-set by version), and finds or
 * deletes the records of a user, a client or a grant. The server decides what a record means.
 */

/** What the server keeps. A store treats the kind as an opaque name. */
export type AuthorizationRecordKind =
  | "client"
  | "grant"
  | "interaction"
  | "code"
  | "spent-code"
  | "family"
  | "token"
  | "device"
  | "user-code"
  | "jti"
  | "key";

/** One record. `data` is a JSON object the store keeps as it is given (it never reads inside). */
export interface AuthorizationRecord {
  kind: AuthorizationRecordKind;
  id: string;
  data: Record<string, unknown>;
  /** The user it concerns, for {@link AuthorizationStore.find} and {@link AuthorizationStore.deleteWhere}. */
  userId?: string;
  /** The client it concerns (same). */
  clientId?: string;
  /** The grant it belongs to (same). */
  grantId?: string;
  /** Epoch milliseconds after which the record reads as absent (and may be deleted); none: kept until deleted. */
  expiresAt?: number;
  /** Starts at 1; {@link AuthorizationStore.swap} moves it on by one. */
  version: number;
}

/** Which records a {@link AuthorizationStore.find} or {@link AuthorizationStore.deleteWhere} names. */
export type AuthorizationRecordFilter = { userId: string } | { clientId: string } | { grantId: string };

/**
 * The authorization server's store. Latchkey provides `MemoryAuthorizationStore` (one process),
 * `SqlAuthorizationStore` (`@latchkey/sql-adapter`, table `authorization_records` made by
 * `latchkey migrate`) and `RedisAuthorizationStore` (`@latchkey/redis-adapter`). Any object with
 * these methods works if it keeps their promises, which `@latchkey/adapter-test`'s
 * `authorizationStoreSuite` checks (50 calls at once included):
 *
 * - a record past its `expiresAt` is absent for every method;
 * - `add`, `take` and `swap` are atomic across every instance that shares the store: of many
 *   calls at once, exactly one adds, takes or swaps;
 * - every method resolves only once the change is durable, and rejects when the store fails.
 */
export interface AuthorizationStore {
  /** Stores `record` under (kind, id), replacing any record there. */
  set(record: AuthorizationRecord): Promise<void>;
  /** Stores `record` only when no live record has its (kind, id); true when it was stored. */
  add(record: AuthorizationRecord): Promise<boolean>;
  /** The live record of (kind, id), or null. */
  get(kind: AuthorizationRecordKind, id: string): Promise<AuthorizationRecord | null>;
  /** Deletes and returns the live record of (kind, id): of several calls at once, one gets it. */
  take(kind: AuthorizationRecordKind, id: string): Promise<AuthorizationRecord | null>;
  /**
   * Replaces the live record of `record`'s (kind, id) when its version is `record.version - 1`;
   * true when it did. Of several calls at once with the same version, one succeeds.
   */
  swap(record: AuthorizationRecord): Promise<boolean>;
  /** Deletes the record of (kind, id); true when a live one was there. */
  delete(kind: AuthorizationRecordKind, id: string): Promise<boolean>;
  /**
   * The live records of `kind` that `filter` names, or every live record of `kind` without one
   * (asked only of the kinds an operator lists: clients and signing keys).
   */
  find(kind: AuthorizationRecordKind, filter?: AuthorizationRecordFilter): Promise<AuthorizationRecord[]>;
  /** Deletes the records of `kinds` that `filter` names; resolves with how many live ones it deleted. */
  deleteWhere(filter: AuthorizationRecordFilter, kinds: readonly AuthorizationRecordKind[]): Promise<number>;
}

const live = (record: AuthorizationRecord, now: number) => record.expiresAt === undefined || record.expiresAt > now;

/** A deep copy, so that nothing a caller holds changes what is stored (as a real store behaves). */
const copy = (record: AuthorizationRecord): AuthorizationRecord => structuredClone(record);

function matches(record: AuthorizationRecord, filter: AuthorizationRecordFilter): boolean {
  if ("userId" in filter) return record.userId === filter.userId;
  if ("clientId" in filter) return record.clientId === filter.clientId;
  return record.grantId === filter.grantId;
}

/**
 * The authorization server's store in this process's memory: for one instance, tests and the
 * demo. Records past their expiry are dropped as they are met, and swept every minute.
 *
 * @example
 * ```ts
 * const server = AuthorizationServer({ issuer: "https://app.example", auth: config, store: new MemoryAuthorizationStore() })
 * ```
 */
export class MemoryAuthorizationStore implements AuthorizationStore {
  readonly #records = new Map<string, AuthorizationRecord>();
  #lastSweep = Date.now();

  #key(kind: string, id: string): string {
    return `${kind}\u0000${id}`;
  }

  #live(kind: string, id: string, now = Date.now()): AuthorizationRecord | undefined {
    if (now - this.#lastSweep > 60_000) this.#sweep(now);
    const key = this.#key(kind, id);
    const record = this.#records.get(key);
    if (record && !live(record, now)) {
      this.#records.delete(key);
      return undefined;
    }
    return record;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [key, record] of this.#records) if (!live(record, now)) this.#records.delete(key);
  }

  async set(record: AuthorizationRecord): Promise<void> {
    this.#records.set(this.#key(record.kind, record.id), copy(record));
  }

  async add(record: AuthorizationRecord): Promise<boolean> {
    if (this.#live(record.kind, record.id)) return false;
    this.#records.set(this.#key(record.kind, record.id), copy(record));
    return true;
  }

  async get(kind: AuthorizationRecordKind, id: string): Promise<AuthorizationRecord | null> {
    const record = this.#live(kind, id);
    return record ? copy(record) : null;
  }

  async take(kind: AuthorizationRecordKind, id: string): Promise<AuthorizationRecord | null> {
    const record = this.#live(kind, id);
    if (!record) return null;
    this.#records.delete(this.#key(kind, id));
    return record;
  }

  async swap(record: AuthorizationRecord): Promise<boolean> {
    const stored = this.#live(record.kind, record.id);
    if (!stored || stored.version !== record.version - 1) return false;
    this.#records.set(this.#key(record.kind, record.id), copy(record));
    return true;
  }

  async delete(kind: AuthorizationRecordKind, id: string): Promise<boolean> {
    const record = this.#live(kind, id);
    this.#records.delete(this.#key(kind, id));
    return record !== undefined;
  }

  async find(kind: AuthorizationRecordKind, filter?: AuthorizationRecordFilter): Promise<AuthorizationRecord[]> {
    const now = Date.now();
    const found: AuthorizationRecord[] = [];
    for (const record of this.#records.values()) {
      if (record.kind === kind && live(record, now) && (!filter || matches(record, filter))) found.push(copy(record));
    }
    return found;
  }

  async deleteWhere(filter: AuthorizationRecordFilter, kinds: readonly AuthorizationRecordKind[]): Promise<number> {
    const now = Date.now();
    let count = 0;
    for (const [key, record] of this.#records) {
      if (kinds.includes(record.kind) && matches(record, filter)) {
        if (live(record, now)) count++;
        this.#records.delete(key);
      }
    }
    return count;
  }
}
