import type { ResponseInternal } from "../../types.js";
import type { Context } from "../context.js";
import { otherPages } from "../pages/index.js";
import type { RequestInternal } from "../request.js";
import { withQuery } from "../url.js";

/** `GET /error`: the error page for `?error=` (or a redirect to `pages.error`). */
export function error(req: RequestInternal, ctx: Context): ResponseInternal {
  const value = req.query.error;
  const custom = ctx.config.pages.error;
  if (custom) {
    const params = new URLSearchParams(value ? { error: value } : {});
    return { redirect: withQuery(custom, params), cookies: ctx.cookies };
  }
  return otherPages.error(ctx, value);
}

/** `GET /verify-request`: the "check your e-mail" page (or a redirect to `pages.verifyRequest`). */
export function verifyRequest(req: RequestInternal, ctx: Context): ResponseInternal {
  const custom = ctx.config.pages.verifyRequest;
  if (custom) return { redirect: `${custom}${req.url.search}`, cookies: ctx.cookies };
  return otherPages.verifyRequest(ctx);
}
