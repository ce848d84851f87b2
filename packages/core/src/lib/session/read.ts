/**
 * The one session read (issue 35.1): what reading a session takes and gives, and the one place
 * that picks the strategy (`jwt-strategy.ts` / `database-strategy.ts` implement it). Every reader
 * of "who is signed in" (the session action, every `getSession`/`auth()` through
 * `request-read.ts`, the guards, the sessions API, the account functions, `getAccessToken`,
 * account linking) calls {@link readSession}, which never throws, and reads who it found with
 * {@link liveSessionOf}. One failure policy: a session store that fails (or a revocation list
 * that refuses) is logged (`SessionTokenError`) and reads as no session (`failed`); a `session`
 * callback that returns anything but an object (or null) is logged naming the callback and reads
 * as no session; a cookie that does not open, an expired session (`expiry.ts`: expired iff
 * `expires <= now`) and a revoked one read as no session with the cookie cleared.
 */
import type { AdapterUser } from "../../shapes/adapters.js";
import { adapterFor } from "../base/adapter-for.js";
import { errorOf } from "../base/error-of.js";
import { InvalidConfiguration, SessionTokenError } from "../base/errors.js";
import type { ResolvedConfig } from "../config/types.js";
import { readChunkedCookie } from "../http/cookies.js";
import { liveDatabaseSession, readDatabaseSession } from "./database-strategy.js";
import { liveJwtSession, readJwtSession } from "./jwt-strategy.js";
import type { LiveSession, Reading, SessionRead, SessionReadOptions, SessionSubject } from "./read-shapes.js";
import { databaseSessionId } from "./session-id.js";

/** Who a read of each strategy names, and the adapter method its user is read with. */
interface Strategy {
  needs: "getSessionAndUser" | "getUser";
  live(read: SessionRead): LiveSession | null;
}

const strategies: Record<ResolvedConfig["session"]["strategy"], Strategy> = {
  jwt: { live: liveJwtSession, needs: "getUser" },
  database: { live: liveDatabaseSession, needs: "getSessionAndUser" },
};

/** The read of the configured strategy: a direct call the engine can inline (it runs on every request). */
function strategyRead(config: ResolvedConfig, options: SessionReadOptions): SessionRead | Promise<SessionRead> {
  return config.session.strategy === "jwt" ? readJwtSession(config, options) : readDatabaseSession(config, options);
}

/**
 * The adapter method a reader of who is signed in needs under the configured strategy (a
 * database session is read with its user; a JWT session's user is read by id), for a function
 * that checks every method it needs before doing anything.
 *
 * @example
 * ```ts
 * const adapter = adapterFor(resolved, "listAccounts", ["listAccounts"], readNeeds(resolved))
 * ```
 */
export function readNeeds(config: ResolvedConfig): ["getSessionAndUser" | "getUser"] {
  return [strategies[config.session.strategy].needs];
}

/**
 * Reads the session of a request under the configured strategy, as `GET /session` answers it,
 * on the caller's own turn when nothing has to wait (a JWT session with the built-in codec and
 * no callbacks of the application's). Never throws: see the module's failure policy.
 *
 * @example
 * ```ts
 * const read = readSession(resolved, { cookies, cookie, reissue: true })
 * const { session, cookies: set } = read instanceof Promise ? await read : read
 * ```
 */
export function readSession(config: ResolvedConfig, options: SessionReadOptions): SessionRead | Promise<SessionRead> {
  try {
    const read = strategyRead(config, options);
    return read instanceof Promise
      ? read.then(
          (done) => sessionObjectOf(config, done),
          (e) => failedRead(config, e),
        )
      : sessionObjectOf(config, read);
  } catch (e) {
    return failedRead(config, e);
  }
}

/**
 * Who the session a {@link readSession} found names, or null (none found).
 *
 * @example
 * ```ts
 * const live = liveSessionOf(resolved, await readSession(resolved, { cookies, cookie, reissue: false }))
 * ```
 */
