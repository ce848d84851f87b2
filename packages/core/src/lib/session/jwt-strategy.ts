import type { Cookie, Session } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import { errorOf } from "../base/error-of.js";
import { JWTSessionError, SessionCookieTooLarge } from "../base/errors.js";
import { warnOnce } from "../base/logger.js";
import type { ResolvedConfig } from "../config/types.js";
import { type Opened, openTokenWithReason, sealToken } from "../crypto/jwe.js";
import { clearChunkedCookie, readChunkedCookie, writeChunkedCookie } from "../http/cookies.js";
import { jwtExpired } from "./expiry.js";
import type { LiveSession, OpenedJwtSession, SessionIdentity, SessionRead, SessionReadOptions } from "./read-shapes.js";
import { sessionIdOf, signedInAt } from "./revocation-list.js";

/** Epoch seconds now, whole: the unit of a JWT's `iat` and `exp`. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

// Tokens opened recently, per resolved configuration (`config.caches.openedTokens`): a browser
// sends the same token with every request until it is re-issued, and opening it again repeats an
// HMAC and an AES decryption for the same answer. Only tokens that opened are kept (garbage
// cannot fill the cache); a changed secret resolves a new configuration and so starts an empty
// cache; expiry is checked on every hit. The claims are kept as JSON so each hit gets its own
// object to change.
const OPENED_LIMIT = 2000;

/**
 * A well-formed session cookie that no configured secret opens: most often a secret retired too
 * early, which signs everybody out. The operator hears it once per configuration as a warning;
 * every rejection, this one included, is also logged at debug level by the caller.
 */
function noticeUnknownSecret(config: ResolvedConfig): void {
  warnOnce(config, "session-secret-mismatch");
}

function openWithCache(config: ResolvedConfig, raw: string, salt: string): JWT | null | Promise<JWT | null> {
  const cache = config.caches.openedTokens;
  const key = `${salt}\u0000${raw}`;
  const hit = cache.get(key);
  if (hit) {
    if (hit.exp !== undefined && jwtExpired(hit.exp, nowSeconds())) {
      cache.delete(key);
      return null;
    }
    // The claims this cache stored as JSON a moment ago.
    const claims: JWT = JSON.parse(hit.json);
    return claims;
  }
  // At hand on Node.js; a promise where AES is Web Crypto's.
  const opened = openTokenWithReason(raw, config.jwt.secrets, salt);
  return opened instanceof Promise
    ? opened.then((result) => keepOpened(config, key, result))
    : keepOpened(config, key, opened);
}

/** The claims of an opened token, kept in the configuration's cache of opened tokens. */
function keepOpened(config: ResolvedConfig, key: string, result: Opened): JWT | null {
  const cache = config.caches.openedTokens;
  if (!("claims" in result)) {
    if (result.failure === "unknown-secret") noticeUnknownSecret(config);
    return null;
  }
  const { claims, json } = result;
  if (cache.size >= OPENED_LIMIT) {
    const [oldest] = cache.keys();
    if (oldest !== undefined) cache.delete(oldest);
  }
  // The token's own JSON text, which parses to these claims (not yet handed to anyone to change).
  cache.set(key, { json, exp: typeof claims.exp === "number" ? claims.exp : undefined });
  return claims;
}

/** A recorded `amr` claim, if it is a list of strings. */
export function amrOf(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
}

/** Opens the session token of a request with the configured (or the built-in) decoder. */
export async function decodeSessionToken(config: ResolvedConfig, raw: string, salt: string): Promise<JWT | null> {
  return openSessionToken(config, raw, salt);
}

/**
 * {@link decodeSessionToken} for the session reads: the built-in decoder answers synchronously,
 * and a read does not pay for a promise and a turn of the microtask queue on an answer it has.
 */
function openSessionToken(config: ResolvedConfig, raw: string, salt: string): JWT | null | Promise<JWT | null> {
  return config.jwt.decode ? decodeWithCallback(config, raw, salt) : openWithCache(config, raw, salt);
}

