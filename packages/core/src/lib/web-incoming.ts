import type { AuthConfig } from "../types.js";
import type { IncomingRequest } from "./pipeline.js";
import { clientAddressFrom, readWebBody } from "./request.js";

/**
 * A Web `Request` as the pipeline reads it: its method, path and query, headers and body, and
 * the client address of the application's `clientAddress` option (a throw counts as unknown).
 * `where` is where it arrived; by default the request URL's scheme and host (`arrivalDecided` when
 * the framework applied its own proxy setting to it: `trustProxy` is then not applied again).
 *
 * @example
 * ```ts
 * const response = await serve(webIncoming(request, config), config)
 * ```
 */
export function webIncoming(
  request: Request,
  config: Pick<AuthConfig, "clientAddress">,
  where?: { protocol: string; host: string | null; arrivalDecided?: boolean },
  url: URL = new URL(request.url),
): IncomingRequest {
  return {
    method: request.method,
    path: `${url.pathname}${url.search}`,
    protocol: where?.protocol ?? url.protocol,
    host: where ? where.host : url.host,
    arrivalDecided: where?.arrivalDecided,
    headers: request.headers,
    body: () => readWebBody(request),
    clientIp: clientAddressFrom(config, request),
    webHeaders: () => request.headers,
  };
}
