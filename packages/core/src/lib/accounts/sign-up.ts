// Sign-up and the verification of an address (the link, the code, the browser that signed up).
import { randomUUID } from "#platform";
import type { AdapterUser } from "../../shapes/adapters.js";
import type { AuthConfig } from "../config/options.js";
import { hashPassword } from "../password/hash.js";
import { matchesStored, postedPassword } from "./change.js";
import { accountMails } from "./mail.js";
import type { AccountsRequest, PasswordAccountsOptions, SignUpResult, VerifyEmailResult } from "./password-accounts.js";
import { accountKey, consume, randomCode, randomToken, sendIdOf, verifyRecords } from "./records.js";
import {
  absolute,
  checkNewPassword,
  clearVerifyCookie,
  limited,
  mail,
  mailAllowed,
  normalized,
  type Resolved,
  readVerifyCookie,
  resolveAccounts,
  resultCookies,
  verifyCookie,
} from "./shared.js";

// ------------------------------------------------------------------ sign-up

/**
 * Creates a password user with an unproven address and mails a verification link and code; or,
 * when the address already has an account, mails its owner that someone tried (with sign-in and
 * reset links) and creates nothing. Both answer `{ ok: true, setCookie }`, after the same work: the
 * password is hashed, records are written, a cookie is sealed and an e-mail is sent either way.
 * The cookie lets this browser type the mailed code. Refusals come before any of that and depend
 * on the input alone: `invalid-email`, `weak-password` (with `reasons`), `breached-password`,
 * `rate-limited` (e-mails per address and per client).
 *
 * @example
 * ```ts
 * const result = await signUp(request, config, accounts, { email: form.email, password: form.password, clientAddress: ip })
 * if (result.ok) for (const c of result.setCookie) headers.append("set-cookie", c)
 * ```
 */
export async function signUp(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: { email: unknown; password: unknown; name?: unknown; clientAddress?: string },
): Promise<SignUpResult> {
  const r = resolveAccounts(request, config, options, "signUp");
  const email = normalized(input.email);
  if (!email) return { ok: false, error: "invalid-email" };
  const name = typeof input.name === "string" && input.name.trim() !== "" ? input.name.trim().slice(0, 200) : null;
  const accepted = await checkNewPassword(options, input.password, [email, name]);
  if (!accepted.ok) return accepted;
  const overLimit = await limited(r, "sign-up", email, input.clientAddress);
  if (overLimit) return overLimit;
  // Nothing created for an e-mail that cannot go: the same answer whether the address is free or taken.
  if (!mailAllowed(r, "A sign-up e-mail")) return { ok: true, ...resultCookies([]) };

  // The same work on both paths: the hash, the records, the cookie and one e-mail.
  const hash = await hashPassword(accepted.password, options.hash);
  const owner = await r.adapter.getUserByEmail(email);
  let user: AdapterUser | null = null;
  if (!owner) {
    try {
      user = await r.adapter.createUser({ id: randomUUID(), email, name, emailVerified: null });
    } catch (e) {
      // Two sign-ups of one new address at once: the store's unique address lets one through.
      if (!(await r.adapter.getUserByEmail(email))) throw e;
    }
  }
  // A string whatever the adapter returns (an Auth.js adapter over a SERIAL column gives numbers).
  const userId = user ? String(user.id) : randomUUID();
  const verification = await issueVerification(r, options, email, userId);
  if (user) {
    await options.passwords.setPasswordHash(userId, hash);
    await r.config.events.createUser?.({ user });
    await mail(r, verification.mail);
  } else {
    const links = { signIn: absolute(r, options.urls.signIn), reset: absolute(r, options.urls.reset) };
    await mail(r, accountMails.taken(email, new URL(r.origin).host, r.config.theme, links));
  }
  return { ok: true, ...resultCookies([verification.cookie]) };
}

/** Writes the records of one verification e-mail and returns the e-mail and the browser's cookie. */
async function issueVerification(r: Resolved, options: PasswordAccountsOptions, email: string, userId: string) {
  const maxAge = options.verifyMaxAge ?? 86_400;
  const attempts = options.codeAttempts ?? 5;
  const key = accountKey(r.config.secrets[0]);
  const token = randomToken();
  const code = randomCode(6);
  const sendId = sendIdOf(key, email, userId, token);
  const expires = new Date(Date.now() + maxAge * 1000);
  const values = [
    verifyRecords.link(key, email, userId, token),
    verifyRecords.code(key, email, userId, sendId, code),
    verifyRecords.alive(key, email, userId, sendId),
    ...Array.from({ length: attempts }, (_, i) => verifyRecords.attempt(key, email, userId, sendId, i)),
  ];
  for (const value of values) await r.adapter.createVerificationToken({ identifier: email, token: value, expires });
  const url = absolute(r, options.urls.verify, { token, email, user: userId });
  return {
    mail: accountMails.verify(email, new URL(r.origin).host, r.config.theme, { url, code, maxAge }),
    cookie: await verifyCookie(r, { email, userId, sendId }, maxAge),
  };
}

// ------------------------------------------------------------------ verification

/**
 * Proves the address of a signed-up user, once: with `code` (typed in the browser that signed up:
 * the address comes from its cookie, never from the form), or with the link's `token`, `email` and
 * `user`. A link opened in another browser also needs the account's `password`
 * (`password-required` asks for it): whoever proves the address must be whoever chose the
 * password, so a stranger's sign-up never becomes the owner's verified account. Each submission
 * counts against the client's limit, a password given with a live link against the address's too
 * (made-up links naming an address never block its owner); a code gets `codeAttempts` tries.
 * Every refusal is `invalid` (the reason is logged).
 *
 * @example
 * ```ts
 * const result = await verifyEmail(request, config, accounts, { code: form.code, clientAddress: ip })
 * ```
 */