async function decodeWithCallback(config: ResolvedConfig, raw: string, salt: string): Promise<JWT | null> {
  try {
    return (await config.jwt.decode?.({ token: raw, secret: [...config.jwt.secrets], salt })) ?? null;
  } catch (e) {
    config.logger.error(new JWTSessionError("The session token could not be decoded", { err: errorOf(e) }));
    return null;
  }
}

/**
 * The most the session cookie may hold, all chunks together as the browser sends them back
 * (`name=value; ...`). Node answers a request whose headers exceed 16 KiB (its default
 * `maxHeaderSize`) with 431, before any route runs, sign-out included: a cookie near that size
 * locks the user out until it expires. 10 KiB leaves 6 KiB for the rest of a browser's request
 * (about 1.5 KiB of headers) and the site's other cookies.
 */
const MAX_SESSION_COOKIE_BYTES = 10 * 1024;

/**
 * Seals a session token into its cookie (chunked when large), clearing stale chunks. Throws
 * `SessionCookieTooLarge` (and writes nothing) when the cookie would exceed
 * {@link MAX_SESSION_COOKIE_BYTES}.
 */
export async function sessionTokenCookies(
  config: ResolvedConfig,
  requestCookies: Record<string, string>,
  cookie: { name: string; options: Cookie["options"] },
  token: JWT,
): Promise<Cookie[]> {
  return sessionTokenCookiesNow(config, requestCookies, cookie, token);
}

/**
 * {@link sessionTokenCookies} without a promise when the built-in encoder seals the token (a
 * `jwt.encode` of the application's is awaited): the session read re-issues its cookie, and a
 * sign-in sets it, on the request's own turn.
 */
export function sessionTokenCookiesNow(
  config: ResolvedConfig,
  requestCookies: Record<string, string>,
  cookie: { name: string; options: Cookie["options"] },
  token: JWT,
): Cookie[] | Promise<Cookie[]> {
  const { name } = cookie;
  if (config.jwt.encode)
    return Promise.resolve(
      config.jwt.encode({ token, secret: [...config.jwt.secrets], salt: name, maxAge: config.jwt.maxAge }),
    ).then((value) => chunkedSessionCookie(config, requestCookies, cookie, value));
  const sealed = sealToken(token, config.jwt.secrets, name, config.jwt.maxAge);
  return sealed instanceof Promise
    ? sealed.then((value) => chunkedSessionCookie(config, requestCookies, cookie, value))
    : chunkedSessionCookie(config, requestCookies, cookie, sealed);
}

/** The sealed token as its (chunked) cookie, bounded (see {@link sessionTokenCookies}). */
function chunkedSessionCookie(
  config: ResolvedConfig,
  requestCookies: Record<string, string>,
  cookie: { name: string; options: Cookie["options"] },
  value: string,
): Cookie[] {
  const expires = new Date(Date.now() + config.session.maxAge * 1000);
  try {
    return writeChunkedCookie(
      requestCookies,
      cookie.name,
      value,
      { ...cookie.options, expires },
      {
        maxBytes: MAX_SESSION_COOKIE_BYTES,
        tooLarge: (size, max) =>
          new SessionCookieTooLarge(
            `The session cookie would be ${size} bytes, over the ${max} the server can read back (Node refuses request headers over 16 KiB): it was not written and the previous one stays. Large provider tokens in a JWT session are the usual cause: use database sessions (the tokens stay on the account record), or keep fewer tokens in the session token.`,
          ),
      },
    );
  } catch (e) {
    if (e instanceof SessionCookieTooLarge) config.logger.error(e);
    throw e;
  }
}

function identityOf(claims: JWT): SessionIdentity {
  const identity: SessionIdentity = { sid: sessionIdOf(claims), authTime: signedInAt(claims), amr: amrOf(claims.amr) };
  if (typeof claims.sub === "string") identity.sub = claims.sub;
  return identity;
}

/**
 * The token to re-issue, with the identity of the token it replaces: the session's id and
 * sign-in time (the `jwt` callback may return a new object without them, and a re-issued cookie
 * that lost them would escape a revocation of its session), how the user signed in (`amr`: the
 * factors Latchkey verified, which no callback and no session update can add to or drop), and
 * whose session it is (`sub`: a callback that merges the client's update into the token would
 * otherwise let a user become another by posting `{ sub }`; `onSubjectKept` hears of it). A
 * token minted before sessions had an id (or by Auth.js) takes its `jti` as id and its `iat` as
 * sign-in time, from then on.
 */
