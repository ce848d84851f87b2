import type { Adapter } from "../../adapters.js";
import { SignOutError } from "../../errors.js";
import type { ResponseInternal } from "../../shapes/data.js";
import type { Context } from "../context.js";
import { clearChunkedCookie, readChunkedCookie } from "../cookies.js";
import { otherPages } from "../pages/index.js";
import type { RequestInternal } from "../request.js";
import { decodeSessionToken } from "../session/jwt-strategy.js";
import { endingEntry, entryLifetimeMs, sessionIdOf } from "../session/revocation-list.js";

/** `GET /signout`: the confirmation page, or a redirect to `pages.signOut`. */
export async function signoutGet(_req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  if (ctx.config.pages.signOut) return { redirect: ctx.config.pages.signOut, cookies: ctx.cookies };
  ctx.csrf();
  return otherPages.signout(ctx, await ctx.callbackUrl());
}

/**
 * `POST /signout` (CSRF-checked): removes the session (its cookie, and its record under the
 * database strategy, or with `session.revocation` its id on the revocation list), emits
 * `signOut`, and redirects to the callback URL. A cookie that names no live session (made up,
 * already deleted, or a revoked JWT) only loses its cookie: no event, no store write. The cookie is cleared even when the store fails;
 * that failure is logged.
 */
export async function signoutPost(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  ctx.requireCsrf("A sign-out");
  const { config } = ctx;
  const redirect = await ctx.callbackUrl();
  const cookie = ctx.cookieOptions.sessionToken;
  const raw = readChunkedCookie(req.cookies, cookie.name);
  if (!raw) return { redirect, cookies: ctx.cookies };
  try {
    if (config.session.strategy === "jwt") {
      const token = await decodeSessionToken(config, raw, cookie.name);
      const list = config.revocation?.list;
      if (list?.state === "idle") await list.start();
      // A revoked session is no session here either: a copy replayed at will writes nothing and
      // emits no signOut. While the list is unavailable, the sign-out revokes as usual.
      const revoked = !!token && list?.verdict(token, false) === "revoked";
      // With revocation on, a copy of this cookie (another tab, a stolen one) stops working too.
      const sid = token && !revoked && config.revocation ? sessionIdOf(token) : undefined;
      if (token && sid !== undefined && config.revocation) {
        const now = Date.now();
        const entry = endingEntry(
          config.revocation,
          token,
          sid,
          now,
          now + entryLifetimeMs(config.session, config.jwt),
        );
        // Revoked in this instance's memory at once; a store failure is logged and the sign-out goes on.
        await config.revocation.list
          .add(entry)
          .catch((e: Error) =>
            config.logger.error(new SignOutError("The session could not be revoked on other instances", { err: e })),
          );
      }
      // `signOut` reports a session that ended: not a cookie that opens as none, nor a revoked one.
      if (token && !revoked) await config.events.signOut?.({ token });
      else config.logger.debug("sign-out without a live session: only its cookie is cleared");
    } else {
      const removed = await (config.adapter as Required<Adapter>).deleteSession(raw);
      if (removed) await config.events.signOut?.({ session: removed });
      else config.logger.debug("sign-out without a live session: only its cookie is cleared");
    }
  } catch (e) {
    config.logger.error(new SignOutError("The session could not be removed", { err: e as Error }));
  }
  ctx.cookies.push(...clearChunkedCookie(req.cookies, cookie.name, cookie.options));
  return { redirect, cookies: ctx.cookies };
}
