// The sessions API (the public module sessions.ts): the sessions a user can see and end; the
// accounts linked to the user are in linked-accounts.ts.
import { timingSafeEqual, utf8 } from "#platform";
import type { AdapterAccountType, AdapterSession, AdapterUser } from "../../shapes/adapters.js";
import type { Awaitable, Cookie, SessionEndReason } from "../../shapes/data.js";
import { recordAudit } from "../audit/record.js";
import { type AdapterMethod, type AdapterWith, hasMethods } from "../base/adapter-for.js";
import { errorOf, messageOf } from "../base/error-of.js";
import {
  MissingAdapter,
  MissingAdapterMethods,
  MissingCSRF,
  SignOutError,
  UnsupportedStrategy,
} from "../base/errors.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { sessionStrategyOf } from "../config/resolve.js";
import type { ResolvedConfig } from "../config/types.js";
import { endPendingSignIns } from "../flows/second-factor/pending.js";
import { serializeCookie } from "../http/cookies.js";
import { csrfTokenFor, requireCsrf } from "../serve/csrf-check.js";
import { type SessionRequest, sessionCookieOf, sessionRequestOf } from "../serve/pipeline.js";
import { sessionKeyOf } from "../stores/revocation-channel.js";
import { isExpired } from "./expiry.js";
import { carriesSessionCookie, readNeeds, signedInOf } from "./read.js";
import { readingOf } from "./request-read.js";
import { revocationOf, revokeUserJwtSessions } from "./revoke.js";
import { databaseSessionId as sessionIdOf } from "./session-id.js";

/** A Web `Request`, or where a request arrived and its `Cookie` header (what framework packages pass). */
export type SessionsRequest = Request | SessionRequest;

/** Options of every function of this module. */
export interface SessionsOptions {
  /** Fill unset options from this environment (`AUTH_SECRET`, ...), as framework packages do. */
  env?: Env;
}

/**
 * Options of the functions that change something for the signed-in user ({@link revokeSession},
 * {@link revokeOtherSessions}, {@link unlinkAccount}).
 */
export interface ChangeOptions extends SessionsOptions {
  /**
   * The CSRF token the request submitted (its form's `csrfToken` field). It must equal the token
   * of the request's signed CSRF cookie, the double-submit check of Latchkey's own POSTs;
   * otherwise the function throws `MissingCSRF` before it reads or writes anything. Put the token
   * in your form with {@link getCsrfToken} (or `GET <basePath>/csrf`). `skipCSRFCheck` says your
   * framework checked this request itself. `@latchkey/express` passes `req.body.csrfToken`.
   */
  csrfToken?: unknown;
}

/** What {@link getCsrfToken} gives: the token for a form, and the cookie to set with it (if new). */
export interface CsrfTokenAnswer {
  /** The value of the form's hidden `csrfToken` field. */
  token: string;
  /** Cookies the response must set: the signed CSRF cookie when the request had none; may be empty. */
  cookies: Cookie[];
  /** The same cookies as `Set-Cookie` header values. */
  setCookie: string[];
}

/** A session of the signed-in user, as {@link listSessions} shows it. */
export interface SessionInfo {
  /** Names the session for {@link revokeSession}: a keyed hash of its token, not the token. */
  id: string;
  /** True for the session of the request that asked. */
  current: boolean;
  /** Such as "Firefox on macOS"; null for sessions created before Latchkey recorded it. */
  device: string | null;
  /** The client's address at sign-in, when `session.recordClientAddress` is on; else null. */
  clientAddress: string | null;
  /** When the user signed in; null for sessions created before Latchkey recorded it. */
  createdAt: Date | null;
  /** When the session was last used, at most `session.updateAge` old; null when unknown. */
  lastSeenAt: Date | null;
  expires: Date;
}

/** A linked account, as {@link listAccounts} shows it: never its tokens. */
export interface LinkedAccount {
  provider: string;
  providerAccountId: string;
  type: AdapterAccountType;
  /** The configured provider's name ("GitHub"); null when no configured provider has this id. */
  providerName: string | null;
}

