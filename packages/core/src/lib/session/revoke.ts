/**
 * Writing to the revocation list of JWT sessions: what `revokeJwtSession`, `revokeUserSessions`
 * (JWT sessions) share. An entry reaches this instance's memory only once the store confirmed it.
 */

import type { JWT } from "../../shapes/jwt.js";
import type { RevocationEntry } from "../../shapes/revocation.js";
import { recordAudit } from "../audit/record.js";
import { errorOf, messageOf } from "../base/error-of.js";
import { SignOutError } from "../base/errors.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import type { Env, ResolvedConfig } from "../config/types.js";
import { endPendingSignIns } from "../flows/second-factor/pending.js";
import { decodeSessionToken } from "./jwt-strategy.js";
import {
  CLOCK_SKEW_MS,
  endingEntry,
  entryLifetimeMs,
  type ResolvedRevocation,
  sessionIdOf,
} from "./revocation-list.js";

// Optional: a runtime without `process` (an edge worker) has no environment to read.
const processEnv = (): Env | undefined => globalThis.process?.env;

interface Revoking {
  resolved: ResolvedConfig;
  revocation: ResolvedRevocation;
}

const revocationOff = () =>
  new TypeError("Revocation is off in this configuration: set `session.revocation` (JWT sessions) to revoke sessions.");

/**
 * The configuration resolved (unset options from `env`, else the process's) with its revocation;
 * throws `off()` when revocation is off (by default a `TypeError` saying so).
 */
export function revocationOf(config: AuthConfig, env: Env | undefined, off: () => Error = revocationOff): Revoking {
  const resolved = resolveConfig(config, env ?? processEnv());
  if (!resolved.revocation) throw off();
  return { resolved, revocation: resolved.revocation };
}

/**
 * Saves `entry` on the list; when the store does not take it, records `session.revoke-failed` and
 * throws `SignOutError` (nothing was revoked, not even in this instance's memory; retrying is safe).
 */
async function addOrFail(
  { resolved, revocation }: Revoking,
  entry: RevocationEntry,
  record: { reason: string; sessionId?: string; userId?: string },
): Promise<void> {
  try {
    await revocation.list.add(entry);
  } catch (e) {
    await recordAudit(resolved, { type: "session.revoke-failed", at: new Date(), ...record });
    throw new SignOutError(
      `Nothing was revoked: the revocation store did not confirm the entry (${messageOf(e)}). Sessions go on until a retry succeeds; retrying is safe.`,
      { err: errorOf(e) },
    );
  }
}

/** Revokes one JWT session (see `revokeJwtSession` of `@latchkey/core/revocation`). */
export async function revokeOneJwtSession(revoking: Revoking, target: string | JWT): Promise<void> {
  const { resolved, revocation } = revoking;
  let sid: string | undefined;
  let claims: JWT | undefined;
  if (typeof target === "string" && target.includes(".")) {
    // A session token: opened under either cookie name (http and https origins salt it differently).
    for (const name of new Set([resolved.cookies.http.sessionToken.name, resolved.cookies.https.sessionToken.name])) {
      claims = (await decodeSessionToken(resolved, target, name)) ?? undefined;
      if (claims) {
        sid = sessionIdOf(claims);
        break;
      }
    }
    if (sid === undefined) throw new TypeError("`target` is no open-able session token of this configuration.");
  } else if (typeof target === "string") {
    sid = target;
  } else if (target && typeof target === "object") {
    claims = target;
    sid = sessionIdOf(target);
  }
  if (!sid) throw new TypeError("`target` must be a session id, a session token, or claims with a `sid`.");
  const now = Date.now();
  const expiresAt = now + entryLifetimeMs(resolved.session, resolved.jwt);
  const entry: RevocationEntry = claims
    ? endingEntry(revocation, claims, sid, now, expiresAt)
    : { kind: "session", id: sid, before: now, expiresAt };
  const userId = typeof claims?.sub === "string" && claims.sub !== "" ? claims.sub : undefined;
  await addOrFail(revoking, entry, { reason: "revoked", sessionId: sid, ...(userId !== undefined && { userId }) });
  await recordAudit(resolved, { type: "session.revoked", at: new Date(now), sessionId: sid, reason: "revoked" });
}

/**
 * Revokes every JWT session of `userId` begun before `before` (default: now plus the clock skew
 * allowed between instances), and ends the user's pending second-factor sign-ins (see
 * `revokeUserSessions` of `@latchkey/core/sessions`).
 */
export async function revokeUserJwtSessions(
  revoking: Revoking,
  userId: string,
  options: { before?: Date; reason?: string },
): Promise<void> {
  const { resolved } = revoking;
  const now = Date.now();
  const before = options.before?.valueOf() ?? now + CLOCK_SKEW_MS;
  if (!Number.isFinite(before)) throw new TypeError("`options.before` must be a valid Date.");
  const reason = options.reason ?? "revoked-all";
  await endPendingSignIns(resolved, userId);
  await addOrFail(
    revoking,
    { kind: "user", id: userId, before, expiresAt: now + entryLifetimeMs(resolved.session, resolved.jwt) },
    { reason, userId },
  );
  await recordAudit(resolved, { type: "session.revoked", at: new Date(now), userId, reason });
}
