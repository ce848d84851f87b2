/**
 * Instant revocation of JWT sessions, on every instance at once, with no storage round trip on a
 * session read. Each JWT session carries an id (`sid`) and its sign-in time (`auth_time`), set at
 * sign-in and kept by every re-issue. A revocation (one session, or all of a user's sessions begun
 * before now) is saved in a shared store with a lifetime of the longest session, pushed to every
 * instance (Redis pub/sub, PostgreSQL `LISTEN/NOTIFY`), and checked in each instance's memory.
 * An instance loads the whole list before its first session read, and again after losing the
 * store. `POST /signout` revokes the session it ends.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisRevocationStore, revokeUserSessions } from "@latchkey/core/revocation"
 *
 * const config = {
 *   providers,
 *   session: { revocation: { store: RedisRevocationStore(new Redis(), new Redis()) } },
 * }
 * // after a password change: every session of the user, on every instance
 * await revokeUserSessions(config, user.id)
 * ```
 * @module revocation
 */
import { SignOutError } from "./errors.js";
import type { JWT } from "./jwt.js";
import { recordAudit } from "./lib/audit/record.js";
import { type Env, resolveConfig } from "./lib/config.js";
import { endPendingSignIns } from "./lib/flows/second-factor/pending.js";
import {
  CLOCK_SKEW_MS,
  endingEntry,
  entryLifetimeMs,
  isEntry,
  MAX_HEARTBEAT_MS,
  MemoryRevocationStore,
  sessionIdOf,
} from "./lib/session/revocation-list.js";
import type { RevocationEntry, RevocationListener, RevocationOptions, RevocationStore } from "./shapes/revocation.js";
import type { AuthConfig } from "./types.js";

export {
  MemoryRevocationStore,
  type RevocationEntry,
  type RevocationListener,
  type RevocationOptions,
  type RevocationStore,
};

const processEnv = (): Env | undefined => (globalThis as { process?: { env?: Env } }).process?.env;

function revocationOf(config: AuthConfig, env: Env | undefined) {
  const resolved = resolveConfig(config, env ?? processEnv());
  if (!resolved.revocation) {
    throw new TypeError(
      "Revocation is off in this configuration: set `session.revocation` (JWT sessions) to revoke sessions.",
    );
  }
  return { resolved, list: resolved.revocation.list };
}

/**
 * Saves `entry` on the list; when the store does not take it, records `session.revoke-failed` and
 * throws `SignOutError` (nothing was revoked, not even in this instance's memory; retrying is safe).
 */
async function addOrFail(
  { resolved, list }: ReturnType<typeof revocationOf>,
  entry: RevocationEntry,
  record: { reason: string; sessionId?: string; userId?: string },
): Promise<void> {
  try {
    await list.add(entry);
  } catch (e) {
    await recordAudit(resolved, { type: "session.revoke-failed", at: new Date(), ...record });
    throw new SignOutError(
      `Nothing was revoked: the revocation store did not confirm the entry (${(e as Error).message}). Sessions go on until a retry succeeds; retrying is safe.`,
      { err: e as Error },
    );
  }
}

/**
 * Revokes one JWT session on every instance sharing the store: each of its tokens, the re-issued
 * ones included, reads as signed out from now on. `target` is the session's id (`sid`, as the
 * `jwt` and `session` callbacks see it), its decoded claims, or a session token (the cookie's
 * value). Resolves once the store has it; rejects with `SignOutError` when the store does not
 * confirm it within `timeout` (then nothing was revoked, on any instance, and `session.revoke-failed`
 * is recorded: retry).
 *
 * @example
 * ```ts
 * // "sign out this device" from a list of the user's sessions
 * await revokeJwtSession(config, sessionId)
 * ```
 */
