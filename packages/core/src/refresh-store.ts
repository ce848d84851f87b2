/**
 * Where instances of one application coordinate the refresh of a provider's access token: a short
 * lock, so that one instance calls the provider while the others wait, and short-lived records of
 * the outcome, so that a request still carrying the refresh token from before a rotation gets the
 * new tokens instead of replaying the rotated one. Latchkey hashes every key and encrypts every
 * value (with a key derived from the secret) before it reaches the store: the store never sees a
 * token.
 *
 * In memory by default (one process); for several instances, `RedisRefreshStore` of
 * `@latchkey/redis-adapter`, or `SqlRefreshStore` of `@latchkey/sql-adapter` (SQLite, PostgreSQL,
 * MySQL/MariaDB, its table made by `latchkey migrate`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRefreshStore } from "@latchkey/redis-adapter"
 * const config = { providers, accessTokens: { store: RedisRefreshStore(new Redis(), { prefix: "myapp:refresh:" }) } }
 * ```
 * @module refresh-store
 */
/**
 * What the refresh coordination needs of a store. Every method must be atomic across the
 * instances that share the store.
 */
export interface RefreshStore {
  /** Takes the lock `key` for `ttlMs` when nobody holds it (or its holder's time ran out); true when taken. */
  acquire(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Releases the lock `key` if `owner` still holds it. */
  release(key: string, owner: string): Promise<void>;
  /** Stores `value` under `key` for `ttlMs`, replacing any value. */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value under `key`, or null when there is none or it expired. */
  get(key: string): Promise<string | null>;
}

/**
 * A store in this process's memory: enough for one instance. Expired entries are swept as the map
 * is used, and it never holds more than `maxKeys` entries (oldest dropped first).
 *
 * @example
 * ```ts
 * accessTokens: { store: new MemoryRefreshStore() }
 * ```
 */
export class MemoryRefreshStore implements RefreshStore {
  readonly #entries = new Map<string, { value: string; expires: number }>();
  readonly #maxKeys: number;

  constructor(options: { maxKeys?: number } = {}) {
    this.#maxKeys = options.maxKeys ?? 10_000;
  }

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    if (this.#live(`lock:${key}`) !== null) return false;
    this.#set(`lock:${key}`, owner, ttlMs);
    return true;
  }

  async release(key: string, owner: string): Promise<void> {
    if (this.#live(`lock:${key}`) === owner) this.#entries.delete(`lock:${key}`);
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.#set(`value:${key}`, value, ttlMs);
  }

  async get(key: string): Promise<string | null> {
    return this.#live(`value:${key}`);
  }

  #live(key: string): string | null {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    if (entry.expires > Date.now()) return entry.value;
    this.#entries.delete(key);
    return null;
  }

  #set(key: string, value: string, ttlMs: number): void {
    const now = Date.now();
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxKeys) {
      for (const [k, entry] of this.#entries) if (entry.expires <= now) this.#entries.delete(k);
      if (this.#entries.size >= this.#maxKeys) this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(key, { value, expires: now + ttlMs });
  }
}
