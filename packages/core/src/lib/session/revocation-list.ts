/**
 * The in-memory copy of the revocation list of JWT sessions (issue 15.3), kept on the store
 * instance it mirrors. A session read asks it with a Map lookup and no round trip; the store's
 * pushes keep it current, and it loads the whole list from the store once before the first read,
 * and again after every reconnection (pushes may have been missed meanwhile).
 */

import type { LoggerInstance } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import type {
  RevocationEntry,
  RevocationListener,
  RevocationOptions,
  RevocationStore,
  SessionChange,
} from "../../shapes/revocation.js";
import { type Application, held, processWide, separateProcessesLikely, slot } from "../base/application.js";
import { errorOf } from "../base/error-of.js";
import { InvalidConfiguration } from "../base/errors.js";
import { fieldOf } from "../base/merge.js";

/** The revocation settings of a resolved configuration. */
export interface ResolvedRevocation {
  readonly list: RevocationList;
  readonly refuseWhenUnavailable: boolean;
  /** Live session entries one user may have before a sign-out writes the user's entry instead. */
  readonly sessionsPerUser: number;
  /**
   * The list is this global's memory where the platform runs the application in several globals
   * (Next.js's Edge middleware beside its Node.js server, a Worker, a serverless instance): a
   * revocation made in another is never heard here, so this one never re-issues or extends a
   * session (a cookie it re-issued would outlive the revocation's entry elsewhere, and be taken
   * there for good once the entry expires).
   */
  readonly isolated: boolean;
}

/** What a read of the list says about a token. */
export type RevocationVerdict = "valid" | "revoked" | "unavailable";

/**
 * The list that mirrors each store, keyed by the store object, for the whole process (every copy
 * of this module included): every configuration sharing a store, and every re-resolution of one
 * configuration, shares one list and one subscription, and nothing is written onto the store.
 */
const mirrors = slot("revocation-lists", () => new WeakMap<RevocationStore, RevocationList>());
const RETRY_MS = 1000;

/**
 * How far apart the instances' clocks may be (the JWT clock tolerance): a user revocation's
 * `before` is this much later than the revoking instance's clock, so a session begun just before
 * it on an instance whose clock runs ahead is still ended (a sign-in on an instance that has heard
 * of the revocation starts after it: {@link RevocationList.signInTime}).
 */
export const CLOCK_SKEW_MS = 15_000;

/**
 * The longest an instance may go on re-issuing cookies without having heard of a revocation while
 * its list reads as current: a push channel that died silently is noticed by the store's
 * heartbeat within two periods (at most 60 s each, see `RevocationStore`), and the clocks that
 * set the entry's expiry and the cookie's `exp` may be {@link CLOCK_SKEW_MS} apart each way. An
 * entry lives this much longer than the longest token, so it outlives every cookie it refuses.
 */
const UNAWARE_MARGIN_MS = 2 * 60_000 + 2 * CLOCK_SKEW_MS;

/** The most a built-in store's heartbeat period may be (see {@link UNAWARE_MARGIN_MS}). */
export const MAX_HEARTBEAT_MS = 60_000;

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The session id of a token: `sid`, or for a token minted before sessions had one, its `jti`. */
export function sessionIdOf(claims: JWT): string | undefined {
  const sid = claims.sid ?? claims.jti;
  return typeof sid === "string" ? sid : undefined;
}

/** Epoch seconds of the sign-in: `auth_time`, or for an older token its `iat` (never later). */
export function signedInAt(claims: JWT): number | undefined {
  const at = typeof claims.auth_time === "number" ? claims.auth_time : claims.iat;
  return typeof at === "number" && Number.isFinite(at) ? at : undefined;
}

/** A pushed or loaded value that is an entry; anything else is ignored (and logged). */
export function isEntry(value: unknown): value is RevocationEntry {
  const [kind, id, userId] = [fieldOf(value, "kind"), fieldOf(value, "id"), fieldOf(value, "userId")];
  return (
    typeof value === "object" &&
    value !== null &&
    (kind === "session" || kind === "user") &&
    typeof id === "string" &&
    id.length > 0 &&
    Number.isFinite(fieldOf(value, "before")) &&
    Number.isFinite(fieldOf(value, "expiresAt")) &&
    (userId === undefined || (typeof userId === "string" && userId.length > 0))
  );
}

/**
 * The in-memory list of one store. States: `idle` (nothing loaded yet), `ready` (loaded and
 * listening), `down` (the store or its push channel is lost; what is known is kept, and a reload
 * is retried until it succeeds).
 */