/** What {@link unlinkAccount} did. */
export type UnlinkResult =
  | { unlinked: true; account: LinkedAccount }
  | {
      unlinked: false;
      /**
       * `signed-out`: the request has no session. `not-found`: the signed-in user has no such
       * account. `last-sign-in-method`: it is the last way the user can sign in.
       */
      reason: "signed-out" | "not-found" | "last-sign-in-method";
    };

/** Options of {@link unlinkAccount}. */
export interface UnlinkOptions extends ChangeOptions {
  /**
   * How many ways to sign in the user has that Latchkey cannot see, such as a password checked by
   * a Credentials provider. They count with the user's accounts, passkeys and verified e-mail.
   * Called once per unlink, before anything is written; an answer that is not a whole number from
   * 0 up fails the unlink with `InvalidConfiguration` (nothing is unlinked), and an error it
   * throws reaches the caller the same way.
   * @default () => 0
   */
  otherSignInMethods?: (user: AdapterUser) => Awaitable<number>;
}

/** Options of {@link revokeUserSessions}. */
export interface RevokeUserSessionsOptions extends SessionsOptions {
  /**
   * Why: the `reason` of the `signOut` events (database sessions) and of the `session.revoked`
   * audit event. @default "revoked-all"
   */
  reason?: SessionEndReason;
  /**
   * JWT sessions only: revoke the sessions begun before this time, taken as given. @default now,
   * 15 s late (the clock skew allowed between instances)
   */
  before?: Date;
}

const SESSION_ID = /^[A-Za-z0-9_-]{32}$/;
/** Longer provider ids or account ids than this are no stored account's: refused before any lookup. */
export const MAX_KEY_LENGTH = 1024;

function sameId(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(utf8(a), utf8(b));
}

/**
 * The CSRF token to put in a form of your own (a hidden `csrfToken` field), the one Latchkey's
 * pages use: the token of the request's signed CSRF cookie, or a new one with the cookie to set
 * (`setCookie`) when the request has none. Pass what the form posts back to the functions of this
 * module that change something, or check it with {@link checkCsrf} in your own routes.
 *
 * @example
 * ```ts
 * const csrf = await getCsrfToken(request, config)
 * const headers = new Headers({ "content-type": "text/html" })
 * for (const value of csrf.setCookie) headers.append("set-cookie", value)
 * return new Response(`<form method="post" action="/account/sessions/revoke-others">
 *   <input type="hidden" name="csrfToken" value="${csrf.token}"><button>Sign out other devices</button></form>`, { headers })
 * ```
 */
export async function getCsrfToken(
  request: SessionsRequest,
  config: AuthConfig,
  options: SessionsOptions = {},
): Promise<CsrfTokenAnswer> {
  const { resolved, cookie, cookies } = sessionCookieOf(sessionRequestOf(request), config, options);
  if (!resolved.csrf) return { token: "", cookies: [], setCookie: [] };
  if (!cookie) throw new MissingCSRF("The request names no valid host, so no CSRF cookie can be set for it");
  const { token, cookie: set } = csrfTokenFor(resolved, cookie, cookies);
  if (!set) return { token, cookies: [], setCookie: [] };
  return { token, cookies: [set], setCookie: [serializeCookie(set.name, set.value, set.options)] };
}

/**
 * The CSRF check of Latchkey's own POSTs, for a route of yours that changes something for the
 * signed-in user (the account page's second-factor forms, say): throws `MissingCSRF` unless
 * `submitted` (the form's `csrfToken` field) equals the token of the request's signed CSRF cookie.
 *
 * @example
 * ```ts
 * const form = await request.formData()
 * checkCsrf(request, config, form.get("csrfToken")) // throws MissingCSRF: answer 403
 * await disableTotp(config, userId, form.get("code"))
 * ```
 */
export function checkCsrf(
  request: SessionsRequest,
  config: AuthConfig,
  submitted: unknown,
  options: SessionsOptions = {},
): void {
  const { resolved, cookie, cookies } = sessionCookieOf(sessionRequestOf(request), config, options);
  requireCsrf(resolved, cookie, cookies, submitted, "checkCsrf");
}

/**
 * The adapter, with the methods `what` needs (and checked to have `alsoChecked` too), or a typed
 * error naming every one missing.
 */
