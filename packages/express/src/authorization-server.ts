import type { ServerResponse } from "node:http";
import { describeWith, type ServableServer, serveAuthorization, writeNodeResponse } from "@latchkey/core/internal";
import { type ExpressRequestLike, toIncoming } from "./convert.js";

type Next = (error?: unknown) => void;

/**
 * Serves an authorization server (`AuthorizationServer` of `@latchkey/core/authorization-server`):
 * its endpoints under its path and its metadata documents under `/.well-known/`. Mount it at the
 * application's root (`app.use(...)`, no path: RFC 8414 puts the metadata at the origin's root);
 * every other request goes on to the next handler. It reads form bodies itself, so no body parser
 * is needed in front of it (one that already ran is used as is).
 *
 * @example
 * ```ts
 * const server = AuthorizationServer({ issuer: "https://app.example", auth: config, store })
 * app.use(ExpressAuthorizationServer(server))
 * app.use("/auth", ExpressAuth(config))
 * ```
 */
export function ExpressAuthorizationServer(server: ServableServer) {
  // The application's `clientAddress` decides the address of each request, as it does for ExpressAuth.
  const config = describeWith(server);
  return async function latchkeyAuthorizationServer(
    req: ExpressRequestLike,
    res: ServerResponse,
    next: Next,
  ): Promise<void> {
    try {
      const answer = await serveAuthorization(server, toIncoming(req, config));
      if (answer) writeNodeResponse(res, answer);
      else next();
    } catch (e) {
      next(e);
    }
  };
}
