import { SessionTokenError } from "../../errors.js";
import type { ResponseInternal } from "../../shapes/data.js";
import { errorOf } from "../base/error-of.js";
import type { RequestInternal } from "../http/request.js";
import { noStore } from "../http/response.js";
import type { Context } from "../serve/context.js";
import { readSession } from "../session/index.js";

/**
 * `GET /session` returns the session or `null`; `POST /session` (CSRF-checked) updates it with
 * the client's `data` through the `jwt` / `session` callbacks. A session store that fails gives
 * a bounded 500, logged, and leaves the cookie alone.
 */
export async function session(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const isUpdate = req.method === "POST";
  if (isUpdate) ctx.requireCsrf("A session update");
  const headers: Record<string, string> = isUpdate
    ? { "Content-Type": "application/json" }
    : { "Content-Type": "application/json", ...noStore };
  try {
    const { session, cookies } = await readSession(ctx.config, {
      cookies: req.cookies,
      cookie: ctx.cookieOptions.sessionToken,
      update: isUpdate ? { data: req.body?.data } : undefined,
      reissue: true,
    });
    return { headers, body: session as Record<string, unknown> | null, cookies: [...ctx.cookies, ...cookies] };
  } catch (e) {
    ctx.config.logger.error(new SessionTokenError("The session could not be read", { err: errorOf(e) }));
    return {
      status: 500,
      headers,
      body: { message: "The session could not be read. Check the server logs for more information." },
    };
  }
}