function adapterFor<M extends AdapterMethod>(
  config: ResolvedConfig,
  what: string,
  methods: readonly M[],
  alsoChecked: readonly AdapterMethod[] = [],
): AdapterWith<M> {
  const adapter = config.adapter;
  if (!adapter) throw new MissingAdapter(`\`${what}\` needs an \`adapter\`: sessions and accounts live in it.`);
  const missing = [...methods, ...alsoChecked].filter((m) => typeof adapter[m] !== "function");
  if (missing.length || !hasMethods(adapter, ...methods)) {
    throw new MissingAdapterMethods(
      `\`${what}\` needs the adapter methods ${missing.join(", ")}; @latchkey/sql-adapter, @latchkey/redis-adapter and the MemoryAdapter have them.`,
    );
  }
  return adapter;
}

function assertDatabaseSessions(config: ResolvedConfig, what: string): void {
  // Where JWT session revocation (issue 15.3) plugs in: until then, JWT sessions are not stored,
  // so there is nothing to list or revoke.
  if (config.session.strategy !== "database") {
    throw new UnsupportedStrategy(
      `\`${what}\` needs database sessions (\`session: { strategy: "database" }\` with an adapter): JWT sessions are not stored, so they cannot be listed or revoked here.`,
    );
  }
}

export interface SignedIn<M extends AdapterMethod> {
  config: ResolvedConfig;
  adapter: AdapterWith<M>;
  user: AdapterUser;
  /** The session token of the request (database sessions only). */
  sessionToken?: string;
}

/**
 * The signed-in user of a request, read by the one session read (`lib/session/request-read.ts`,
 * its failure policy included: a configuration error or a failing store is logged and null):
 * a live session whose user is stored. Null when signed out. A change (`changes`) checks the
 * request's CSRF token once a session cookie is seen, before any store is read: a cross-site form
 * learns nothing and ends nothing.
 */
export async function signedIn<M extends AdapterMethod>(
  request: SessionsRequest,
  config: AuthConfig,
  options: ChangeOptions,
  what: string,
  methods: readonly M[],
  databaseOnly: boolean,
  changes = false,
): Promise<SignedIn<M> | null> {
  const reading = readingOf(sessionRequestOf(request), config, options.env);
  if (!reading) return null;
  const { resolved, cookie, cookies } = reading;
  if (databaseOnly) assertDatabaseSessions(resolved, what);
  const adapter = adapterFor(resolved, what, methods, readNeeds(resolved));
  if (!carriesSessionCookie(reading)) return null;
  if (changes) requireCsrf(resolved, cookie, cookies, options.csrfToken, what);
  const me = await signedInOf(reading);
  return me ? { config: resolved, adapter, user: me.user, sessionToken: me.live.sessionToken } : null;
}

function toInfo(config: ResolvedConfig, session: AdapterSession, currentToken: string | undefined): SessionInfo {
  return {
    id: sessionIdOf(config, session.sessionToken),
    current: session.sessionToken === currentToken,
    device: session.device ?? null,
    clientAddress: session.clientAddress ?? null,
    createdAt: session.createdAt ?? null,
    lastSeenAt: session.lastSeenAt ?? null,
    expires: session.expires,
  };
}

const newest = (date: Date | null) => date?.getTime() ?? 0;

/**
 * The sessions of the signed-in user that have not expired: the current one first (`current:
 * true`), then the most recently used. Null when the request is signed out. Needs database
 * sessions (throws `UnsupportedStrategy` under JWT) and an adapter with `listSessions`.
 *
 * @example
 * ```ts
 * const sessions = await listSessions(request, config)
 * // [{ id: "k3…", current: true, device: "Firefox on macOS", createdAt, lastSeenAt, expires, clientAddress: null }, ...]
 * ```
 */
export async function listSessions(
  request: SessionsRequest,
  config: AuthConfig,
  options: SessionsOptions = {},
): Promise<SessionInfo[] | null> {
  const me = await signedIn(request, config, options, "listSessions", ["listSessions"], true);
  if (!me) return null;
  const sessions = await me.adapter.listSessions(me.user.id);
  const now = Date.now();
  return sessions
    .filter((session) => session.userId === me.user.id && !isExpired(session.expires, now))
    .map((session) => toInfo(me.config, session, me.sessionToken))
    .sort(
      (a, b) =>
        Number(b.current) - Number(a.current) ||
        newest(b.lastSeenAt) - newest(a.lastSeenAt) ||
        newest(b.createdAt) - newest(a.createdAt),
    );
}

