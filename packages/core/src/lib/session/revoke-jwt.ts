// The code of @latchkey/core's public module src/revocation.ts (which documents it and re-exports it).
import type { JWT } from "../../shapes/jwt.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { revocationOf, revokeOneJwtSession } from "./revoke.js";

/**
 * Revokes one JWT session on every instance sharing the store: each of its tokens, the re-issued
 * ones included, reads as signed out from now on. `target` is the session's id (`sid`, as the
 * `jwt` and `session` callbacks see it), its decoded claims, or a session token (the cookie's
 * value). Resolves once the store has it; rejects with `SignOutError` when the store does not
 * confirm it within `timeout` (then nothing was revoked, on any instance, and `session.revoke-failed`
 * is recorded: retry).
 *
 * @example
 * ```ts
 * // "sign out this device" from a list of the user's sessions
 * await revokeJwtSession(config, sessionId)
 * ```
 */
export async function revokeJwtSession(
  config: AuthConfig,
  target: string | JWT,
  options: { env?: Env } = {},
): Promise<void> {
  await revokeOneJwtSession(revocationOf(config, options.env), target);
}