class RevocationList {
  /** Session id → epoch ms when its entry expires. */
  readonly sessions = new Map<string, number>();
  /** User id → { before, expiresAt } in epoch ms. */
  readonly users = new Map<string, { before: number; expiresAt: number }>();
  /** User id → that user's session entries (session id → expiresAt); not read by `verdict`. */
  readonly #sessionsByUser = new Map<string, Map<string, number>>();
  state: "idle" | "ready" | "down" = "idle";
  readonly #store: RevocationStore;
  readonly #timeout: number;
  readonly #logger: LoggerInstance;
  #starting: Promise<void> | null = null;
  #subscribed = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #reloading: Promise<void> | null = null;
  /** The push channel as the store last reported it (`down` / `up`); a list is ready only while it is up. */
  #pushing = true;
  /** The channel came back while a load was running: that load may predate a push it missed. */
  #loadAgain = false;
  #lastSweep = Date.now();

  constructor(store: RevocationStore, timeout: number, logger: LoggerInstance) {
    this.#store = store;
    this.#timeout = timeout;
    this.#logger = logger;
  }

  /** Loads the list once (concurrent first readers share the one load); later calls return at once. */
  start(): Promise<void> {
    this.#starting ??= this.#reload();
    return this.#starting;
  }

  /** The verdict on a token, from memory. Call `start()` first. */
  verdict(claims: JWT, refuseWhenUnavailable: boolean): RevocationVerdict {
    if (this.state !== "ready" && refuseWhenUnavailable) return "unavailable";
    if (this.sessions.size > 0) {
      const sid = sessionIdOf(claims);
      if (sid !== undefined && this.sessions.has(sid)) return "revoked";
    }
    if (this.users.size > 0 && typeof claims.sub === "string") {
      const user = this.users.get(claims.sub);
      if (user !== undefined) {
        const at = signedInAt(claims);
        // A token that cannot say when its session began is treated as older than any revocation.
        if (at === undefined || at * 1000 <= user.before) return "revoked";
      }
    }
    return "valid";
  }

  /** Applies an entry to memory (idempotent: a user keeps the latest `before`). */
  apply(entry: RevocationEntry): void {
    const now = Date.now();
    if (entry.expiresAt <= now) return;
    if (entry.kind === "session") {
      const known = this.sessions.get(entry.id);
      if (known === undefined || known < entry.expiresAt) this.sessions.set(entry.id, entry.expiresAt);
      if (entry.userId !== undefined) {
        const own = this.#sessionsByUser.get(entry.userId) ?? new Map<string, number>();
        this.#sessionsByUser.set(entry.userId, own);
        own.set(entry.id, Math.max(entry.expiresAt, own.get(entry.id) ?? 0));
      }
    } else {
      const known = this.users.get(entry.id);
      if (known === undefined || known.before < entry.before || known.expiresAt < entry.expiresAt) {
        this.users.set(entry.id, {
          before: Math.max(entry.before, known?.before ?? 0),
          expiresAt: Math.max(entry.expiresAt, known?.expiresAt ?? 0),
        });
      }
    }
    if (now - this.#lastSweep > 60_000) this.#sweep(now);
  }

  /** How many live session entries of `userId` this instance knows of. */
  sessionEntriesOf(userId: string, now = Date.now()): number {
    const own = this.#sessionsByUser.get(userId);
    if (!own) return 0;
    for (const [id, expiresAt] of own) if (expiresAt <= now) own.delete(id);
    if (own.size === 0) this.#sessionsByUser.delete(userId);
    return own.size;
  }

  /**
   * Records an entry in the store (which pushes it to every instance), then in this instance's
   * memory. Resolves once the store has it; rejects when the store fails or does not answer within
   * `timeout`, and then this instance's memory is left as it was: an entry that only one instance
   * knows would end the session here and not elsewhere, and a retried sign-out here would find it
   * "already revoked" and write nothing. Memory follows the store (a write that timed out but
   * landed arrives by its push).
   */
  async add(entry: RevocationEntry): Promise<void> {
    await withTimeout(this.#store.add(entry), this.#timeout, "saving a revocation");
    this.apply(entry);
  }

  /**
   * True while the list is known to be current (loaded, and its push channel up): only then may a
   * session be re-issued or extended. While it is not, `onUnavailable: "serve"` serves what is
   * known but never hands out a cookie that outlives the token presented.
   */
  get current(): boolean {
    return this.state === "ready";
  }

  /**
   * The sign-in time (epoch seconds) for a new session of `userId` begun at `nowMs`: `nowMs`, or
   * just after the user's revocation this instance knows, when that is later (its `before` is
   * ahead of the revoking instance's clock by {@link CLOCK_SKEW_MS}): a session begun after the
   * revocation was heard of is never ended by it.
   */
  signInTime(userId: string | undefined, nowMs: number): number {
    const before = userId === undefined ? undefined : this.users.get(userId)?.before;
    // 2 ms, not 1: seconds with a fraction, multiplied back, must land past `before` whatever the rounding.
    return (before !== undefined && before >= nowMs ? Math.floor(before) + 2 : nowMs) / 1000;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [id, expiresAt] of this.sessions) if (expiresAt <= now) this.sessions.delete(id);
    for (const [id, user] of this.users) if (user.expiresAt <= now) this.users.delete(id);
    for (const userId of [...this.#sessionsByUser.keys()]) this.sessionEntriesOf(userId, now);
  }

  /**
   * Subscribes (once), then loads the whole list: pushes that arrive during the load are applied
   * too, and since applying is idempotent their order does not matter. The list becomes `ready`
   * only if the push channel is up when the load ends; when the channel came back during a load
   * (a revocation may have been pushed, and missed, before that load read the store) it loads
   * again. A failure leaves the list `down` and schedules another attempt.
   */
  #reload(): Promise<void> {
    if (this.#reloading) {
      this.#loadAgain = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      try {
        if (!this.#subscribed) {
          await withTimeout(
            this.#store.subscribe({
              entry: (e) => (isEntry(e) ? this.apply(e) : this.#logger.debug("revocation push ignored", e)),
              down: (error) => {
                this.#pushing = false;
                this.#markDown(error);
              },
              up: () => {
                this.#pushing = true;
                void this.#reload();
              },
            }),
            this.#timeout,
            "subscribing to revocations",
          );
          this.#subscribed = true;
        }
        do {
          this.#loadAgain = false;
          const entries = await withTimeout(this.#store.load(), this.#timeout, "loading revocations");
          for (const entry of entries) if (isEntry(entry)) this.apply(entry);
        } while (this.#loadAgain);
        this.#sweep(Date.now());
        // The channel was lost during the load and is not back: stay down; its `up` reloads.
        if (!this.#pushing) return;
        if (this.state === "down") this.#logger.warn("revocation-restored");
        this.state = "ready";
      } catch (e) {
        this.#markDown(errorOf(e));
        this.#scheduleRetry();
      } finally {
        this.#reloading = null;
      }
    })();
    return this.#reloading;
  }

  #markDown(error: Error): void {
    if (this.state !== "down") {
      this.#logger.warn(
        "revocation-unavailable",
        `The revocation list of JWT sessions cannot be kept current (${error.message}); Latchkey retries until the store answers, then reloads the list.`,
      );
    }
    this.state = "down";
  }

