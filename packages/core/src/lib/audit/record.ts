import { hash, toBase64url } from "#platform";
import type { Adapter } from "../../shapes/adapters.js";
import type { AuditEvent, AuditEventFilter, AuditOptions, AuditStore } from "../../shapes/audit.js";
import type { LoggerInstance } from "../../shapes/data.js";
import type { RateLimit, RateLimitStore } from "../../shapes/rate-limit.js";
import { type Application, held, secretFingerprint, slot } from "../base/application.js";
import { errorOf } from "../base/error-of.js";
import { AuthError, InvalidConfiguration, MissingAdapterMethods } from "../base/errors.js";
import { foldIdentifier } from "../base/fold-identifier.js";
import { escapeForLog } from "../base/logger.js";
import type { EventCallbacks } from "../config/options.js";
import type { Secrets } from "../crypto/jwe.js";
import { MemoryRateLimitStore } from "../limits/memory-store.js";
import { databaseSessionId } from "../session/session-id.js";
import { isAnonymousAuditEvent } from "../stores/records.js";

const DAY = 24 * 60 * 60;

/**
 * What the audit trail reads of a resolved configuration. Structural, so that `lib/config/resolve.ts`
 * (which resolves the `audit` option with this module) is not imported back.
 */
export interface AuditedConfig {
  readonly application: Application;
  readonly audit: ResolvedAudit | null;
  readonly events: Readonly<Pick<Partial<EventCallbacks>, "audit">>;
  readonly logger: LoggerInstance;
  readonly secrets: Secrets;
  readonly jwt: { readonly secrets: Secrets };
}

/** The audit trail of a resolved configuration; null when nothing would receive its events. */
export interface ResolvedAudit {
  /** Where events are stored; null when only `events.audit` receives them. */
  store: AuditStore | null;
  retentionMs: number;
  /** Failed sign-ins recorded per client address and window (beyond it they are dropped). */
  failuresPerClient: RateLimit;
  /** Records of one type kept per user and window (beyond it they are dropped). */
  recordsPerUser: RateLimit;
  /** The counters of the bounds above (a shared rate-limit store such as Redis, else one in memory of their own). */
  gate: RateLimitStore;
}

/** How long a write may hold a request before it goes on in the background. */
const AUDIT_WRITE_BOUND_MS = 1000;

/** The application's counters of the bounds when no shared rate-limit store holds them. */
const fallbackGate = slot("audit-gate", () => new MemoryRateLimitStore());

/**
 * Validates the `audit` option. `store: true` stores in the configuration's adapter (which must
 * have `createAuditEvent` and `deleteAuditEvents`); an object stores in it instead.
 */
export function resolveAudit(
  options: AuditOptions | undefined,
  context: {
    adapter?: Adapter;
    handler: boolean;
    rateLimitStore?: RateLimitStore;
    /** The application's default (in-memory) rate-limit store, which never holds these counters. */
    defaultRateLimitStore: RateLimitStore;
    application: Application;
  },
): ResolvedAudit | null {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new InvalidConfiguration("`audit` must be an object such as `{ store: true, retention: 7776000 }`.");
  }
  const wanted = options?.store ?? false;
  let store: AuditStore | null = null;
  if (wanted === true) {
    if (!context.adapter) {
      throw new InvalidConfiguration(
        "`audit.store: true` stores events in the `adapter`, and none is configured; pass a store object or add an adapter.",
      );
    }
    store = context.adapter as AuditStore;
  } else if (wanted !== false) {
    if (typeof wanted !== "object" || wanted === null) {
      throw new InvalidConfiguration("`audit.store` must be true, false, or an object with the audit methods.");
    }
    store = wanted;
  }
  if (store) {
    const missing = (["createAuditEvent", "deleteAuditEvents"] as const).filter(
      (m) => typeof store?.[m] !== "function",
    );
    if (missing.length) {
      throw new MissingAdapterMethods(
        `\`audit.store\` needs the methods ${missing.join(", ")}; @latchkey/sql-adapter, @latchkey/redis-adapter and the MemoryAdapter have them.`,
      );
    }
  }
  const retention = options?.retention ?? 90 * DAY;
  if (typeof retention !== "number" || !Number.isFinite(retention) || retention <= 0) {
    throw new InvalidConfiguration(
      `\`audit.retention\` must be a positive number of seconds; received ${String(retention)}`,
    );
  }
  const limit = checkBudget("failuresPerClient", options?.failuresPerClient);
  const perUser = checkBudget("recordsPerUser", options?.recordsPerUser);
  if (!store && !context.handler) return null;
  // A shared store (Redis) holds the admission counters too; the limiter's in-memory store does
  // not: each bounds its own counters, so a flood that fills one never presses on the other.
  const limiter = context.rateLimitStore;
  const inMemory = !limiter || limiter === context.defaultRateLimitStore || limiter instanceof MemoryRateLimitStore;
  const gate = inMemory ? held(context.application, fallbackGate) : limiter;
  return {
    store,
    retentionMs: retention * 1000,
    failuresPerClient: limit,
    recordsPerUser: perUser,
    gate,
  };
}

