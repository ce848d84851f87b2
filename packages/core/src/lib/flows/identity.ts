import { randomUUID } from "#platform";
import type { AccountTokenChanges, Adapter, AdapterAccount, AdapterUser } from "../../shapes/adapters.js";
import type { Account, Awaitable, Profile, TokenSet, User } from "../../shapes/data.js";
import { type AdapterMethod, type AdapterWith, adapterFor, withMethods } from "../base/adapter-for.js";
import { AccountNotLinked, OAuthAccountNotLinked } from "../base/errors.js";
import type { RequestInternal } from "../http/request.js";
import type { Context } from "../serve/context.js";
import { accountTokenFields } from "../stores/records.js";

/** The outcome of matching a signed-in identity with the stored users. */
export interface LoginResult {
  user: AdapterUser | User;
  account: Account | null;
  isNewUser: boolean;
}

/**
 * Runs `work` in one transaction where the adapter offers them, so writes land together; the
 * transaction's adapter is checked to have the `methods` the work calls.
 */
function atomically<M extends AdapterMethod, T>(
  adapter: AdapterWith<M>,
  methods: readonly M[],
  work: (tx: AdapterWith<M>) => Promise<T>,
): Promise<T> {
  return adapter.transaction ? adapter.transaction((tx) => work(withMethods(tx, methods))) : work(adapter);
}

/**
 * The e-mail of a user without one. Auth.js's `AdapterUser` types `email` as a string, yet
 * stores null for a user without an address (e-mail is unique: "" could be held once only).
 */
const NO_EMAIL = null as unknown as string;

/** What creating a user or linking an account asks of the adapter. */
const WRITES = ["createUser", "linkAccount"] as const;
type Writes = (typeof WRITES)[number];

/** The stored form of `account`, linked to `userId`. */
function linkedTo(account: Account, userId: string): AdapterAccount {
  const { type } = account;
  if (type === "totp") throw new TypeError("A second factor is not an account to link");
  return { ...account, userId, type };
}

/**
 * Whether a sign-in proved control of the address it names (ARCHITECTURE principle 9). For OAuth
 * and OIDC: the provider's `isEmailVerified` (a boolean or a function of the profile) when it has
 * one, else the profile's own `email_verified` claim (`true` or `"true"`) for the very address the
 * user was given. Anything else is no proof.
 *
 * @example
 * ```ts
 * await oauthEmailProven(Google(), { email: "ada@example.com", email_verified: true }, tokens, "ada@example.com") // true
 * await oauthEmailProven(MicrosoftEntraID(), { preferred_username: "ada@example.com" }, tokens, "ada@example.com") // false
 * ```
 */
export async function oauthEmailProven(
  provider: { isEmailVerified?: boolean | ((profile: Profile, tokens: TokenSet) => Awaitable<boolean>) },
  profile: Profile,
  tokens: TokenSet,
  email: string | null | undefined,
): Promise<boolean> {
  if (typeof email !== "string" || email.trim() === "") return false;
  const rule = provider.isEmailVerified;
  if (typeof rule === "boolean") return rule;
  if (typeof rule === "function") return (await rule(profile, tokens)) === true;
  const claimed = typeof profile.email === "string" ? profile.email.toLowerCase() : undefined;
  // The claim speaks of `profile.email` only: a profile() that picked another field proved nothing.
  const verified: unknown = profile.email_verified;
  return claimed === email.toLowerCase() && (verified === true || verified === "true");
}

/**
 * Gives the address to the one who just proved it: a fresh user with `emailVerified` set, and the
 * address taken off `unproven` (a user who never proved it), whose credentials, accounts and
 * sessions stay with that old record and so never open the prover's. Returns null when another
 * request already did it (the caller then reads the address's user again).
 */