  #scheduleRetry(): void {
    if (this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.state !== "ready") void this.#reload();
    }, RETRY_MS);
    this.#retry.unref?.();
  }
}

/**
 * The list that mirrors `store`, made the first time the store is used (kept in `mirrors`, keyed by
 * the store).
 */
function listFor(store: RevocationStore, timeout: number, logger: LoggerInstance): RevocationList {
  const lists = processWide(mirrors);
  const existing = lists.get(store);
  if (existing) return existing;
  const list = new RevocationList(store, timeout, logger);
  lists.set(store, list);
  return list;
}

/**
 * The in-memory list that mirrors `store`, once a configuration has used it; undefined before.
 *
 * @example
 * ```ts
 * revocationListOf(store)?.sessions.size // the session entries this instance holds
 * ```
 */
export function revocationListOf(store: RevocationStore): RevocationList | undefined {
  return processWide(mirrors).get(store);
}

/**
 * An in-memory store: one process only (instances each keep their own list). The default when
 * `session.revocation` is set without a `store`.
 *
 * @example
 * ```ts
 * session: { revocation: { store: new MemoryRevocationStore() } }
 * ```
 */
export class MemoryRevocationStore implements RevocationStore {
  readonly #entries = new Map<string, RevocationEntry>();
  readonly #listeners = new Set<RevocationListener>();

  async add(entry: RevocationEntry): Promise<void> {
    const key = `${entry.kind}\u0000${entry.id}`;
    const known = this.#entries.get(key);
    this.#entries.set(key, {
      ...entry,
      before: Math.max(entry.before, known?.before ?? 0),
      expiresAt: Math.max(entry.expiresAt, known?.expiresAt ?? 0),
    });
    for (const listener of this.#listeners) listener.entry({ ...entry });
  }

  async load(): Promise<RevocationEntry[]> {
    const now = Date.now();
    const live: RevocationEntry[] = [];
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#entries.delete(key);
      else live.push({ ...entry });
    }
    return live;
  }

  async subscribe(listener: RevocationListener): Promise<void> {
    this.#listeners.add(listener);
  }

  async push(change: SessionChange): Promise<void> {
    for (const listener of this.#listeners) listener.change?.({ ...change });
  }

  async close(): Promise<void> {
    this.#listeners.clear();
  }
}

// The default store belongs to the application, as the rate limiter's does (lib/limits/rate-limits.ts):
// every configuration object of the application (copies, one per request, one per server layer)
// and every re-resolution of one reads and writes the same revocations.
const defaultStore = slot("revocation-store", () => new MemoryRevocationStore());

