/**
 * The revocation list of JWT sessions in the application's SQL database (SQLite, PostgreSQL,
 * MySQL or MariaDB), for instances that share a database but no Redis.
 * @module revocation-store
 */
import {
  ChannelHealth,
  deliver,
  encodeRevocationEntry,
  encodeSessionChange,
  failAfter,
  isRevocationEntry,
  MAX_HEARTBEAT_MS,
  type RevocationEntry,
  type RevocationListener,
  type RevocationStore,
  revocationHeartbeatMs,
  type SessionChange,
} from "@latchkey/core/stores";
import { sql } from "kysely";
import {
  type AnyKysely,
  CHANNEL_NAME,
  DEFAULT_CHANNEL,
  databaseNow,
  dialectOf,
  runner,
  type SqlOptions,
  tableNames,
} from "./schema.js";

/** A `pg` client taken from the pool: the connection the store LISTENs on. */
export interface PgListenClient {
  query(text: string): Promise<unknown>;
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", listener: (error?: Error) => void): unknown;
  removeAllListeners?(event?: string): unknown;
  release(destroy?: boolean | Error): void;
}

/** Options of {@link SqlRevocationStore}. */
export interface SqlRevocationOptions extends SqlOptions {
  /**
   * PostgreSQL: the `pg.Pool` the Kysely instance runs on (or any object whose `connect()` gives a
   * `pg` client). The store keeps one connection from it to `LISTEN` for pushes (`NOTIFY`, sent in
   * the statement that saves the entry), reconnected after a failure: never more than one, one
   * attempt at a time, each given up after `heartbeatMs` and its connection given back. Without it
   * (and on SQLite, MySQL and MariaDB) the store polls the table every `pollMs`.
   */
  listen?: { connect(): Promise<PgListenClient> };
  /** The `LISTEN/NOTIFY` channel (a lower-case SQL identifier). @default "latchkey_revocations" */
  channel?: string;
  /**
   * With `listen`: milliseconds between checks that the listening connection answers, and how
   * long connecting it may take. Without it: how long a poll may take. At most 60,000. @default 5000
   */
  heartbeatMs?: number;
  /**
   * Without `listen`: milliseconds between two reads of the entries written since the last one,
   * the longest another instance takes to hear of a revocation (at most 60,000). A poll that fails
   * or takes longer than `heartbeatMs` reports the channel lost until one succeeds. @default 1000
   */
  pollMs?: number;
}

/**
 * How far back each poll reads again (database clock): a write whose statement began before the
 * last poll but committed after it carries an earlier `changedAt`, and must still be seen. Entries
 * are applied idempotently, so reading one twice is harmless.
 */
const POLL_OVERLAP_MS = 10_000;

interface Row {
  kind: unknown;
  id: unknown;
  revokedBefore: unknown;
  expiresAt: unknown;
  userId: unknown;
}

/**
 * The `kind` of a row that carries a session cache's change to polling instances (never an entry
 * of the list: `load` and the verdicts ignore it), kept {@link CHANGE_LIFETIME_MS}.
 */
const CHANGE_KINDS = { session: "session-change", user: "user-change" } as const;
const CHANGE_LIFETIME_MS = 2 * POLL_OVERLAP_MS + 60_000;

function changeOf(row: Row): SessionChange | null {
  if (typeof row.id !== "string" || row.id === "") return null;
  if (row.kind === CHANGE_KINDS.session) return { kind: "session", id: row.id };
  if (row.kind === CHANGE_KINDS.user) return { kind: "user", id: row.id };
  return null;
}

function entryOf(row: Row): RevocationEntry | null {
  const entry = {
    kind: row.kind,
    id: row.id,
    before: Number(row.revokedBefore),
    expiresAt: Number(row.expiresAt),
    ...(row.kind === "session" && typeof row.userId === "string" && { userId: row.userId }),
  };
  return isRevocationEntry(entry) ? entry : null;
}

/**
 * A revocation list (`session.revocation.store`) in the table `revocations`, which `migrate`
 * (`npx latchkey migrate <url>`) creates: one row per entry, merged on write (`revokedBefore` and
 * `expiresAt` each the later of the two), deleted after it expires by the database's clock (on each
 * load). Instances hear
 * of new entries
 *
 * - on PostgreSQL with `listen` (the `pg` pool): by `LISTEN/NOTIFY`, the NOTIFY sent by the very
 *   statement that saves the row (no instance hears of an entry that is not saved), on one
 *   connection the store keeps, watched by a heartbeat and replaced when it fails;
 * - otherwise (SQLite, MySQL, MariaDB, or PostgreSQL without `listen`): by reading, every
 *   `pollMs`, the rows written since the last read (by the database's clock); a failed read
 *   reports the list not current until the next one succeeds, and then it is loaded again.
 *
 * It also carries the changes of a database session cache (`session: { cache: { channel } }`):
 * `push` sends them by `NOTIFY` (with `listen`), or writes them as rows the polling instances read
 * (every `pollMs`). On PostgreSQL, the triggers of `latchkey migrate` NOTIFY the same channel of
 * any change of `sessions` or `users`, plain SQL included: heard with `listen` only (a polling
 * store reads rows, which the triggers do not write). Give a cache and a revocation list each
 * their own store.
 *
 * Neither the Kysely instance nor the pool is closed by `close()`.
 *
 * @example
 * ```ts
 * import pg from "pg"
 * import { Kysely, PostgresDialect } from "kysely"
 * import { SqlRevocationStore } from "@latchkey/sql-adapter"
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const db = new Kysely({ dialect: new PostgresDialect({ pool }) })
 * const config = { providers, session: { revocation: { store: SqlRevocationStore(db, { listen: pool }) } } }
 * // MariaDB or SQLite: SqlRevocationStore(db), polling every second
 * ```
 */