export async function verifyEmail(
  request: AccountsRequest,
  config: AuthConfig,
  options: PasswordAccountsOptions,
  input: {
    code?: unknown;
    token?: unknown;
    email?: unknown;
    user?: unknown;
    password?: unknown;
    clientAddress?: string;
  },
): Promise<VerifyEmailResult> {
  const r = resolveAccounts(request, config, options, "verifyEmail");
  const attempts = options.codeAttempts ?? 5;
  const bound = await readVerifyCookie(r);
  const refuse = (reason: string): VerifyEmailResult => {
    r.config.logger.debug("accounts: address verification refused", { reason });
    return { ok: false, error: "invalid", ...resultCookies([]) };
  };
  const byLink = input.token !== undefined && input.token !== "";
  let found: string | null;
  let userId: string;
  // The link's token, or the e-mail's id the cookie names (for a code).
  let proof: { token: string } | { sendId: string };
  if (byLink) {
    found = normalized(input.email);
    if (!found || typeof input.token !== "string" || !/^[0-9a-f]{64}$/.test(input.token))
      return refuse("malformed link");
    if (typeof input.user !== "string" || input.user === "" || input.user.length > 255) return refuse("malformed link");
    userId = input.user;
    proof = { token: input.token };
  } else {
    if (!bound) return refuse("no verification cookie (another browser, expired or forged)");
    ({ email: found, userId } = bound);
    proof = { sendId: bound.sendId };
  }
  const email = found;
  // Counted per client here: a counter per address would let anyone's made-up links (or codes of
  // his own sign-up with the address) block its owner's verification. Guesses are bounded by the
  // records (a code has `codeAttempts` tries); the password of a live link counts per address below.
  const overLimit = await limited(r, "submit", null, input.clientAddress);
  if (overLimit) return { ...overLimit, ...resultCookies([]) };

  if ("token" in proof) {
    const { token } = proof;
    const sameBrowser =
      bound !== null &&
      bound.email === email &&
      bound.userId === userId &&
      r.config.secrets.some((s) => sendIdOf(accountKey(s), email, userId, token) === bound.sendId);
    // The link record first: without a live token no password is ever checked here (this form is
    // no password oracle). A link opened in another browser needs the account's password; when it
    // is missing or wrong the record is put back, so a typo does not spend the e-mail.
    const link = await consume(r.adapter, r.config.secrets, email, (k) => verifyRecords.link(k, email, userId, token));
    if (!link || link.expired) return refuse("unknown, used or expired link");
    if (!sameBrowser) {
      const posted = postedPassword(input.password);
      const given = posted !== undefined;
      // Passwords tried on a live link count per address too (only a holder of the link gets here).
      const overAddress = given ? await limited(r, "submit", email, undefined) : null;
      if (overAddress) {
        await r.adapter.createVerificationToken(link.record);
        return { ...overAddress, ...resultCookies([]) };
      }
      const ok = posted !== undefined && (await matchesStored(posted, await options.passwords.getPasswordHash(userId)));
      if (!ok) {
        await r.adapter.createVerificationToken(link.record);
        if (!given) return { ok: false, error: "password-required", ...resultCookies([]) };
        return refuse("the password given with a link opened in another browser is wrong");
      }
    }
    const id = sendIdOf(link.key, email, userId, token);
    // The link needs the last attempt record (gone once the code was guessed wrong too often) and
    // the alive record (gone once the code verified).
    if (
      !(await r.adapter.useVerificationToken({
        identifier: email,
        token: verifyRecords.attempt(link.key, email, userId, id, attempts - 1),
      }))
    )
      return refuse("the code of this e-mail was guessed wrong too many times");
    if (
      !(await r.adapter.useVerificationToken({
        identifier: email,
        token: verifyRecords.alive(link.key, email, userId, id),
      }))
    )
      return refuse("this e-mail already verified the address");
  } else {
    const code = typeof input.code === "string" ? input.code.replace(/[\s-]/g, "") : "";
    const id = proof.sendId;
    let key: Uint8Array | undefined;
    for (let i = 0; i < attempts && !key; i++) {
      const spent = await consume(r.adapter, r.config.secrets, email, (k) =>
        verifyRecords.attempt(k, email, userId, id, i),
      );
      if (spent) {
        if (spent.expired) return refuse("the code has expired");
        key = spent.key;
      }
    }
    if (!key) return refuse("no attempt left");
    if (!/^[0-9]{6}$/.test(code)) return refuse("not a 6-digit code");
    const stored = await r.adapter.useVerificationToken({
      identifier: email,
      token: verifyRecords.code(key, email, userId, id, code),
    });
    if (!stored || new Date(stored.expires).valueOf() <= Date.now()) return refuse("wrong, used or expired code");
    if (
      !(await r.adapter.useVerificationToken({ identifier: email, token: verifyRecords.alive(key, email, userId, id) }))
    )
      return refuse("the link of this e-mail already verified the address");
  }
  const user = await r.adapter.getUser(userId);
  // The address may have moved since the e-mail (released to someone who proved it first).
  if (!user || user.email !== email) return refuse("the address no longer belongs to this user");
  if (!user.emailVerified) {
    const updated = await r.adapter.updateUser({ id: user.id, emailVerified: new Date() });
    await r.config.events.updateUser?.({ user: updated });
  }
  return { ok: true, userId: String(user.id), ...resultCookies([clearVerifyCookie(r)]) };
}
