import { adapterFor } from "../adapter-for.js";
import type { ResolvedConfig } from "../config-types.js";
import { expiredCookie } from "../cookies.js";
import { warnOnce } from "../logger.js";
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

  let found = await adapter.getSessionAndUser(sessionToken);
  if (found && found.session.expires.valueOf() < Date.now()) {
    await adapter.deleteSession(sessionToken);
    found = null;
  }
  if (!found) return { session: null, cookies: [expiredCookie(cookie.name, cookie.options)] };

  const { user, session } = found;
  const { maxAge, updateAge } = config.session;
  let expires = session.expires;
  const cookies = [];
  if (update || session.expires.valueOf() - maxAge * 1000 + updateAge * 1000 <= Date.now()) {
    expires = new Date(Date.now() + maxAge * 1000);
    // The same write records when the session was last seen (for adapters that keep it), so
    // `lastSeenAt` costs no write of its own and is at most `updateAge` old.
    await adapter.updateSession(
      config.adapter?.listSessions ? { sessionToken, expires, lastSeenAt: new Date() } : { sessionToken, expires },
    );
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
    ...(update ? { newSession: update.data, trigger: "update" as const } : {}),
  });
  const result = withoutSessionToken(config, returned, sessionToken);
  await config.events.session?.({ session: result });
  return { session: result, cookies, amr: amrOf(session.amr) };
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
