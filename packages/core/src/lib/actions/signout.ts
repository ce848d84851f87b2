import type { Adapter } from "../../adapters.js";
import { SignOutError } from "../../errors.js";
import type { ResponseInternal } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import { clientKey } from "../attempts.js";
import { admitRecord, recordAudit } from "../audit/record.js";
import type { Context } from "../context.js";
import { clearChunkedCookie, readChunkedCookie } from "../cookies.js";
import { otherPages } from "../pages/index.js";
import type { RequestInternal } from "../request.js";
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
  if (!raw) return { redirect, cookies: ctx.cookies };
  if (config.session.strategy === "jwt") await endJwtSession(req, ctx, raw);
  else await endDatabaseSession(req, ctx, raw);
  ctx.cookies.push(...clearChunkedCookie(req.cookies, cookie.name, cookie.options));
  return { redirect, cookies: ctx.cookies };
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
          { err: e as Error },
        );
      }
    }
  }
  // `signOut` reports a session that ended: not a cookie that opens as none, nor a revoked one.
  await config.events.signOut?.({ token });
}

async function endDatabaseSession(req: RequestInternal, ctx: Context, raw: string): Promise<void> {
  const { config } = ctx;
  let removed: Awaited<ReturnType<Required<Adapter>["deleteSession"]>>;
  try {
    removed = await (config.adapter as Required<Adapter>).deleteSession(raw);
  } catch (e) {
    await recordFailure(req, ctx, { sessionId: databaseSessionId(config, raw) });
    throw new SignOutError(
      "The session was not signed out: the adapter did not confirm deleting it, so a copy of the cookie may still work. The cookie is kept; signing out again is safe.",
      { err: e as Error },
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