/** A budget option of `audit`, checked (default 200 per 15 minutes). */
function checkBudget(name: string, given: { max: number; windowSeconds: number } | undefined): RateLimit {
  const limit = given ?? { max: 200, windowSeconds: 15 * 60 };
  if (!Number.isInteger(limit?.max) || limit.max < 1 || !(limit.windowSeconds > 0)) {
    throw new InvalidConfiguration(`\`audit.${name}\` must be { max: <integer >= 1>, windowSeconds: <number > 0> }.`);
  }
  return { max: limit.max, windowSeconds: limit.windowSeconds };
}

/** `value` as a harmless string of at most `max` characters: control characters escaped. */
function harmless(value: unknown, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  let text = escapeForLog(String(value).slice(0, max * 2)).slice(0, max);
  // A cut between the halves of a surrogate pair would leave half a character.
  if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);
  return text;
}

/** The identifier as recorded: normalised as the rate limiter counts it, then made harmless. */
function auditIdentifier(identifier: unknown): string | undefined {
  if (typeof identifier !== "string") return undefined;
  // Cut before normalising: NFKC of a megabyte would cost more than the whole request.
  return harmless(foldIdentifier(identifier.slice(0, 1024)), 255);
}

// The longest each recorded string may be.
const USER_ID_MAX = 255;
const caps = [
  ["userId", USER_ID_MAX],
  ["provider", 100],
  ["sessionId", 100],
  ["clientAddress", 64],
  ["reason", 100],
  ["providerAccountId", 255],
] as const;

/** A copy of the event whose every string is capped and harmless (a store's row stays small). */
function bounded(event: AuditEvent): AuditEvent {
  const out = { ...event } as AuditEvent & Record<string, unknown>;
  out.at = event.at instanceof Date ? event.at : new Date();
  for (const [field, max] of caps) {
    const value = harmless(out[field], max);
    if (value === undefined) delete out[field];
    else out[field] = value;
  }
  const identifier = auditIdentifier(event.identifier);
  if (identifier === undefined) delete out.identifier;
  else out.identifier = identifier;
  return out;
}

/**
 * The filter's user id and identifier as the trail records them (normalised, escaped, capped), so
 * that an identifier as the application knows it (`Ada@Example.com`) finds what the trail holds
 * (`ada@example.com`), and a value the trail would have escaped never reaches a store raw.
 */
export function asRecorded(filter: AuditEventFilter): AuditEventFilter {
  const out = { ...filter };
  // Both are strings here (`harmless` and `auditIdentifier` give undefined only for other values).
  if (typeof filter.userId === "string") out.userId = harmless(filter.userId, USER_ID_MAX) ?? "";
  if (typeof filter.identifier === "string") out.identifier = auditIdentifier(filter.identifier) ?? "";
  return out;
}

// When each store was last swept (so the sweep runs once per interval, not per request).
const lastSweeps = new WeakMap<AuditStore, number>();

