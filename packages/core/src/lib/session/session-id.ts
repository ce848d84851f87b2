import { hmac, toBase64url } from "#platform";
import type { Secrets } from "../crypto/jwe.js";

/**
 * The id of a database session: HMAC-SHA256 of its token under the first secret, with a label of
 * its own so it equals no other value Latchkey derives. It cannot be turned back into the token,
 * and without the secret it cannot be computed from one. A rotated secret changes every id (a
 * page listed before the rotation then revokes nothing, which is safe). `listSessions` shows it
 * and the audit trail records it.
 */
export function databaseSessionId(config: { readonly secrets: Secrets }, sessionToken: string): string {
  return toBase64url(hmac("sha256", config.secrets[0], "latchkey session id\u0000", sessionToken)).slice(0, 32);
}
