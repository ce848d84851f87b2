import type { ResponseInternal } from "../../shapes/data.js";
import { expiredCookie } from "../http/cookies.js";
import { noStore } from "../http/response.js";
import type { Context } from "../serve/context.js";

/** `GET /csrf`: the CSRF token, its signed copy in a cookie. 404 when the check is off. */
export function csrf(ctx: Context): ResponseInternal {
  if (!ctx.config.csrf) {
    const option = ctx.cookieOptions.csrfToken;
    return { status: 404, cookies: [expiredCookie(option.name, option.options)] };
  }
  const { token } = ctx.csrf();
  return {
    headers: { "Content-Type": "application/json", ...noStore },
    body: { csrfToken: token },
    cookies: ctx.cookies,
  };
}