export async function revokeJwtSession(
  config: AuthConfig,
  target: string | JWT,
  options: { env?: Env } = {},
): Promise<void> {
  const { resolved, list } = revocationOf(config, options.env);
  let sid: string | undefined;
  let claims: JWT | undefined;
  if (typeof target === "string" && target.includes(".")) {
    // A session token: opened under either cookie name (http and https origins salt it differently).
    const { decodeSessionToken } = await import("./lib/session/jwt-strategy.js");
    for (const name of new Set([resolved.cookies.http.sessionToken.name, resolved.cookies.https.sessionToken.name])) {
      claims = (await decodeSessionToken(resolved, target, name)) ?? undefined;
      if (claims) {
        sid = sessionIdOf(claims);
        break;
      }
    }
    if (sid === undefined) throw new TypeError("`target` is no open-able session token of this configuration.");
  } else if (typeof target === "string") {
    sid = target;
  } else if (target && typeof target === "object") {
    claims = target;
    sid = sessionIdOf(target);
  }
  if (!sid) throw new TypeError("`target` must be a session id, a session token, or claims with a `sid`.");
  const now = Date.now();
  const expiresAt = now + entryLifetimeMs(resolved.session, resolved.jwt);
  const entry: RevocationEntry =
    claims && resolved.revocation
      ? endingEntry(resolved.revocation, claims, sid, now, expiresAt)
      : { kind: "session", id: sid, before: now, expiresAt };
  const userId = typeof claims?.sub === "string" && claims.sub !== "" ? claims.sub : undefined;
  await addOrFail({ resolved, list }, entry, {
    reason: "revoked",
    sessionId: sid,
    ...(userId !== undefined && { userId }),
  });
  await recordAudit(resolved, { type: "session.revoked", at: new Date(now), sessionId: sid, reason: "revoked" });
}

/**
 * Revokes every JWT session of a user begun before now (or before `options.before`), on every
 * instance sharing the store: "sign out everywhere", or after a password change. The user's
 * pending second-factor sign-ins (a first factor accepted, the code not yet given) end too,
 * whatever `before` says. Compared with the session's sign-in time (`auth_time`, from the clock
 * of the instance the user signed in on), which re-issues keep: "now" is taken 15 s late (the
 * clock skew Latchkey allows between instances), so a session begun just before the call on an
 * instance whose clock runs ahead ends too; a sign-in on an instance that has heard of the
 * revocation (this one at once, the others by push) begins after it and is not affected. An
 * explicit `before` is taken as given. Resolves once the store has it; rejects with
 * `SignOutError` when the store does not confirm it within `timeout` (nothing was revoked, on any
 * instance, and `session.revoke-failed` is recorded: retry).
 *
 * @example
 * ```ts
 * await changePassword(user, newPassword)
 * await revokeUserSessions(config, user.id)
 * ```
 */
export async function revokeUserSessions(
  config: AuthConfig,
  userId: string,
  options: { before?: Date; env?: Env } = {},
): Promise<void> {
  if (typeof userId !== "string" || userId === "") throw new TypeError("`userId` must be a non-empty string.");
  const { resolved, list } = revocationOf(config, options.env);
  const now = Date.now();
  const before = options.before?.valueOf() ?? now + CLOCK_SKEW_MS;
  if (!Number.isFinite(before)) throw new TypeError("`options.before` must be a valid Date.");
  await endPendingSignIns(resolved, userId);
  await addOrFail(
    { resolved, list },
    { kind: "user", id: userId, before, expiresAt: now + entryLifetimeMs(resolved.session, resolved.jwt) },
    { reason: "revoked-all", userId },
  );
  await recordAudit(resolved, { type: "session.revoked", at: new Date(now), userId, reason: "revoked-all" });
}

// ---------------------------------------------------------------- shared by the two stores

/** The wire form of an entry in a push or a stored value. */
function encodeEntry(entry: RevocationEntry): string {
  const { kind, id, before, expiresAt, userId } = entry;
  return JSON.stringify({ k: kind === "session" ? "s" : "u", i: id, b: before, e: expiresAt, u: userId });
}

