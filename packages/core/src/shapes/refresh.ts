// The refresh store's interface (the public face is refresh-store.ts, whose documentation says
// what the store coordinates); the in-memory store is lib/refresh/memory-store.ts.

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
