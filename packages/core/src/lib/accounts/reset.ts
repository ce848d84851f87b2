// A forgotten password: the reset request and the reset, which ends every session of the user.
import { randomUUID } from "#platform";
import { recordAudit } from "../audit/record.js";
import { errorOf } from "../base/error-of.js";
import { AuthError, InvalidConfiguration, MissingAdapterMethods, SignOutError } from "../base/errors.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import type { ResolvedConfig } from "../config/types.js";
import { releaseToProver } from "../flows/identity.js";
import { hashPassword } from "../password/hash.js";
import { revokeUserSessions } from "../session/manage.js";
import { countAccountEvent, firstResetOfLinkLife } from "./limits.js";
import { accountMails } from "./mail.js";
import {
  type AccountsRequest,
  type PasswordAccountsOptions,
  RESET_MAX_AGE,
  type ResetRequestResult,
  type ResetResult,
} from "./password-accounts.js";
import { accountKey, consume, randomToken, resetRecord } from "./records.js";
import { absolute, checkNewPassword, limited, mail, mailAllowed, normalized, resolveAccounts } from "./shared.js";

// ------------------------------------------------------------------ forgotten password

/**
 * Mails a reset link to the address when it has an account, and a "no account with this address"
 * note otherwise: the same answer, `{ ok: true }`, and the same work (a token made and hashed, one
 * e-mail) either way. A flood sends a handful of e-mails: past `limits.mailPerClient` a client is
 * answered `rate-limited`; past `limits.resetMailPerAddress` (reset e-mails only: sign-ups count
 * apart) one e-mail per `resetMaxAge` still goes out and the others are answered `{ ok: true }`
 * with nothing sent, so the address always holds a link that works and nobody's requests keep its
 * owner from a reset. The token (256 bits) is stored as a keyed hash bound to the address,
 * the user and the user's current password, works once, within `resetMaxAge`, and not at all once
 * the password has changed (by this link, another one, or `changePassword`).
 *
 * @example
 * ```ts
 * await requestPasswordReset(request, config, accounts, { email: form.email, clientAddress: ip })
 * ```
 */
export async function requestPasswordReset(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: { email: unknown; clientAddress?: string },
): Promise<ResetRequestResult> {
  const r = resolveAccounts(request, config, options, "requestPasswordReset");
  const email = normalized(input.email);
  if (!email) return { ok: false, error: "invalid-email" };
  const maxAge = options.resetMaxAge ?? RESET_MAX_AGE;
  const refused = await countAccountEvent(r.config, r.limits, "reset", email, input.clientAddress);
  if (refused?.over === "client") return { ok: false, error: "rate-limited", retryAfter: refused.retryAfter };
  // Past the address's limit, one e-mail per link life still goes out, and the rest are answered
  // as usual with nothing sent: the address always holds a link that works, whoever spent its
  // budget, so a stranger's requests never stand between its owner and a reset.
  if (refused && !(await firstResetOfLinkLife(r.config, email, maxAge))) {
    r.config.logger.debug("accounts: reset e-mail not sent, the address holds one whose link still works");
    return { ok: true };
  }
  if (!mailAllowed(r, "A password-reset e-mail")) return { ok: true };
  const user = await r.adapter.getUserByEmail(email);
  const userId = user ? String(user.id) : randomUUID();
  const token = randomToken();
  // Read for a made-up id too, so that both branches do the same work.
  const current = (await options.passwords.getPasswordHash(userId)) ?? "";
  const value = resetRecord(accountKey(r.config.secrets[0]), email, userId, token, current);
  const host = new URL(r.origin).host;
  if (user) {
    try {
      await r.adapter.createVerificationToken({
        identifier: email,
        token: value,
        expires: new Date(Date.now() + maxAge * 1000),
      });
    } catch (e) {
      // The answer stays the same (an outage must not tell which addresses have accounts); no
      // e-mail goes out, and the operator is told.
      r.config.logger.error(
        new AuthError("A reset token could not be stored; no e-mail was sent", { err: errorOf(e) }),
      );
      return { ok: true };
    }
    const url = absolute(r, options.urls.reset, { token, email, user: userId });
    await mail(r, accountMails.reset(email, host, r.config.theme, { url, maxAge }));
  } else {
    await mail(r, accountMails.resetUnknown(email, host, r.config.theme, { signUp: absolute(r, options.urls.signUp) }));
  }
  return { ok: true };
}

