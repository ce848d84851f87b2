/**
 * The configuration's `admin` option, and the one check every sign-in makes with it: a banned user
 * gets no session. Imports no other part of `lib/config/` (the flows call it).
 */

import type { AdminStore } from "../../shapes/admin.js";
import { errorOf } from "../base/error-of.js";
import { AccessDenied, AdapterError, InvalidConfiguration } from "../base/errors.js";
import { fieldOf } from "../base/merge.js";

const checked = new WeakMap<object, AdminStore>();

/**
 * The store of the configuration's `admin` option (checked once per option object); null when it
 * is not set; throws `InvalidConfiguration` naming the fix when it is not `{ store }`.
 */
export function adminStoreOf(config: { admin?: unknown }): AdminStore | null {
  const option = config.admin;
  if (option === undefined) return null;
  const known = typeof option === "object" && option !== null ? checked.get(option) : undefined;
  if (known) return known;
  const store = fieldOf(option, "store");
  if (typeof fieldOf(store, "getBan") !== "function" || typeof fieldOf(store, "getRole") !== "function") {
    throw new InvalidConfiguration(
      "`admin` must be `{ store }`: the AdminStore given to `Admin` (MemoryAdminStore(), SqlAdminStore(db), RedisAdminStore(redis)).",
    );
  }
  checked.set(option as object, store as AdminStore);
  return store as AdminStore;
}

/**
 * Refuses the sign-in of a banned user with `AccessDenied` (the user sees what a `signIn` callback's
 * refusal shows: `?error=AccessDenied`, nothing about the ban). Nothing is asked when the
 * configuration has no `admin`. A store that cannot be read refuses too (`AdapterError`, logged):
 * a ban is never skipped because its store is down.
 */
export async function refuseBanned(config: { admin?: unknown }, userId: string | undefined): Promise<void> {
  const store = adminStoreOf(config);
  if (!store || userId === undefined || userId === "") return;
  let banned: boolean;
  try {
    banned = (await store.getBan(userId, new Date())) !== null;
  } catch (e) {
    throw new AdapterError("The admin store could not be read, so the sign-in was refused", { err: errorOf(e) });
  }
  if (banned) throw new AccessDenied("The user is banned");
}
