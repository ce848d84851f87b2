/**
 * What reading a session takes and gives, under either strategy: the shapes `index.ts`
 * dispatches on and `jwt-strategy.ts` / `database-strategy.ts` implement.
 */
import type { Cookie, CookieOption, Session } from "../../shapes/data.js";

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
  /**
   * Whose session it is and since when (the authorization server's "who is signed in"): asked of
   * a read only by the readers that need it, so a session read computes nothing for it.
   */
  subject?: () => SessionSubject | undefined;
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
