import { randomUUID } from "node:crypto";
import type { Adapter, AdapterAccount, AdapterUser } from "../../adapters.js";
import { AccountNotLinked, OAuthAccountNotLinked } from "../../errors.js";
import type { Account, Profile, User } from "../../types.js";
import type { Context } from "../context.js";
import { readChunkedCookie } from "../cookies.js";
import type { RequestInternal } from "../request.js";
import { decodeSessionToken } from "../session/jwt-strategy.js";

/** The outcome of matching a signed-in identity with the stored users. */
export interface LoginResult {
  user: AdapterUser | User;
  account: Account | null;
  isNewUser: boolean;
}

/** The user of the session the request already carries, if any (to link a new account to). */
export async function currentUser(
  req: RequestInternal,
  ctx: Context,
  adapter: Required<Adapter>,
): Promise<AdapterUser | null> {
  const cookie = ctx.cookieOptions.sessionToken;
  const raw = readChunkedCookie(req.cookies, cookie.name);
  if (!raw) return null;
  if (ctx.config.session.strategy === "jwt") {
    const token = await decodeSessionToken(ctx.config, raw, cookie.name);
    return token?.sub ? await adapter.getUser(token.sub) : null;
  }
  const found = await adapter.getSessionAndUser(raw);
  return found && found.session.expires.valueOf() > Date.now() ? found.user : null;
}

/** Runs `work` in one transaction where the adapter offers them, so writes land together. */
function atomically<T>(adapter: Adapter, work: (tx: Required<Adapter>) => Promise<T>): Promise<T> {
  return adapter.transaction
    ? adapter.transaction((tx) => work(tx as Required<Adapter>))
    : work(adapter as Required<Adapter>);
}

/**
 * Finds or creates the user behind an OAuth / OIDC / WebAuthn sign-in and links the account.
 * Without an adapter, the provider's user is the user. With one:
 * - an account already linked signs in its user (refused if another user is signed in);
 * - an unlinked account is linked to the signed-in user, or to the user with the same e-mail
 *   when the provider allows it (`allowDangerousEmailAccountLinking`), else `OAuthAccountNotLinked`;
 * - otherwise a new user is created with the account, in one transaction where possible.
 * Emits `createUser` and `linkAccount`.
 */
export async function loginWithAccount(
  req: RequestInternal,
  ctx: Context,
  params: { user: User; account: Account; profile?: Profile; allowEmailLinking?: boolean },
): Promise<LoginResult> {
  const { config } = ctx;
  const { user: providerUser, account } = params;
  if (!config.adapter) return { user: providerUser, account, isNewUser: false };
  const adapter = config.adapter as Required<Adapter>;
  const signedIn = await currentUser(req, ctx, adapter);
  const stored = await adapter.getUserByAccount({
    provider: account.provider,
    providerAccountId: account.providerAccountId,
  });

  if (stored) {
    if (signedIn && signedIn.id !== stored.id) {
      throw new OAuthAccountNotLinked("This account is already linked to another user");
    }
    return { user: stored, account: { ...account, userId: stored.id }, isNewUser: false };
  }

  const link = async (owner: AdapterUser, tx: Required<Adapter> = adapter) => {
    const linked = { ...account, userId: owner.id } as AdapterAccount;
    await tx.linkAccount(linked);
    return linked;
  };

  if (signedIn) {
    const linked = await link(signedIn);
    await config.events.linkAccount?.({ user: signedIn, account: linked, profile: providerUser });
    return { user: signedIn, account: linked, isNewUser: false };
  }

  const email = providerUser.email?.trim() ? providerUser.email : null;
  const owner = email ? await adapter.getUserByEmail(email) : null;
  if (owner) {
    if (!params.allowEmailLinking) {
      if (account.type === "webauthn")
        throw new AccountNotLinked("This e-mail belongs to a user who has not linked this passkey");
      throw new OAuthAccountNotLinked("Another account already uses this e-mail address");
    }
    const linked = await link(owner);
    await config.events.linkAccount?.({ user: owner, account: linked, profile: providerUser });
    return { user: owner, account: linked, isNewUser: false };
  }

  const { created, linked } = await atomically(adapter, async (tx) => {
    const { id: _providerId, ...fields } = providerUser;
    // A provider without e-mail (TikTok, ...) gives null, not "": e-mail is unique in every store.
    const created = await tx.createUser({
      ...fields,
      id: randomUUID(),
      email,
      emailVerified: null,
    } as unknown as AdapterUser);
    const linked = await link(created, tx);
    return { created, linked };
  });
  await config.events.createUser?.({ user: created });
  await config.events.linkAccount?.({ user: created, account: linked, profile: providerUser });
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
  const adapter = config.adapter as Required<Adapter>;
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
  adapter: Required<Adapter>,
  returned: User,
  account: Account,
): Promise<{ user: AdapterUser; account: AdapterAccount; isNewUser: boolean }> {
  const id = account.providerAccountId;
  const existing = await adapter.getUser(id);
  if (existing) {
    const linked = { ...account, userId: existing.id } as AdapterAccount;
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
  const verified = (returned as Partial<AdapterUser>).emailVerified;
  return atomically(adapter, async (tx) => {
    // Only the user columns: whatever else authorize() returned (a password hash, a role) is the
    // application's and is not copied into the store.
    const user = await tx.createUser({
      id,
      name: returned.name ?? null,
      email,
      image: returned.image ?? null,
      emailVerified: verified instanceof Date && !Number.isNaN(verified.valueOf()) ? verified : null,
    } as AdapterUser);
    const linked = { ...account, userId: user.id } as AdapterAccount;
    await tx.linkAccount(linked);
    return { user, account: linked, isNewUser: true };
  });
}

/**
 * Finds or creates the user of a verified e-mail address (magic link). An existing user gets
 * `emailVerified` set (`updateUser` event); a new one is created with it (`createUser` event).
 */
export async function loginWithEmail(
  ctx: Context,
  providerId: string,
  email: string,
): Promise<LoginResult & { user: AdapterUser }> {
  const { config } = ctx;
  const adapter = config.adapter as Required<Adapter>;
  const account: Account = { provider: providerId, providerAccountId: email, type: "email" };
  const existing = await adapter.getUserByEmail(email);
  if (existing) {
    const user = existing.emailVerified
      ? existing
      : await adapter.updateUser({ id: existing.id, emailVerified: new Date() });
    if (!existing.emailVerified) await config.events.updateUser?.({ user });
    return { user, account, isNewUser: false };
  }
  const user = await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() } as AdapterUser);
  await config.events.createUser?.({ user });
  return { user, account, isNewUser: true };
}