/** Fails before anything is spent when the sessions of a user cannot all be ended. */
export function assertSessionsCanEnd(config: ResolvedConfig, what: string): void {
  if (config.session.strategy === "database") {
    if (typeof config.adapter?.deleteSessions !== "function") {
      throw new MissingAdapterMethods(`${what} ends the user's sessions: the adapter needs \`deleteSessions\`.`);
    }
  } else if (!config.revocation) {
    throw new InvalidConfiguration(
      `${what} ends every session of the user: under JWT sessions that needs \`session.revocation\` (see @latchkey/core/revocation), or a stolen session would outlive the new password.`,
    );
  }
}

/** Ends every session of the user (both strategies, every instance) and its pending second-factor sign-ins. */
async function endAllSessions(config: AuthConfig, userId: string, env?: Env): Promise<void> {
  await revokeUserSessions(config, userId, { reason: "password-changed", env });
}

/**
 * Sets a new password with the token of a reset e-mail (`token`, `email` and `user` from its
 * link). The new password is checked first (policy, breached), so a refused one does not spend the
 * token; then the token is consumed (of 50 concurrent submissions, one wins), the hash stored,
 * every session of the user ended (database sessions and JWT revocation alike, with pending
 * second-factor sign-ins), `password.changed` recorded and the owner told by e-mail. Nobody is
 * signed in: the user signs in with the new password, and a second factor is still asked for.
 *
 * A reset proves the address. When the account never proved it, the address goes to a fresh
 * verified user with the new password, and whatever the old record held (a stranger's password,
 * accounts, passkeys) stays with it (docs/security.md, "Identity").
 *
 * @example
 * ```ts
 * const result = await resetPassword(request, config, accounts, { token, email, user, password: form.password, clientAddress: ip })
 * ```
 */
export async function resetPassword(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: { token: unknown; email: unknown; user: unknown; password: unknown; clientAddress?: string },
): Promise<ResetResult> {
  const r = resolveAccounts(request, config, options, "resetPassword");
  assertSessionsCanEnd(r.config, "resetPassword");
  const invalid = (reason: string): ResetResult => {
    r.config.logger.debug("accounts: password reset refused", { reason });
    return { ok: false, error: "invalid-token" };
  };
  const email = normalized(input.email);
  const { token, user: userId } = input;
  if (!email || typeof token !== "string" || !/^[0-9a-f]{64}$/.test(token)) return invalid("malformed link");
  if (typeof userId !== "string" || userId === "" || userId.length > 255) return invalid("malformed link");
  // Counted per client only: a 256-bit token is not guessed, and a counter per address would let
  // anyone's bogus submissions block the owner's reset.
  const overLimit = await limited(r, "submit", null, input.clientAddress);
  if (overLimit) return overLimit;
  const accepted = await checkNewPassword(options, input.password, [email]);
  if (!accepted.ok) return accepted;
  const hash = await hashPassword(accepted.password, options.hash);

  // Bound to the password the user has now: a link sent before the last reset or change finds
  // no record.
  const current = (await options.passwords.getPasswordHash(userId)) ?? "";
  const spent = await consume(r.adapter, r.config.secrets, email, (k) => resetRecord(k, email, userId, token, current));
  if (!spent) return invalid("unknown, used, or another user's token");
  if (spent.expired) return invalid("expired token");
  const user = await r.adapter.getUser(userId);
  if (!user || user.email !== email) return invalid("the address no longer belongs to this user");

  let owner = user;
  if (user.emailVerified) {
    await options.passwords.setPasswordHash(userId, hash);
  } else {
    const released = await releaseToProver(
      { config: r.config },
      r.adapter,
      user,
      { email, name: user.name ?? null },
      "password-reset",
    );
    if (!released) return invalid("another proof of the address came first");
    owner = released.user;
    await options.passwords.setPasswordHash(String(owner.id), hash);
  }
  try {
    await endAllSessions(config, String(owner.id), options.env);
  } catch (e) {
    if (e instanceof SignOutError) throw e;
    throw new SignOutError("The password was reset but the sessions were not ended; retry ending them", {
      err: errorOf(e),
    });
  }
  await recordAudit(r.config, {
    type: "password.changed",
    at: new Date(),
    userId: String(owner.id),
    clientAddress: input.clientAddress,
  });
  await mail(
    r,
    accountMails.changed(email, new URL(r.origin).host, r.config.theme, { reset: absolute(r, options.urls.reset) }),
  );
  return { ok: true, userId: String(owner.id), sessionsEnded: true };
}
