// A password changed while signed in: the other sessions end, this one goes on.
import { randomUUID } from "#platform";
import type { AdapterUser } from "../../shapes/adapters.js";
import type { Cookie } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import { recordAudit } from "../audit/record.js";
import { withMethods } from "../base/adapter-for.js";
import { SessionCookieTooLarge } from "../base/errors.js";
import type { AuthConfig } from "../config/options.js";
import { endPendingSignIns } from "../flows/second-factor/pending.js";
import { dummyVerify, hashPassword, verifyPassword } from "../password/hash.js";
import { sessionRequestOf } from "../serve/pipeline.js";
import { amrOf, keepSessionIdentity, sessionTokenCookies } from "../session/jwt-strategy.js";
import { checkCsrf, revokeUserSessions } from "../session/manage.js";
import { signedInOf } from "../session/read.js";
import { readingOf } from "../session/request-read.js";
import { accountMails } from "./mail.js";
import type { AccountsRequest, ChangeResult, PasswordAccountsOptions } from "./password-accounts.js";
import { assertSessionsCanEnd } from "./reset.js";
import { absolute, checkNewPassword, limited, mail, type Resolved, resolveAccounts, resultCookies } from "./shared.js";

// ------------------------------------------------------------------ change while signed in

/**
 * A password field as posted: `undefined` when absent (missing or empty), the text when a string,
 * null for any other type (a repeated field parsed as an array, an object): given, and never a
 * match, rather than the string an array or object would turn into.
 */
export function postedPassword(value: unknown): string | null | undefined {
  if (value === undefined || value === "") return undefined;
  return typeof value === "string" ? value : null;
}

/** Whether `posted` is the password of `stored`; the same work when there is nothing to match. */
export async function matchesStored(posted: string | null, stored: string | null | undefined): Promise<boolean> {
  if (posted === null || !stored) return dummyVerify(posted ?? "");
  return verifyPassword(posted, stored);
}

export interface Current {
  user: AdapterUser;
  /** Epoch ms of the sign-in, when known. */
  signedInAt: number | null;
  sessionToken?: string;
  /** JWT sessions: the session token's claims, re-sealed for this browser after a change. */
  claims?: JWT;
}

/** The signed-in user of the request, by the one session read (`lib/session/request-read.ts`). */
async function currentUser(r: Resolved): Promise<Current | null> {
  const cookie = r.sessionCookieOptions;
  if (!cookie) return null;
  const me = await signedInOf({ resolved: r.config, cookie, cookies: r.cookies });
  if (!me) return null;
  const { live, user } = me;
  return { user, signedInAt: live.signedInAt, sessionToken: live.sessionToken, claims: live.token };
}

/**
 * JWT sessions, after the user's sessions were revoked: the cookies of a new session for this
 * browser, with the claims of the one it replaces, a new id and a sign-in time after the
 * revocation (so it survives it on every instance). Nothing when the cookie cannot be written (the
 * user then signs in again).
 */
async function sessionAfterChange(r: Resolved, me: Current): Promise<Cookie[]> {
  const cookie = r.sessionCookieOptions;
  if (!cookie || !me.claims) return [];
  const list = r.config.revocation?.list;
  const token = keepSessionIdentity(me.claims, {
    sid: randomUUID(),
    authTime: list ? list.signInTime(String(me.user.id), Date.now()) : Date.now() / 1000,
    amr: amrOf(me.claims.amr),
    sub: String(me.user.id),
  });
  try {
    return await sessionTokenCookies(r.config, r.cookies, cookie, token);
  } catch (e) {
    if (e instanceof SessionCookieTooLarge) return [];
    throw e;
  }
}

/**
 * Changes the signed-in user's password. Needs the CSRF token the form posted (`csrfToken`, as
 * the other account helpers), and `currentPassword`, unless the user signed in within
 * `recentSignIn` seconds (the JWT's `auth_time`, the database session's creation). Wrong current
 * passwords count against the limits per user and per client. Then the user's other sessions end
 * and this one lives on: database sessions delete every record but this one; JWT sessions revoke
 * every session of the user begun before now, and this browser gets a new session (a new id, begun
 * after that revocation, the same claims) in `setCookie`, to send as `Set-Cookie` headers. Pending
 * second-factor sign-ins end, `password.changed` is recorded and the owner told by e-mail.
 *
 * @example
 * ```ts
 * const result = await changePassword(request, config, accounts, { csrfToken: form.csrfToken, currentPassword: form.current, newPassword: form.password, clientAddress: ip })
 * ```
 */
export async function changePassword(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: { csrfToken: unknown; currentPassword?: unknown; newPassword: unknown; clientAddress?: string },
): Promise<ChangeResult> {
  // The one session read's front: no secret or an untrusted host is no session, logged (its fix named).
  if (!readingOf(sessionRequestOf(request), config, options.env)) return { ok: false, error: "signed-out" };
  const r = resolveAccounts(request, config, options, "changePassword");
  checkCsrf(request, config, input.csrfToken, { env: options.env });
  assertSessionsCanEnd(r.config, "changePassword");
  const me = await currentUser(r);
  if (!me) return { ok: false, error: "signed-out" };
  const { user } = me;
  const posted = postedPassword(input.currentPassword);
  if (posted !== undefined) {
    const overLimit = await limited(r, "submit", `user:${user.id}`, input.clientAddress);
    if (overLimit) return overLimit;
    const ok = await matchesStored(posted, await options.passwords.getPasswordHash(String(user.id)));
    if (!ok) return { ok: false, error: "wrong-password" };
  } else {
    const recent = (options.recentSignIn ?? 300) * 1000;
    if (me.signedInAt === null || Date.now() - me.signedInAt > recent) return { ok: false, error: "reauthenticate" };
  }
  const accepted = await checkNewPassword(options, input.newPassword, [user.email, user.name]);
  if (!accepted.ok) return accepted;
  await options.passwords.setPasswordHash(String(user.id), await hashPassword(accepted.password, options.hash));
  let signedOut = false;
  let cookies: Cookie[] = [];
  if (r.config.session.strategy === "database") {
    await endPendingSignIns(r.config, user.id);
    // assertSessionsCanEnd checked the method before anything was spent.
    const deleted = await withMethods(r.adapter, ["deleteSessions"]).deleteSessions(user.id, me.sessionToken);
    for (const session of deleted) await r.config.events.signOut?.({ session, reason: "password-changed" });
  } else {
    await revokeUserSessions(config, user.id, { reason: "password-changed", env: options.env });
    cookies = await sessionAfterChange(r, me);
    signedOut = cookies.length === 0;
  }
  await recordAudit(r.config, {
    type: "password.changed",
    at: new Date(),
    userId: user.id,
    clientAddress: input.clientAddress,
  });
  if (user.email) {
    await mail(
      r,
      accountMails.changed(user.email, new URL(r.origin).host, r.config.theme, {
        reset: absolute(r, options.urls.reset),
      }),
    );
  }
  return { ok: true, userId: user.id, signedOut, ...resultCookies(cookies) };
}
