/**
 * The guard of a credentials sign-in against a password reset or change that ends the user's
 * sessions while the sign-in is under way. The sign-in checked the old password; if the reset
 * stores the new hash and ends the sessions after that check but before the new session exists,
 * the session would outlive the reset.
 *
 * `authorizePassword` notes, on the credentials object `authorize()` received and on the user it
 * returns, how to tell that the password it verified is still the user's
 * ({@link noteVerifiedPassword}). The flow looks for either once `authorize()` returns
 * ({@link guardOf}) and asks once the session exists (stored, or its token made with its
 * `auth_time`) and before its cookie is written ({@link stillCurrent}). A reset stores the new
 * hash before it ends the sessions, so either the guard sees the new hash and refuses, or the
 * session existed before the revocation and the revocation ends it.
 *
 * Weak maps keyed by those objects, not an async context: an `AsyncLocalStorage` would turn on
 * Node's promise hooks for the whole process (Node 20 and 22), a cost on every request.
 */

/** True while the credential checked during the sign-in is still the user's. */
type Recheck = () => Promise<boolean>;

const noted = new WeakMap<object, Recheck[]>();

/**
 * Called by a check of a password: `recheck` answers whether the password verified is still the
 * user's. Noted on each object given (the credentials `authorize()` received, the user it returns),
 * so the flow finds it when `authorize()` passes either on; outside a sign-in nothing asks.
 *
 * @example
 * ```ts
 * noteVerifiedPassword([credentials, user], async () => (await store.getPasswordHash(id)) === verifiedHash)
 * ```
 */
export function noteVerifiedPassword(on: unknown[], recheck: Recheck): void {
  for (const key of on) {
    if (typeof key !== "object" || key === null) continue;
    const list = noted.get(key);
    if (list) list.push(recheck);
    else noted.set(key, [recheck]);
  }
}

/**
 * The rechecks noted on the credentials `authorize()` received or the user it returned, taken: a
 * note is asked by one sign-in only, so an adapter that hands back the same user object every
 * time does not carry an earlier sign-in's password (verified before a reset) into a later one.
 *
 * @example
 * ```ts
 * const guard = guardOf(credentials, user)
 * ```
 */
export function guardOf(...on: unknown[]): Recheck[] {
  const found = new Set<Recheck>();
  for (const key of on) {
    if (typeof key !== "object" || key === null) continue;
    for (const recheck of noted.get(key) ?? []) found.add(recheck);
    noted.delete(key);
  }
  return [...found];
}

/**
 * Whether every credential the sign-in verified is still current (true when none was noted).
 *
 * @example
 * ```ts
 * revokedSince: async () => !(await stillCurrent(guard))
 * ```
 */
export async function stillCurrent(guard: Recheck[]): Promise<boolean> {
  for (const recheck of guard) if (!(await recheck())) return false;
  return true;
}
