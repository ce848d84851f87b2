// MemoryRefreshStore: the refresh coordination of one process, the default of `accessTokens`.
import type { RefreshStore } from "../../shapes/refresh.js";

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
