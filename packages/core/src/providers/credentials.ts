/**
 * Sign-in with a form the application checks itself (a password, a one-time code, ...).
 * Sessions of credentials users are JWTs, unless the provider opts in to database sessions
 * (`databaseSessions: true`). Hash passwords with `@latchkey/core/password`.
 *
 * @example
 * ```ts
 * import Credentials from "@latchkey/core/providers/credentials"
 * Credentials({
 *   credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
 *   async authorize({ username, password }) {
 *     const user = await db.users.byName(String(username))
 *     return user && (await verify(user.hash, String(password))) ? user : null
 *   },
 * })
 * ```
 * @module providers/credentials
 */
import type { Awaitable, User } from "../shapes/data.js";

/** One field of the credentials form: its label and any `<input>` attribute. */
export interface CredentialInput {
  label?: string;
  type?: string;
  placeholder?: string;
  [attribute: string]: unknown;
}

export interface CredentialsConfig<C extends Record<string, CredentialInput> = Record<string, CredentialInput>> {
  id: string;
  name: string;
  type: "credentials";
  /** The fields of the built-in sign-in form. */
  credentials: C;
  /**
   * Checks the submitted fields. Return the user, or `null` to refuse (the user sees
   * `error=CredentialsSignin`). Throw `CredentialsSignin` with a `code` to say more, safely.
   */
  authorize: (credentials: Partial<Record<keyof C, unknown>>, request: Request) => Awaitable<User | null>;
  /**
   * What names the account an attempt is for, so that failed attempts are counted (and rate
   * limited) per account: the name of a submitted field, or a function of the submitted fields
   * returning the identifier. It must be what `authorize()` looks the account up by. An attempt
   * whose identifier is missing, empty or not a single string is refused as `CredentialsSignin`
   * without calling `authorize()`.
   *
   * Never a value each guess changes: naming a field of `type: "password"` (or a checkbox, radio,
   * button or range) is refused when the configuration is first used, and an `identifier()` that
   * returns a password field's value is counted against the provider as a whole (logged once).
   *
   * @default the first field of `credentials` that is neither `type: "password"` nor a control
   * (checkbox, radio, button, range); when there is none (a PIN alone, or no declared field)
   * every attempt counts against the provider as a whole: one budget for all its users
   * @example
   * ```ts
   * Credentials({ credentials: { password: {}, email: {} }, identifier: "email", authorize })
   * Credentials({ identifier: (c) => `${c.tenant}/${c.user}`, authorize })
   * ```
   */
  identifier?: (keyof C & string) | ((credentials: Partial<Record<keyof C, unknown>>) => string | null | undefined);
  /**
   * Latchkey extension: lets this provider sign in with `session.strategy: "database"` (Auth.js
   * refuses that combination, and so does Latchkey without this option). A sign-in then:
   *
   * - signs in the user whose `"credentials"` account (`providerAccountId` = the `id` that
   *   `authorize()` returned) is stored; else
   * - the stored user with that `id`, linking the account to it (so `authorize()` may return a
   *   user it read through the adapter, one who first came with OAuth or a magic link); else
   * - creates a user with that `id` (and the `name`, `email`, `image` returned) and the account.
   *
   * The `id` is the application's word: Latchkey never matches users by e-mail here, and whoever
   * `authorize()` names is who signs in. An `id` is required; a new user whose e-mail another
   * user already has is refused (logged), as is an id that is not a non-empty string or number.
   * Events `createUser`, `linkAccount` and `signIn` fire as for other sign-ins; the `jwt`
   * callback does not run (there is no token).
   *
   * @default false
   * @example
   * ```ts
   * Credentials({ databaseSessions: true, credentials: { email: {}, password: {} }, authorize })
   * ```
   */
  databaseSessions?: boolean;
  options?: CredentialsUserConfig<C>;
}

export type CredentialsUserConfig<C extends Record<string, CredentialInput> = Record<string, CredentialInput>> =
  Partial<Omit<CredentialsConfig<C>, "type" | "options">>;

/** Makes a credentials provider. Its default id is `credentials`. */
export default function Credentials<C extends Record<string, CredentialInput> = Record<string, CredentialInput>>(
  options: CredentialsUserConfig<C>,
): CredentialsConfig<C> {
  return {
    id: "credentials",
    name: "Credentials",
    type: "credentials",
    credentials: {} as C,
    authorize: () => null,
    options,
  };
}
