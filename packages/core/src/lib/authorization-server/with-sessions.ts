// The code of @latchkey/core's public module src/authorization-server.ts (which documents it and re-exports it).

import { revokeUserSessions } from "../session/manage.js";
import type { AuthorizationServer as Server } from "./server.js";
import { type AuthorizationServerOptions, createAuthorizationServer } from "./server.js";

/** An authorization server: serve it with `ExpressAuthorizationServer(server)`, or `server.fetch(request)`. */
export interface AuthorizationServer extends Server {}

/**
 * Makes the authorization server (its options checked now: a mistake throws
 * `InvalidConfiguration` naming the option and its fix). Serve it with
 * `ExpressAuthorizationServer(server)` (`@latchkey/express`), or `server.fetch(request)`.
 *
 * @example
 * ```ts
 * const server = AuthorizationServer({
 *   issuer: "https://app.example",
 *   auth: config,
 *   store: SqlAuthorizationStore(db),    // @latchkey/sql-adapter
 *   scopes: ["openid", "profile", "email", "offline_access", "reports:read"],
 * })
 * ```
 */
export function AuthorizationServer(options: AuthorizationServerOptions): Server {
  return createAuthorizationServer(options, (auth, userId) => revokeUserSessions(auth, userId, { reason: "logout" }));
}