/** Validates `session.revocation` and returns its resolved form, or null when it is off. */
export function resolveRevocation(
  option: RevocationOptions | boolean | undefined,
  strategy: "jwt" | "database",
  /** Whose default store `revocation: true` uses; null where a store is always given (a resource server). */
  application: Application | null,
  logger: LoggerInstance,
): ResolvedRevocation | null {
  if (option === undefined || option === false) return null;
  const options: RevocationOptions = option === true ? {} : option;
  if (typeof options !== "object" || options === null) {
    throw new InvalidConfiguration(
      "`session.revocation` must be `true` or an object `{ store?, onUnavailable?, timeout? }` (see @latchkey/core/revocation).",
    );
  }
  if (strategy !== "jwt") {
    throw new InvalidConfiguration(
      '`session.revocation` applies to JWT sessions; a database session is revoked by deleting its record. Remove the option or use `session: { strategy: "jwt" }`.',
    );
  }
  const { onUnavailable = "refuse", timeout = 3000, sessionsPerUser = 50 } = options;
  if (!Number.isSafeInteger(sessionsPerUser) || sessionsPerUser < 1) {
    throw new InvalidConfiguration(
      `\`session.revocation.sessionsPerUser\` must be a positive whole number; received ${String(sessionsPerUser)}`,
    );
  }
  if (onUnavailable !== "serve" && onUnavailable !== "refuse") {
    throw new InvalidConfiguration(
      `\`session.revocation.onUnavailable\` must be "serve" or "refuse"; received ${JSON.stringify(onUnavailable)}`,
    );
  }
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) {
    throw new InvalidConfiguration(
      `\`session.revocation.timeout\` must be a positive number of milliseconds; received ${String(timeout)}`,
    );
  }
  let store = options.store;
  const isolated = store === undefined && separateProcessesLikely() !== undefined;
  if (store !== undefined) {
    for (const method of ["add", "load", "subscribe"] as const) {
      if (typeof fieldOf(store, method) !== "function") {
        throw new InvalidConfiguration(
          `\`session.revocation.store\` needs an \`${method}\` method (see RevocationStore in @latchkey/core/revocation).`,
        );
      }
    }
  } else if (application) {
    store = held(application, defaultStore);
  } else {
    throw new InvalidConfiguration("A revocation store is required here: pass `store`.");
  }
  return {
    list: listFor(store, timeout, logger),
    refuseWhenUnavailable: onUnavailable === "refuse",
    sessionsPerUser,
    isolated,
  };
}

/**
 * How long an entry made now must live: no token of a session revoked now can outlive the longest
 * token lifetime from now (a revoked session is never re-issued again), plus the clock tolerance
 * with which tokens are opened, plus {@link UNAWARE_MARGIN_MS}: an instance that has not heard of
 * the revocation yet, while its list reads as current, may still re-issue the session's cookie
 * (never while its list is unavailable: `readJwtSession`), and the entry must outlive that cookie
 * too, or the copy would be accepted for good once the entry is gone.
 */
export function entryLifetimeMs(session: { maxAge: number }, jwt: { maxAge: number }): number {
  return (Math.max(session.maxAge, jwt.maxAge) + 15) * 1000 + UNAWARE_MARGIN_MS;
}

/**
 * The entry that ends the session of `claims` (its id `sid`), made at `now` to live until
 * `expiresAt`. Its own session entry, tagged with its user; or, once the user already has
 * `sessionsPerUser` live session entries (a sign-in/sign-out loop), the user's one entry moved to
 * this session's sign-in time, which the store keeps as a single key: the list never holds more
 * than `sessionsPerUser` + 1 entries of a user. That entry also ends the user's other sessions
 * begun at or before this one (the documented price of the bound; sessions begun later live on).
 *
 * Not the token's `exp`: re-issues slide it, so a copy of the session refreshed later (a stolen
 * cookie kept alive) outlives the exp of the copy that signed out; the entry lives as long as
 * the longest token (`entryLifetimeMs`).
 */
export function endingEntry(
  revocation: ResolvedRevocation,
  claims: JWT,
  sid: string,
  now: number,
  expiresAt: number,
): RevocationEntry {
  const userId = typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : undefined;
  const at = signedInAt(claims);
  if (
    userId !== undefined &&
    at !== undefined &&
    revocation.list.sessionEntriesOf(userId, now) >= revocation.sessionsPerUser
  ) {
    // Rounded up: stores keep whole milliseconds, and the session itself must stay covered.
    return { kind: "user", id: userId, before: Math.ceil(at * 1000), expiresAt };
  }
  return { kind: "session", id: sid, before: now, expiresAt, ...(userId !== undefined && { userId }) };
}
