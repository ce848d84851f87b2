import { randomUUID } from "#platform";
import type { Account, ResponseInternal, User } from "../../shapes/data.js";
import { noteSignInAttempt } from "../audit/sign-in.js";
import { isThenable } from "../base/awaitable.js";
import { errorOf } from "../base/error-of.js";
import { AuthError, CallbackRouteError, CredentialsSignin } from "../base/errors.js";
import { warnOnce } from "../base/logger.js";
import { fieldOf } from "../base/merge.js";
import { lazyRequest, type RequestInternal } from "../http/request.js";
import { reserveCredentialsAttempt } from "../limits/attempts.js";
import { isSecretOrControlField } from "../limits/rate-limits.js";
import type { Context } from "../serve/context.js";
import { askSignIn, landing, startSession } from "./finish-sign-in.js";
import { loginWithCredentials } from "./identity.js";
import { closeGuard, openGuard, stillCurrent } from "./sign-in-guard.js";

type CredentialsProvider = Extract<NonNullable<Context["provider"]>, { type: "credentials" }>;

/**
 * The credentials field that says who signs in, when the provider does not declare `identifier`:
 * the first field that is neither a secret nor a control (a form may ask for the password
 * first). None (a provider of a PIN alone, or of no declared field): undefined, and every
 * attempt counts against the provider as a whole.
 */
function identifierField(provider: CredentialsProvider): string | undefined {
  return Object.keys(provider.credentials ?? {}).find((field) => !isSecretOrControlField(provider, field));
}

/**
 * The identifier the attempt is counted on: what the provider declares (`identifier`, else the
 * field of {@link identifierField}), read from the same object `authorize()` receives, never a
 * field the client chose. A repeated form field is read once by the body parser (the first value),
 * so the limiter and `authorize()` see the same value. `undefined` counts the attempt against the
 * provider: when it names no field, and when `identifier()` returned the value of a password
 * field (each guess would be a fresh counter; logged once, never recorded in the audit trail).
 */
function attemptIdentifier(ctx: Context, provider: CredentialsProvider, credentials: Record<string, unknown>) {
  const source = provider.identifier ?? identifierField(provider);
  if (source === undefined) return undefined;
  let value: unknown;
  if (typeof source === "function") {
    try {
      value = source(credentials);
    } catch (e) {
      throw new CallbackRouteError("The credentials provider's identifier() threw", {
        err: errorOf(e),
        provider: provider.id,
      });
    }
  } else {
    value = Object.hasOwn(credentials, source) ? credentials[source] : undefined;
  }
  if (typeof value !== "string" || value.trim() === "") {
    const what = typeof source === "function" ? "identifier() returned" : `the field "${source}" is`;
    throw new CredentialsSignin(`Refused before authorize(): ${what} not a non-empty string`);
  }
  if (typeof source === "function" && isASubmittedSecret(provider, credentials, value)) {
    warnOnce(
      ctx.config,
      "credentials-identifier-secret",
      `Credentials provider "${provider.id}": identifier() returned the value of a password field, so attempts are counted against the provider as a whole (one counter for every user). Return what names the account (a user name, an e-mail address), never the secret being guessed.`,
    );
    return undefined;
  }
  return value;
}

/** True when `value` is what the client submitted in a field the provider declares a password. */
function isASubmittedSecret(provider: CredentialsProvider, credentials: Record<string, unknown>, value: string) {
  return Object.entries(provider.credentials ?? {}).some(
    ([field, input]) =>
      fieldOf(input, "type") === "password" && Object.hasOwn(credentials, field) && credentials[field] === value,
  );
}

/**
 * `POST /callback/<credentials provider>`: CSRF check, rate limit (the attempt is reserved before
 * `authorize` runs), `authorize`, `signIn` callback, session, redirect to the callback URL. The
 * session is a JWT, or with the provider's `databaseSessions` opt-in a database session of the
 * user and `credentials` account found or created through the adapter (see
 * `loginWithCredentials`), landing on `pages.newUser` the first time. A
 * refusal is always `CredentialsSignin` with the provider's `code`: nothing tells which field was
 * wrong. Unexpected errors are logged in full and shown as `Configuration`.
 */
export async function credentialsCallback(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const provider = ctx.provider;
  if (provider?.type !== "credentials") throw new CallbackRouteError("Not a credentials provider");
  if (req.method !== "POST") return { redirect: `${ctx.authUrl}/signin`, cookies: ctx.cookies };
  ctx.requireCsrf("The credentials form");

  const credentials: Record<string, unknown> = { ...req.body };
  const identifier = attemptIdentifier(ctx, provider, credentials);
  noteSignInAttempt(ctx, { identifier });
  const reserving = reserveCredentialsAttempt(req, ctx, provider.id, identifier);
  const attempt = isThenable(reserving) ? await reserving : reserving;
  // This sign-in's own guard: a password checked through `credentials` adds to it.
  const opened = openGuard(credentials);
  let user: User | null;
  try {
    user = await provider.authorize(
      credentials,
      lazyRequest(() => req.toRequest()),
    );
  } catch (e) {
    if (e instanceof AuthError) throw e;
    throw new CallbackRouteError("The credentials provider's authorize() threw", {
      err: errorOf(e),
      provider: provider.id,
    });
  }
  if (!user) throw new CredentialsSignin("authorize() returned no user");
  // The right credentials are not a guess: the reservation goes back, so an owner who signs in
  // often is never limited, while every failure keeps its count.
  const givenBack = attempt.succeeded();
  if (isThenable(givenBack)) await givenBack;
  const database = ctx.config.session.strategy === "database";
  const id = database ? storedId(provider, user) : (user.id?.toString() ?? randomUUID());
  const signedIn: User = { ...user, id };
  const account: Account = { providerAccountId: id, type: "credentials", provider: provider.id };

  // The signIn callback answers at once unless the application made it asynchronous.
  const asked = askSignIn(ctx, { user: signedIn, account, credentials });
  const redirect = isThenable(asked) ? await asked : asked;
  if (redirect) return { redirect, cookies: ctx.cookies };
  const callbackUrl = await ctx.callbackUrl();
  // A reset or change of the password since authorize() checked it (authorizePassword) ends this
  // sign-in too: asked once the session exists.
  const guard = closeGuard(opened, user);
  const revokedSince = async () => !(await stillCurrent(guard));
  const login = database
    ? // Database sessions (the provider's `databaseSessions` opt-in, checked at resolution).
      await loginWithCredentials(ctx, { user: signedIn, account })
    : { user: signedIn, account, isNewUser: false };
  if (!(await startSession(req, ctx, { ...login, revokedSince }))) {
    throw new CredentialsSignin("The password was changed while the sign-in was under way");
  }
  return landing(ctx, callbackUrl, login.isNewUser);
}

/**
 * The id `authorize()` returned, which names the stored user and account under database sessions.
 * A random id (what a JWT session makes do with) would create a new user at every sign-in.
 */
function storedId(provider: CredentialsProvider, user: User): string {
  const id: unknown = user.id;
  if ((typeof id === "string" && id.trim() !== "") || (typeof id === "number" && Number.isFinite(id))) {
    return String(id);
  }
  throw new CallbackRouteError(
    `Credentials provider "${provider.id}" has \`databaseSessions\`: authorize() must return the user's \`id\` (a non-empty string or a number)`,
    { provider: provider.id },
  );
}
