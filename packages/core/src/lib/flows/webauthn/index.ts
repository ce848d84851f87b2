import { fromBase64 as decodeBase64, toBase64 as encodeBase64, hash, randomBytes, toBase64url, toHex } from "#platform";
import type { RelyingParty, WebAuthnAction, WebAuthnUserInfo } from "../../../providers/webauthn.js";
import type { AdapterAuthenticator, AdapterUser } from "../../../shapes/adapters.js";
import type { Account, ResponseInternal, User } from "../../../shapes/data.js";
import { adapterFor, hasMethods } from "../../base/adapter-for.js";
import {
  AccountNotLinked,
  AuthError,
  InvalidCheck,
  InvalidConfiguration,
  WebAuthnVerificationError,
} from "../../base/errors.js";
import { fieldOf, textOf } from "../../base/merge.js";
import { defaultRelyingPartyMark } from "../../base/symbols.js";
import { openToken, sealToken } from "../../crypto/jwe.js";
import { expiredCookie } from "../../http/cookies.js";
import type { RequestInternal } from "../../http/request.js";
import { noStore } from "../../http/response.js";
import type { Context } from "../../serve/context.js";
import { bindFlow, sameBrowser } from "../binding.js";
import { connectTarget, sessionOnRequest } from "../connect.js";
import { askSignIn, landing, startSession } from "../finish-sign-in.js";
import { loginWithAccount } from "../identity.js";
import type { WebAuthnProviderInternal } from "./config.js";
import { type Json, type Lib, loadSimpleWebAuthn } from "./library.js";
import { webauthnScript } from "./script.js";

/**
 * A copy the library may write to: @simplewebauthn/server fills defaults into the objects it is
 * given, and the configuration they come from is frozen.
 */
function writableCopy<T>(value: T): T | undefined {
  if (value === undefined) return undefined;
  try {
    return structuredClone(value);
  } catch {
    return { ...value };
  }
}

/**
 * The relying party of a request. The provider's `getRelayingParty(options, request)` decides when
 * it has one (multi-domain applications, as in Auth.js); otherwise configured values, then the
 * request's URL: the first configured value creates options, every configured value verifies.
 */
export function relyingParty(
  provider: WebAuthnProviderInternal,
  ctx: Context,
  req: RequestInternal,
): RelyingParty & { ids: string[]; origins: string[] } {
  // The default one (every WebAuthn() and Passkey() has it) answers one id and origin; the
  // configured lists below also verify every other configured value.
  // (Told by its mark, not by identity: this module does not import the providers' module, whose
  // factories import @simplewebauthn/server, so a bundle without a WebAuthn provider has none.)
  const application = provider.getRelayingParty;
  if (typeof application === "function" && fieldOf(application, defaultRelyingPartyMark) !== true) {
    // The application's function, given the provider as it was configured (Auth.js's spelling
    // `relayingParty` too, as Auth.js's own getRelayingParty reads it); its answer is checked,
    // whatever its type says.
    const { configuredRelyingParty: configured, relyingParty: _lists, ...fields } = provider;
    const chosen: unknown = application(
      { provider: { ...fields, relyingParty: configured, relayingParty: configured }, url: new URL(ctx.authUrl) },
      {
        method: req.method,
        url: req.url,
        query: req.query,
        body: req.body,
        headers: req.headers,
        action: req.action,
        providerId: req.providerId,
        cookies: req.cookies,
      },
    );
    const [id, name, origin] = [fieldOf(chosen, "id"), fieldOf(chosen, "name"), fieldOf(chosen, "origin")];
    if (typeof id !== "string" || !id || typeof name !== "string" || typeof origin !== "string" || !origin) {
      throw new InvalidConfiguration(
        `Provider "${provider.id}": \`getRelayingParty\` must return { id, name, origin } as non-empty strings.`,
      );
    }
    return { id, name, origin, ids: [id], origins: [origin] };
  }
  const url = new URL(ctx.origin);
  const ids = provider.relyingParty.id.length ? provider.relyingParty.id : [url.hostname];
  const origins = provider.relyingParty.origin.length ? provider.relyingParty.origin : [url.origin];
  return {
    id: ids[0] ?? url.hostname,
    name: provider.relyingParty.name[0] ?? url.host,
    origin: origins[0] ?? url.origin,
    ids,
    origins,
  };
}

