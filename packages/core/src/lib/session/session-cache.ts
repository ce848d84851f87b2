/**
 * The per-instance cache of database session reads (`session.cache`, issue 26). A read that the
 * cache answers costs a Map lookup instead of `getSessionAndUser`; every change of a session or of
 * its user made through Latchkey (and, on PostgreSQL with a listening `SqlRevocationStore`, any
 * change of the rows: the triggers of `latchkey migrate`) is pushed over the channel of a
 * revocation store, and every instance drops
 * what it held. The cache is trusted only while that channel is known to be up: before the first
 * subscription is confirmed, and from a `down` until the store's `up` (sent once it has subscribed
 * again), every read goes to the database and nothing is kept.
 */

import type { Adapter, AdapterSession, AdapterUser } from "../../shapes/adapters.js";
import type { LoggerInstance } from "../../shapes/data.js";
import type { RevocationStore, SessionCacheOptions, SessionChange } from "../../shapes/revocation.js";
import { type Application, held, processWide, separateProcessesLikely, slot } from "../base/application.js";
import { errorOf } from "../base/error-of.js";
import { InvalidConfiguration } from "../base/errors.js";
import { fieldOf } from "../base/merge.js";
import { failAfter, sessionKeyOf } from "../stores/revocation-channel.js";
import { MemoryRevocationStore, revocationListOf } from "./revocation-list.js";

/** What `getSessionAndUser` answers for a live session. */
export type SessionAndUser = { session: AdapterSession; user: AdapterUser };

/** What the `updateAge` write of a session did: its new expiry, or that the session was gone. */
export interface ExtendOutcome {
  next: Date;
  gone: boolean;
}

interface Held {
  found: SessionAndUser;
  /** `sessionKeyOf(token)`: what a pushed session change names. */
  key: string;
  userId: string;
  /** When it was read from the database (epoch ms): served until `maxAge` after. */
  at: number;
}

const RETRY_MS = 1000;

/**
 * One subscription per store, shared by every cache that uses it (every application on it, in
 * the whole process): a store has one listener. `trusted` only between a confirmed subscription
 * (or an `up`) and the next `down`.
 */
class Channel {
  /** The caches on this channel: one per application (and cache settings) that uses the store. */
  readonly #caches = new Set<SessionCache>();
  state: "idle" | "subscribing" | "up" | "down" = "idle";
  readonly #store: RevocationStore;
  readonly #timeout: number;
  readonly #logger: LoggerInstance;
  #retry: ReturnType<typeof setTimeout> | undefined;

  constructor(store: RevocationStore, timeout: number, logger: LoggerInstance) {
    this.#store = store;
    this.#timeout = timeout;
    this.#logger = logger;
  }

  get trusted(): boolean {
    return this.state === "up";
  }

  /** Adds `cache` to those a change or an outage reaches. */
  attach(cache: SessionCache): void {
    this.#caches.add(cache);
  }

  /** How many caches are on this channel (for tests and diagnostics). */
  get cacheCount(): number {
    return this.#caches.size;
  }

  #each(act: (cache: SessionCache) => void): void {
    for (const cache of this.#caches) act(cache);
  }

  /** Subscribes once (a failure is retried every second); reads are untrusted until it is confirmed. */
  start(): void {
    if (this.state !== "idle") return;
    this.state = "subscribing";
    void this.#subscribe();
  }

