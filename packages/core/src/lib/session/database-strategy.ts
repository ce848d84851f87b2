import type { Cookie, Session } from "../../shapes/data.js";
import { type AdapterWith, adapterFor } from "../base/adapter-for.js";
import { warnOnce } from "../base/logger.js";
import type { ResolvedConfig } from "../config/types.js";
import { expiredCookie } from "../http/cookies.js";
import { isExpired } from "./expiry.js";
import { amrOf } from "./jwt-strategy.js";
import type { LiveSession, SessionRead, SessionReadOptions } from "./read-shapes.js";
import type { SessionAndUser } from "./session-cache.js";

/**
 * The stored session a cookie names, as every database-session reader must see it: from memory
 * with `session.cache` while its channel is trusted (`session-cache.ts`), else from the adapter;
 * an expired one (`expiry.ts`) is deleted and none. `clear` deletes a cookie that names no live
 * session.
 */
async function openStoredSession(
  config: ResolvedConfig,
  options: Pick<SessionReadOptions, "cookies" | "cookie">,
): Promise<{ sessionToken: string | undefined; found: SessionAndUser | null; clear: Cookie[] }> {
  const { cookies, cookie } = options;
  const sessionToken = cookies[cookie.name];
  if (!sessionToken) return { sessionToken, found: null, clear: [] };
  const adapter = adapterFor(config, "getSessionAndUser");
  const cache = config.sessionCache;
  let found = cache
    ? await cache.read(sessionToken, async () => (await adapter.getSessionAndUser(sessionToken)) ?? null)
    : await adapter.getSessionAndUser(sessionToken);
  if (found && isExpired(found.session.expires)) {
    const { deleteSession } = adapterFor(config, "getSessionAndUser", "deleteSession");
    await goneEvenIfRefused(adapter, sessionToken, () => deleteSession(sessionToken));
    found = null;
  }
  return { sessionToken, found: found ?? null, clear: found ? [] : [expiredCookie(cookie.name, cookie.options)] };
}

/** Who a database session read names (the one read's live form, `read.ts`): null unless it found a session. */
export function liveDatabaseSession(read: SessionRead): LiveSession | null {
  const { stored, user } = read;
  if (!read.session || !stored || !user) return null;
  return {
    userId: stored.userId,
    user,
    sessionToken: stored.sessionToken,
    amr: read.amr,
    signedInAt: stored.createdAt ? new Date(stored.createdAt).valueOf() : null,
    key: ["database", stored.sessionToken],
  };
}

/**
 * Reads (and on update, changes) a database session. An expired session is deleted; the expiry
 * is pushed forward, and the cookie re-issued, at most once per `updateAge` (0 = every access),
 * which bounds the writes a busy user causes.
 */
export async function readDatabaseSession(config: ResolvedConfig, options: SessionReadOptions): Promise<SessionRead> {
  const { cookie, update } = options;
  const { sessionToken, found, clear } = await openStoredSession(config, options);
  const signedOut = { session: null, cookies: clear };
  if (!found || !sessionToken) return signedOut;
  const adapter = adapterFor(config, "getSessionAndUser", "updateSession");
  const cache = config.sessionCache;

  const { user, session } = found;
  const { maxAge, updateAge } = config.session;
  let expires = session.expires;
  const cookies = [];
  if (update || session.expires.valueOf() - maxAge * 1000 + updateAge * 1000 <= Date.now()) {
    const write = async () => {
      const next = new Date(Date.now() + maxAge * 1000);
      // The same write records when the session was last seen (for adapters that keep it), so
      // `lastSeenAt` costs no write of its own and is at most `updateAge` old.
      const changes = config.adapter?.listSessions
        ? { sessionToken, expires: next, lastSeenAt: new Date() }
        : { sessionToken, expires: next };
      return { next, gone: await goneEvenIfRefused(adapter, sessionToken, () => adapter.updateSession(changes)) };
    };
    // Cached reads of one session that fall due together make one write in this process (an
    // update from the client always writes); the write drops the session from every cache.
    const { next, gone } = cache && !update ? await cache.once(sessionToken, write) : await write();
    // Ended meanwhile (a sign-out in another tab): signed out, like a session not found.
    if (gone) return { session: null, cookies: [expiredCookie(cookie.name, cookie.options)] };
    expires = next;
    if (options.reissue)
      cookies.push({ name: cookie.name, value: sessionToken, options: { ...cookie.options, expires } });
  }
  // The callback sees the record without its token: the token is the HttpOnly cookie's value, and
  // whatever the callback returns may reach a script through `GET /session`.
  const { sessionToken: _token, ...record } = session;
  const returned = await config.callbacks.session({
    // The client's ISO string, as under JWT sessions: one type for `expires` in every callback.
    session: { ...record, expires: expires.toISOString(), user },
    user,
    token: undefined as never,
    newSession: update?.data,
    ...(update ? { trigger: "update" as const } : {}),
  });
  const result = withoutSessionToken(config, returned, sessionToken);
  // Typed as Auth.js types the event (a Session and a token); a database session has no token.
  await config.events.session?.({ session: result as Session, token: undefined as never });
  return { session: result, cookies, amr: amrOf(session.amr), stored: session, user };
}

