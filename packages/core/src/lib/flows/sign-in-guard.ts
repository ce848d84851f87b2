/**
 * The guard of a credentials sign-in against a password reset or change that ends the user's
 * sessions while the sign-in is under way. The sign-in checked the old password; if the reset
 * stores the new hash and ends the sessions after that check but before the new session exists,
 * the session would outlive the reset.
 *
 * Each sign-in holds its own guard, a list of rechecks made for that request only
 * ({@link openGuard}). `authorizePassword` adds to it how to tell that the password it verified is
 * still the user's ({@link noteVerifiedPassword}); the flow asks once the session exists (stored,
 * or its token made with its `auth_time`) and before its cookie is written ({@link stillCurrent}).
 * A reset stores the new hash before it ends the sessions, so either the guard sees the new hash
 * and refuses, or the session existed before the revocation and the revocation ends it.
 *
 * `authorizePassword` runs inside the application's `authorize()`, so it reaches the sign-in only
 * through objects Latchkey made for that one sign-in: the credentials object the flow hands to
 * `authorize()`, and the copy of the user `authorizePassword` returns. Never through an object
 * the application owns: an adapter or application that hands the same user object to two
 * sign-ins at once would otherwise mix their rechecks (one sign-in asked about the other's
 * password, the other asked about none). Weak maps keyed by those objects, not an async context:
 * an `AsyncLocalStorage` would turn on Node's promise hooks for the whole process (Node 20 and
 * 22), a cost on every request. The maps are process-wide, so a second copy of this module (a
 * bundler's layer, `@latchkey/core/accounts` loaded twice) reaches the same sign-ins.
 */
import { processWide, slot } from "../base/application.js";

/** True while the credential checked during the sign-in is still the user's. */
type Recheck = () => Promise<boolean>;

/** The rechecks of one sign-in: every credential its `authorize()` verified. */
export type SignInGuard = Recheck[];

const guards = slot("sign-in-guards", () => ({
  /** The credentials object a sign-in handed to `authorize()` → that sign-in's guard. */
  byCredentials: new WeakMap<object, SignInGuard>(),
  /** A user copy `authorizePassword` returned → the recheck of the password it verified. */
  byUser: new WeakMap<object, Recheck>(),
}));

/**
 * Opens the guard of one sign-in: `credentials` is the object the flow made for this request and
 * hands to `authorize()`, so a check of a password given it adds to this guard and no other.
 *
 * @example
 * ```ts
 * const guard = openGuard(credentials)
 * const user = await provider.authorize(credentials, request)
 * ```
 */
export function openGuard(credentials: object): SignInGuard {
  const guard: SignInGuard = [];
  processWide(guards).byCredentials.set(credentials, guard);
  return guard;
}

/**
 * Called by a check of a password that succeeded: `recheck` answers whether the password verified
 * is still the user's. Added to the guard of the sign-in whose credentials object `input` is, and
 * kept for the copy of `user` returned (a new object per call), which `authorize()` may return in
 * place of its credentials. Outside a sign-in nothing asks.
 *
 * @example
 * ```ts
 * return noteVerifiedPassword(credentials, user, async () => (await store.getPasswordHash(id)) === verifiedHash)
 * ```
 */
export function noteVerifiedPassword<U extends object>(input: unknown, user: U, recheck: Recheck): U {
  const { byCredentials, byUser } = processWide(guards);
  if (typeof input === "object" && input !== null) byCredentials.get(input)?.push(recheck);
  const copy = { ...user };
  byUser.set(copy, recheck);
  return copy;
}

/**
 * The guard of a sign-in once `authorize()` returned `user`: its own rechecks, and the one kept for
 * `user` when it is a copy `authorizePassword` returned (taken: a copy counts for one sign-in).
 *
 * @example
 * ```ts
 * const rechecks = closeGuard(guard, user)
 * ```
 */
export function closeGuard(guard: SignInGuard, user: unknown): SignInGuard {
  const { byUser } = processWide(guards);
  if (typeof user !== "object" || user === null) return guard;
  const recheck = byUser.get(user);
  byUser.delete(user);
  return recheck && !guard.includes(recheck) ? [...guard, recheck] : guard;
}

/**
 * Whether every credential the sign-in verified is still current (true when none was noted).
 *
 * @example
 * ```ts
 * revokedSince: async () => !(await stillCurrent(guard))
 * ```
 */
export async function stillCurrent(guard: SignInGuard): Promise<boolean> {
  for (const recheck of guard) if (!(await recheck())) return false;
  return true;
}
