/**
 * The password-account functions' inputs as a form posts them, once for every framework (the
 * account functions of `@latchkey/express`, the server actions of `@latchkey/next`, the built-in
 * pages): which posted field is which input, the new password being the form's `password`.
 */

/** A posted form's fields (the first of a repeated field, by the rule of `formRecord`). */
export type FormFields = Record<string, unknown>;

/**
 * The input of each password-account function from a posted form, with the client's address
 * (and, for a change of password, the CSRF token the caller vouches for).
 *
 * @example
 * ```ts
 * await signUp(request, config, options, accountInputs.signUp(fields, clientAddress))
 * ```
 */
export const accountInputs = {
  signUp: (f: FormFields, clientAddress: string | undefined) => ({
    email: f.email,
    password: f.password,
    name: f.name,
    clientAddress,
  }),
  verifyEmail: (f: FormFields, clientAddress: string | undefined) => ({
    code: f.code,
    token: f.token,
    email: f.email,
    user: f.user,
    password: f.password,
    clientAddress,
  }),
  requestPasswordReset: (f: FormFields, clientAddress: string | undefined) => ({ email: f.email, clientAddress }),
  resetPassword: (f: FormFields, clientAddress: string | undefined) => ({
    token: f.token,
    email: f.email,
    user: f.user,
    password: f.password,
    clientAddress,
  }),
  changePassword: (f: FormFields, clientAddress: string | undefined, csrfToken: unknown = f.csrfToken) => ({
    csrfToken,
    currentPassword: f.currentPassword,
    newPassword: f.password,
    clientAddress,
  }),
};
