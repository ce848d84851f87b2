import type { ResponseInternal } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import { admitRecord, recordAudit } from "../audit/record.js";
import { type AdapterWith, adapterFor } from "../base/adapter-for.js";
import { errorOf } from "../base/error-of.js";
import { SignOutError } from "../base/errors.js";
import {
  clearChunkedCookie,
  cookieValues,
  expiredCookie,
  parseCookieHeader,
  readChunkedCookie,
  unreadableChunks,
} from "../http/cookies.js";
import type { RequestInternal } from "../http/request.js";
import { clientKey } from "../limits/attempts.js";
import { clearedActiveOrganizationIfHeld } from "../organizations/active.js";
import { otherPages } from "../pages/responses.js";
import type { Context } from "../serve/context.js";
import { goneEvenIfRefused } from "../session/database-strategy.js";
import { decodeSessionToken } from "../session/jwt-strategy.js";
import { endingEntry, entryLifetimeMs, sessionIdOf } from "../session/revocation-list.js";
import { databaseSessionId } from "../session/session-id.js";

/** `GET /signout`: the confirmation page, or a redirect to `pages.signOut`. */
export async function signoutGet(_req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  if (ctx.config.pages.signOut) return { redirect: ctx.config.pages.signOut, cookies: ctx.cookies };
  ctx.csrf();
  return otherPages.signout(ctx, await ctx.callbackUrl());
}

/**
 * `POST /signout` (CSRF-checked): ends the session (its record under the database strategy, or
 * with `session.revocation` its id on the revocation list), emits `signOut`, clears the cookie and
 * redirects to the callback URL. A cookie that names no live session (made up, already deleted,
 * or a revoked JWT) only loses its cookie: no event, no store write.
 *
 * Reported as done only once the store confirmed it (the adapter deleted the record; the
 * revocation store saved the entry within `session.revocation.timeout`). Otherwise nothing is
 * pretended: a `SignOutError` is thrown, which the handler answers with the error page
 * (`?error=SignOutError`) or, to scripts, `503 {"error":"SignOutError","url"}`; the cookie is
 * kept, no `signOut` is emitted, `session.revoke-failed` is recorded, and trying again is safe.
 */
export async function signoutPost(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  ctx.requireCsrf("A sign-out");
  const { config } = ctx;
  const redirect = await ctx.callbackUrl();
  const cookie = ctx.cookieOptions.sessionToken;
  const raw = readChunkedCookie(req.cookies, cookie.name);
  const held = raw ? [raw] : duplicatedSessionCookies(req, cookie.name);
  const organization = clearedActiveOrganizationIfHeld(req.cookies, cookie);
  if (!held.length) {
    if (organization) ctx.cookies.push(organization);
    return { redirect, cookies: ctx.cookies };
  }
  for (const value of held) {
    if (config.session.strategy === "jwt") await endJwtSession(req, ctx, value);
    else await endDatabaseSession(req, ctx, value);
  }
  ctx.cookies.push(...clearChunkedCookie(req.cookies, cookie.name, cookie.options));
  if (req.cookies[cookie.name] === undefined) ctx.cookies.push(expiredCookie(cookie.name, cookie.options));
  if (organization) ctx.cookies.push(organization);
  return { redirect, cookies: ctx.cookies };
}

/**
 * The values of a session cookie the request carries more than once (a sibling sub-domain planted
 * a copy with its own `Domain` or a longer `Path`): a read sees no session, but a sign-out must not
 * answer "done" while the browser's own session lives on, so it ends every copy (the planted one
 * is the planter's own session); so does a whole cookie beside chunks. Duplicated chunks cannot
 * be told apart or put together: that sign-out is answered as not done.
 */