/**
 * Runs `write` (a `deleteSession` or `updateSession` of `sessionToken`); true when it was refused
 * because the session no longer exists. Some Auth.js adapters (Prisma's) throw for a missing row
 * where others answer null: a refusal is then checked by reading the session back, and rethrown
 * unless the session is really gone (a store outage stays an error).
 *
 * @example
 * ```ts
 * if (await goneEvenIfRefused(adapter, token, () => adapter.deleteSession(token))) return signedOut
 * ```
 */
export async function goneEvenIfRefused(
  adapter: Pick<AdapterWith<"getSessionAndUser">, "getSessionAndUser">,
  sessionToken: string,
  write: () => unknown,
): Promise<boolean> {
  try {
    await write();
    return false;
  } catch (e) {
    const still = await Promise.resolve(adapter.getSessionAndUser(sessionToken)).catch(() => {
      throw e;
    });
    if (still) throw e;
    return true;
  }
}

/**
 * The callback's answer with every string that contains the session token removed (properties
 * and array elements, at any depth), and every `sessionToken` property whatever its value (a
 * record of another of the user's sessions, read through the adapter, carries another device's
 * cookie), and a warning once naming the fix. The callback no longer
 * receives the token, so this is the second wall: a token reached some other way (an adapter
 * call, a custom field) still never leaves in a session answer.
 */
function withoutSessionToken<T>(config: ResolvedConfig, answer: T, sessionToken: string): T {
  if (!holds(answer, sessionToken, new Set())) return answer;
  warnOnce(config, "session-callback-returned-token");
  return strip(answer, sessionToken, new Map()) as T;
}

function isPlain(value: unknown): value is Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return true;
  if (!value || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether `text` carries the token: contains it, or (a token too short to search for) equals it. */
function carries(text: string, secret: string): boolean {
  return secret.length >= 16 ? text.includes(secret) : text === secret;
}

/** The property that names a session's token in a record (`AdapterSession`): never answered. */
const TOKEN_KEY = "sessionToken";

function holds(value: unknown, secret: string, seen: Set<object>): boolean {
  if (typeof value === "string") return carries(value, secret);
  if (!isPlain(value) || seen.has(value)) return false;
  seen.add(value);
  if (!Array.isArray(value) && Object.hasOwn(value, TOKEN_KEY)) return true;
  return Object.values(value).some((v) => holds(v, secret, seen));
}

function strip(value: unknown, secret: string, copies: Map<object, unknown>): unknown {
  if (!isPlain(value)) return value;
  const done = copies.get(value);
  if (done) return done;
  const keep = (v: unknown) => !(typeof v === "string" && carries(v, secret));
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    copies.set(value, out);
    for (const v of value) if (keep(v)) out.push(strip(v, secret, copies));
    return out;
  }
  const out: Record<string, unknown> = Object.create(Object.getPrototypeOf(value));
  copies.set(value, out);
  for (const [k, v] of Object.entries(value)) if (k !== TOKEN_KEY && keep(v)) out[k] = strip(v, secret, copies);
  return out;
}