export function keepSessionIdentity(token: JWT, identity: SessionIdentity, onSubjectKept?: () => void): JWT {
  const { sid, authTime, amr, sub } = identity;
  const sameAmr = JSON.stringify(amrOf(token.amr)) === JSON.stringify(amr) && (amr !== undefined || !("amr" in token));
  const sameSub = sub === undefined || token.sub === sub;
  if (
    (sid === undefined || token.sid === sid) &&
    (authTime === undefined || token.auth_time === authTime) &&
    sameAmr &&
    sameSub
  )
    return token;
  const kept: JWT = { ...token };
  if (sid !== undefined) kept.sid = sid;
  if (authTime !== undefined) kept.auth_time = authTime;
  if (amr !== undefined) kept.amr = [...amr];
  else delete kept.amr;
  if (!sameSub) {
    kept.sub = sub;
    onSubjectKept?.();
  }
  return kept;
}

/** Logs once per configuration that the `jwt` callback tried to change whose session it is. */
const subjectKept = (config: ResolvedConfig) => () => warnOnce(config, "jwt-callback-changed-subject");

type Liveness = "live" | "revoked";

const UNCHECKED_UPDATE =
  'The revocation list is unavailable: a JWT session is served (`onUnavailable: "serve"`) but not updated or re-issued until the store answers again';
const ISOLATED_UPDATE =
  "The revocation list is this runtime's own memory (`session.revocation: true` where the platform runs the application in several globals): a JWT session is served but not updated or re-issued here. Give `session.revocation` a shared store, or update the session where the list lives (the Node.js server)";

/**
 * True when a JWT session may be re-issued or extended now: without revocation, or while the
 * revocation list is known to be current and hears every revocation (not a global's own memory
 * where the platform runs several: `ResolvedRevocation.isolated`). Otherwise a session is at most
 * served as it is (no new cookie, no longer `exp`), so no instance extends a session it cannot check.
 */
export function mayExtend(config: ResolvedConfig): boolean {
  return !config.revocation || (config.revocation.list.current && !config.revocation.isolated);
}

/**
 * "live", "revoked", or a throw when the list is unavailable and the configuration says to refuse
 * (the caller then answers an error, not "signed out"). In memory: a Map lookup per read; the
 * list is loaded once, before the first read, which alone gets a promise to wait on. Every other
 * read is answered synchronously, so revocation adds no promise and no microtask to a read.
 */
function livenessOf(config: ResolvedConfig, claims: JWT): Liveness | Promise<Liveness> {
  const { revocation } = config;
  if (!revocation) return "live";
  if (revocation.list.state === "idle") return revocation.list.start().then(() => verdictOf(revocation, claims));
  return verdictOf(revocation, claims);
}

function verdictOf(revocation: NonNullable<ResolvedConfig["revocation"]>, claims: JWT): Liveness {
  const verdict = revocation.list.verdict(claims, revocation.refuseWhenUnavailable);
  if (verdict === "unavailable")
    throw new Error('The revocation list is unavailable and `session.revocation.onUnavailable` is "refuse"');
  return verdict === "revoked" ? "revoked" : "live";
}

/**
 * A JWT session cookie as every reader of it must see it (the session read, `getAccessToken`,
 * the sessions API, account linking, `getToken`): null unless it opens, its session is not
 * revoked, and the application's `jwt` callback keeps it (each rejection logged at debug level).
 * The callback runs only when the application set one, or for an `update` (`trigger: "update"`
 * with the posted data), which is refused while the revocation list is not current.
 */
export function openJwtSession(
  config: ResolvedConfig,
  raw: string,
  salt: string,
  update?: { data: unknown },
): OpenedJwtSession | null | Promise<OpenedJwtSession | null> {
  // Neither the built-in decoder nor the revocation list (once loaded) needs to wait: each step
  // goes on at once when it has its answer, so a plain read of the session takes no turn of the
  // microtask queue of its own (this runs on every request).
  const opened = openSessionToken(config, raw, salt);
  return opened instanceof Promise
    ? opened.then((claims) => checkOpened(config, claims, update))
    : checkOpened(config, opened, update);
}