function duplicatedSessionCookies(req: RequestInternal, name: string): string[] {
  const header = req.headers.get("cookie");
  const repeated = new Set<string>();
  parseCookieHeader(header, repeated);
  const prefix = `${name}.`;
  if (
    [...repeated].some((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length))) ||
    unreadableChunks(req.cookies, name)
  ) {
    throw new SignOutError(
      "The session was not signed out: the request carries its cookie's chunks twice (a copy planted by another site of the same domain?), so the session cannot be read. The cookie is kept; clear this site's cookies to end it.",
    );
  }
  if (repeated.has(name)) return cookieValues(header, name).filter((v) => v !== "");
  // The whole name beside chunks (one of them planted): each is a session to end.
  const whole = req.cookies[name];
  if (!whole || req.cookies[`${name}.0`] === undefined) return [];
  let joined = "";
  for (let i = 0; req.cookies[`${prefix}${i}`] !== undefined; i++) joined += req.cookies[`${prefix}${i}`];
  return [whole, joined];
}

async function endJwtSession(req: RequestInternal, ctx: Context, raw: string): Promise<void> {
  const { config } = ctx;
  const token = await decodeSessionToken(config, raw, ctx.cookieOptions.sessionToken.name);
  if (!token) {
    config.logger.debug("sign-out without a live session: only its cookie is cleared");
    return;
  }
  const { revocation } = config;
  if (revocation) {
    const { list } = revocation;
    if (list.state === "idle") await list.start();
    // A revoked session is no session here either: a copy replayed at will writes nothing and
    // emits no signOut. While the list is unavailable, the sign-out revokes as usual (and is
    // answered as not done if the store does not take it).
    if (list.verdict(token, false) === "revoked") {
      config.logger.debug("sign-out of a revoked session: only its cookie is cleared");
      return;
    }
    // With revocation on, a copy of this cookie (another tab, a stolen one) stops working too.
    const sid = sessionIdOf(token);
    if (sid !== undefined) {
      const now = Date.now();
      const entry = endingEntry(revocation, token, sid, now, now + entryLifetimeMs(config.session, config.jwt));
      try {
        await list.add(entry);
      } catch (e) {
        await recordFailure(req, ctx, { sessionId: sid, userId: subjectOf(token) });
        throw new SignOutError(
          "The session was not signed out: the revocation store did not confirm the revocation, so a copy of the cookie would still work on other instances. The cookie is kept and nothing was revoked; signing out again is safe.",
          { err: errorOf(e) },
        );
      }
    }
  }
  // `signOut` reports a session that ended: not a cookie that opens as none, nor a revoked one.
  await config.events.signOut?.({ token });
}

async function endDatabaseSession(req: RequestInternal, ctx: Context, raw: string): Promise<void> {
  const { config } = ctx;
  // Set by the write below (a callback: typed so that TypeScript does not narrow it to null).
  let removed = null as Awaited<ReturnType<AdapterWith<"deleteSession">["deleteSession"]>>;
  const adapter = adapterFor(config, "deleteSession", "getSessionAndUser");
  try {
    // A session already gone (ended in another tab) is signed out, whether the adapter answers
    // null or, as Prisma's does for a missing row, throws.
    await goneEvenIfRefused(adapter, raw, async () => {
      removed = await adapter.deleteSession(raw);
    });
  } catch (e) {
    await recordFailure(req, ctx, { sessionId: databaseSessionId(config, raw) });
    throw new SignOutError(
      "The session was not signed out: the adapter did not confirm deleting it, so a copy of the cookie may still work. The cookie is kept; signing out again is safe.",
      { err: errorOf(e) },
    );
  }
  if (removed) await config.events.signOut?.({ session: removed });
  else config.logger.debug("sign-out without a live session: only its cookie is cleared");
}

const subjectOf = (token: JWT) => (typeof token.sub === "string" && token.sub !== "" ? token.sub : undefined);

/**
 * Records `session.revoke-failed` for a sign-out the store did not take. Any client can cause one
 * while the store is down (with a made-up database session cookie), so it is budgeted per client
 * address like a failed sign-in.
 */
async function recordFailure(
  req: RequestInternal,
  ctx: Context,
  about: { sessionId: string; userId?: string },
): Promise<void> {
  const { config } = ctx;
  if (!config.audit) return;
  const client = clientKey(req.clientIp) ?? "-";
  if (!(await admitRecord(config, `revoke-failed:${client}`, config.audit.failuresPerClient))) return;
  await recordAudit(config, {
    type: "session.revoke-failed",
    at: new Date(),
    reason: "signed-out",
    clientAddress: req.clientIp,
    ...about,
  });
}