/**
 * Revokes one session of the signed-in user, named by its {@link SessionInfo.id}. Only the user's
 * own sessions are found: any other id (another user's, a guess, not a string) revokes nothing
 * and answers false, exactly as a session that no longer exists. The revoked session's next
 * request is signed out. Emits `signOut` with `reason: "revoked"`. Revoking the current session
 * signs this browser out (its cookie stays until its next request clears it). When the adapter
 * fails, rejects with `SignOutError` (the session may still work; `session.revoke-failed` is
 * recorded; retrying is safe): a resolved answer always means it was deleted. Throws
 * `MissingCSRF` unless `options.csrfToken` is the form's CSRF token ({@link ChangeOptions}).
 *
 * @example
 * ```ts
 * const form = await request.formData()
 * await revokeSession(request, config, form.get("id"), { csrfToken: form.get("csrfToken") })
 * ```
 */
export async function revokeSession(
  request: SessionsRequest,
  config: AuthConfig,
  id: unknown,
  options: ChangeOptions = {},
): Promise<boolean> {
  const needs = ["listSessions", "deleteSession"] as const;
  const me = await signedIn(request, config, options, "revokeSession", needs, true, true);
  if (!me || typeof id !== "string" || !SESSION_ID.test(id)) return false;
  const sessions = await me.adapter.listSessions(me.user.id);
  const target = sessions.find(
    (session) => session.userId === me.user.id && sameId(sessionIdOf(me.config, session.sessionToken), id),
  );
  if (!target) return false;
  const removed = await confirmed(me.config, () => me.adapter.deleteSession(target.sessionToken), {
    reason: "revoked",
    userId: me.user.id,
    sessionId: id,
  });
  if (!removed) return false;
  await me.config.events.signOut?.({ session: removed, reason: "revoked" });
  return true;
}

/**
 * Revokes every session of the signed-in user except the current one ("sign out other devices").
 * Answers how many it revoked, or null when the request is signed out. Emits `signOut` with
 * `reason: "revoked-others"` for each. When the adapter fails, rejects with `SignOutError`
 * (`session.revoke-failed` is recorded; retrying is safe). Pending second-factor sign-ins of the
 * user (a first factor accepted, the code not yet given) end too. Throws `MissingCSRF` unless
 * `options.csrfToken` is the form's CSRF token ({@link ChangeOptions}), before anything is read or
 * revoked.
 *
 * @example
 * ```ts
 * const count = await revokeOtherSessions(request, config, { csrfToken: form.get("csrfToken") }) // 2
 * ```
 */
export async function revokeOtherSessions(
  request: SessionsRequest,
  config: AuthConfig,
  options: ChangeOptions = {},
): Promise<number | null> {
  const me = await signedIn(request, config, options, "revokeOtherSessions", ["deleteSessions"], true, true);
  if (!me?.sessionToken) return null;
  await endPendingSignIns(me.config, me.user.id);
  const except = me.sessionToken;
  const deleted = await confirmed(me.config, () => me.adapter.deleteSessions(me.user.id, except), {
    reason: "revoked-others",
    userId: me.user.id,
  });
  for (const session of deleted) await me.config.events.signOut?.({ session, reason: "revoked-others" });
  return deleted.length;
}

/**
 * Revokes every session of a user, current ones included: for an administrator, "sign out
 * everywhere", or after the user changed a password. Pending second-factor sign-ins of the user (a
 * first factor accepted, the code not yet given) end too: they can no longer complete. One
 * function for both session strategies:
 *
 * - database sessions: deletes them (the adapter needs `deleteSessions`), emits `signOut` with
 *   `reason` for each, and answers how many;
 * - JWT sessions (with `session.revocation`): adds the user's entry to the revocation list, so that
 *   every session begun before now (or before `options.before`) reads as signed out on every
 *   instance sharing the store, and answers null (JWT sessions are not stored, so not counted).
 *   "Now" is taken 15 s late, the clock skew Latchkey allows between instances, so a session begun
 *   just before the call on an instance whose clock runs ahead ends too; a sign-in on an instance
 *   that has heard of the revocation begins after it and lives on.
 *
 * Resolves once the adapter or the store confirmed it; otherwise rejects with `SignOutError`
 * (nothing was revoked, `session.revoke-failed` is recorded; retrying is safe). JWT sessions
 * without `session.revocation` cannot be revoked: `UnsupportedStrategy` says so.
 *
 * @example
 * ```ts
 * await changePassword(user, newPassword)
 * await revokeUserSessions(config, user.id, { reason: "password-changed" }) // 2, or null (JWT)
 * ```
 */