export async function releaseToProver(
  ctx: Pick<Context, "config">,
  adapter: AdapterWith<"updateUser" | "createUser" | "getUserByEmail">,
  unproven: AdapterUser,
  fields: Partial<AdapterUser> & { email: string },
  provider: string,
  account?: Account,
): Promise<{ user: AdapterUser; linked?: AdapterAccount } | null> {
  let outcome: { released: AdapterUser; user: AdapterUser; linked?: AdapterAccount };
  try {
    outcome = await atomically(adapter, ["updateUser", "createUser"], async (tx) => {
      // The store's unique e-mail makes a concurrent second proof fail at createUser, not merge.
      // (Auth.js types `email` as a string; the address is taken off with null all the same.)
      const released = await tx.updateUser({ id: unproven.id, email: NO_EMAIL });
      const user = await tx.createUser({ ...fields, id: randomUUID(), emailVerified: new Date() });
      let linked: AdapterAccount | undefined;
      if (account) {
        linked = linkedTo(account, user.id);
        await withMethods(tx, ["linkAccount"]).linkAccount(linked);
      }
      return { released, user, linked };
    });
  } catch (e) {
    const now = await adapter.getUserByEmail(fields.email);
    if (now?.emailVerified && now.id !== unproven.id) return null;
    throw e;
  }
  ctx.config.logger.warn("unverified-email-released");
  ctx.config.logger.debug("login: unverified e-mail released", {
    previousUser: unproven.id,
    user: outcome.user.id,
    provider,
  });
  await ctx.config.events.unverifiedEmailReleased?.({
    email: fields.email,
    provider,
    previousUser: outcome.released,
    user: outcome.user,
  });
  await ctx.config.events.createUser?.({ user: outcome.user });
  return { user: outcome.user, linked: outcome.linked };
}

/**
 * A sign-in with an account already linked brings fresh tokens (after a revoked refresh token,
 * the only way to get new ones): they replace the stored ones when the adapter can update an
 * account. A field the provider did not send this time (Google sends a refresh token only on
 * consent) keeps its stored value.
 */
async function storeNewTokens(adapter: Adapter, account: Account): Promise<void> {
  if (typeof adapter.updateAccount !== "function" || typeof account.access_token !== "string") return;
  const changes: AccountTokenChanges = {};
  for (const field of accountTokenFields) {
    const value = account[field];
    if (value !== undefined && value !== null) Object.assign(changes, { [field]: value });
  }
  await adapter.updateAccount({ provider: account.provider, providerAccountId: account.providerAccountId, ...changes });
}

/**
 * Finds or creates the user behind an OAuth / OIDC / WebAuthn sign-in and links the account.
 * Without an adapter, the provider's user is the user. With one:
 * - an account already linked signs in its user (refused in a connect flow for another user);
 *   when the sign-in proves that user's address, `emailVerified` is set;
 * - an unlinked account is linked to `connectTo`, the user of a connect flow (flows/connect.ts),
 *   never to whatever session the browser holds;
 * - else, when a user already has the e-mail: with a proven address and a verified owner, it is
 *   linked when the provider allows it (`allowDangerousEmailAccountLinking`); with a proven address
 *   and an owner who never proved it, the prover gets a fresh user and the address is taken off the
 *   old one (`unverifiedEmailReleased`); with neither the sign-in nor the owner having proved it,
 *   the sign-in (OAuth, OIDC or a passkey sign-up) gets a fresh user without the address (an
 *   unproven record blocks nobody); otherwise `OAuthAccountNotLinked` / `AccountNotLinked`;
 * - otherwise a new user is created with the account, in one transaction where possible, with
 *   `emailVerified` set only when this sign-in proved the address.
 * Emits `createUser`, `updateUser`, `linkAccount` and `unverifiedEmailReleased`.
 */