/** Deletes the events past retention, at most once per interval (a tenth of it, at most an hour), in the background. */
function sweepIfDue(config: AuditedConfig, audit: ResolvedAudit, store: AuditStore): void {
  const now = Date.now();
  const interval = Math.min(audit.retentionMs / 10, 60 * 60 * 1000);
  const last = lastSweeps.get(store);
  if (last !== undefined && now - last < interval) return;
  lastSweeps.set(store, now);
  Promise.resolve()
    .then(() => store.deleteAuditEvents(new Date(now - audit.retentionMs)))
    .catch((e: unknown) =>
      config.logger.error(new AuthError("The audit store failed to delete expired events", { err: errorOf(e) })),
    );
}

/** Writes one event, waiting at most AUDIT_WRITE_BOUND_MS; a failure is logged, never thrown. */
async function write(config: AuditedConfig, audit: ResolvedAudit, store: AuditStore, event: AuditEvent) {
  let settled = false;
  const done = Promise.resolve()
    .then(() => store.createAuditEvent({ ...event }))
    .then(
      () => {
        settled = true;
      },
      (e: unknown) => {
        settled = true;
        config.logger.error(
          new AuthError(`The audit store failed to record a ${event.type} event`, { err: errorOf(e) }),
        );
      },
    );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, AUDIT_WRITE_BOUND_MS);
  });
  await Promise.race([done, bound]);
  clearTimeout(timer);
  if (!settled) {
    config.logger.error(
      new AuthError(
        `The audit store did not record a ${event.type} event within ${AUDIT_WRITE_BOUND_MS} ms; the request went on without waiting`,
      ),
    );
  }
  sweepIfDue(config, audit, store);
}

/**
 * Records one security event: delivered to `events.audit` and written to the audit store, both
 * at once. Never throws (a handler's or a store's failure is logged) and never holds the caller
 * longer than the handler takes plus AUDIT_WRITE_BOUND_MS.
 */
export async function recordAudit(config: AuditedConfig, event: AuditEvent): Promise<void> {
  const audit = config.audit;
  if (!audit) return;
  let clean: AuditEvent;
  try {
    clean = bounded(event);
  } catch (e) {
    // A value whose String() throws (an application's odd user id): the record is lost, not the request.
    config.logger.error(new AuthError(`A ${event.type} audit event could not be recorded`, { err: errorOf(e) }));
    return;
  }
  // What happened to an account is bounded per user and type, so that a user's own loop (signing
  // in over and over) cannot grow the store without bound; anonymous events are admitted by
  // their callers, per client (admitAnonymous).
  if (!isAnonymousAuditEvent(clean) && clean.userId !== undefined) {
    const user = toBase64url(hash("sha256", clean.userId)).slice(0, 22);
    if (!(await admitRecord(config, `user:${user}:${clean.type}`, audit.recordsPerUser))) return;
  }
  await Promise.all([
    config.events.audit?.({ ...clean }),
    audit.store ? write(config, audit, audit.store, clean) : undefined,
  ]);
}

/** The /48 of an IPv6 client key (`a:b:c:d::/64`), or undefined for any other client. */
function sitePrefix(client: string): string | undefined {
  if (!client.endsWith("::/64")) return undefined;
  return `${client.slice(0, -5).split(":").slice(0, 3).join(":")}::/48`;
}

/**
 * True when one more anonymous record (a failed or limited sign-in) of kind `budget` from
 * `client` (a rate-limiter client key, IPv6 by its /64; undefined when the address is unknown)
 * fits this window: `audit.failuresPerClient` per client and kind, and for IPv6 sixteen times
 * that per /48 too, since one site holds 65,536 /64s.
 */
export async function admitAnonymous(config: AuditedConfig, client: string | undefined, budget: string) {
  const audit = config.audit;
  if (!audit) return false;
  const site = client === undefined ? undefined : sitePrefix(client);
  if (site) {
    const perSite = { max: audit.failuresPerClient.max * 16, windowSeconds: audit.failuresPerClient.windowSeconds };
    if (!(await admitRecord(config, `failed:${site}:${budget}`, perSite))) return false;
  }
  return admitRecord(config, `failed:${client ?? "-"}:${budget}`, audit.failuresPerClient);
}

/**
 * True when the counter `key` admits one more record in its window: `max` records per window
 * (`max: 1` records the first only). A store that fails admits: the audit trail is not worth an
 * outage of the sign-in it records.
 */