export async function revokeUserSessions(
  config: AuthConfig,
  userId: string,
  options: RevokeUserSessionsOptions = {},
): Promise<number | null> {
  if (typeof userId !== "string" || userId === "")
    throw new TypeError("revokeUserSessions: `userId` must be the id of a stored user (a non-empty string)");
  if (sessionStrategyOf(config) === "jwt") {
    const off = () =>
      new UnsupportedStrategy(
        '`revokeUserSessions` needs database sessions (`session: { strategy: "database" }` with an adapter), or `session.revocation` for JWT sessions: without it a JWT session is not stored, so it cannot be revoked.',
      );
    await revokeUserJwtSessions(revocationOf(config, options.env, off), userId, options);
    return null;
  }
  const resolved = resolveConfigOf(config, options);
  if (options.before !== undefined) {
    throw new TypeError(
      "revokeUserSessions: `before` applies to JWT sessions; database sessions are all deleted. Remove the option.",
    );
  }
  const adapter = adapterFor(resolved, "revokeUserSessions", ["deleteSessions"]);
  await endPendingSignIns(resolved, userId);
  const reason = options.reason ?? "revoked-all";
  const deleted = await confirmed(resolved, () => adapter.deleteSessions(userId), { reason, userId });
  for (const session of deleted) await resolved.events.signOut?.({ session, reason });
  return deleted.length;
}

/**
 * Tells every instance's session cache (`session.cache`) that the application changed a session
 * or a user itself, through its own adapter or database (Latchkey announces its own writes, and
 * on PostgreSQL the triggers of `latchkey migrate` announce any to a `SqlRevocationStore` that
 * listens; a polling store or a Redis channel needs this call there too): `{ userId }` drops every session
 * of the user, `{ sessionToken }` one session. Resolves once the channel took it; without
 * `session.cache` it does nothing.
 *
 * @example
 * ```ts
 * await db.deleteFrom("users").where("id", "=", id).execute() // on SQLite or MariaDB
 * await announceSessionChange(config, { userId: id })
 * ```
 */
export async function announceSessionChange(
  config: AuthConfig,
  change: { userId: string } | { sessionToken: string },
  options: Pick<SessionsOptions, "env"> = {},
): Promise<void> {
  const cache = resolveConfigOf(config, options).sessionCache;
  if (!cache) return;
  if ("userId" in change && typeof change.userId === "string" && change.userId !== "")
    await cache.announce({ kind: "user", id: change.userId });
  else if ("sessionToken" in change && typeof change.sessionToken === "string" && change.sessionToken !== "")
    await cache.announce({ kind: "session", id: sessionKeyOf(change.sessionToken) });
  else throw new TypeError("announceSessionChange: give `{ userId }` or `{ sessionToken }` (a non-empty string)");
}

/**
 * Runs the adapter's deletion; when it fails, records `session.revoke-failed` and throws
 * `SignOutError` naming what was not confirmed (the caller must not report it as done; retrying
 * is safe: a session already deleted is simply not found again).
 */
async function confirmed<T>(
  config: ResolvedConfig,
  remove: () => T,
  record: { reason: string; userId: string; sessionId?: string },
): Promise<Awaited<T>> {
  try {
    return await remove();
  } catch (e) {
    await recordAudit(config, { type: "session.revoke-failed", at: new Date(), ...record });
    throw new SignOutError(
      `The sessions were not revoked: the adapter did not confirm deleting them (${messageOf(e)}). They may still work; retrying is safe.`,
      { err: errorOf(e) },
    );
  }
}

function resolveConfigOf(config: AuthConfig, options: SessionsOptions): ResolvedConfig {
  // A request on a loopback host always resolves; the origin plays no part in what follows.
  return sessionCookieOf({ protocol: "http", host: "localhost", cookieHeader: null }, config, options).resolved;
}