export function liveSessionOf(config: ResolvedConfig, read: SessionRead): LiveSession | null {
  return strategies[config.session.strategy].live(read);
}

/** A read that failed (a store down, a revocation list refusing): logged, no session, the cookie kept. */
function failedRead(config: ResolvedConfig, e: unknown): SessionRead {
  config.logger.error(new SessionTokenError("The session could not be read", { err: errorOf(e) }));
  return { session: null, cookies: [], failed: true };
}

/** The read, unless the `session` callback answered with something other than an object: then no session, logged. */
function sessionObjectOf(config: ResolvedConfig, read: SessionRead): SessionRead {
  const { session } = read;
  if (session === null || typeof session === "object") return read;
  config.logger.error(
    new InvalidConfiguration(
      `The \`session\` callback returned ${typeof session === "undefined" ? "undefined" : typeof session}, not an object: the request is answered as signed out. Return the session object it is given (changed as you need).`,
    ),
  );
  return { session: null, cookies: read.cookies };
}

/**
 * Whose session a read found and since when, computed only when asked (the authorization
 * server's "who is signed in"): a session read and `requireAuth` never pay for it (a database
 * session's id is an HMAC). Undefined when the session names no user.
 *
 * @example
 * ```ts
 * const subject = subjectOf(resolved, await readSession(resolved, options)) // { userId, authTime, sessionId }
 * ```
 */
export function subjectOf(
  config: { readonly secrets: readonly [string, ...string[]] },
  read: SessionRead,
): SessionSubject | undefined {
  const { jwtIdentity, stored } = read;
  if (jwtIdentity?.sub) {
    const subject: SessionSubject = { userId: jwtIdentity.sub };
    if (jwtIdentity.authTime !== undefined) subject.authTime = jwtIdentity.authTime;
    if (jwtIdentity.sid !== undefined) subject.sessionId = jwtIdentity.sid;
    return subject;
  }
  if (!stored) return undefined;
  const subject: SessionSubject = { userId: stored.userId, sessionId: databaseSessionId(config, stored.sessionToken) };
  if (stored.createdAt) subject.authTime = Math.floor(stored.createdAt.valueOf() / 1000);
  return subject;
}

/**
 * The user of a live session: the one read with it (a database session), else the stored user
 * its id names (a JWT session; `getUser`), else null.
 *
 * @example
 * ```ts
 * const user = live && (await userOf(resolved, live))
 * ```
 */
async function userOf(config: ResolvedConfig, live: LiveSession): Promise<AdapterUser | null> {
  if (live.user) return live.user;
  if (!live.userId) return null;
  const { getUser } = adapterFor(config, "getUser");
  try {
    return (await getUser(live.userId)) ?? null;
  } catch (e) {
    // The failure policy of `read.ts`: a store that fails is no session, logged.
    config.logger.error(new SessionTokenError("The session's user could not be read", { err: errorOf(e) }));
    return null;
  }
}

/**
 * Who is signed in on a request and the user it names, for the functions that act on that user
 * (the sessions API, the account functions, account linking): {@link readSession} (re-issuing
 * nothing), {@link liveSessionOf} and {@link userOf}; null when signed out (the store failed,
 * or the `session` callback answered no session: logged).
 *
 * @example
 * ```ts
 * const me = await signedInOf(reading) // { live, user } | null
 * ```
 */
export async function signedInOf(reading: Reading): Promise<{ live: LiveSession; user: AdapterUser } | null> {
  const { resolved, cookies, cookie } = reading;
  const read = readSession(resolved, { cookies, cookie, reissue: false });
  const live = liveSessionOf(resolved, read instanceof Promise ? await read : read);
  const user = live && (await userOf(resolved, live));
  return live && user ? { live, user } : null;
}

/**
 * Whether the request carries a session cookie at all (in one piece or in chunks): a function
 * that changes something checks the request's CSRF token before any store is read, and only then.
 */
export function carriesSessionCookie(reading: Pick<Reading, "cookie" | "cookies">): boolean {
  return !!readChunkedCookie(reading.cookies, reading.cookie.name);
}