/** The revocation check of {@link openJwtSession}, once the token is opened. */
function checkOpened(
  config: ResolvedConfig,
  claims: JWT | null,
  update: { data: unknown } | undefined,
): OpenedJwtSession | null | Promise<OpenedJwtSession | null> {
  if (!claims) {
    config.logger.debug("session token rejected: not a valid token under the configured secrets");
    return null;
  }
  // Refused, not signed out, when the list is unavailable (livenessOf throws): the cookie stays
  // for when the store answers again.
  const liveness = livenessOf(config, claims);
  return liveness instanceof Promise
    ? liveness.then((verdict) => keptByCallback(config, claims, verdict, update))
    : keptByCallback(config, claims, liveness, update);
}

/** The rest of {@link openJwtSession}: a revoked session refused, then the `jwt` callback. */
function keptByCallback(
  config: ResolvedConfig,
  claims: JWT,
  liveness: Liveness,
  update: { data: unknown } | undefined,
): OpenedJwtSession | null | Promise<OpenedJwtSession | null> {
  if (liveness === "revoked") {
    config.logger.debug("session token rejected: its session was revoked");
    return null;
  }
  // Served while the list cannot be checked (`onUnavailable: "serve"`): never extended meanwhile.
  if (update && !mayExtend(config)) throw new Error(config.revocation?.isolated ? ISOLATED_UPDATE : UNCHECKED_UPDATE);
  // Read before the `jwt` callback, which may change the claims in place.
  const identity = identityOf(claims);
  if (!update && config.defaultCallbacks.jwt)
    return { claims, token: claims, returned: claims, identity, changed: false };
  return runJwtCallback(config, claims, identity, update);
}

/** The application's `jwt` callback on an opened, live session (or an update). */
async function runJwtCallback(
  config: ResolvedConfig,
  claims: JWT,
  identity: SessionIdentity,
  update: { data: unknown } | undefined,
): Promise<OpenedJwtSession | null> {
  const before = update ? "" : JSON.stringify(claims);
  const returned = await config.callbacks.jwt({
    token: { ...claims },
    user: undefined as never,
    ...(update ? { trigger: "update" as const, session: update.data } : {}),
  });
  if (returned === null) return null;
  // Kept on first use: a read that re-issues nothing serves `returned` as it is (readJwtSession).
  let kept: JWT | undefined;
  return {
    claims,
    get token() {
      kept ??= keepSessionIdentity(returned, identity, subjectKept(config));
      return kept;
    },
    returned,
    identity,
    changed: !!update || JSON.stringify(returned) !== before,
  };
}

/**
 * Reads (and on update, changes) a JWT session, opened by {@link openJwtSession}, on the caller's
 * own turn when nothing it does has to wait: the built-in decoder and encoder, the revocation list
 * loaded, no `jwt` or `session` callback and no `session` event of the application's (each of
 * those is awaited, in the same order). The cookie is re-issued only when the token changed or
 * `updateAge` has passed since it was issued. With `session.revocation`, a revoked session reads
 * as signed out (its cookie cleared), decided in memory.
 */
export function readJwtSession(
  config: ResolvedConfig,
  options: SessionReadOptions,
): SessionRead | Promise<SessionRead> {
  const { cookies: requestCookies, cookie, update } = options;
  const raw = readChunkedCookie(requestCookies, cookie.name);
  if (!raw) return { session: null, cookies: [] };
  const opening = openJwtSession(config, raw, cookie.name, update);
  return opening instanceof Promise
    ? opening.then((opened) => jwtSessionOf(config, options, opened, raw))
    : jwtSessionOf(config, options, opening, raw);
}

/**
 * Who a JWT session read names (the one read's live form, `read.ts`): null unless it found a
 * session. A session made before sessions had ids is named by its cookie's value.
 */
