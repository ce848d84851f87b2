import type { ResponseInternal } from "../../shapes/data.js";
import type { Context } from "../serve/context.js";
import { page } from "./layout.js";
import { type CodeForm, confirmLinkPage, errorPage, signoutPage, verifyRequestPage } from "./other-pages.js";

/** The built-in pages other than sign-in, as responses. */
export const otherPages = {
  signout(ctx: Context, callbackUrl: string): ResponseInternal {
    const { title, content } = signoutPage({ authUrl: ctx.authUrl, csrfToken: ctx.csrf().token, callbackUrl });
    return page({ title, content, theme: ctx.config.theme, cookies: ctx.cookies });
  },
  error(ctx: Context, error: string | undefined): ResponseInternal {
    const { title, status, content } = errorPage({ authUrl: ctx.authUrl, origin: ctx.origin, error });
    return page({ title, status, content, theme: ctx.config.theme, cookies: ctx.cookies });
  },
  confirmLink(
    ctx: Context,
    link: { action: string; email: string; token: string; callbackUrl: string },
  ): ResponseInternal {
    const { title, content } = confirmLinkPage({ ...link, csrfToken: ctx.csrf().token });
    return page({ title, content, theme: ctx.config.theme, cookies: ctx.cookies });
  },
  verifyRequest(ctx: Context, code?: CodeForm): ResponseInternal {
    const { title, content } = verifyRequestPage({ origin: ctx.origin, code });
    return page({ title, content, theme: ctx.config.theme, cookies: ctx.cookies });
  },
};
