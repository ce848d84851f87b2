import type { IncomingMessage } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import {
  appendSetCookies,
  type IncomingRequest,
  nodeClientAddress,
  nodeHeader,
  nodeIncoming,
} from "@latchkey/core/internal";

/** The parts of an Express request Latchkey reads (Express 4 and 5 both provide them). */
export interface ExpressRequestLike extends IncomingMessage {
  baseUrl?: string;
  originalUrl?: string;
  protocol?: string;
  body?: unknown;
  params?: Record<string, unknown>;
  app?: { get(setting: string): unknown };
  ip?: string;
  /** Set by body-parser once it has consumed the stream. */
  _body?: boolean;
}

/**
 * What a session read needs of an Express request: where it arrived and its headers. No `body`
 * or `params`, so a handler typed with it (`requireAuth`'s) leaves Express to infer those from the
 * route and the other handlers.
 */
export type ExpressSessionSource = Pick<ExpressRequestLike, "headers" | "socket" | "protocol" | "app">;

/** The mount path: `req.baseUrl`, less the wildcard segment of `/auth/*` mounts. */
function mountPath(req: ExpressRequestLike): string | undefined {
  if (req.baseUrl === undefined) return undefined;
  const wildcard = req.params?.[0] ?? req.params?.splat;
  const rest = Array.isArray(wildcard) ? wildcard.join("/") : typeof wildcard === "string" ? wildcard : "";
  return rest && req.baseUrl.endsWith(`/${rest}`) ? req.baseUrl.slice(0, -(rest.length + 1)) : req.baseUrl;
}

/** The host the request names: `X-Forwarded-Host` only when Express's `trust proxy` trusts the peer. */
function hostOf(req: ExpressSessionSource): string | null {
  const trust = req.app?.get("trust proxy fn") as ((addr: string | undefined, i: number) => boolean) | undefined;
  const forwarded = trust?.(req.socket?.remoteAddress, 0) ? nodeHeader(req, "x-forwarded-host") : null;
  return forwarded?.split(",")[0]?.trim() || nodeHeader(req, "host");
}

/** The scheme of a request: Express's `req.protocol` (which applies `trust proxy`), else the socket's. */
function protocolOf(req: ExpressSessionSource): string {
  return req.protocol || ((req.socket as { encrypted?: boolean }).encrypted ? "https" : "http");
}

/** Where an Express request arrived, as Express decided it (its `trust proxy` applied). */
function arrivalOf(req: ExpressRequestLike) {
  return {
    protocol: protocolOf(req),
    host: hostOf(req),
    path: req.originalUrl ?? req.url ?? "/",
    peer: req.ip ?? req.socket?.remoteAddress,
  };
}

/**
 * The client's address: the configuration's `clientAddress` when it is set and answers, else
 * Express's `req.ip` (after `trust proxy`), else the socket's.
 */
export function clientAddressOf(
  req: ExpressRequestLike,
  config: Pick<AuthConfig, "clientAddress">,
): string | undefined {
  return nodeClientAddress(req, config, arrivalOf(req));
}

/**
 * Converter 1: what Latchkey's pipeline needs to know of an Express (or plain Node) request, the
 * core's one description of a Node request (`nodeIncoming`). The body is read from the stream only
 * when asked, unless a body parser already read it. `config` gives the `clientAddress` option.
 */
export function toIncoming(req: ExpressRequestLike, config: Pick<AuthConfig, "clientAddress"> = {}): IncomingRequest {
  const incoming = nodeIncoming(req, config, {
    ...arrivalOf(req),
    mountPath: mountPath(req),
    parsed: () => {
      if (!req._body && !(req.body !== undefined && req.readableEnded)) return undefined;
      const parsed = req.body;
      return parsed && typeof parsed === "object" && !Buffer.isBuffer(parsed)
        ? (parsed as Record<string, unknown>)
        : "";
    },
  });
  // Express read the request as http although it says https: its proxy is not trusted.
  incoming.forwardedProtoIgnored =
    incoming.protocol === "http" && /^\s*https\s*(,|$)/i.test(nodeHeader(req, "x-forwarded-proto") ?? "");
  return incoming;
}

/**
 * Converter 2: what a session read needs of a request (where it arrived and its `Cookie` header),
 * read the way converter 1 reads them but without building the rest (`getSession` on every route).
 */
export function sessionRequest(req: ExpressSessionSource) {
  return { protocol: protocolOf(req), host: hostOf(req), arrivalDecided: true, cookieHeader: req.headers.cookie };
}

/** Adds `Set-Cookie` values to an application's response, kept out of every cache (the core's `appendSetCookies`). */
export const appendCookies = appendSetCookies;
