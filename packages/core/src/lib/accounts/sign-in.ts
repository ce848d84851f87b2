import type { AdapterUser } from "../../shapes/adapters.js";
import { MissingAdapterMethods } from "../base/errors.js";
import type { AuthConfig } from "../config/options.js";
import { noteVerifiedPassword } from "../flows/sign-in-guard.js";
import { dummyVerify, hashPassword, needsRehash, verifyPassword } from "../password/hash.js";
import { sessionCookieOf } from "../serve/pipeline.js";
import type { PasswordAccountsOptions } from "./password-accounts.js";
import { normalized } from "./shared.js";

// ------------------------------------------------------------------ sign-in

/**
 * The check of a Credentials provider's `authorize()` for password accounts: the user of the
 * address when the password matches its stored hash, else null. An unknown address costs what a
 * wrong password costs (`dummyVerify`); a hash made with weaker parameters is upgraded. A user whose
 * address is not verified yet is refused unless `allowUnverified` (they then sign in to an account
 * that loses the address to whoever proves it). Inside a credentials sign-in the hash is read
 * again once the session exists: a reset or change of the password in between (which ends the
 * user's sessions) refuses the sign-in with `CredentialsSignin`. For that, pass `authorize()`'s
 * credentials object as `input` (as below), or return the user this returns (a copy made for this
 * call, so a user object the adapter shares between sign-ins never carries one sign-in's check
 * into another).
 *
 * @example
 * ```ts
 * Credentials({
 *   credentials: { email: { type: "email" }, password: { type: "password" } },
 *   authorize: ({ email, password }) => authorizePassword(config, accounts, { email, password }),
 * })
 * ```
 */
export async function authorizePassword(
  config: AuthConfig,
  options: Pick<PasswordAccountsOptions, "passwords" | "hash" | "env"> & { allowUnverified?: boolean },
  input: { email?: unknown; password?: unknown },
): Promise<AdapterUser | null> {
  const { resolved } = sessionCookieOf({ protocol: "http", host: "localhost", cookieHeader: null }, config, options);
  const adapter = resolved.adapter;
  if (typeof adapter?.getUserByEmail !== "function") {
    throw new MissingAdapterMethods("authorizePassword needs an adapter with `getUserByEmail`.");
  }
  const password = typeof input.password === "string" ? input.password : "";
  const email = normalized(input.email);
  const user = email ? await adapter.getUserByEmail(email) : null;
  const stored = user ? await options.passwords.getPasswordHash(String(user.id)) : null;
  if (!user || !stored) {
    await dummyVerify(password, options.hash);
    return null;
  }
  if (!(await verifyPassword(password, stored))) return null;
  if (!user.emailVerified && !options.allowUnverified) return null;
  let verified = stored;
  if (needsRehash(stored, options.hash)) {
    verified = await hashPassword(password, options.hash);
    await options.passwords.setPasswordHash(String(user.id), verified);
  }
  // Asked again by the credentials flow once the session exists: a reset or change that stored
  // another hash since refuses the sign-in. Another hash of this same password (a concurrent
  // sign-in's rehash) is still this password.
  const userId = String(user.id);
  // The copy returned (a new object per call) leads to this sign-in, whatever the adapter shares.
  return noteVerifiedPassword(input, user, async () => {
    const now = await options.passwords.getPasswordHash(userId);
    return now === verified || (!!now && (await verifyPassword(password, now)));
  });
}
