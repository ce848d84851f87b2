import type { Session } from "../../shapes/data.js";
import { type AdapterWith, adapterFor } from "../base/adapter-for.js";
import { warnOnce } from "../base/logger.js";
import type { ResolvedConfig } from "../config/types.js";
import { expiredCookie } from "../http/cookies.js";
import { amrOf } from "./jwt-strategy.js";
import type { SessionRead, SessionReadOptions } from "./read.js";

/**
 * Reads (and on update, changes) a database session. An expired session is deleted; the expiry
 * is pushed forward, and the cookie re-issued, at most once per `updateAge` (0 = every access),
 * which bounds the writes a busy user causes.
 */
export async function readDatabaseSession(config: ResolvedConfig, options: SessionReadOptions): Promise<SessionRead> {
  const { cookies: requestCookies, cookie, update } = options;
  const adapter = adapterFor(config, "getSessionAndUser", "deleteSession", "updateSession");
  const sessionToken = requestCookies[cookie.name];
  if (!sessionToken) return { session: null, cookies: [] };

  const cache = config.sessionCache;
  // With `session.cache`: from memory while its channel is trusted (lib/session/session-cache.ts).
  let found = cache
    ? await cache.read(sessionToken, async () => (await adapter.getSessionAndUser(sessionToken)) ?? null)
    : await adapter.getSessionAndUser(sessionToken);
  if (found && found.session.expires.valueOf() < Date.now()) {
    await goneEvenIfRefused(adapter, sessionToken, () => adapter.deleteSession(sessionToken));
    found = null;
  }
  const signedOut = { session: null, cookies: [expiredCookie(cookie.name, cookie.options)] };
  if (!found) return signedOut;

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
    if (gone) return signedOut;
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
  return { session: result, cookies, amr: amrOf(session.amr), stored: session };
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