export async function loginWithAccount(
  req: RequestInternal,
  ctx: Context,
  params: {
    user: User;
    account: Account;
    profile?: Profile;
    allowEmailLinking?: boolean;
    emailProven: boolean;
    /** The user a connect flow verified (`connectTarget`); null or absent for a sign-in. */
    connectTo?: AdapterUser | null;
    /**
     * The caller's lookup of the account's user (`getUserByAccount`, null when none is linked),
     * so the store is not asked twice; absent to look it up here.
     */
    known?: AdapterUser | null;
  },
): Promise<LoginResult> {
  const { config } = ctx;
  const { user: providerUser, account, emailProven } = params;
  if (!config.adapter) return { user: providerUser, account, isNewUser: false };
  const adapter = adapterFor(config, "getUserByAccount", "getUserByEmail", ...WRITES);
  const signedIn = params.connectTo ?? null;
  const email = providerUser.email?.trim() ? providerUser.email : null;
  const stored =
    params.known !== undefined
      ? params.known
      : await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId });

  if (stored) {
    if (signedIn && signedIn.id !== stored.id) {
      throw new OAuthAccountNotLinked("This account is already linked to another user");
    }
    let user = stored;
    await storeNewTokens(adapter, account);
    // This account made (or was linked to) the record; now it proves the record's own address.
    if (emailProven && !stored.emailVerified && email && stored.email === email) {
      user = await withMethods(adapter, ["updateUser"]).updateUser({ id: stored.id, emailVerified: new Date() });
      await config.events.updateUser?.({ user });
    }
    return { user, account: { ...account, userId: stored.id }, isNewUser: false };
  }

  const link = async (owner: AdapterUser) => {
    const linked = linkedTo(account, owner.id);
    await adapter.linkAccount(linked);
    return linked;
  };

  if (signedIn) {
    const linked = await link(signedIn);
    await config.events.linkAccount?.({ user: signedIn, account: linked, profile: providerUser });
    return { user: signedIn, account: linked, isNewUser: false };
  }

  const { id: _providerId, ...fields } = providerUser;
  const owner = email ? await adapter.getUserByEmail(email) : null;
  // Neither this sign-in nor the record holding the address proved it: the record decides nothing
  // (a stranger's passkey sign-up must not lock the owner out, nor an unverified provider's
  // sign-in her passkey sign-up). This sign-in gets a fresh user without the address, which stays
  // where it is until someone proves it (`releaseToProver`).
  if (owner && email && !emailProven && !owner.emailVerified) {
    return createWithAccount(ctx, adapter, { ...fields, email: null }, account, providerUser, false);
  }
  if (owner && email) {
    if (emailProven && !owner.emailVerified) {
      const released = await releaseToProver(
        ctx,
        withMethods(adapter, ["updateUser"]),
        owner,
        { ...fields, email },
        account.provider,
        account,
      );
      if (released?.linked) {
        await config.events.linkAccount?.({ user: released.user, account: released.linked, profile: providerUser });
        return { user: released.user, account: released.linked, isNewUser: true };
      }
      // Another request proved the address first: decide again (looking everything up afresh).
      return loginWithAccount(req, ctx, { ...params, known: undefined });
    }
    if (!params.allowEmailLinking || !emailProven || !owner.emailVerified) {
      if (account.type === "webauthn")
        throw new AccountNotLinked("This e-mail belongs to a user who has not linked this passkey");
      throw new OAuthAccountNotLinked(
        emailProven
          ? "Another account already uses this e-mail address"
          : "Another account already uses this e-mail address, and this provider did not prove it belongs to whoever signs in",
      );
    }
    const linked = await link(owner);
    await config.events.linkAccount?.({ user: owner, account: linked, profile: providerUser });
    return { user: owner, account: linked, isNewUser: false };
  }

  return createWithAccount(ctx, adapter, { ...fields, email }, account, providerUser, emailProven);
}

/**
 * A new user with `account` linked, in one transaction where possible; `emailVerified` is set only
 * when this sign-in proved the address. Emits `createUser` and `linkAccount`.
 */
async function createWithAccount(
  ctx: Context,
  adapter: AdapterWith<Writes>,
  fields: Omit<User, "id"> & { email: string | null },
  account: Account,
  profile: User,
  emailProven: boolean,
): Promise<LoginResult> {
  const { created, linked } = await atomically(adapter, WRITES, async (tx) => {
    // A provider without e-mail (TikTok, ...) gives null, not "": e-mail is unique in every store.
    const created = await tx.createUser({
      ...fields,
      email: fields.email ?? NO_EMAIL,
      id: randomUUID(),
      emailVerified: emailProven && fields.email ? new Date() : null,
    });
    const linked = linkedTo(account, created.id);
    await tx.linkAccount(linked);
    return { created, linked };
  });
  await ctx.config.events.createUser?.({ user: created });
  await ctx.config.events.linkAccount?.({ user: created, account: linked, profile });
  return { user: created, account: linked, isNewUser: true };
}

/**
 * Finds or creates the user of a credentials sign-in under database sessions (the provider's
 * `databaseSessions` opt-in). `authorize()` names the user: `account.providerAccountId` is the
 * id it returned. In order: the user of the stored `credentials` account; the stored user with
 * that id (the account is linked to it); a new user with that id and the account. Never by
 * e-mail: a new user whose e-mail another user has is refused as `AccountNotLinked`. The user
 * signed in on this browser plays no part (a credentials sign-in switches users, it does not
 * link). Emits `createUser` and `linkAccount`.
 */
