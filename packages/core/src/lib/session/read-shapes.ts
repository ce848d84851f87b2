/**
 * What the one session read (`read.ts`) takes and gives, under either strategy: the shapes
 * `read.ts` dispatches on and `jwt-strategy.ts` / `database-strategy.ts` implement. A leaf: the
 * strategies and the read import it, it imports neither.
 */
import type { AdapterSession, AdapterUser } from "../../shapes/adapters.js";
import type { Cookie, CookieOption, Session } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import type { ResolvedConfig } from "../config/types.js";

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
  /** A JWT session's identity as sealed: what `subjectOf` reads (the object the read already made). */
  jwtIdentity?: SessionIdentity;
  /** A JWT session as opened, and its cookie's value: what `liveSessionOf` reads. */
  opened?: OpenedJwtSession;
  raw?: string;
  /** A database session's stored record and its user: what `subjectOf` and `liveSessionOf` read. */
  stored?: AdapterSession;
  user?: AdapterUser;
  /** True when the session could not be read (a store that failed, logged): no session, the cookie kept. */
  failed?: boolean;
}

/**
 * Who the session a read found names (`liveSessionOf`), as the functions that act on the
 * signed-in user need it (the sessions API, the account functions, `getAccessToken`, account
 * linking): from the same read, so the same cookie rule, expiry rule, revocation,
 * `session.cache` and `session` callback.
 */
export interface LiveSession {
  /** Whose session: a JWT's `sub`, a database session's `userId`; undefined for a JWT made without a user id. */
  userId: string | undefined;
  /** The user, when the read had it at hand (a database session is read with its user). */
  user?: AdapterUser;
  /** A database session's token (its cookie's value). */
  sessionToken?: string;
  /** A JWT session's claims as sealed. */
  claims?: JWT;
  /** A JWT session's token as the application's `jwt` callback kept it (the session's identity kept). */
  token?: JWT;
  /** How the user signed in (`["pwd", "otp"]`), when recorded. */
  amr: string[] | undefined;
  /** Epoch milliseconds of the sign-in, when recorded (a JWT's `auth_time`, a database session's creation). */
  signedInAt: number | null;
  /** What names this session, never sent anywhere: a JWT's `sid` (else its value), a database session's token. */
  key: readonly [kind: "sid" | "jwt" | "database", value: string];
}

/** Where a session is read: the resolved configuration, the session cookie's options for the request's origin, the request's cookies. */
export interface Reading {
  resolved: ResolvedConfig;
  cookie: CookieOption;
  cookies: Record<string, string>;
}

/** A JWT session as `openJwtSession` (`jwt-strategy.ts`) opened it. */
export interface OpenedJwtSession {
  /** The token as sealed. */
  claims: JWT;
  /** What the `jwt` callback made of it, with the session's identity kept (`keepSessionIdentity`, on first read). */
  readonly token: JWT;
  /** What the `jwt` callback returned, as it returned it (`claims` when it did not run). */
  returned: JWT;
  /** The session's identity, read from `claims` before the callback ran. */
  identity: SessionIdentity;
  /** True when the callback ran for an update, or returned a token that differs from `claims`. */
  changed: boolean;
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