// ---------------------------------------------------------------------------------------------
// Encodings: authenticators store the credential id and public key as standard base64 (as
// Auth.js does); the browser and @simplewebauthn/server speak base64url.

const toBase64 = encodeBase64;
/** Reads base64 or base64url (both alphabets, with or without padding). */
const fromBase64 = decodeBase64;
const toBase64Url = (base64: string) => toBase64url(decodeBase64(base64));
const TRANSPORTS = new Set(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);
const parseTransports = (value: string | null | undefined) =>
  value ? value.split(",").filter((t) => TRANSPORTS.has(t)) : undefined;

// ---------------------------------------------------------------------------------------------
// The challenge cookie

interface Challenge {
  provider: string;
  action: WebAuthnAction;
  challenge: string;
  /** The user a registration is for (decided when the options were made). */
  user?: RegisteringUser;
  /** Digest of the binding of the browser that asked for the options (lib/flows/binding.ts). */
  bind: string;
  /** A passkey added to a signed-in user: the key of the session the options were made under. */
  connect?: string;
}

// Each challenge is also recorded, hashed, as a verification token and consumed atomically by the
// callback: the cookie alone would let a captured request be replayed within its lifetime, which
// the signature counter does not stop for passkeys that always report 0.
function challengeRecord(provider: string, challenge: string) {
  return { identifier: `webauthn-challenge:${provider}`, token: toHex(hash("sha256", challenge)) };
}

async function challengeCookie(ctx: Context, claims: Challenge) {
  const { name, options } = ctx.cookieOptions.webauthnChallenge;
  const maxAge = options.maxAge ?? 15 * 60;
  const adapter = adapterFor(ctx.config, "createVerificationToken");
  await adapter.createVerificationToken({
    ...challengeRecord(claims.provider, claims.challenge),
    expires: new Date(Date.now() + maxAge * 1000),
  });
  return {
    name,
    value: await sealToken({ ...claims }, ctx.config.secrets, name, maxAge),
    options: { ...options, maxAge },
  };
}

/**
 * Reads the challenge cookie and queues its deletion (kept on error responses, so a challenge is
 * used at most once from this browser). It must be for this provider and this action.
 */