export function SqlRevocationStore(db: AnyKysely, options: SqlRevocationOptions = {}): RevocationStore {
  const dialect = dialectOf(db);
  const name = tableNames(options).revocations;
  const table = sql.table(name);
  const channel = options.channel ?? DEFAULT_CHANNEL;
  if (!CHANNEL_NAME.test(channel)) {
    throw new TypeError(
      `SqlRevocationStore: \`channel\` must be a lower-case SQL identifier; received ${JSON.stringify(channel)}`,
    );
  }
  if (options.listen !== undefined && dialect !== "postgres") {
    throw new TypeError(
      `SqlRevocationStore: \`listen\` is PostgreSQL's LISTEN/NOTIFY; this database is ${dialect}. Remove it: the store polls (\`pollMs\`).`,
    );
  }
  const pollMs = options.pollMs ?? 1000;
  if (!Number.isFinite(pollMs) || pollMs <= 0 || pollMs > MAX_HEARTBEAT_MS) {
    throw new TypeError(
      `SqlRevocationStore: \`pollMs\` must be a positive number of milliseconds up to ${MAX_HEARTBEAT_MS}; received ${String(options.pollMs)}`,
    );
  }
  const heartbeatMs = revocationHeartbeatMs("SqlRevocationStore", options.heartbeatMs);
  const run = runner(db, "SqlRevocationStore", name);
  const now = databaseNow(dialect);
  const columns = sql`kind, id, ${sql.ref("revokedBefore")}, ${sql.ref("expiresAt")}, ${sql.ref("userId")}`;

  const upsert = (entry: Omit<RevocationEntry, "kind"> & { kind: string }) => {
    const insert = sql`insert into ${table} (${columns}, ${sql.ref("changedAt")}) values (${entry.kind}, ${entry.id}, ${entry.before}, ${entry.expiresAt}, ${entry.userId ?? null}, ${now})`;
    const later = (column: string) =>
      dialect === "mysql"
        ? sql`${sql.ref(column)} = greatest(${sql.ref(column)}, values(${sql.ref(column)}))`
        : sql`${sql.ref(column)} = ${sql.raw(dialect === "sqlite" ? "max" : "greatest")}(${table}.${sql.ref(column)}, excluded.${sql.ref(column)})`;
    const set = sql`${later("revokedBefore")}, ${later("expiresAt")}, ${sql.ref("changedAt")} = ${now}`;
    return dialect === "mysql"
      ? sql`${insert} on duplicate key update ${set}`
      : sql`${insert} on conflict (kind, id) do update set ${set}`;
  };

  let listener: RevocationListener | undefined;
  let closed = false;

  // ---- pushes by LISTEN/NOTIFY (PostgreSQL with `listen`)
  const pool = options.listen;
  /** The connection that LISTENs, once its `LISTEN` answered. */
  let listening: PgListenClient | undefined;
  /**
   * The one attempt at a listening connection, from `connect()` until its connection is listening
   * or given back: every caller (a `subscribe` the list retries after its own timeout, a
   * reconnection) waits on it rather than taking another connection of the application's pool.
   */
  let attempt: { done: Promise<void>; startedAt: number; abandon(): void } | undefined;
  let reconnecting: ReturnType<typeof setTimeout> | undefined;
  /** Set by the first subscription that listened: from then on a lost connection is replaced. */
  let subscribed = false;

  const drop = (client: PgListenClient) => {
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

  const startListening = (from: { connect(): Promise<PgListenClient> }): Promise<void> => {
    if (attempt) return attempt.done;
    let client: PgListenClient | undefined;
    let abandoned = false;
    const gone = () =>
      new Error(closed ? "the store is closed" : "the PostgreSQL listener took longer than heartbeatMs");
    const connectAndListen = async () => {
      client = await from.connect();
      if (abandoned || closed) throw gone();
      client.on("notification", (message) => {
        if (message.channel === channel) deliver(listener, message.payload);
      });
      client.on("error", (e) => health.down(e ?? new Error("the PostgreSQL listening connection failed")));
      client.on("end", () => health.down(new Error("the PostgreSQL listening connection ended")));
      await client.query(`LISTEN ${channel}`);
      if (abandoned || closed) throw gone();
      listening = client;
    };
    const current = {
      startedAt: performance.now(),
      // A connection the attempt took is given back (destroyed: its LISTEN may be under way) on
      // any failure, an abandoned attempt's included, however late `connect()` answers.
      done: connectAndListen()
        .catch((e: unknown) => {
          if (client) drop(client);
          throw e;
        })
        .finally(() => {
          if (attempt === current) attempt = undefined;
          if (!listening) scheduleReconnect();
        }),
      abandon() {
        abandoned = true;
        if (client) drop(client);
      },
    };
    current.done.catch(() => {});
    attempt = current;
    return current.done;
  };

  /** Waits at most `heartbeatMs` for a listening connection; an attempt slower than that is abandoned. */
  const listenWithin = async (from: { connect(): Promise<PgListenClient> }) => {
    const done = startListening(from);
    const current = attempt;
    const limit = failAfter(heartbeatMs, "connecting the PostgreSQL listener");
    try {
      await Promise.race([done, limit.promise]);
    } catch (e) {
      current?.abandon();
      throw e;
    } finally {
      limit.cancel();
    }
  };

  // The next attempt once the last one has ended (given its connection back): at most one at a time.
  const scheduleReconnect = () => {
    if (reconnecting || attempt || closed || !pool || !subscribed) return;
    reconnecting = setTimeout(
      async () => {
        reconnecting = undefined;
        try {
          await listenWithin(pool);
          health.up();
        } catch {
          // The attempt's end schedules the next one.
        }
      },
      Math.min(1000, heartbeatMs),
    );
    reconnecting.unref?.();
  };

  // ---- pushes by polling (every other case)
  const databaseTime = async () => Number((await run(sql<{ now: unknown }>`select ${now} as now`)).rows[0]?.now);
  let since: number | undefined;
  const poll = async () => {
    // The clock is read first: a row written after it has a later `changedAt`, read by the next poll.
    const polledAt = await databaseTime();
    const { rows } = await run(
      sql<Row>`select ${columns} from ${table}
        where ${sql.ref("changedAt")} >= ${since ?? 0} and ${sql.ref("expiresAt")} > ${now}`,
    );
    for (const row of rows) {
      const change = changeOf(row);
      if (change) {
        listener?.change?.(change);
        continue;
      }
      const entry = entryOf(row);
      if (entry) listener?.entry(entry);
    }
    if (Number.isFinite(polledAt)) since = polledAt - POLL_OVERLAP_MS;
  };

  // A heartbeat (or a poll) that fails replaces the listening connection, like an `error` or `end` event does.
  const health = pool
    ? new ChannelHealth(
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
      )
    : new ChannelHealth(() => listener, poll, pollMs, undefined, heartbeatMs);

  return {
    async add(entry) {
      if (dialect === "postgres" && pool) {
        // One statement, one transaction: the NOTIFY is sent when (and only if) the row is saved.
        await run(
          sql`with saved as (${upsert(entry)} returning 1) select pg_notify(${channel}, ${encodeRevocationEntry(entry)}) from saved`,
        );
        return;
      }
      await run(upsert(entry));
    },
    async push(change) {
      if (dialect === "postgres" && pool) {
        await run(sql`select pg_notify(${channel}, ${encodeSessionChange(change)})`);
        return;
      }
      // Polling instances read it with the entries (a row per session or user, rewritten by each
      // change so its `changedAt` moves on), and `load` leaves it out.
      // Its lifetime by the database's clock, as the polls read it: by this instance's, a clock
      // running behind by more than the lifetime would write rows no poll ever reads.
      const kind = CHANGE_KINDS[change.kind];
      const at = await databaseTime();
      const from = Number.isFinite(at) ? at : Date.now();
      await run(upsert({ kind, id: change.id, before: 0, expiresAt: from + CHANGE_LIFETIME_MS }));
    },
    async load() {
      // By the database's clock: an instance whose clock runs ahead must not delete entries that
      // the others still need (one reloading after an outage would serve the revoked sessions).
      await run(sql`delete from ${table} where ${sql.ref("expiresAt")} <= ${now}`);
      const { rows } = await run(sql<Row>`select ${columns} from ${table} where ${sql.ref("expiresAt")} > ${now}`);
      const entries: RevocationEntry[] = [];
      for (const row of rows) {
        const entry = entryOf(row);
        if (entry) entries.push(entry);
      }
      return entries;
    },
    async subscribe(next) {
      listener = next;
      if (pool) {
        // Bounded by the caller (the list's or the cache's `timeout`), which retries: a retry
        // joins the attempt under way, unless it has run past heartbeatMs (a black hole), which is
        // then abandoned, and the next retry starts afresh once it has ended.
        if (attempt && performance.now() - attempt.startedAt > heartbeatMs) attempt.abandon();
        if (!listening) await startListening(pool);
        subscribed = true;
      } else if (since === undefined) {
        // From now (by the database's clock), less the overlap: what was written before is in the
        // load that follows the subscription.
        since = (await databaseTime()) - POLL_OVERLAP_MS;
      }
      health.start();
    },
    async close() {
      closed = true;
      health.stop();
      clearTimeout(reconnecting);
      listener = undefined;
      // Destroying the connection ends its LISTEN; an UNLISTEN first could wait on a dead link. A
      // connection still on its way is given back when it arrives.
      attempt?.abandon();
      if (listening) drop(listening);
      listening = undefined;
    },
  };
}
