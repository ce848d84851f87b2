/**
 * What reading a session takes and gives, under either strategy: the shapes `index.ts`
 * dispatches on and `jwt-strategy.ts` / `database-strategy.ts` implement.
 */
import type { AdapterSession } from "../../adapters.js";
import type { Cookie, CookieOption, Session } from "../../shapes/data.js";
import { databaseSessionId } from "./session-id.js";

export interface SessionReadOptions {
  /** The request's cookies. */
  cookies: Record<string, string>;
  /** The session cookie's name and options for this request's scheme. */
  cookie: CookieOption;
  /** Set for `POST /session`: the client's data for the `jwt` / `session` callbacks. */
  update?: { data: unknown };
  /** Produce the refreshed cookie. `getSession` says no: it cannot send cookies. */
  reissue: boolean;
}

export interface SessionRead {
  session: Session | Record<string, unknown> | null;
  /** Cookies to set: a refreshed session cookie, or deletions of an invalid one. */
  cookies: Cookie[];
  /** How the user signed in (`["pwd", "otp"]`), when the session recorded it (second factor configured). */
  amr?: string[];
  /** A JWT session's identity as sealed: what {@link subjectOf} reads (the object the read already made). */
  jwtIdentity?: SessionIdentity;
  /** A database session's stored record: what {@link subjectOf} reads. */
  stored?: Pick<AdapterSession, "userId" | "sessionToken" | "createdAt">;
}

/**
 * What a session is, whatever the application's `jwt` callback returns: its id, start and
 * factors, and whose it is (`sub`, once signed in).
 */
export interface SessionIdentity {
  sid: string | undefined;
  authTime: number | undefined;
  amr: string[] | undefined;
  sub?: string;
}

/**
 * The subject of a live session: the user's id (a JWT's `sub`, a database session's `userId`),
 * when the user signed in (epoch seconds, when known), and the session's id (a JWT's `sid`, a
 * database session's keyed-hash id).
 */
export interface SessionSubject {
  userId: string;
  authTime?: number;
  sessionId?: string;
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
