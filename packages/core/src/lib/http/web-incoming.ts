import type { AuthConfig } from "../config/options.js";
import type { IncomingRequest } from "../serve/pipeline.js";
import { clientAddressOrPeer, readWebBody } from "./request.js";

/** What a framework serving Web `Request`s knows beyond the request itself. */
export interface WebArrival {
  /**
   * Where it arrived, as the framework described it; by default the request URL's scheme and host
   * (`arrivalDecided` when the framework applied its own proxy setting to it: the configuration's
   * `trustProxy` is then not applied again).
   */
  where?: { protocol: string; host: string | null; arrivalDecided?: boolean };
  /** The request's URL, when the framework has it parsed already. */
  url?: URL;
  /** The peer's address the server names (`getClientAddress()`, a socket); the `clientAddress` option wins. */
  peer?: string | null;
  /** Where the framework mounted the handler, when it decides that (a Hono route's prefix). */
  mountPath?: string;
  /** Reads the body another way than the stream (a framework that cached a body it already read). */
  body?: () => Promise<string>;
}

/**
 * A Web `Request` as the pipeline reads it, the one description every framework serving Web
 * requests hands over (Hono, SvelteKit, Next.js, the core's `Auth()`): its method, path and query,
 * headers and body (within `MAX_BODY_BYTES`), and the client's address by the one rule of
 * `clientAddressOrPeer` (the application's `clientAddress` option wins, else the peer the
 * framework names).
 *
 * @example
 * ```ts
 * const response = await serve(webIncoming(request, config), config)
 * serve(webIncoming(c.req.raw, config, { peer: socketAddress, mountPath: "/api/auth" }), config)
 * ```
 */
export function webIncoming(
  request: Request,
  config: Pick<AuthConfig, "clientAddress">,
  arrived: WebArrival = {},
): IncomingRequest {
  const url = arrived.url ?? new URL(request.url);
  const { where, body } = arrived;
  return {
    method: request.method,
    path: `${url.pathname}${url.search}`,
    protocol: where?.protocol ?? url.protocol,
    host: where ? where.host : url.host,
    arrivalDecided: where?.arrivalDecided,
    headers: request.headers,
    body: body ?? (() => readWebBody(request)),
    clientIp: clientAddressOrPeer(config, request, arrived.peer),
    mountPath: arrived.mountPath,
    webHeaders: () => request.headers,
  };
}
