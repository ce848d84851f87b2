/**
 * Where instances of one application coordinate the refresh of a provider's access token: a short
 * lock, so that one instance calls the provider while the others wait, and short-lived records of
 * the outcome, so that a request still carrying the refresh token from before a rotation gets the
 * new tokens instead of replaying the rotated one. Latchkey hashes every key and encrypts every
 * value (with a key derived from the secret) before it reaches the store: the store never sees a
 * token.
 *
 * In memory by default (one process); Redis or PostgreSQL for several instances, or any database of
 * the SQL adapter with `SqlRefreshStore` from `@latchkey/sql-adapter` (SQLite, PostgreSQL,
 * MySQL/MariaDB, its table made by `latchkey migrate`).
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRefreshStore } from "@latchkey/core/refresh-store"
 * const config = { providers, accessTokens: { store: RedisRefreshStore(new Redis(), { prefix: "myapp:refresh:" }) } }
 * ```
 * @module refresh-store
 */
import type { RedisEvalLike } from "./rate-limit.js";

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

// Release deletes the lock only while it still names its owner: a holder whose time ran out must
// not release the lock another instance took since.
const ACQUIRE = `return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;
const PUT = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 0`;
const GET = `return redis.call('GET', KEYS[1])`;

/**
 * A store in Redis, shared by every instance: the lock is `SET NX PX`, released by a
 * compare-and-delete script; records are keys with a TTL. Takes the `EVAL` command as ioredis
 * exposes it (see `RedisEvalLike` in `@latchkey/core/rate-limit` for node-redis).
 *
 * @example
 * ```ts
 * RedisRefreshStore(new Redis(process.env.REDIS_URL), { prefix: "latchkey:refresh:" })
 * ```
 */
export function RedisRefreshStore(client: RedisEvalLike, options: { prefix?: string } = {}): RefreshStore {
  const prefix = options.prefix ?? "latchkey:refresh:";
  const ms = (ttl: number) => Math.max(1, Math.ceil(ttl));
  return {
    async acquire(key, owner, ttlMs) {
      return Number(await client.eval(ACQUIRE, 1, `${prefix}lock:${key}`, owner, ms(ttlMs))) === 1;
    },
    async release(key, owner) {
      await client.eval(RELEASE, 1, `${prefix}lock:${key}`, owner);
    },
    async put(key, value, ttlMs) {
      await client.eval(PUT, 1, `${prefix}value:${key}`, value, ms(ttlMs));
    },
    async get(key) {
      const value = await client.eval(GET, 1, `${prefix}value:${key}`);
      return typeof value === "string" ? value : null;
    },
  };
}

/**
 * The one method the PostgreSQL store calls: `query(text, values)` as a `pg` `Pool` (or `Client`)
 * exposes it.
 */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>>; rowCount?: number | null }>;
}

/**
 * A store in PostgreSQL, shared by every instance, in one table (created when first used; the
 * name is checked to be a plain identifier). The lock is a row: an `INSERT ... ON CONFLICT DO
 * UPDATE ... WHERE` that takes it only when absent or expired, in one statement; records are rows
 * with an expiry every read checks. Expired rows are deleted now and then as the table is used.
 *
 * @example
 * ```ts
 * import pg from "pg"
 * PostgresRefreshStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 * ```
 */
export function PostgresRefreshStore(client: PgQueryable, options: { table?: string } = {}): RefreshStore {
  const table = options.table ?? "latchkey_refresh";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(table)) {
    throw new TypeError(
      `PostgresRefreshStore: \`table\` must be a plain identifier; received ${JSON.stringify(table)}`,
    );
  }
  let ready: Promise<unknown> | undefined;
  const schema = () => {
    ready ??= client
      .query(
        `CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, value text NOT NULL, expires timestamptz NOT NULL)`,
      )
      .catch((e) => {
        // Two instances creating the table at once: PostgreSQL reports the loser's duplicate.
        const code = (e as { code?: string }).code;
        if (code === "23505" || code === "42P07") return;
        ready = undefined; // the next call tries again
        throw e;
      });
    return ready;
  };
  let lastSweep = 0;
  const sweep = async () => {
    if (Date.now() - lastSweep < 60_000) return;
    lastSweep = Date.now();
    await client.query(`DELETE FROM ${table} WHERE expires < now()`);
  };
  return {
    async acquire(key, owner, ttlMs) {
      await schema();
      const taken = await client.query(
        `INSERT INTO ${table} (key, value, expires) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires = EXCLUDED.expires
         WHERE ${table}.expires <= now()
         RETURNING key`,
        [`lock:${key}`, owner, Math.ceil(ttlMs)],
      );
      return taken.rows.length === 1;
    },
    async release(key, owner) {
      await schema();
      await client.query(`DELETE FROM ${table} WHERE key = $1 AND value = $2`, [`lock:${key}`, owner]);
    },
    async put(key, value, ttlMs) {
      await schema();
      await sweep();
      await client.query(
        `INSERT INTO ${table} (key, value, expires) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires = EXCLUDED.expires`,
        [`value:${key}`, value, Math.ceil(ttlMs)],
      );
    },
    async get(key) {
      await schema();
      const found = await client.query(`SELECT value FROM ${table} WHERE key = $1 AND expires > now()`, [
        `value:${key}`,
      ]);
      const value = found.rows[0]?.value;
      return typeof value === "string" ? value : null;
    },
  };
}
