/**
 * What every shared revocation store needs besides its database: the wire form of an entry (as a
 * push carries it, or a key holds it) and the watch over a push channel (a heartbeat that reports
 * `down` and `up` to the list). The stores themselves live with their databases
 * (`@latchkey/redis-adapter`, `@latchkey/sql-adapter`); `@latchkey/core/stores` exports these.
 */
import { hash, toHex } from "#platform";
import type { RevocationEntry, RevocationListener, SessionChange } from "../../shapes/revocation.js";
import { errorOf } from "../base/error-of.js";
import { fieldOf } from "../base/merge.js";
import { isEntry, MAX_HEARTBEAT_MS } from "../session/revocation-list.js";

/** The wire form of an entry in a push or a stored value. */
export function encodeRevocationEntry(entry: RevocationEntry): string {
  const { kind, id, before, expiresAt, userId } = entry;
  return JSON.stringify({ k: kind === "session" ? "s" : "u", i: id, b: before, e: expiresAt, u: userId });
}

/** An entry from its wire form; null for anything that is not one (a foreign message, a bad value). */
export function decodeRevocationEntry(text: string | undefined | null): RevocationEntry | null {
  if (!text) return null;
  try {
    const raw: unknown = JSON.parse(text);
    const [k, u] = [fieldOf(raw, "k"), fieldOf(raw, "u")];
    const entry = {
      kind: k === "s" ? "session" : k === "u" ? "user" : undefined,
      id: fieldOf(raw, "i"),
      before: fieldOf(raw, "b"),
      expiresAt: fieldOf(raw, "e"),
      ...(k === "s" && u !== undefined && { userId: u }),
    };
    return isEntry(entry) ? entry : null;
  } catch {
    return null;
  }
}

/**
 * The wire form of a session change in a push: `{"c":"s"|"u","i":id}` (the PostgreSQL triggers of
 * `latchkey migrate` send the same JSON). Never mistaken for an entry: it has no `k`.
 */
export function encodeSessionChange(change: SessionChange): string {
  return JSON.stringify({ c: change.kind === "session" ? "s" : "u", i: change.id });
}

/** A session change from its wire form; null for anything else (an entry, a foreign message). */
function decodeSessionChange(text: string | undefined | null): SessionChange | null {
  if (!text?.includes('"c"')) return null;
  try {
    const raw: unknown = JSON.parse(text);
    const [c, id] = [fieldOf(raw, "c"), fieldOf(raw, "i")];
    const kind = c === "s" ? "session" : c === "u" ? "user" : undefined;
    if (!kind || typeof id !== "string" || id.length === 0 || id.length > 512) return null;
    return { kind, id };
  } catch {
    return null;
  }
}

/**
 * The key under which a session travels in a {@link SessionChange}: SHA-256 of its token in
 * lower-case hex (a push never carries the token itself, a bearer credential). PostgreSQL computes
 * the same with `encode(sha256(convert_to(token, 'UTF8')), 'hex')`.
 *
 * @example
 * ```ts
 * await store.push?.({ kind: "session", id: sessionKeyOf(sessionToken) })
 * ```
 */
export function sessionKeyOf(sessionToken: string): string {
  return toHex(hash("sha256", sessionToken));
}

/**
 * Hands a pushed message to `listener`: a revocation entry to `entry`, a session change to
 * `change`; anything else is ignored. The built-in stores call it for every message of their channel.
 *
 * @example
 * ```ts
 * bus.onMessage((text) => deliver(listener, text))
 * ```
 */
export function deliver(listener: RevocationListener | undefined, text: string | undefined | null): void {
  if (!listener) return;
  const change = decodeSessionChange(text);
  if (change) {
    listener.change?.(change);
    return;
  }
  const entry = decodeRevocationEntry(text);
  if (entry) listener.entry(entry);
}

/** A promise that rejects after `ms` (unless cancelled): the bound of a call that may hang. */
export function failAfter(ms: number, what: string): { promise: Promise<never>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * `heartbeatMs` of a store: a positive number up to `MAX_HEARTBEAT_MS` (60 s), 5000 when absent. A
 * lost push channel is reported within two periods, and entries outlive cookies by the margin that
 * covers it (`RevocationStore`): a longer period would let an instance re-issue a revoked
 * session's cookie past the entry's lifetime. `store` names the store in the error.
 */
export function revocationHeartbeatMs(store: string, value: number | undefined): number {
  const ms = value ?? 5000;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms <= 0 || ms > MAX_HEARTBEAT_MS) {
    throw new TypeError(
      `${store}: \`heartbeatMs\` must be a positive number of milliseconds up to ${MAX_HEARTBEAT_MS}; received ${String(value)}`,
    );
  }
  return ms;
}

/**
 * Watches a push channel with a heartbeat: every `heartbeatMs`, `check` must answer within
 * `timeoutMs` (default `heartbeatMs`), or the listener hears `down`; the first answer after that
 * gives `up`. Connection events of a client call `down` / `up` directly; both are reported only on
 * a change. `onDown` runs on every `down` (a store replaces its connection there).
 *
 * One check at a time: a check given up at its timeout may still be running on what it holds (a
 * connection of the application's pool, a command queued on the subscriber), so the next one
 * starts only once it has ended. Before, a link slower than the heartbeat ran a new poll every
 * period beside the ones still running until they held every connection of the pool.
 */
export class ChannelHealth {
  #up = true;
  #timer: ReturnType<typeof setInterval> | undefined;
  #checking = false;
  readonly #listener: () => RevocationListener | undefined;
  readonly #check: () => Promise<unknown>;
  readonly #heartbeatMs: number;
  readonly #timeoutMs: number;
  readonly #onDown: (() => void) | undefined;

  constructor(
    listener: () => RevocationListener | undefined,
    check: () => Promise<unknown>,
    heartbeatMs: number,
    onDown?: () => void,
    timeoutMs = heartbeatMs,
  ) {
    this.#listener = listener;
    this.#check = check;
    this.#heartbeatMs = heartbeatMs;
    this.#onDown = onDown;
    this.#timeoutMs = timeoutMs;
  }

  /** Starts the heartbeat (once). */
  start(): void {
    this.#timer ??= setInterval(() => void this.beat(), this.#heartbeatMs);
    this.#timer.unref?.();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  down(error: Error): void {
    this.#onDown?.();
    if (!this.#up) return;
    this.#up = false;
    this.#listener()?.down(error);
  }

  up(): void {
    if (this.#up) return;
    this.#up = true;
    this.#listener()?.up();
  }

  /** One check: `up` when it answers in time, `down` otherwise; none while the last is still running. */
  async beat(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    const check = Promise.resolve().then(() => this.#check());
    const ended = () => {
      this.#checking = false;
    };
    check.then(ended, ended);
    const limit = failAfter(this.#timeoutMs, "revocation heartbeat");
    try {
      await Promise.race([check, limit.promise]);
      this.up();
    } catch (e) {
      this.down(errorOf(e));
    } finally {
      limit.cancel();
    }
  }
}