function decodeEntry(text: string | undefined | null): RevocationEntry | null {
  if (!text) return null;
  try {
    const raw = JSON.parse(text) as { k?: unknown; i?: unknown; b?: unknown; e?: unknown; u?: unknown };
    const entry = {
      kind: raw.k === "s" ? "session" : raw.k === "u" ? "user" : undefined,
      id: raw.i,
      before: raw.b,
      expiresAt: raw.e,
      ...(raw.k === "s" && raw.u !== undefined && { userId: raw.u }),
    };
    return isEntry(entry) ? entry : null;
  } catch {
    return null;
  }
}

function failAfter(ms: number, what: string): { promise: Promise<never>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * `heartbeatMs` of a built-in store: a positive number up to `MAX_HEARTBEAT_MS` (60 s). A lost
 * push channel is reported within two periods, and entries outlive cookies by the margin that
 * covers it (`RevocationStore`): a longer period would let an instance re-issue a revoked
 * session's cookie past the entry's lifetime.
 */
function heartbeatOf(store: string, value: number | undefined): number {
  const ms = value ?? 5000;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms <= 0 || ms > MAX_HEARTBEAT_MS) {
    throw new TypeError(
      `${store}: \`heartbeatMs\` must be a positive number of milliseconds up to ${MAX_HEARTBEAT_MS}; received ${String(value)}`,
    );
  }
  return ms;
}

/**
 * Watches a push connection with a heartbeat: `check` must answer within `heartbeatMs`, or the
 * listener hears `down`; the first answer after that gives `up`. Connection events of the client
 * call `down` / `up` directly; both are reported only on a change.
 */