export async function loginWithCredentials(
  ctx: Context,
  params: { user: User; account: Account },
): Promise<LoginResult & { user: AdapterUser }> {
  const { config } = ctx;
  const adapter = adapterFor(config, "getUserByAccount", "getUser", "getUserByEmail", ...WRITES);
  const { user: returned, account } = params;
  const key = { provider: account.provider, providerAccountId: account.providerAccountId };
  // The first sign-ins of one user may arrive together: all see no account, one creates the user
  // and the account, the others' writes fail on the unique keys (user id; provider and account
  // id) and the next round finds what the winner stored. A round ends in a return, a refusal, or
  // a write that lost to another request, so a few rounds are enough.
  for (let round = 1; ; round++) {
    const stored = await adapter.getUserByAccount(key);
    if (stored) return { user: stored, account: { ...account, userId: stored.id }, isNewUser: false };
    let outcome: { user: AdapterUser; account: AdapterAccount; isNewUser: boolean };
    try {
      outcome = await storeCredentialsUser(adapter, returned, account);
    } catch (error) {
      if (error instanceof AccountNotLinked || round >= 4) throw error;
      continue;
    }
    // Events after the writes, outside the retry: a failing event is the application's error.
    if (outcome.isNewUser) await config.events.createUser?.({ user: outcome.user });
    await config.events.linkAccount?.({ user: outcome.user, account: outcome.account, profile: returned });
    return outcome;
  }
}

/** One attempt of `loginWithCredentials` to link the account to the stored user, or create both. */
async function storeCredentialsUser(
  adapter: AdapterWith<"getUser" | "getUserByEmail" | Writes>,
  returned: User,
  account: Account,
): Promise<{ user: AdapterUser; account: AdapterAccount; isNewUser: boolean }> {
  const id = account.providerAccountId;
  const existing = await adapter.getUser(id);
  if (existing) {
    const linked = linkedTo(account, existing.id);
    await adapter.linkAccount(linked);
    return { user: existing, account: linked, isNewUser: false };
  }
  const email = typeof returned.email === "string" && returned.email.trim() !== "" ? returned.email : null;
  const owner = email ? await adapter.getUserByEmail(email) : null;
  if (owner && owner.id !== id) {
    throw new AccountNotLinked(
      `authorize() of "${account.provider}" returned a new user id whose e-mail belongs to another user; return that user's id to sign them in (users are never matched by e-mail)`,
    );
  }
  const verified: unknown = "emailVerified" in returned ? returned.emailVerified : undefined;
  return atomically(adapter, WRITES, async (tx) => {
    // Only the user columns: whatever else authorize() returned (a password hash, a role) is the
    // application's and is not copied into the store.
    const user = await tx.createUser({
      id,
      name: returned.name ?? null,
      email: email ?? NO_EMAIL,
      image: returned.image ?? null,
      emailVerified: verified instanceof Date && !Number.isNaN(verified.valueOf()) ? verified : null,
    });
    const linked = linkedTo(account, user.id);
    await tx.linkAccount(linked);
    return { user, account: linked, isNewUser: true };
  });
}

/**
 * Finds or creates the user of an e-mail address whose control was just proved (magic link). A
 * verified user signs in as is; a new address gets a new user with `emailVerified` set. A user
 * holding the address without ever having proved it (a passkey sign-up, an unverified OAuth
 * profile) does not become the prover's: the prover gets a fresh user and the address is taken off
 * the old record (`unverifiedEmailReleased`), so nothing attached before the proof opens it.
 */
export async function loginWithEmail(
  ctx: Context,
  providerId: string,
  email: string,
): Promise<LoginResult & { user: AdapterUser }> {
  const { config } = ctx;
  const account: Account = { provider: providerId, providerAccountId: email, type: "email" };
  const existing = await adapterFor(config, "getUserByEmail").getUserByEmail(email);
  if (existing?.emailVerified) return { user: existing, account, isNewUser: false };
  // An adapter made for Auth.js's minimal e-mail requirements resolves; a sign-in that must create
  // or update a user then names the missing method (MissingAdapterMethods), never a TypeError.
  if (existing) {
    const adapter = adapterFor(config, "getUserByEmail", "updateUser", "createUser");
    const released = await releaseToProver(ctx, adapter, existing, { email }, providerId);
    if (released) return { user: released.user, account, isNewUser: true };
    return loginWithEmail(ctx, providerId, email);
  }
  const adapter = adapterFor(config, "getUserByEmail", "createUser");
  let user: AdapterUser;
  try {
    user = await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
  } catch (e) {
    // Two links for a new address used at once: the second finds the first one's user.
    const now = await adapter.getUserByEmail(email);
    if (now?.emailVerified) return { user: now, account, isNewUser: false };
    throw e;
  }
  await config.events.createUser?.({ user });
  return { user, account, isNewUser: true };
}
