import type { ResponseInternal } from "../../shapes/data.js";
import type { RequestInternal } from "../http/request.js";
import { noStore } from "../http/response.js";
import { organizationsOf, readActiveOrganization, withActiveOrganization } from "../organizations/active.js";
import type { Context } from "../serve/context.js";
import { liveSessionOf, readSession } from "../session/read.js";

/**
 * `GET /session` returns the session or `null`; `POST /session` (CSRF-checked) updates it with
 * the client's `data` through the `jwt` / `session` callbacks. The one read (`session/read.ts`)
 * and its failure policy: a session store that fails is logged and answered here as a bounded
 * 500 with no session (the client keeps what it knew), leaving the cookie alone.
 */
export async function session(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const isUpdate = req.method === "POST";
  if (isUpdate) ctx.requireCsrf("A session update");
  const headers: Record<string, string> = isUpdate
    ? { "Content-Type": "application/json" }
    : { "Content-Type": "application/json", ...noStore };
  const read = readSession(ctx.config, {
    cookies: req.cookies,
    cookie: ctx.cookieOptions.sessionToken,
    update: isUpdate ? { data: req.body?.data } : undefined,
    reissue: true,
  });
  const done = read instanceof Promise ? await read : read;
  const { cookies, failed } = done;
  let { session } = done;
  const organizations = organizationsOf(ctx.config.source);
  if (session && organizations) {
    const context = {
      secrets: ctx.config.secrets,
      cookies: req.cookies,
      cookie: ctx.cookieOptions.sessionToken,
      logger: ctx.config.logger,
    };
    const active = await readActiveOrganization(organizations, context, liveSessionOf(ctx.config, done)?.userId);
    session = withActiveOrganization(session, active);
  }
  if (failed) {
    return {
      status: 500,
      headers,
      body: { message: "The session could not be read. Check the server logs for more information." },
    };
  }
  return { headers, body: session as Record<string, unknown> | null, cookies: [...ctx.cookies, ...cookies] };
}