  async #subscribe(): Promise<void> {
    const limit = failAfter(this.#timeout, "subscribing to session changes");
    try {
      await Promise.race([
        this.#store.subscribe({
          entry: () => {},
          change: (change) => {
            this.#each((cache) => cache.drop(change));
          },
          down: (error) => this.#down(error),
          up: () => {
            // The store sends `up` once it listens again: changes from now on arrive.
            this.#clearAll();
            if (this.state === "down") this.#logger.warn("session-cache-restored");
            this.state = "up";
          },
        }),
        limit.promise,
      ]);
      // A `down` that arrived while subscribing wins: its `up` will follow.
      if (this.state === "subscribing") {
        this.#clearAll();
        this.state = "up";
      }
    } catch (e) {
      this.#down(errorOf(e));
      this.#retry = setTimeout(() => {
        this.state = "idle";
        this.start();
      }, RETRY_MS);
      this.#retry.unref?.();
    } finally {
      limit.cancel();
    }
  }

  #down(error: Error): void {
    this.#clearAll();
    if (this.state !== "down") {
      this.#logger.warn(
        "session-cache-unavailable",
        `The session cache cannot hear of changes (${error.message}): every database session read goes to the database until its channel is back.`,
      );
    }
    this.state = "down";
  }

  #clearAll(): void {
    this.#each((cache) => cache.clear());
  }

  /** Pushes `change`; rejects when the store fails or does not take it within `timeout`. */
  async push(change: SessionChange): Promise<void> {
    // `push` was checked present when the configuration was resolved.
    const limit = failAfter(this.#timeout, "pushing a session change");
    try {
      await Promise.race([this.#store.push?.(change), limit.promise]);
    } finally {
      limit.cancel();
    }
  }
}

/** The channel of each store, for the whole process (every copy of this module included). */
const channels = slot("session-cache-channels", () => new WeakMap<RevocationStore, Channel>());
/** An application's cache on each channel it uses. */
const caches = slot("session-caches", () => new Map<Channel, Map<string, SessionCache>>());
/** An application's channel when `session.cache` names none: in memory, one process. */
const defaultChannel = slot("session-cache-channel", () => new MemoryRevocationStore());

/** True when `store` carries a session cache's changes (it cannot also carry a revocation list). */
export function carriesSessionCache(store: RevocationStore): boolean {
  return processWide(channels).has(store);
}

/**
 * The cache of one application configuration. `read` answers from memory while the channel is
 * trusted and the entry is younger than `maxAge`; otherwise from `load` (concurrent misses of one
 * token share one load). `announce` drops a change here and pushes it to every instance.
 */
export class SessionCache {
  readonly #held = new Map<string, Held>();
  readonly #byKey = new Map<string, string>();
  readonly #byUser = new Map<string, Set<string>>();
  /** Loads under way, with the generation each began in: joined only by reads of that generation. */
  readonly #loading = new Map<string, { promise: Promise<SessionAndUser | null>; generation: number }>();
  readonly #writing = new Map<string, Promise<ExtendOutcome>>();
  /** Moves on every drop, `down` and `up`: a load that began before it is not kept. */
  #generation = 0;
  readonly channel: Channel;
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  readonly #logger: LoggerInstance;

  constructor(channel: Channel, maxEntries: number, maxAgeMs: number, logger: LoggerInstance) {
    this.channel = channel;
    this.#maxEntries = maxEntries;
    this.#maxAgeMs = maxAgeMs;
    this.#logger = logger;
    channel.attach(this);
  }

  /** How many sessions are held (for tests and diagnostics). */
  get size(): number {
    return this.#held.size;
  }

  /**
   * The session of `sessionToken`: from memory when trusted, fresh (younger than `maxAge`) and
   * strictly before its expiry, otherwise from `load` (so at and past the expiry the uncached
   * path decides, exactly as without the cache). Concurrent misses share a load only within one
   * generation (no drop between them). Answers copies: a callback that changes them changes no other read.
   */
  async read(sessionToken: string, load: () => Promise<SessionAndUser | null>): Promise<SessionAndUser | null> {
    const channel = this.channel;
    if (!channel.trusted) {
      channel.start();
      return load();
    }
    const now = Date.now();
    const held = this.#held.get(sessionToken);
    if (held) {
      // Served only strictly before its expiry: at the last millisecond the database decides, as
      // an uncached read does (some adapters end a session at `expires <= now`, core at `< now`).
      if (now - held.at < this.#maxAgeMs && held.found.session.expires.valueOf() > now) return copyOf(held.found);
      this.#forget(sessionToken);
    }
    const generation = this.#generation;
    const under = this.#loading.get(sessionToken);
    // A load that began before a change (a sign-out, a reset) may carry the answer from before it:
    // a read that begins after the change makes its own.
    let loading = under?.generation === generation ? under.promise : undefined;
    if (!loading) {
      const entry = {
        promise: load().finally(() => {
          if (this.#loading.get(sessionToken) === entry) this.#loading.delete(sessionToken);
        }),
        generation,
      };
      loading = entry.promise;
      this.#loading.set(sessionToken, entry);
      loading.then(
        (found) => {
          // Held only under the token the record stores: a change names that token's hash, and a
          // database that also matched another spelling (a case-insensitive collation, trailing
          // spaces) would leave that spelling held past the session's end.
          if (
            found &&
            found.session.sessionToken === sessionToken &&
            generation === this.#generation &&
            this.channel.trusted
          )
            this.#keep(sessionToken, found, now);
        },
        () => {},
      );
    }
    const found = await loading;
    return found && copyOf(found);
  }

  /**
   * Runs `write` (the `updateAge` write of `sessionToken`) unless one is running for that token in
   * this process; then waits for that one and answers its outcome: the concurrent reads that find
   * a session due for its update make one write, not one each.
   */
  once(sessionToken: string, write: () => Promise<ExtendOutcome>): Promise<ExtendOutcome> {
    const running = this.#writing.get(sessionToken);
    if (running) return running;
    const started = write().finally(() => this.#writing.delete(sessionToken));
    this.#writing.set(sessionToken, started);
    return started;
  }

  /** Drops what `change` names (a session by its key, or every session of a user). */
  drop(change: SessionChange): void {
    this.#generation++;
    if (change.kind === "session") {
      const token = this.#byKey.get(change.id);
      if (token !== undefined) this.#forget(token);
    } else {
      const tokens = this.#byUser.get(change.id);
      if (tokens) for (const token of [...tokens]) this.#forget(token);
    }
  }

  /** Drops everything (the channel went down or came back). */
  clear(): void {
    this.#generation++;
    this.#held.clear();
    this.#byKey.clear();
    this.#byUser.clear();
  }

  /**
   * Drops `change` here and pushes it to every instance. A push that fails is logged: the other
   * instances then drop the session within `maxAge` (or when their channel reports the outage).
   */
  async announce(change: SessionChange): Promise<void> {
    this.drop(change);
    try {
      await this.channel.push(change);
    } catch (e) {
      this.#logger.warn(
        "session-cache-push-failed",
        `A change of database sessions could not be pushed to the other instances (${errorOf(e).message}); they drop it within \`session.cache.maxAge\`.`,
      );
    }
  }

  #keep(sessionToken: string, found: SessionAndUser, at: number): void {
    if (this.#held.size >= this.#maxEntries) {
      const oldest = this.#held.keys().next();
      if (!oldest.done) this.#forget(oldest.value);
    }
    const key = sessionKeyOf(sessionToken);
    // Auth.js adapters over integer keys (`@auth/pg-adapter`'s schema) answer a number.
    const userId = String(found.user.id);
    this.#held.set(sessionToken, { found: copyOf(found), key, userId, at });
    this.#byKey.set(key, sessionToken);
    const own = this.#byUser.get(userId) ?? new Set<string>();
    own.add(sessionToken);
    this.#byUser.set(userId, own);
  }

  #forget(sessionToken: string): void {
    const held = this.#held.get(sessionToken);
    if (!held) return;
    this.#held.delete(sessionToken);
    this.#byKey.delete(held.key);
    const own = this.#byUser.get(held.userId);
    own?.delete(sessionToken);
    if (own?.size === 0) this.#byUser.delete(held.userId);
  }
}

function copyOf(found: SessionAndUser): SessionAndUser {
  return { session: { ...found.session }, user: { ...found.user } };
}

/**
 * Validates `session.cache` and returns the configuration's cache, or null when it is off. `true`
 * is `{}`: an in-memory channel, for a single process.
 */
export function resolveSessionCache(
  option: SessionCacheOptions | boolean | undefined,
  strategy: "jwt" | "database",
  application: Application,
  logger: LoggerInstance,
): SessionCache | null {
  if (option === undefined || option === false) return null;
  const options: SessionCacheOptions = option === true ? {} : option;
  if (typeof options !== "object" || options === null) {
    throw new InvalidConfiguration(
      "`session.cache` must be `true` or an object `{ channel?, maxEntries?, maxAge?, timeout? }`.",
    );
  }
  if (strategy !== "database") {
    throw new InvalidConfiguration(
      '`session.cache` caches database session reads; a JWT session is read without a query. Remove the option, or use `session: { strategy: "database" }`.',
    );
  }
  const { maxEntries = 10_000, maxAge = 60, timeout = 3000 } = options;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new InvalidConfiguration(
      `\`session.cache.maxEntries\` must be a positive whole number; received ${String(maxEntries)}`,
    );
  }
  for (const [name, value] of [
    ["maxAge", maxAge],
    ["timeout", timeout],
  ] as const) {
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new InvalidConfiguration(
        `\`session.cache.${name}\` must be a positive number of ${name === "maxAge" ? "seconds" : "milliseconds"}; received ${String(value)}`,
      );
    }
  }
  let store = options.channel;
  if (store !== undefined) {
    for (const method of ["push", "subscribe"] as const) {
      if (typeof fieldOf(store, method) !== "function") {
        throw new InvalidConfiguration(
          `\`session.cache.channel\` needs a \`${method}\` method: give it a RedisRevocationStore (@latchkey/redis-adapter) or a SqlRevocationStore (@latchkey/sql-adapter), or leave it out for one process.`,
        );
      }
    }
    if (revocationListOf(store)) {
      throw new InvalidConfiguration(
        "`session.cache.channel` is the store of a `session.revocation` list in this process: a store carries one of them. Give the cache its own store (another RedisRevocationStore on its own subscriber connection, or another SqlRevocationStore).",
      );
    }
  } else if (separateProcessesLikely()) {
    // A channel in this global's memory where the platform runs the application in several
    // (Next.js's Edge middleware beside its Node.js server, a Worker): it would never hear a
    // sign-out made in another, so there is no cache here and every read asks the database.
    return null;
  } else {
    store = held(application, defaultChannel);
  }
  const perStore = processWide(channels);
  let channel = perStore.get(store);
  if (!channel) {
    channel = new Channel(store, timeout, logger);
    perStore.set(store, channel);
  }
  // One cache per application, channel and settings, whatever objects the application makes: a
  // change announced through any cache on the channel drops what every other one holds.
  const own = held(application, caches);
  const settings = `${maxEntries}/${maxAge}`;
  const onChannel = own.get(channel) ?? new Map<string, SessionCache>();
  own.set(channel, onChannel);
  const existing = onChannel.get(settings);
  if (existing) return existing;
  const cache = new SessionCache(channel, maxEntries, maxAge * 1000, logger);
  onChannel.set(settings, cache);
  return cache;
}

