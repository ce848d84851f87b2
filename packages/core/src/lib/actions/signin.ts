import type { ResponseInternal } from "../../shapes/data.js";
import { InvalidProvider, UnknownAction } from "../base/errors.js";
import type { RequestInternal } from "../http/request.js";
import { withQuery } from "../http/url.js";
import { page } from "../pages/layout.js";
import { signinPage } from "../pages/signin.js";
import type { Context } from "../serve/context.js";

/** `GET /signin`: the built-in sign-in page, or a redirect to `pages.signIn`. */
export async function signinGet(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  if (req.providerId) throw new UnknownAction("GET /signin takes no provider; POST to start a sign-in");
  const custom = ctx.config.pages.signIn;
  // The CSRF cookie first, then the callback URL's: the order Auth.js sets them in.
  const csrfToken = custom ? "" : ctx.csrf().token;
  const callbackUrl = await ctx.callbackUrl();
  const error = req.query.error;
  if (custom) {
    const params = new URLSearchParams({ callbackUrl });
    if (error) params.set("error", error);
    return { redirect: withQuery(custom, params), cookies: ctx.cookies };
  }
  const { title, content } = signinPage({
    providers: ctx.config.providers,
    authUrl: ctx.authUrl,
    csrfToken,
    callbackUrl,
    error,
    email: req.query.email,
  });
  return page({ title, content, theme: ctx.config.theme, cookies: ctx.cookies });
}

/**
 * `POST /signin/<provider>` (CSRF-checked): starts the provider's flow. OAuth providers redirect
 * to the authorization endpoint; e-mail providers send a link. Other providers have no sign-in
 * step and go back to the sign-in page.
 */
export async function signinPost(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  ctx.requireCsrf("A sign-in");
  const provider = ctx.provider;
  if (!provider) {
    if (req.providerId) throw new InvalidProvider(`No provider with the id "${req.providerId}" is configured`);
    return { redirect: `${ctx.authUrl}/signin`, cookies: ctx.cookies };
  }
  switch (provider.type) {
    case "oauth":
    case "oidc": {
      const { startOAuth } = await import("../flows/oauth/index.js");
      return startOAuth(req, ctx, provider);
    }
    case "email": {
      const { sendSignInLink } = await import("../flows/email/index.js");
      return sendSignInLink(req, ctx, provider);
    }
    default:
      return { redirect: `${ctx.authUrl}/signin`, cookies: ctx.cookies };
  }
}
