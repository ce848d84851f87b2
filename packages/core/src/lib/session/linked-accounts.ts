import type { AdapterAccount, AdapterUser } from "../../shapes/adapters.js";
import type { AdapterWith } from "../base/adapter-for.js";
import { held, slot } from "../base/application.js";
import { errorOf } from "../base/error-of.js";
import { AuthError, InvalidConfiguration } from "../base/errors.js";
import type { AuthConfig } from "../config/options.js";
import type { ResolvedConfig } from "../config/types.js";
import {
  type ChangeOptions,
  type LinkedAccount,
  MAX_KEY_LENGTH,
  type SessionsOptions,
  type SessionsRequest,
  type SignedIn,
  signedIn,
  type UnlinkOptions,
  type UnlinkResult,
} from "./manage.js";

function toLinked(config: ResolvedConfig, account: AdapterAccount): LinkedAccount {
  return {
    provider: account.provider,
    providerAccountId: account.providerAccountId,
    type: account.type,
    providerName: config.providersById.get(account.provider)?.name ?? null,
  };
}

/**
 * The accounts linked to the signed-in user (provider, account id, type, provider name): never
 * their tokens. Null when the request is signed out. Works with JWT and database sessions; needs
 * an adapter with `listAccounts`.
 *
 * @example
 * ```ts
 * const accounts = await listAccounts(request, config)
 * // [{ provider: "github", providerAccountId: "583231", type: "oauth", providerName: "GitHub" }]
 * ```
 */
export async function listAccounts(
  request: SessionsRequest,
  config: AuthConfig,
  options: SessionsOptions = {},
): Promise<LinkedAccount[] | null> {
  const me = await signedIn(request, config, options, "listAccounts", ["listAccounts"], false);
  if (!me) return null;
  const accounts = await me.adapter.listAccounts(me.user.id);
  return accounts.filter((account) => account.userId === me.user.id).map((account) => toLinked(me.config, account));
}

/**
 * The ways `user` can sign in now, one key each: an OAuth/OIDC account of a configured provider;
 * a passkey (an account of a configured WebAuthn provider whose authenticator is stored); the
 * e-mail address, when it is verified and an e-mail provider is configured. Accounts of providers
 * no longer configured do not count. (`otherSignInMethods` is added by the caller, as a number.)
 */
async function signInMethods(me: SignedIn<never>, accounts: AdapterAccount[]): Promise<Set<string>> {
  const { config, adapter, user } = me;
  const methods = new Set<string>();
  const passkeys: AdapterAccount[] = [];
  for (const account of accounts) {
    if (account.userId !== user.id) continue;
    const provider = config.providersById.get(account.provider);
    if (!provider) continue;
    if (
      (provider.type === "oauth" || provider.type === "oidc") &&
      account.type !== "email" &&
      account.type !== "webauthn"
    )
      methods.add(accountKey(account));
    if (provider.type === "webauthn" && account.type === "webauthn") passkeys.push(account);
  }
  if (passkeys.length && typeof adapter.listAuthenticatorsByUserId === "function") {
    const authenticators = await adapter.listAuthenticatorsByUserId(user.id);
    for (const account of passkeys)
      if (authenticators.some((a) => a.providerAccountId === account.providerAccountId))
        methods.add(accountKey(account));
  }
  if (user.email && user.emailVerified && config.providers.some((p) => p.type === "email")) methods.add("email");
  return methods;
}

/**
 * How many ways to sign in the application says the user has beyond Latchkey's. Anything but a
 * whole number from 0 up (Infinity, NaN, a fraction, a string) is a mistake of the application's
 * function: it fails with an error naming the option, before anything is unlinked, rather than
 * guessing in a direction that could lock the user out.
 */
async function otherMethodsOf(user: AdapterUser, options: UnlinkOptions): Promise<number> {
  if (!options.otherSignInMethods) return 0;
  const answer: unknown = await options.otherSignInMethods(user);
  if (typeof answer === "number" && Number.isSafeInteger(answer) && answer >= 0) return answer;
  throw new InvalidConfiguration(
    `\`otherSignInMethods\` of unlinkAccount must return a whole number of sign-in methods (0 or more); it returned ${typeof answer === "number" ? String(answer) : `a ${answer === null ? "null" : typeof answer}`}. Nothing was unlinked.`,
  );
}

function accountKey(account: Pick<AdapterAccount, "provider" | "providerAccountId">): string {
  return JSON.stringify([account.provider, account.providerAccountId]);
}

/**
 * Unlinks one of the signed-in user's accounts, unless it is the last way the user can sign in.
 * Throws `MissingCSRF` unless `options.csrfToken` is the form's CSRF token ({@link ChangeOptions}).
 * What counts: each account of a configured OAuth/OIDC provider, each passkey (its account and
 * authenticator), a verified e-mail address when an e-mail provider is configured, and
 * `otherSignInMethods` (a password Latchkey cannot see). An account of another user, or none,
 * answers `not-found`. Two unlinks racing for the last two methods cannot both win: after
 * unlinking, the methods are counted again, and an unlink that left none is undone. Unlinking a
 * passkey deletes its authenticator too (adapters with `deleteAuthenticator`), so the same passkey
 * can be registered again. Emits the
 * `unlinkAccount` event (a Latchkey extension). Works with JWT and database sessions.
 *
 * @example
 * ```ts
 * const target = { provider: "github", providerAccountId: "583231" }
 * const result = await unlinkAccount(request, config, target, { csrfToken: form.get("csrfToken") })
 * if (!result.unlinked && result.reason === "last-sign-in-method") showError("Add another way to sign in first")
 * ```
 */
