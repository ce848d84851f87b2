/**
 * Connecting a credential to a signed-in user (RFC 9700 §4.7; login CSRF). A provider account or
 * a passkey joins an existing user only through a connect flow: begun by a CSRF-checked request
 * that asked for it (`connect` on `POST /signin/<provider>`, or passkey options asked for under a
 * session), with the session it began under sealed into the flow, and finished under that very
 * session. A plain sign-in never links, whatever session the browser holds: it signs in as the
 * account's own user (or a new one), replacing the session.
 */
import { hash, toBase64url } from "#platform";
import type { AdapterUser } from "../../shapes/adapters.js";
import { AccessDenied, InvalidCheck } from "../base/errors.js";
import type { RequestInternal } from "../http/request.js";
import type { Context } from "../serve/context.js";
import { signedInOf } from "../session/read.js";

/** The session a request carries: its user and a key naming that session (never its token). */
export interface SessionOnRequest {
  user: AdapterUser;
  key: string;
}

function keyOf(kind: string, value: string): string {
  return toBase64url(hash("sha256", `latchkey connect ${kind}\u0000`, value));
}

/**
 * The live session of the request, as a session read sees it (a revoked one, an expired one, or
 * one the `jwt` callback ended is none), with its key: the JWT's `sid` (kept across re-issues),
 * else a hash of the database session's token. A session cookie the request carries twice reads
 * as absent (`parseCookieHeader`), so an ambiguous session is none.
 *
 * @example
 * ```ts
 * const signedIn = await sessionOnRequest(req, ctx) // { user, key } | null
 * ```
 */
export async function sessionOnRequest(req: RequestInternal, ctx: Context): Promise<SessionOnRequest | null> {
  if (!ctx.config.adapter) return null;
  const me = await signedInOf({ resolved: ctx.config, cookie: ctx.cookieOptions.sessionToken, cookies: req.cookies });
  if (!me) return null;
  // A token issued before sessions had ids (an Auth.js cookie) is named by its own value.
  const [kind, value] = me.live.key;
  return { user: me.user, key: keyOf(kind, value) };
}

/** Whether a sign-in request asks to connect (`connect` of `true`, `"true"` or `"1"` in its body). */
function wantsConnect(req: RequestInternal): boolean {
  const value = req.body?.connect;
  return value === true || value === "true" || value === "1";
}

/**
 * At the start of a flow (CSRF already checked): the key of the session to connect to, when the
 * request asks to connect; undefined for a plain sign-in. Asking to connect without a live,
 * unambiguous session (or without an adapter to store the link) is `AccessDenied`.
 *
 * @example
 * ```ts
 * const connect = await connectClaim(req, ctx) // sealed into the flow's state
 * ```
 */
export async function connectClaim(req: RequestInternal, ctx: Context): Promise<string | undefined> {
  if (!wantsConnect(req)) return undefined;
  if (!ctx.config.adapter) throw new AccessDenied("Connecting an account needs an adapter to store the link");
  const session = await sessionOnRequest(req, ctx);
  if (!session) throw new AccessDenied("Connecting an account needs a signed-in session (none, or an ambiguous one)");
  return session.key;
}

/**
 * At the end of a flow: the user to connect the credential to, or null for a plain sign-in
 * (`sealed` undefined). A connect flow finished under another session than the one it began under
 * (signed out, signed in as someone else, a session cookie planted or duplicated meanwhile) is
 * `InvalidCheck`: nothing is linked and no session starts.
 *
 * @example
 * ```ts
 * const connectTo = await connectTarget(req, ctx, claims.connect)
 * await loginWithAccount(req, ctx, { user, account, emailProven, connectTo })
 * ```
 */
export async function connectTarget(req: RequestInternal, ctx: Context, sealed: unknown): Promise<AdapterUser | null> {
  if (sealed === undefined) return null;
  const session = typeof sealed === "string" ? await sessionOnRequest(req, ctx) : null;
  if (!session || session.key !== sealed) {
    throw new InvalidCheck(
      "The connect flow was not finished under the session it began under (signed out, another user, or an ambiguous session cookie): nothing was linked",
      { check: "connect" },
    );
  }
  return session.user;
}
