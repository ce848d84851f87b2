import type { ResponseInternal } from "../../shapes/data.js";
import { emailCodeOptions } from "../flows/email/code.js";
import type { RequestInternal } from "../http/request.js";
import { withQuery } from "../http/url.js";
import { otherPages } from "../pages/responses.js";
import type { Context } from "../serve/context.js";

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

/**
 * `GET /verify-request`: the "check your e-mail" page (or a redirect to `pages.verifyRequest`), with
 * the code form when `?provider=` names an e-mail provider that mails codes.
 */
export function verifyRequest(req: RequestInternal, ctx: Context): ResponseInternal {
  const custom = ctx.config.pages.verifyRequest;
  if (custom) return { redirect: `${custom}${req.url.search}`, cookies: ctx.cookies };
  // The e-mail provider named in the query gets its code form when it mails codes.
  const id = req.query.provider;
  const provider = typeof id === "string" ? ctx.config.providersById.get(id) : undefined;
  const options = provider?.type === "email" ? emailCodeOptions(provider) : null;
  if (!provider || !options) return otherPages.verifyRequest(ctx);
  return otherPages.verifyRequest(ctx, {
    action: `${ctx.authUrl}/callback/${encodeURIComponent(provider.id)}`,
    csrfToken: ctx.csrf().token,
    length: options.length,
    error: req.query.error === "Verification",
    codeOnly: provider.type === "email" && provider.link === false,
  });
}
