import type { Adapter } from "../../adapters.js";
import type { ResolvedConfig } from "../config.js";
import { expiredCookie } from "../cookies.js";
import { amrOf } from "./jwt-strategy.js";
import type { SessionRead, SessionReadOptions } from "./read.js";

/**
 * Reads (and on update, changes) a database session. An expired session is deleted; the expiry
 * is pushed forward, and the cookie re-issued, at most once per `updateAge` (0 = every access),
 * which bounds the writes a busy user causes.
 */
export async function readDatabaseSession(config: ResolvedConfig, options: SessionReadOptions): Promise<SessionRead> {
  const { cookies: requestCookies, cookie, update } = options;
  const adapter = config.adapter as Required<Adapter>;
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
  const result = await config.callbacks.session({
    session: { ...session, expires, user } as never,
    user,
    token: undefined as never,
    ...(update ? { newSession: update.data, trigger: "update" as const } : {}),
  });
  await config.events.session?.({ session: result });
  return { session: result, cookies, amr: amrOf(session.amr) };
}