export async function unlinkAccount(
  request: SessionsRequest,
  config: AuthConfig,
  target: { provider: unknown; providerAccountId: unknown },
  options: UnlinkOptions = {},
): Promise<UnlinkResult> {
  const methods = ["listAccounts", "unlinkAccount", "linkAccount"] as const;
  const me = await signedIn(request, config, options, "unlinkAccount", methods, false, true);
  if (!me) return { unlinked: false, reason: "signed-out" };
  const { provider, providerAccountId } = target ?? {};
  if (
    typeof provider !== "string" ||
    typeof providerAccountId !== "string" ||
    provider.length > MAX_KEY_LENGTH ||
    providerAccountId.length > MAX_KEY_LENGTH
  )
    return { unlinked: false, reason: "not-found" };
  return oneAtATime(me.config, me.user.id, () => unlinkChecked(me, provider, providerAccountId, options));
}

/** Per application: the queue of each user's unlinks in progress (an entry lives while one runs). */
const unlinking = slot("unlinks", () => new Map<string, Promise<void>>());

/**
 * Runs the unlinks of one user one after the other within this application (this process, every
 * configuration object of it), so that each counts the methods the one before it left. Instances
 * that share a database can still race; `unlinkChecked` counts again after its write for them.
 */
async function oneAtATime<T>(config: ResolvedConfig, userId: string, work: () => Promise<T>): Promise<T> {
  const queue = held(config.application, unlinking);
  const before = queue.get(userId) ?? Promise.resolve();
  const run = before.then(work);
  const tail = run.then(
    () => {},
    () => {},
  );
  queue.set(userId, tail);
  try {
    return await run;
  } finally {
    if (queue.get(userId) === tail) queue.delete(userId);
  }
}

async function unlinkChecked(
  me: SignedIn<"listAccounts" | "unlinkAccount" | "linkAccount">,
  provider: string,
  providerAccountId: string,
  options: UnlinkOptions,
): Promise<UnlinkResult> {
  const { adapter, user } = me;
  const accounts = await adapter.listAccounts(user.id);
  const account = accounts.find(
    (a) => a.userId === user.id && a.provider === provider && a.providerAccountId === providerAccountId,
  );
  if (!account) return { unlinked: false, reason: "not-found" };
  // Asked once, before any write: a failing or nonsensical answer leaves everything linked.
  const outside = await otherMethodsOf(user, options);
  const others = await signInMethods(me, accounts);
  others.delete(accountKey(account));
  if (others.size + outside === 0) return { unlinked: false, reason: "last-sign-in-method" };

  const removed = await adapter.unlinkAccount({ provider, providerAccountId });
  // Auth.js adapters may answer nothing even when they removed the account: then a re-read tells.
  // Within this process no other unlink of this user runs meanwhile, so a gone account is ours.
  if (!removed && (await adapter.listAccounts(user.id)).some((a) => accountKey(a) === accountKey(account)))
    return { unlinked: false, reason: "not-found" };

  const left = await signInMethods(me, await adapter.listAccounts(user.id));
  if (left.size + outside === 0) {
    // Another instance unlinked the other method meanwhile: put this account back.
    await relink(adapter, account);
    return { unlinked: false, reason: "last-sign-in-method" };
  }
  if (account.type === "webauthn") await forgetPasskey(me, account);
  await me.config.events.unlinkAccount?.({
    user,
    account: { provider, providerAccountId, type: account.type, userId: account.userId },
  });
  return { unlinked: true, account: toLinked(me.config, account) };
}

/**
 * Deletes the authenticator of an unlinked passkey, after its account: without the account the
 * passkey already signs nobody in (authentication needs both), so this order is safe at every
 * step, and deleting the authenticator frees its credential id for a new registration. Failures
 * here are logged, not thrown: the unlink has happened, and the caller must hear that it did. An
 * adapter without `deleteAuthenticator` (Auth.js's) keeps the record, and a warning says so.
 */
async function forgetPasskey(me: SignedIn<never>, account: AdapterAccount): Promise<void> {
  const { adapter, config, user } = me;
  try {
    const ids =
      typeof adapter.listAuthenticatorsByUserId === "function"
        ? (await adapter.listAuthenticatorsByUserId(user.id))
            .filter((a) => a.userId === user.id && a.providerAccountId === account.providerAccountId)
            .map((a) => a.credentialID)
        : [account.providerAccountId];
    if (ids.length === 0) return;
    if (typeof adapter.deleteAuthenticator !== "function") {
      config.logger.warn(
        "passkey-authenticator-kept",
        `The adapter has no deleteAuthenticator: the authenticator of the unlinked passkey ${ids.join(", ")} (user ${user.id}) stays stored; delete it to let that passkey be registered again.`,
      );
      return;
    }
    for (const id of ids) await adapter.deleteAuthenticator(id);
  } catch (e) {
    config.logger.error(
      e instanceof AuthError
        ? e
        : new AuthError(`Deleting the authenticator of an unlinked passkey failed`, { err: errorOf(e) }),
    );
  }
}

/** Links `account` again; an account already back (another instance restored it) is fine. */
async function relink(adapter: AdapterWith<"linkAccount" | "listAccounts">, account: AdapterAccount): Promise<void> {
  try {
    await adapter.linkAccount(account);
  } catch (e) {
    const back = await adapter.listAccounts(account.userId);
    if (!back.some((a) => accountKey(a) === accountKey(account))) throw e;
  }
}
