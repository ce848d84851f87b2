import type { ResponseInternal } from "../../shapes/data.js";
import { errorOf } from "../base/error-of.js";
import { SessionTokenError, UnknownAction } from "../base/errors.js";
import type { RequestInternal } from "../http/request.js";
import { noStore } from "../http/response.js";
import { activeOrganizationCookie, clearedActiveOrganizationCookie, organizationsOf } from "../organizations/active.js";
import { isIdentifier } from "../organizations/checks.js";
import type { Context } from "../serve/context.js";
import { liveSessionOf, readSession } from "../session/read.js";

const headers = { "Content-Type": "application/json", ...noStore };
/** A store that failed (logged): nothing chosen, the client told to try again, not why. */
const unavailable = { ...headers, "Retry-After": "5" };

/**
 * `POST /organization` (CSRF-checked; served when the configuration has `organizations`): makes
 * `organizationId` the active organization of the signed-in user's browser, after the store
 * confirms the membership, and answers `{ activeOrganization: { id, role } }`; an empty
 * `organizationId` (or `null`) clears it. An organization the user is not a member of is answered
 * `404 {"error":"OrganizationNotFound"}`, exactly as one that does not exist (nothing to probe);
 * a signed-out request `401 {"error":"SessionRequired"}`; a value that cannot be an id (a repeated
 * field, an object) `400 {"error":"InvalidOrganization"}`; a session or organization store that
 * fails `503` with `Retry-After` (logged), the choice unchanged.
 */
export async function organization(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const organizations = organizationsOf(ctx.config.source);
  if (!organizations) {
    throw new UnknownAction(
      "/organization is served when the configuration has `organizations: { store, roles }` (see @latchkey/core/organizations)",
    );
  }
  ctx.requireCsrf("Switching the active organization");
  const cookie = ctx.cookieOptions.sessionToken;
  const read = readSession(ctx.config, { cookies: req.cookies, cookie, reissue: false });
  const done = read instanceof Promise ? await read : read;
  if (done.failed) {
    return {
      status: 503,
      headers: unavailable,
      body: { message: "The session could not be read. Try again shortly." },
    };
  }
  const userId = done.session ? liveSessionOf(ctx.config, done)?.userId : undefined;
  if (!userId) {
    return { status: 401, headers, body: { error: "SessionRequired", message: "Sign in to choose an organization." } };
  }
  const wanted = req.body?.organizationId;
  if (wanted === undefined || wanted === null || wanted === "") {
    return { headers, body: { activeOrganization: null }, cookies: [clearedActiveOrganizationCookie(cookie)] };
  }
  if (!isIdentifier(wanted)) {
    const message = "`organizationId` must be one organization's id.";
    return { status: 400, headers, body: { error: "InvalidOrganization", message } };
  }
  let membership: Awaited<ReturnType<typeof organizations.store.getMembership>>;
  try {
    membership = await organizations.store.getMembership(wanted, userId);
  } catch (e) {
    ctx.config.logger.error(new SessionTokenError("The membership could not be read", { err: errorOf(e) }));
    return {
      status: 503,
      headers: unavailable,
      body: { message: "The organization could not be chosen. Try again shortly." },
    };
  }
  if (!membership) {
    const message = "No organization with this id has you as a member.";
    return { status: 404, headers, body: { error: "OrganizationNotFound", message } };
  }
  return {
    headers,
    body: { activeOrganization: { id: wanted, role: membership.role } },
    cookies: [activeOrganizationCookie(ctx.config.secrets, cookie, userId, wanted)],
  };
}
