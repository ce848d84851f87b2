/**
 * The guard of a credentials sign-in against a password reset or change that ends the user's
 * sessions while the sign-in is under way. The sign-in checked the old password; if the reset
 * stores the new hash and ends the sessions after that check but before the new session exists,
 * the session would outlive the reset.
 *
 * `authorizePassword` notes, inside the credentials flow's `authorize()`, how to tell that the
 * password it verified is still the user's ({@link noteVerifiedPassword}). The flow asks once the
 * session exists (stored, or its token made with its `auth_time`) and before its cookie is
 * written ({@link stillCurrent}). A reset stores the new hash before it ends the sessions, so
 * either the guard sees the new hash and refuses, or the session existed before the revocation
 * and the revocation ends it. Noted through the async context, not on the returned user, so an
 * `authorize()` that returns a copy of the user keeps the guard.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** True while the credential checked during the sign-in is still the user's. */
type Recheck = () => Promise<boolean>;

const noted = new AsyncLocalStorage<Recheck[]>();

/**
 * Runs a credentials provider's `authorize()` and returns what it returned, with the guard of
 * every credential it verified.
 *
 * @example
 * ```ts
 * const { value: user, guard } = await guardedAuthorize(() => provider.authorize(credentials, request))
 * if (user && !(await stillCurrent(guard))) throw new CredentialsSignin()
 * ```
 */
export async function guardedAuthorize<T>(run: () => T | PromiseLike<T>): Promise<{ value: T; guard: Recheck[] }> {
  const guard: Recheck[] = [];
  const value = await noted.run(guard, run);
  return { value, guard };
}

/**
 * Called by a check of a password (inside `authorize()`): `recheck` answers whether the password
 * verified is still the user's. Outside a credentials sign-in (an application calling the check
 * itself) nothing is noted.
 *
 * @example
 * ```ts
 * noteVerifiedPassword(async () => (await store.getPasswordHash(id)) === verifiedHash)
 * ```
 */
export function noteVerifiedPassword(recheck: Recheck): void {
  noted.getStore()?.push(recheck);
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
