/**
 * Sign-in with a form the application checks itself (a password, a one-time code, ...).
 * Sessions of credentials users are always JWTs.
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
import type { Awaitable, User } from "../types.js";

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
   * @default the first field of `credentials` (no identifier when `credentials` is empty: every
   * attempt then counts against the provider as a whole)
   * @example
   * ```ts
   * Credentials({ credentials: { password: {}, email: {} }, identifier: "email", authorize })
   * Credentials({ identifier: (c) => `${c.tenant}/${c.user}`, authorize })
   * ```
   */
  identifier?: (keyof C & string) | ((credentials: Partial<Record<keyof C, unknown>>) => string | null | undefined);
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
