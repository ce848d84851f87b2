/**
 * The one session read of a request that arrives outside the pipeline: every framework's
 * `getSession`/`auth()`, the guards (`requireAuth`), the sessions API, the account functions,
 * `getAccessToken` and the authorization server. One front ({@link readingOf}: the configuration,
 * the request's origin, its cookies) with the failure policy of `read.ts`: a configuration that
 * cannot be resolved (no secret) and an untrusted host are logged, naming their fix, and read as
 * no session; a malformed host is no session, silently. Then `read.ts` reads.
 */

import type { Cookie, CookieOption, Session } from "../../shapes/data.js";
import { AuthError } from "../base/errors.js";
import { createLogger } from "../base/logger.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import type { Env, ResolvedConfig } from "../config/types.js";
import {
  organizationsOf,
  type ResolvedOrganizations,
  readActiveOrganization,
  withActiveOrganization,
} from "../organizations/active.js";
import { type SessionRequest, sessionCookieOf } from "../serve/pipeline.js";
import { liveSessionOf, readSession, subjectOf } from "./read.js";
import type { Reading, SessionRead, SessionSubject } from "./read-shapes.js";

/**
 * The front of every read of a request: where it is read, or null when it has no session to
 * read. A configuration error (no secret, an untrusted host) is logged, naming its fix, and gives
 * null; so does a malformed host, silently.
 *
 * @example
 * ```ts
 * const reading = readingOf({ protocol: "https", host, cookieHeader }, config, process.env)
 * if (!reading) return null
 * ```
 */
export function readingOf(request: SessionRequest, config: AuthConfig, env?: Env): Reading | null {
  try {
    const where = sessionCookieOf(request, config, { env });
    return hasCookie(where) ? where : null;
  } catch (e) {
    loggerOf(config, env).error(e instanceof Error ? e : new AuthError(String(e)));
    return null;
  }
}

/** Whether the request has a session cookie to read (a malformed host has none). */
function hasCookie<W extends { cookie: CookieOption | null }>(where: W): where is W & { cookie: CookieOption } {
  return where.cookie !== null;
}

/** The logger of a configuration, or (one that cannot be resolved) of what the application gave. */
function loggerOf(config: AuthConfig, env?: Env): ResolvedConfig["logger"] {
  try {
    return resolveConfig(config, env).logger;
  } catch {
    return createLogger(config.logger, !!config.debug);
  }
}

/** What {@link sessionReadOf} answers. */
export interface SessionReadAnswer {
  /** The session `GET <basePath>/session` answers with, or null. */
  session: Session | null;
  /** The re-issued session cookie (a JWT's new expiry, a database session's `updateAge`), or deletions of one that is not valid. */
  cookies: Cookie[];
  /** With a session: how the user signed in (`["pwd", "otp"]`), when recorded; else empty. */
  amr?: string[];
  /** With `subject: true`: whose session it is (for the authorization server). */
  subject?: SessionSubject;
}

/** How {@link sessionReadOf} reads. */
export interface SessionReadOf {
  env?: Env;
  /** Re-issue the session cookie when it is due (default true); an entry point that cannot set cookies says no. */
  reissue?: boolean;
  /** Also whose session it is: computed only then. */
  subject?: boolean;
}

const signedOut = (): SessionReadAnswer => ({ session: null, cookies: [] });

/**
 * The session of a request and the cookies its read re-issues or clears, exactly as
 * `GET <basePath>/session` answers them, without building that request: every `getSession` and
 * `auth()`, `requireAuth` and the authorization server read through it. Answered without a
 * promise when the read has nothing to wait for (a JWT session with the built-in codec and no
 * callbacks of the application's). Never throws (the failure policy of `read.ts` and
 * {@link readingOf}).
 *
 * @example
 * ```ts
 * const read = sessionReadOf({ protocol: "https", host, cookieHeader }, config, { env: process.env })
 * const { session, cookies } = read instanceof Promise ? await read : read
 * ```
 */
export function sessionReadOf(
  request: SessionRequest,
  config: AuthConfig,
  options: SessionReadOf = {},
): SessionReadAnswer | Promise<SessionReadAnswer> {
  const reading = readingOf(request, config, options.env);
  if (!reading) return signedOut();
  const { resolved, cookie, cookies } = reading;
  const read = readSession(resolved, { cookies, cookie, reissue: options.reissue !== false });
  let organizations: ResolvedOrganizations | null;
  try {
    organizations = organizationsOf(resolved.source);
  } catch (e) {
    // The failure policy: a configuration mistake is logged, naming its fix, and reads as no session.
    resolved.logger.error(e instanceof Error ? e : new AuthError(String(e)));
    return signedOut();
  }
  if (organizations) return withActiveOrganizationOf(organizations, reading, read, options);
  return read instanceof Promise
    ? read.then((done) => answerOf(resolved, done, options))
    : answerOf(resolved, read, options);
}

/**
 * The answer with its session's `activeOrganization` as the store says now (`organizations`
 * configured): the user's membership of the organization their cookie names, read each time.
 */
async function withActiveOrganizationOf(
  organizations: ResolvedOrganizations,
  reading: Reading,
  pending: SessionRead | Promise<SessionRead>,
  options: SessionReadOf,
): Promise<SessionReadAnswer> {
  const { resolved, cookies, cookie } = reading;
  const read = pending instanceof Promise ? await pending : pending;
  const answer = answerOf(resolved, read, options);
  if (!answer.session) return answer;
  const context = { secrets: resolved.secrets, cookies, cookie, logger: resolved.logger };
  const active = await readActiveOrganization(organizations, context, liveSessionOf(resolved, read)?.userId);
  return { ...answer, session: withActiveOrganization(answer.session, active) };
}

function answerOf(config: ResolvedConfig, read: SessionRead, options: SessionReadOf): SessionReadAnswer {
  const { session, cookies } = read;
  if (!session) return { session: null, cookies };
  const answer: SessionReadAnswer = { session: session as Session, cookies, amr: read.amr ?? [] };
  if (options.subject) {
    const subject = subjectOf(config, read);
    if (subject) answer.subject = subject;
  }
  return answer;
}