export function liveJwtSession(read: SessionRead): LiveSession | null {
  const { opened, raw } = read;
  if (!read.session || !opened || raw === undefined) return null;
  const { claims, token, identity } = opened;
  const sub = token.sub;
  const sid = claims.sid;
  return {
    userId: typeof sub === "string" && sub !== "" ? sub : undefined,
    claims,
    token,
    amr: identity.amr,
    signedInAt: typeof claims.auth_time === "number" ? claims.auth_time * 1000 : null,
    key: typeof sid === "string" && sid !== "" ? ["sid", sid] : ["jwt", raw],
  };
}

/** The rest of {@link readJwtSession}, once the token is opened (null: rejected). */
function jwtSessionOf(
  config: ResolvedConfig,
  options: SessionReadOptions,
  opened: OpenedJwtSession | null,
  raw: string,
): SessionRead | Promise<SessionRead> {
  const { cookies: requestCookies, cookie, update } = options;
  if (!opened) return { session: null, cookies: clearChunkedCookie(requestCookies, cookie.name, cookie.options) };
  const { identity, changed } = opened;
  let token = opened.returned;

  // A session this instance cannot check against the revocation list is served as it is: a cookie
  // re-issued now would outlive a revocation made where this instance cannot hear it.
  const due =
    (changed || typeof token.iat !== "number" || nowSeconds() - token.iat >= config.session.updateAge) &&
    mayExtend(config);
  let expires: Date;
  let reissued: Cookie[] | Promise<Cookie[]> = [];
  if (due) {
    token = opened.token;
    expires = new Date(Date.now() + config.session.maxAge * 1000);
    // A token the `jwt` callback grew past what a cookie can carry is not re-issued (logged):
    // the previous cookie keeps working.
    if (options.reissue) reissued = reissue(config, requestCookies, cookie, token);
  } else {
    expires = new Date(typeof token.exp === "number" ? token.exp * 1000 : Date.now() + config.session.maxAge * 1000);
  }
  const session = { token, expires, update, amr: identity.amr, jwtIdentity: identity, opened, raw };
  return reissued instanceof Promise
    ? reissued.then((cookies) => finishJwtRead(config, session, cookies))
    : finishJwtRead(config, session, reissued);
}

/** The re-issued session cookie; none when it would be too large (logged by the sealing). */
function reissue(
  config: ResolvedConfig,
  requestCookies: Record<string, string>,
  cookie: { name: string; options: Cookie["options"] },
  token: JWT,
): Cookie[] | Promise<Cookie[]> {
  const tooLarge = (e: unknown): Cookie[] => {
    if (e instanceof SessionCookieTooLarge) return [];
    throw e;
  };
  try {
    const cookies = sessionTokenCookiesNow(config, requestCookies, cookie, token);
    return cookies instanceof Promise ? cookies.catch(tooLarge) : cookies;
  } catch (e) {
    return tooLarge(e);
  }
}

/** The session the read answers: the `session` callback and event when the application set them. */
function finishJwtRead(
  config: ResolvedConfig,
  read: {
    token: JWT;
    expires: Date;
    update: { data: unknown } | undefined;
    amr: string[] | undefined;
    jwtIdentity: SessionIdentity;
    opened: OpenedJwtSession;
    raw: string;
  },
  cookies: Cookie[],
): SessionRead | Promise<SessionRead> {
  const { token, update } = read;
  const base: Session = {
    user: { name: token.name, email: token.email, image: token.picture },
    expires: read.expires.toISOString(),
  };
  if (config.defaultCallbacks.session && !update && !config.events.session)
    return { session: base, cookies, amr: read.amr, jwtIdentity: read.jwtIdentity, opened: read.opened, raw: read.raw };
  return (async () => {
    const session =
      config.defaultCallbacks.session && !update
        ? base
        : await config.callbacks.session({
            session: base as never,
            token,
            user: undefined as never,
            newSession: update?.data,
            ...(update ? { trigger: "update" as const } : {}),
          });
    if (config.events.session) await config.events.session({ session: session as Session, token });
    return { session, cookies, amr: read.amr, jwtIdentity: read.jwtIdentity, opened: read.opened, raw: read.raw };
  })();
}
