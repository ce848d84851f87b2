/**
 * Latchkey: authentication for web applications, with the interface of Auth.js.
 *
 * `Auth(request, config)` serves every action under `basePath` (`/auth/signin`, `/auth/session`,
 * ...) and returns a standard `Response`; `getSession(request, config)` reads the session of any
 * request. Both read `AUTH_SECRET`, `AUTH_URL` and the other variables from `process.env` where
 * there is one. Framework packages such as `@latchkey/express` wrap them.
 *
 * @example
 * ```ts
 * import { Auth } from "@latchkey/core"
 * import Credentials from "@latchkey/core/providers/credentials"
 *
 * const config = { providers: [Credentials({ ... })] } // AUTH_SECRET (and AUTH_URL, ...) from the environment
 * export default { fetch: (request: Request) => Auth(request, config) }
 * ```
 * @module @latchkey/core
 */

export type { Adapter, AdapterAccount, AdapterSession, AdapterUser, VerificationToken } from "./adapters.js";
export type { ErrorType } from "./errors.js";
export { AuthError, CredentialsSignin } from "./errors.js";
export { customFetch, raw, skipCSRFCheck } from "./lib/base/index.js";
export { createActionURL, setEnvDefaults } from "./lib/config/index.js";
export { isAuthAction } from "./lib/http/index.js";
export { Auth, getSession } from "./lib/serve/index.js";
export type * from "./types.js";