async function consumeChallenge(
  req: RequestInternal,
  ctx: Context,
  provider: WebAuthnProviderInternal,
  action: WebAuthnAction,
): Promise<Challenge> {
  const { name, options } = ctx.cookieOptions.webauthnChallenge;
  const raw = req.cookies[name];
  if (raw === undefined)
    throw new InvalidCheck("The WebAuthn challenge cookie is missing (or was sent twice); request new options");
  ctx.cookies.push(expiredCookie(name, options));
  const claims = await openToken(raw, ctx.config.secrets, name);
  if (!claims || typeof claims.challenge !== "string")
    throw new InvalidCheck("The WebAuthn challenge cookie is invalid or expired");
  if (claims.provider !== provider.id)
    throw new InvalidCheck(`The WebAuthn challenge was made for another provider (${String(claims.provider)})`);
  if (claims.action !== action)
    throw new InvalidCheck(`The WebAuthn challenge was made to ${String(claims.action)}, not to ${action}`);
  const { bind } = claims;
  if (!sameBrowser(req, ctx, bind) || typeof bind !== "string")
    throw new InvalidCheck("The WebAuthn challenge was made for another browser; request new options");
  const adapter = adapterFor(ctx.config, "useVerificationToken");
  const record = await adapter.useVerificationToken(challengeRecord(provider.id, claims.challenge));
  if (!record || record.expires.valueOf() < Date.now()) {
    throw new WebAuthnVerificationError("The WebAuthn challenge was already used or has expired");
  }
  const user = registeringUserOf(claims.user);
  const connect = textOf(claims.connect);
  return {
    provider: provider.id,
    action,
    challenge: claims.challenge,
    bind,
    ...(user ? { user } : {}),
    ...(connect !== undefined ? { connect } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Options

/**
 * What an options request may do (as Auth.js decides it): `authenticate` always; `register` a new
 * user (unknown e-mail, nobody signed in) or another passkey of the signed-in user; with no
 * `action`, whatever fits the user info (nobody signed in). `null`: nothing fits.
 */
export function decideAction(
  action: WebAuthnAction | undefined,
  signedIn: boolean,
  info: WebAuthnUserInfo | null,
): WebAuthnAction | null {
  if (action === "authenticate") return "authenticate";
  if (action === "register") return info?.user && signedIn === info.exists ? "register" : null;
  if (signedIn) return null;
  if (!info?.user) return "authenticate";
  return info.exists ? "authenticate" : "register";
}

/**
 * An explicit `action=register` from nobody signed in, for an address whose holder never proved it
 * (`emailVerified` null: an unverified provider's sign-in, a stranger's passkey sign-up), is a
 * sign-up like one for an unknown address: an unproven record blocks nobody (docs/security.md,
 * "Identity"). The holder is replaced by the bare address, so the options are the same as for an
 * unknown address (no name, no id, no `excludeCredentials`: nothing of the holder leaks) and the
 * passkey later gets a fresh user without the address (`loginWithAccount`), never the holder's.
 * Every other request sees the holder as `getUserInfo` found it.
 *
 * @example
 * ```ts
 * registrantOrHolder("register", false, { user: { id: "u1", email: "ada@example.com", emailVerified: null }, exists: true })
 * // → { user: { email: "ada@example.com" }, exists: false }
 * ```
 */
export function registrantOrHolder(
  action: WebAuthnAction | undefined,
  signedIn: boolean,
  info: WebAuthnUserInfo | null,
): WebAuthnUserInfo | null {
  if (action !== "register" || signedIn || !info?.exists || info.user.emailVerified) return info;
  const email = info.user.email;
  return typeof email === "string" && email ? { user: { email }, exists: false } : info;
}

function jsonResponse(ctx: Context, status: number, body: Record<string, unknown>): ResponseInternal {
  return { status, headers: { "Content-Type": "application/json", ...noStore }, body, cookies: ctx.cookies };
}

/** The fields of a registering user that the challenge cookie carries to the callback. */
interface RegisteringUser {
  email?: string;
  id?: string;
  name?: string;
  image?: string;
}

/** The fields of a registering user that the challenge cookie carries to the callback. */
function registeringUser(user: Partial<AdapterUser> & { email: string }): RegisteringUser {
  const out: RegisteringUser = { email: user.email };
  if (user.id) out.id = user.id;
  if (typeof user.name === "string") out.name = user.name;
  if (typeof user.image === "string") out.image = user.image;
  return out;
}

/** The registering user read back from the challenge cookie (which {@link registeringUser} wrote). */
function registeringUserOf(sealed: unknown): RegisteringUser | undefined {
  if (typeof sealed !== "object" || sealed === null) return undefined;
  const out: RegisteringUser = {};
  for (const key of ["email", "id", "name", "image"] as const) {
    const value = textOf(fieldOf(sealed, key));
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * `GET /webauthn-options/<provider>?action=authenticate|register`: the options of a WebAuthn
 * ceremony (spec §2.11, `{ action, options }`). Authentication options have an empty
 * `allowCredentials` (discoverable credentials) unless the provider sets `listCredentials`, so
 * they are the same for every address. The challenge goes into the encrypted
 * `webauthnChallenge` cookie, bound to the provider and the action, for 15 minutes. Other query
 * fields (`email` by default) reach `getUserInfo`. A request that fits no action is a 400.
 *
 * @example
 * ```ts
 * // GET /auth/webauthn-options/passkey?email=ada@example.com   (no user with that address)
 * // → 200 { "action": "register", "options": { "challenge": "...", "rp": { ... }, ... } }
 * ```
 */
export async function webauthnOptionsFlow(
  req: RequestInternal,
  ctx: Context,
  provider: WebAuthnProviderInternal,
): Promise<ResponseInternal> {
  const adapter = adapterFor(ctx.config, "listAuthenticatorsByUserId");
  const requested = req.query.action || undefined;
  if (requested !== undefined && requested !== "authenticate" && requested !== "register") {
    return jsonResponse(ctx, 400, {
      error: "InvalidAction",
      message: 'The `action` query parameter must be "authenticate" or "register"',
    });
  }
  const session = await sessionOnRequest(req, ctx);
  const sessionUser = session?.user ?? null;
  // An explicit `authenticate` needs no user unless credentials are listed: not looking one up
  // keeps the answer (and its timing) the same for every address.
  const needsInfo = !(requested === "authenticate" && !provider.listCredentials);
  const info: WebAuthnUserInfo | null = sessionUser
    ? { user: sessionUser, exists: true }
    : needsInfo
      ? await provider.getUserInfo(
          { adapter, provider },
          { method: req.method, url: req.url, query: req.query, body: req.body, headers: req.headers },
        )
      : null;
  const who = registrantOrHolder(requested, !!sessionUser, info);
  const action = decideAction(requested, !!sessionUser, who);
  const rp = relyingParty(provider, ctx, req);
  const lib = await loadSimpleWebAuthn(provider);

  if (action === "authenticate") {
    // Discoverable credentials by default: an empty `allowCredentials` says nothing about the
    // address (docs/security.md); `listCredentials` restores Auth.js's list for older keys.
    const userId = provider.listCredentials && info?.exists ? info.user.id : undefined;
    const authenticators = userId ? await adapter.listAuthenticatorsByUserId(userId) : undefined;
    const options = await lib.generateAuthenticationOptions({
      ...writableCopy(provider.authenticationOptions),
      rpID: rp.id,
      allowCredentials: authenticators?.map((a) => ({
        id: toBase64Url(a.credentialID),
        transports: parseTransports(a.transports),
      })),
    });
    const bind = bindFlow(req, ctx);
    ctx.cookies.push(await challengeCookie(ctx, { provider: provider.id, action, challenge: options.challenge, bind }));
    return jsonResponse(ctx, 200, { action, options });
  }
  if (action === "register" && who && typeof who.user.email === "string" && who.user.email) {
    const user: Partial<AdapterUser> & { email: string } = who.user;
    const authenticators = user.id ? await adapter.listAuthenticatorsByUserId(user.id) : [];
    const options = await lib.generateRegistrationOptions({
      ...writableCopy(provider.registrationOptions),
      rpID: rp.id,
      rpName: rp.name,
      userName: user.email,
      userDisplayName: user.name ?? undefined,
      // A random user handle: the credential is linked to the user through its stored record.
      userID: randomBytes(32),
      excludeCredentials: authenticators.map((a) => ({
        id: toBase64Url(a.credentialID),
        transports: parseTransports(a.transports),
      })),
    });
    ctx.cookies.push(
      await challengeCookie(ctx, {
        provider: provider.id,
        action,
        challenge: options.challenge,
        user: registeringUser(user),
        bind: bindFlow(req, ctx),
        // Under a session the passkey is for the session's user: a connect, bound to that session.
        ...(session ? { connect: session.key } : {}),
      }),
    );
    return jsonResponse(ctx, 200, { action, options });
  }
  return jsonResponse(ctx, 400, {
    error: "InvalidRequest",
    message: sessionUser
      ? "A signed-in user can only ask for `action=register` (another passkey) or `action=authenticate`"
      : "Registration needs the e-mail address of a new user",
  });
}

// ---------------------------------------------------------------------------------------------
// Callback

interface CredentialJSON {
  id: string;
  rawId?: string;
  type?: string;
  response: Json & { transports?: unknown };
  [key: string]: unknown;
}

function credentialFrom(data: unknown): CredentialJSON {
  let parsed: unknown = data;
  if (typeof data === "string") {
    try {
      parsed = JSON.parse(data);
    } catch {
      throw new WebAuthnVerificationError("The WebAuthn response (`data`) is not JSON");
    }
  }
  if (!isCredential(parsed)) {
    throw new WebAuthnVerificationError("The WebAuthn response (`data`) is not a public-key credential");
  }
  return parsed;
}

/** True for an object with a credential `id` (base64 or base64url) and a `response` object. */
function isCredential(value: unknown): value is CredentialJSON {
  const id = fieldOf(value, "id");
  const response = fieldOf(value, "response");
  return (
    typeof value === "object" &&
    typeof id === "string" &&
    /^[A-Za-z0-9_\-+/=]{1,1400}$/.test(id) &&
    typeof response === "object" &&
    response !== null
  );
}

function verificationError(what: string, e: unknown): WebAuthnVerificationError {
  return new WebAuthnVerificationError(
    `The WebAuthn ${what} could not be verified: ${e instanceof Error ? e.message : String(e)}`,
    { err: e instanceof Error ? e : new Error(String(e)) },
  );
}

/** Verifies an assertion against the stored authenticator; moves its counter on. */
async function authenticate(
  ctx: Context,
  req: RequestInternal,
  provider: WebAuthnProviderInternal,
  lib: Lib,
  credential: CredentialJSON,
  challenge: Challenge,
) {
  const adapter = adapterFor(ctx.config, "getAuthenticator", "updateAuthenticatorCounter", "getAccount", "getUser");
  const credentialID = toBase64(fromBase64(credential.id));
  const authenticator = await adapter.getAuthenticator(credentialID);
  if (!authenticator) throw new AccountNotLinked("No authenticator is stored with this credential id");
  const rp = relyingParty(provider, ctx, req);
  let result: Awaited<ReturnType<Lib["verifyAuthenticationResponse"]>>;
  try {
    result = await lib.verifyAuthenticationResponse({
      ...writableCopy(provider.verifyAuthenticationOptions),
      response: credential,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.ids,
      credential: {
        id: toBase64Url(authenticator.credentialID),
        publicKey: fromBase64(authenticator.credentialPublicKey),
        counter: authenticator.counter,
        transports: parseTransports(authenticator.transports),
      },
    });
  } catch (e) {
    throw verificationError("assertion", e);
  }
  if (!result.verified || !result.authenticationInfo)
    throw new WebAuthnVerificationError("The WebAuthn assertion could not be verified");
  await adapter.updateAuthenticatorCounter(authenticator.credentialID, result.authenticationInfo.newCounter);
  const account = await adapter.getAccount(authenticator.providerAccountId, provider.id);
  if (!account) throw new AccountNotLinked(`The authenticator's account is not stored for provider "${provider.id}"`);
  const user = await adapter.getUser(account.userId);
  if (!user) throw new AccountNotLinked("The authenticator's user no longer exists");
  return { user, account };
}

/**
 * The longest credential id Latchkey stores, in its stored form (standard base64): 255 characters,
 * what the key columns of every store hold (VARCHAR(255) on MySQL and MariaDB, in Latchkey's schema
 * as in Auth.js's), so ids of at most 189 bytes. WebAuthn allows up to 1023 bytes; the platforms'
 * passkeys are far shorter. Refused before anything is written, the same on every store, so a
 * database moved from one store to another holds every passkey.
 */
const MAX_CREDENTIAL_ID_LENGTH = 255;
/** The same limit in bytes: whole groups of four base64 characters, three bytes each. */
const MAX_CREDENTIAL_ID_BYTES = Math.floor(MAX_CREDENTIAL_ID_LENGTH / 4) * 3;

/** Verifies an attestation; returns the account and authenticator to store (not yet stored). */
async function register(
  ctx: Context,
  req: RequestInternal,
  provider: WebAuthnProviderInternal,
  lib: Lib,
  credential: CredentialJSON,
  challenge: Challenge,
) {
  const { user } = challenge;
  const email = user?.email;
  if (!user || !email) throw new InvalidCheck("The WebAuthn challenge carries no registering user");
  const rp = relyingParty(provider, ctx, req);
  let result: Awaited<ReturnType<Lib["verifyRegistrationResponse"]>>;
  try {
    result = await lib.verifyRegistrationResponse({
      ...writableCopy(provider.verifyRegistrationOptions),
      response: credential,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.ids,
    });
  } catch (e) {
    throw verificationError("registration", e);
  }
  const info = result.registrationInfo;
  if (!result.verified || !info) throw new WebAuthnVerificationError("The WebAuthn registration could not be verified");
  const credentialID = toBase64(fromBase64(info.credential.id));
  if (credentialID.length > MAX_CREDENTIAL_ID_LENGTH) {
    throw new WebAuthnVerificationError(
      `The passkey has a credential id of ${fromBase64(credentialID).length} bytes; Latchkey stores ids of at most ${MAX_CREDENTIAL_ID_BYTES} bytes (${MAX_CREDENTIAL_ID_LENGTH} base64 characters, what every store's key column holds): registration refused, nothing stored`,
    );
  }
  const account: Account = { provider: provider.id, providerAccountId: credentialID, type: "webauthn" };
  const transports = Array.isArray(credential.response.transports)
    ? credential.response.transports.filter((t): t is string => typeof t === "string" && TRANSPORTS.has(t))
    : [];
  const authenticator: Omit<AdapterAuthenticator, "userId"> = {
    providerAccountId: credentialID,
    credentialID,
    credentialPublicKey: toBase64(info.credential.publicKey),
    counter: info.credential.counter,
    credentialDeviceType: info.credentialDeviceType,
    credentialBackedUp: info.credentialBackedUp,
    transports: transports.length ? transports.join(",") : null,
  };
  return { user: { ...user, email }, account, authenticator };
}

/**
 * `POST /callback/<provider>` of a WebAuthn provider (CSRF-checked), with `action`
 * (`register` | `authenticate`) and `data` (the credential's JSON) in the body.
 *
 * - `register` verifies the attestation against the challenge cookie (made in this browser), then
 *   adds the passkey to the signed-in user when the options were made under this very session
 *   (refused under any other), or else creates the user if new, the account (`type: "webauthn"`, `providerAccountId` = base64 credential id) and the
 *   authenticator record, and signs in.
 * - `authenticate` verifies the assertion against the stored authenticator (signature, challenge,
 *   origin, RP ID, counter), stores the new counter, and signs in its user.
 *
 * The `signIn` callback decides before anything is created; events as for any sign-in. Failures
 * are `WebAuthnVerificationError`, `AccountNotLinked` or `InvalidCheck` (sign-in page, no session).
 *
 * @example
 * ```ts
 * // POST /auth/callback/passkey  csrfToken=...&action=authenticate&data={"id":"...","response":{...}}
 * // → 302 to the callback URL, with the session cookie
 * ```
 */
export async function webauthnCallback(
  req: RequestInternal,
  ctx: Context,
  provider: WebAuthnProviderInternal,
): Promise<ResponseInternal> {
  if (req.method !== "POST") return { redirect: `${ctx.authUrl}/signin`, cookies: ctx.cookies };
  ctx.requireCsrf("A WebAuthn response");
  const action = req.body?.action;
  if (action !== "authenticate" && action !== "register") {
    throw new WebAuthnVerificationError('The WebAuthn callback needs `action` "authenticate" or "register"');
  }
  const challenge = await consumeChallenge(req, ctx, provider, action);
  const credential = credentialFrom(req.body?.data);
  const lib = await loadSimpleWebAuthn(provider);

  let user: User | AdapterUser;
  let account: Account;
  let authenticator: Omit<AdapterAuthenticator, "userId"> | undefined;
  if (action === "authenticate") {
    ({ user, account } = await authenticate(ctx, req, provider, lib, credential, challenge));
  } else {
    ({ user, account, authenticator } = await register(ctx, req, provider, lib, credential, challenge));
    await freeOrphanedAuthenticator(ctx, authenticator.credentialID);
  }

  // A passkey for a signed-in user joins that user only under the session its options were made
  // under; any other registration is a sign-up, which never joins an existing user.
  const connectTo = action === "register" ? await connectTarget(req, ctx, challenge.connect) : null;
  if (connectTo && connectTo.id !== user.id) {
    throw new InvalidCheck("The WebAuthn challenge was made for another user than the session's");
  }
  const refused = await askSignIn(ctx, { user, account });
  if (refused) return { redirect: refused, cookies: ctx.cookies };
  // A passkey proves nothing about the address it was registered with (a sign-up names any address).
  const login = await loginWithAccount(req, ctx, { user, account, emailProven: false, connectTo });
  const owner = login.user;
  // With an adapter (every WebAuthn provider has one) the login's user is a stored one.
  if (!owner.id) throw new AccountNotLinked("The WebAuthn sign-in found no stored user");
  if (authenticator)
    await storeAuthenticator(ctx, provider.id, { ...authenticator, userId: owner.id }, login.isNewUser);

  const callbackUrl = await ctx.callbackUrl();
  const sessionAccount = login.account ?? { ...account, userId: owner.id };
  await startSession(req, ctx, { user: owner, account: sessionAccount, isNewUser: login.isNewUser });
  return landing(ctx, callbackUrl, login.isNewUser);
}

/**
 * Refuses a registration of a credential id already stored, unless its record is an orphan: no
 * WebAuthn provider has an account for it (it was unlinked before `deleteAuthenticator` existed,
 * or an unlink failed after removing the account), so it signs nobody in and blocks nothing; it
 * is deleted and the registration goes on. Without `deleteAuthenticator` the orphan stays and the
 * registration is refused as before.
 */
async function freeOrphanedAuthenticator(ctx: Context, credentialID: string): Promise<void> {
  const adapter = adapterFor(ctx.config, "getAuthenticator", "getAccount");
  const stored = await adapter.getAuthenticator(credentialID);
  if (!stored) return;
  const providers = ctx.config.providers.filter((p) => p.type === "webauthn");
  const accounts = await Promise.all(providers.map((p) => adapter.getAccount(stored.providerAccountId, p.id)));
  if (accounts.some(Boolean) || !hasMethods(adapter, "deleteAuthenticator"))
    throw new WebAuthnVerificationError("This authenticator is already registered");
  await adapter.deleteAuthenticator(credentialID);
  ctx.config.logger.debug("webauthn: an authenticator whose account was gone was removed before registering it again", {
    userId: stored.userId,
  });
}

/**
 * Stores a new authenticator. If that fails, the account just linked (and the user just created)
 * are removed again where the adapter can, so no account is left without its passkey.
 */
async function storeAuthenticator(
  ctx: Context,
  providerId: string,
  authenticator: AdapterAuthenticator,
  isNewUser: boolean,
): Promise<void> {
  const adapter = adapterFor(ctx.config);
  try {
    await adapter.createAuthenticator?.(authenticator);
  } catch (e) {
    try {
      await adapter.unlinkAccount?.({ provider: providerId, providerAccountId: authenticator.providerAccountId });
      if (isNewUser) await adapter.deleteUser?.(authenticator.userId);
    } catch (cleanup) {
      ctx.config.logger.error(cleanup instanceof AuthError ? cleanup : new AuthError(String(cleanup)));
    }
    throw e;
  }
}

/** `GET <basePath>/webauthn-script.js`: the sign-in page's browser code. */
export function webauthnScriptResponse(): ResponseInternal {
  return {
    status: 200,
    headers: {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
      "X-Content-Type-Options": "nosniff",
    },
    body: webauthnScript,
  };
}