export async function admitRecord(config: AuditedConfig, key: string, limit: RateLimit): Promise<boolean> {
  const audit = config.audit;
  if (!audit) return false;
  try {
    const hit = await audit.gate.increment(`audit:${key}`, limit.windowSeconds * 1000);
    if (hit.count === limit.max + 1) {
      config.logger.warn(
        "audit-bounded",
        `More than ${limit.max} audit records for ${escapeForLog(key)} in ${limit.windowSeconds} s: the rest of this window is not recorded.`,
      );
    }
    return hit.count <= limit.max;
  } catch {
    return true;
  }
}

/**
 * A fingerprint of each secret: an HMAC under the secret itself of a fixed label, 12 characters.
 * It names the secret in the audit trail and cannot be turned back into it.
 */
function fingerprints(secrets: readonly string[]): string[] {
  return secrets.map((s) => secretFingerprint(s).slice(0, 12));
}

/**
 * Per application: the fingerprints last seen (a rotation is recorded once, however many
 * configuration objects and resolutions see it), and a rotation found by a resolution, waiting for
 * the first request (through any object of the application) to record it: resolving a
 * configuration does no I/O.
 */
const rotation = slot("secret-rotation", (): { seen?: string[]; pending?: AuditEvent } => ({}));

/**
 * Called with every fresh resolution: when its secrets (or `jwt.secret`) differ from those the
 * application's previous resolution had (never the first time), notes the `secret.rotated` event
 * for the first request to record ({@link recordPendingAudit}). Records nothing itself.
 */
export function noteSecretRotation(config: AuditedConfig): void {
  const current = fingerprints([...new Set([...config.secrets, ...config.jwt.secrets])]);
  const notes = held(config.application, rotation);
  const previous = notes.seen;
  notes.seen = current;
  if (!previous || previous.join() === current.join() || !config.audit) return;
  notes.pending = {
    type: "secret.rotated",
    at: new Date(),
    fingerprints: current,
    previousFingerprints: previous,
  };
}

/**
 * Records, once, a secret rotation a resolution of the application's configuration noted, in
 * the background: the request does not wait for the store.
 *
 * @example
 * ```ts
 * recordPendingAudit(resolveConfig(config, env))
 * ```
 */
export function recordPendingAudit(config: AuditedConfig): void {
  const notes = held(config.application, rotation);
  const event = notes.pending;
  if (!event) return;
  notes.pending = undefined;
  void recordAudit(config, event);
}

/**
 * The events whose facts are already Latchkey events, recorded from those: an account linked
 * (every flow that links emits `linkAccount`), unlinked (`unlinkAccount`), and a session ended
 * by the application (`signOut` with a `reason`). One place for each fact, whatever flow made it.
 * A database session is named by its keyed-hash id, a JWT session by its `sid`.
 */
export function withAuditedEvents(
  events: Partial<EventCallbacks>,
  config: () => AuditedConfig,
): Partial<EventCallbacks> {
  const account = (
    type: "account.linked" | "account.unlinked",
    message: { user: { id?: string }; account: { provider: string; providerAccountId: string } },
  ) =>
    recordAudit(config(), {
      type,
      at: new Date(),
      userId: message.user.id,
      provider: message.account.provider,
      providerAccountId: message.account.providerAccountId,
    });
  return {
    ...events,
    async linkAccount(message) {
      await Promise.all([events.linkAccount?.(message), account("account.linked", message)]);
    },
    async unlinkAccount(message) {
      await Promise.all([events.unlinkAccount?.(message), account("account.unlinked", message)]);
    },
    async signOut(message) {
      const { reason, session, token } = message;
      await Promise.all([
        events.signOut?.(message),
        reason === undefined
          ? undefined
          : recordAudit(config(), {
              type: "session.revoked",
              at: new Date(),
              reason,
              userId: session?.userId ?? (typeof token?.sub === "string" ? token.sub : undefined),
              sessionId:
                typeof session?.sessionToken === "string"
                  ? databaseSessionId(config(), session.sessionToken)
                  : typeof token?.sid === "string"
                    ? token.sid
                    : undefined,
            }),
      ]);
    },
  };
}