class Health {
  #up = true;
  #timer: ReturnType<typeof setInterval> | undefined;
  #checking = false;
  constructor(
    private readonly listener: () => RevocationListener | undefined,
    private readonly check: () => Promise<unknown>,
    private readonly heartbeatMs: number,
    private readonly onDown?: () => void,
  ) {}
  start(): void {
    this.#timer ??= setInterval(() => void this.beat(), this.heartbeatMs);
    this.#timer.unref?.();
  }
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
  down(error: Error): void {
    this.onDown?.();
    if (!this.#up) return;
    this.#up = false;
    this.listener()?.down(error);
  }
  up(): void {
    if (this.#up) return;
    this.#up = true;
    this.listener()?.up();
  }
  async beat(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    const limit = failAfter(this.heartbeatMs, "revocation heartbeat");
    try {
      await Promise.race([this.check(), limit.promise]);
      this.up();
    } catch (e) {
      this.down(e as Error);
    } finally {
      limit.cancel();
      this.#checking = false;
    }
  }
}

// ---------------------------------------------------------------- Redis

/** The commands the Redis store sends on its command connection (ioredis's signatures). */
export interface RedisRevocationClient {
  eval(script: string, numKeys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
  scan(
    cursor: string,
    matchToken: "MATCH",
    pattern: string,
    countToken: "COUNT",
    count: number,
  ): Promise<[string, string[]]>;
  mget(...keys: string[]): Promise<Array<string | null>>;
}

/**
 * The connection the Redis store subscribes on (a connection in subscriber mode can send nothing
 * else, hence a second one), as ioredis exposes it: `subscribe`, `ping`, and the `message`,
 * `close` and `ready` events (ioredis subscribes again by itself after a reconnection).
 */
export interface RedisRevocationSubscriber {
  /** ioredis's connection status ("connect": connected, its ready check not answered yet). */
  readonly status?: string;
  subscribe(channel: string): Promise<unknown>;
  unsubscribe?(channel: string): Promise<unknown>;
  ping(): Promise<unknown>;
  on(event: "message", listener: (channel: string, message: string) => void): unknown;
  on(event: "close" | "ready", listener: () => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: matches the listener type of Node's EventEmitter
  removeListener?(event: string, listener: (...args: any[]) => void): unknown;
}

/** Options of {@link RedisRevocationStore}. */
export interface RedisRevocationOptions {
  /** Prefix of the entries' keys. @default "latchkey:revoked:" */
  prefix?: string;
  /** The pub/sub channel. @default "latchkey:revocations" */
  channel?: string;
  /** Milliseconds between checks that the subscriber connection answers (at most 60,000). @default 5000 */
  heartbeatMs?: number;
}

/** Resolves on the connection's next `ready` event. */
function readyOf(subscriber: RedisRevocationSubscriber): Promise<void> {
  return new Promise((resolve) => {
    const ready = () => {
      subscriber.removeListener?.("ready", ready);
      resolve();
    };
    subscriber.on("ready", ready);
  });
}

// Saves the entry merged with the stored one, each of `before` and `expiresAt` the later of the two
// (a user's entry only moves forward: an older sign-in time with a later expiry must not replace a
// later revocation), and publishes what is stored, in one script: no instance sees a push whose
// entry is not saved.
const SAVE_AND_PUBLISH = `local value = ARGV[1]
local ttl = ARGV[5]
local current = redis.call('GET', KEYS[1])
if current then
  local bs = string.match(current, '"b":(%d+)')
  local es = string.match(current, '"e":(%d+)')
  if bs and es then
    local keepB = tonumber(bs) >= tonumber(ARGV[2])
    local keepE = tonumber(es) >= tonumber(ARGV[3])
    if keepB and keepE then
      redis.call('PUBLISH', ARGV[4], current)
      return 0
    end
    if keepB then value = (string.gsub(value, '"b":%d+', '"b":' .. bs, 1)) end
    if keepE then
      value = (string.gsub(value, '"e":%d+', '"e":' .. es, 1))
      local left = redis.call('PTTL', KEYS[1])
      if left > 0 then ttl = left end
    end
  end
end
redis.call('SET', KEYS[1], value, 'PX', ttl)
redis.call('PUBLISH', ARGV[4], value)
return 1`;

/**
 * A revocation list in Redis: one key per entry, expiring with it, and a pub/sub channel for the
 * pushes. `client` runs commands; `subscriber` is a second connection for the channel (ioredis:
 * `new Redis(url)` twice, or `client.duplicate()`). Neither is closed by `close()`.
 *
 * @example
 * ```ts
 * const redis = new Redis(process.env.REDIS_URL)
 * const store = RedisRevocationStore(redis, redis.duplicate(), { prefix: "myapp:revoked:" })
 * ```
 */
export function RedisRevocationStore(
  client: RedisRevocationClient,
  subscriber: RedisRevocationSubscriber,
  options: RedisRevocationOptions = {},
): RevocationStore {
  const prefix = options.prefix ?? "latchkey:revoked:";
  const channel = options.channel ?? "latchkey:revocations";
  let listener: RevocationListener | undefined;
  let subscribed = false;
  let attached = false;
  const health = new Health(
    () => listener,
    () => subscriber.ping(),
    heartbeatOf("RedisRevocationStore", options.heartbeatMs),
  );
  const keyOf = (entry: RevocationEntry) => `${prefix}${entry.kind === "session" ? "s" : "u"}:${entry.id}`;
  const onMessage = (from: string, message: string) => {
    if (from !== channel) return;
    const entry = decodeEntry(message);
    if (entry) listener?.entry(entry);
  };
  const onClose = () => health.down(new Error("the Redis subscriber connection closed"));
  // ioredis re-subscribes on "ready"; pushes sent meanwhile are lost, which `up` makes the list reload for.
  const onReady = () => health.up();
  return {
    async add(entry) {
      const ttl = Math.max(1, Math.ceil(entry.expiresAt - Date.now()));
      await client.eval(
        SAVE_AND_PUBLISH,
        1,
        keyOf(entry),
        encodeEntry(entry),
        entry.before,
        entry.expiresAt,
        channel,
        ttl,
      );
    },
    async load() {
      const entries: RevocationEntry[] = [];
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        cursor = String(next);
        if (keys.length === 0) continue;
        const values = await client.mget(...keys);
        for (const value of values) {
          const entry = decodeEntry(value);
          if (entry) entries.push(entry);
        }
      } while (cursor !== "0");
      return entries;
    },
    async subscribe(next) {
      listener = next;
      if (subscribed) return;
      // Once, even when an attempt before this one failed (or timed out) after attaching them.
      if (!attached) {
        subscriber.on("message", onMessage);
        subscriber.on("close", onClose);
        subscriber.on("ready", onReady);
        attached = true;
      }
      // ioredis checks a new connection (INFO) before it calls it ready. A SUBSCRIBE written in
      // between puts the connection in subscriber mode, the check then fails and ioredis
      // reconnects: the channel is lost as it starts, and the instance refuses its first reads.
      // Subscribe once the check has passed (commands sent before connecting wait in its queue).
      if (subscriber.status === "connect") await readyOf(subscriber);
      await subscriber.subscribe(channel);
      subscribed = true;
      health.start();
    },
    async close() {
      health.stop();
      listener = undefined;
      subscriber.removeListener?.("message", onMessage);
      subscriber.removeListener?.("close", onClose);
      subscriber.removeListener?.("ready", onReady);
      attached = false;
      if (subscribed) await subscriber.unsubscribe?.(channel).catch(() => {});
      subscribed = false;
    },
  };
}

// ---------------------------------------------------------------- PostgreSQL

/** A `pg` client taken from the pool: the one the store LISTENs on. */
export interface PgRevocationClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", listener: (error?: Error) => void): unknown;
  removeAllListeners?(event?: string): unknown;
  release(destroy?: boolean | Error): void;
}

/** The `pg.Pool` methods the PostgreSQL store uses. */
export interface PgRevocationPool {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  connect(): Promise<PgRevocationClient>;
}

/** Options of {@link PostgresRevocationStore}. */
export interface PostgresRevocationOptions {
  /** The table (created if missing). @default "latchkey_revocations" */
  table?: string;
  /** The `LISTEN/NOTIFY` channel. @default "latchkey_revocations" */
  channel?: string;
  /** Milliseconds between checks that the listening connection answers (at most 60,000). @default 5000 */
  heartbeatMs?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A revocation list in PostgreSQL: a table (created on first use) whose rows expire with their
 * entries (expired rows are deleted on each load), and `LISTEN/NOTIFY` for the pushes, on one
 * connection the store keeps from `pool` (reconnected after a failure). The pool is not ended by
 * `close()`.
 *
 * @example
 * ```ts
 * import pg from "pg"
 * const store = PostgresRevocationStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 * ```
 */
export function PostgresRevocationStore(
  pool: PgRevocationPool,
  options: PostgresRevocationOptions = {},
): RevocationStore {
  const table = options.table ?? "latchkey_revocations";
  const channel = options.channel ?? "latchkey_revocations";
  for (const [name, value] of [
    ["table", table],
    ["channel", channel],
  ] as const) {
    if (!IDENTIFIER.test(value)) {
      throw new TypeError(
        `PostgresRevocationStore: \`${name}\` must be a lower-case SQL identifier; received ${JSON.stringify(value)}`,
      );
    }
  }
  const heartbeatMs = heartbeatOf("PostgresRevocationStore", options.heartbeatMs);
  let listener: RevocationListener | undefined;
  let listening: PgRevocationClient | undefined;
  let closed = false;
  let reconnecting: ReturnType<typeof setTimeout> | undefined;
  let created: Promise<void> | undefined;

  // Two instances starting together both run CREATE TABLE IF NOT EXISTS, which can still collide
  // in PostgreSQL's catalogue; a transaction-scoped advisory lock makes them take turns.
  const ensureTable = () => {
    created ??= (async () => {
      const db = await pool.connect();
      try {
        await db.query("BEGIN");
        await db.query("SELECT pg_advisory_xact_lock(hashtext($1))", [table]);
        await db.query(
          `CREATE TABLE IF NOT EXISTS ${table} (kind text NOT NULL, id text NOT NULL, revoked_before bigint NOT NULL, expires_at bigint NOT NULL, PRIMARY KEY (kind, id))`,
        );
        // Added after the first release: the user of a session entry (the per-user bound).
        await db.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS user_id text`);
        await db.query("COMMIT");
        db.release();
      } catch (e) {
        db.release(true);
        throw e;
      }
    })();
    created.catch(() => {
      created = undefined;
    });
    return created;
  };

  const drop = (client: PgRevocationClient) => {
    client.removeAllListeners?.("notification");
    client.removeAllListeners?.("error");
    client.removeAllListeners?.("end");
    // An `error` after this must not crash the process: pg emits it on the client.
    client.on("error", () => {});
    try {
      client.release(true);
    } catch {
      // already released
    }
  };

  // A heartbeat that fails (a black hole keeps a dead connection looking open) replaces the
  // listening connection, like an `error` or `end` event does.
  const health = new Health(
    () => listener,
    async () => {
      if (!listening) throw new Error("the PostgreSQL listener is reconnecting");
      await listening.query("SELECT 1");
    },
    heartbeatMs,
    () => {
      if (listening) drop(listening);
      listening = undefined;
      scheduleReconnect();
    },
  );
  const lost = (error: Error) => health.down(error);

  const listen = async () => {
    await ensureTable();
    const client = await pool.connect();
    try {
      client.on("notification", (message) => {
        if (message.channel !== channel) return;
        const entry = decodeEntry(message.payload);
        if (entry) listener?.entry(entry);
      });
      client.on("error", (e) => lost(e ?? new Error("the PostgreSQL listening connection failed")));
      client.on("end", () => lost(new Error("the PostgreSQL listening connection ended")));
      await client.query(`LISTEN ${channel}`);
    } catch (e) {
      drop(client);
      throw e;
    }
    if (closed) {
      drop(client);
      return;
    }
    listening = client;
  };

  const scheduleReconnect = () => {
    if (reconnecting || closed) return;
    reconnecting = setTimeout(
      async () => {
        reconnecting = undefined;
        const limit = failAfter(heartbeatMs, "reconnecting the PostgreSQL listener");
        try {
          await Promise.race([listen(), limit.promise]);
          health.up();
        } catch {
          scheduleReconnect();
        } finally {
          limit.cancel();
        }
      },
      Math.min(1000, heartbeatMs),
    );
    reconnecting.unref?.();
  };

  return {
    async add(entry) {
      await ensureTable();
      const payload = encodeEntry(entry);
      // One statement, one transaction: the NOTIFY is sent when (and only if) the row is saved.
      await pool.query(
        `WITH saved AS (
           INSERT INTO ${table} (kind, id, revoked_before, expires_at, user_id) VALUES ($1, $2, $3, $4, $7)
           ON CONFLICT (kind, id) DO UPDATE SET
             revoked_before = GREATEST(${table}.revoked_before, EXCLUDED.revoked_before),
             expires_at = GREATEST(${table}.expires_at, EXCLUDED.expires_at)
           RETURNING 1)
         SELECT pg_notify($5, $6) FROM saved`,
        [entry.kind, entry.id, entry.before, entry.expiresAt, channel, payload, entry.userId ?? null],
      );
    },
    async load() {
      await ensureTable();
      const now = Date.now();
      await pool.query(`DELETE FROM ${table} WHERE expires_at <= $1`, [now]);
      const { rows } = await pool.query(
        `SELECT kind, id, revoked_before, expires_at, user_id FROM ${table} WHERE expires_at > $1`,
        [now],
      );
      const entries: RevocationEntry[] = [];
      for (const row of rows) {
        const entry = {
          kind: row.kind,
          id: row.id,
          before: Number(row.revoked_before),
          expiresAt: Number(row.expires_at),
          ...(row.kind === "session" && typeof row.user_id === "string" && { userId: row.user_id }),
        };
        if (isEntry(entry)) entries.push(entry);
      }
      return entries;
    },
    async subscribe(next) {
      listener = next;
      if (listening) return;
      await listen();
      health.start();
    },
    async close() {
      closed = true;
      health.stop();
      clearTimeout(reconnecting);
      listener = undefined;
      // Destroying the connection ends its LISTEN; an UNLISTEN first could wait on a dead link.
      if (listening) drop(listening);
      listening = undefined;
    },
  };
}