/**
 * `adapter` with every write that changes a session read announced to the cache once it is done
 * (answered or failed: a failed write may still have taken effect):
 * `updateSession` and `deleteSession` (the session), `deleteSessions`, `deleteUser` and
 * `updateUser` (the user). An unlink changes nothing a read holds (the session and its user, not
 * the accounts); an unlink that deletes the user is a `deleteUser`. Inside `transaction`, the changes are announced after it
 * commits: an instance that dropped a session before the commit could read it back and keep it.
 */
export function announcingAdapter(adapter: Adapter, cache: SessionCache): Adapter {
  return wrap(adapter, (change) => cache.announce(change));
}

function wrap(adapter: Adapter, announce: (change: SessionChange) => Promise<void>): Adapter {
  const out: Adapter = { ...adapter };
  const session = (token: string): SessionChange => ({ kind: "session", id: sessionKeyOf(token) });
  // A number from an adapter over integer keys travels as its text, as the triggers send it.
  const user = (id: string | number): SessionChange => ({ kind: "user", id: String(id) });
  /**
   * Runs `write`, then announces `change` whether it answered or threw: a write that failed may
   * still have taken effect (a timeout after the commit, an answer lost on its way), and the
   * caller may then find the session gone and report it ended. A drop is never wrong, only a read.
   */
  const announced = async <T>(change: SessionChange, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } finally {
      await announce(change);
    }
  };
  const { updateSession, deleteSession, deleteSessions, deleteUser, updateUser, transaction } = adapter;
  if (updateSession) {
    out.updateSession = (changes) =>
      announced(session(changes.sessionToken), async () => updateSession.call(adapter, changes));
  }
  if (deleteSession) {
    out.deleteSession = (sessionToken) =>
      announced(session(sessionToken), async () => (await deleteSession.call(adapter, sessionToken)) || null);
  }
  if (deleteSessions) {
    out.deleteSessions = (userId, exceptSessionToken) =>
      announced(user(userId), async () => deleteSessions.call(adapter, userId, exceptSessionToken));
  }
  if (deleteUser) {
    out.deleteUser = (userId) => announced(user(userId), async () => (await deleteUser.call(adapter, userId)) || null);
  }
  if (updateUser) {
    out.updateUser = (changes) => announced(user(changes.id), async () => updateUser.call(adapter, changes));
  }
  if (transaction) {
    out.transaction = async <T>(work: (tx: Adapter) => Promise<T>): Promise<T> => {
      const pending: SessionChange[] = [];
      const collect = async (change: SessionChange) => {
        pending.push(change);
      };
      try {
        return await transaction.call<Adapter, [(tx: Adapter) => Promise<T>], Promise<T>>(adapter, (tx) =>
          work(wrap(tx, collect)),
        );
      } finally {
        // After it ends, committed or not (a commit whose answer was lost may have taken effect).
        for (const change of pending) await announce(change);
      }
    };
  }
  return out;
}
