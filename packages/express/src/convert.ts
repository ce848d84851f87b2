import type { IncomingMessage, ServerResponse } from "node:http";
import type { ResponseInternal } from "@latchkey/core";
import { BadBody, finalizeResponse, type IncomingRequest, MAX_BODY_BYTES } from "@latchkey/core/internal";

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

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}

// Plain stream events rather than `for await`: the async iterator costs several times more for
// the one-chunk bodies sign-in forms are.
function readBody(req: IncomingMessage): Promise<string> {
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES)
    return Promise.reject(new BadBody("The request body is too large", 413));
  if (req.readableEnded) return Promise.resolve("");
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error?: Error) => {
      req.off("data", onData).off("end", onEnd).off("error", done).off("close", onClose);
      if (!error) return resolve(Buffer.concat(chunks).toString("utf8"));
      req.resume(); // drain the rest so the connection can answer
      reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > MAX_BODY_BYTES) done(new BadBody("The request body is too large", 413));
      else chunks.push(buffer);
    };
    const onEnd = () => done();
    const onClose = () => done(new BadBody("The request body ended early"));
    req.on("data", onData).on("end", onEnd).on("error", done).on("close", onClose);
  });
}

/** The mount path: `req.baseUrl`, less the wildcard segment of `/auth/*` mounts. */
function mountPath(req: ExpressRequestLike): string | undefined {
  if (req.baseUrl === undefined) return undefined;
  const wildcard = req.params?.[0] ?? req.params?.splat;
  const rest = Array.isArray(wildcard) ? wildcard.join("/") : typeof wildcard === "string" ? wildcard : "";
  return rest && req.baseUrl.endsWith(`/${rest}`) ? req.baseUrl.slice(0, -(rest.length + 1)) : req.baseUrl;
}

/** The host the request names: `X-Forwarded-Host` only when Express's `trust proxy` trusts the peer. */
function hostOf(req: ExpressRequestLike): string | null {
  const trust = req.app?.get("trust proxy fn") as ((addr: string | undefined, i: number) => boolean) | undefined;
  const forwarded = trust?.(req.socket?.remoteAddress, 0) ? header(req, "x-forwarded-host") : null;
  return forwarded?.split(",")[0]?.trim() || header(req, "host");
}

/**
 * Converter 1: what Latchkey's pipeline needs to know of an Express (or plain Node) request. The
 * body is read from the stream only when asked, unless a body parser already read it.
 */
export function toIncoming(req: ExpressRequestLike): IncomingRequest {
  return {
    method: req.method ?? "GET",
    path: req.originalUrl ?? req.url ?? "/",
    protocol: req.protocol || ((req.socket as { encrypted?: boolean }).encrypted ? "https" : "http"),
    host: hostOf(req),
    headers: { get: (name) => header(req, name) },
    body: async () => {
      if (!req._body && !(req.body !== undefined && req.readableEnded)) return readBody(req);
      const parsed = req.body;
      return parsed && typeof parsed === "object" && !Buffer.isBuffer(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
    },
    clientIp: req.ip ?? req.socket?.remoteAddress,
    mountPath: mountPath(req),
    webHeaders: () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (value !== undefined && !name.startsWith(":"))
          headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      return headers;
    },
  };
}

/**
 * Converter 2: a `ResponseInternal` written to the Node response: status, headers, one
 * `Set-Cookie` header per cookie (added to any the application set), and the body.
 */
export function writeResponse(res: ServerResponse, response: ResponseInternal): void {
  const { status, headers, body } = finalizeResponse(response);
  const cookies: string[] = [];
  for (const [name, value] of headers) {
    if (name === "Set-Cookie") cookies.push(value);
    else res.setHeader(name, value);
  }
  if (cookies.length) {
    const existing = res.getHeader("set-cookie");
    const before = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
    res.setHeader("Set-Cookie", [...before, ...cookies]);
  }
  res.statusCode = status;
  if (body !== null) res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body ?? undefined);
}
