/**
 * How a framework reaches a server's dispatch without loading the server's modules (and `jose`):
 * the server object carries its handler under a symbol, and `serveAuthorization` calls it. An
 * application that never makes a server loads nothing of it.
 */
import type { ResponseInternal } from "../../shapes/data.js";
import type { AuthConfig } from "../config/options.js";
import type { IncomingRequest } from "../serve/pipeline.js";

/** The key of a server's handler of described requests. */
export const incomingHandler: unique symbol = Symbol("latchkey.authorizationServer.serve");

/** The key of the application's configuration a framework describes requests with (its `clientAddress`). */
export const incomingConfig: unique symbol = Symbol("latchkey.authorizationServer.config");

/**
 * What a framework needs of a server: its handler of described requests, and the part of the
 * application's configuration that decides how a request is described (`clientAddress`).
 */
export interface ServableServer {
  readonly [incomingHandler]: (incoming: IncomingRequest) => Promise<ResponseInternal | undefined>;
  readonly [incomingConfig]: Pick<AuthConfig, "clientAddress">;
}

/**
 * The configuration a framework describes `server`'s requests with: the application's
 * `clientAddress` (given as `auth` to `AuthorizationServer`), so that the address that counts
 * registrations is the one the application names. A `TypeError` for anything that is not a server.
 *
 * @example
 * ```ts
 * const answer = await serveAuthorization(server, toIncoming(req, describeWith(server)))
 * ```
 */
export function describeWith(server: ServableServer): Pick<AuthConfig, "clientAddress"> {
  const config = typeof server === "object" && server !== null ? server[incomingConfig] : undefined;
  if (typeof config !== "object" || config === null)
    throw new TypeError("Expected a server made by AuthorizationServer(options)");
  return config;
}

/**
 * The answer of `server` to a request a framework describes, or `undefined` when its path is not
 * the server's (the framework passes the request on). A `TypeError` for anything that is not a
 * server made by `AuthorizationServer(options)`.
 *
 * @example
 * ```ts
 * const answer = await serveAuthorization(server, toIncoming(req, describeWith(server)))
 * if (answer) writeNodeResponse(res, answer); else next()
 * ```
 */
export function serveAuthorization(
  server: ServableServer,
  incoming: IncomingRequest,
): Promise<ResponseInternal | undefined> {
  const handler = typeof server === "object" && server !== null ? server[incomingHandler] : undefined;
  if (typeof handler !== "function") throw new TypeError("Expected a server made by AuthorizationServer(options)");
  return handler(incoming);
}
