import type { IncomingMessage, ServerResponse } from "node:http";
import type { ResponseInternal } from "@latchkey/core";
import { UnknownAction } from "@latchkey/core/errors";
import {
  BadBody,
  finalizeResponse,
  type HeaderReader,
  MAX_BODY_BYTES,
  parseActionPath,
  parseBody,
  parseCookieHeader,
  queryRecord,
  type RequestInternal,
  rebuildRequest,
} from "@latchkey/core/internal";

/** An Express request as the converters read it. */
export interface NodeRequestLike extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
  ip?: string;
  /** Set by body-parser once it has consumed the stream. */
  _body?: boolean;
}

/** Node's header record, read like `Headers` (case-insensitive, joined lists). */
function headerReader(req: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = req.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

// Plain stream events rather than `for await`: the async iterator costs several times more for
// the one-chunk bodies sign-in forms are.
function readBody(req: NodeRequestLike): Promise<string> {
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES) {
    return Promise.reject(new BadBody("The request body is too large", 413));
  }
  if (req.readableEnded) return Promise.resolve("");
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error?: Error) => {
      req.off("data", onData).off("end", onEnd).off("error", done).off("close", onClose);
      if (error) {
        req.resume(); // drain the rest so the connection can answer
        reject(error);
      } else
        resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8"));
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

/** A body some parser already produced: flat string fields kept as they are. */
function parsedBody(body: unknown): Record<string, unknown> | undefined {
  if (body && typeof body === "object" && !Array.isArray(body) && !Buffer.isBuffer(body))
    return body as Record<string, unknown>;
  if (typeof body === "string" || Buffer.isBuffer(body)) return undefined;
  return undefined;
}

/**
 * Converter 1: an Express (Node) request → Latchkey's internal request, without building a Web
 * `Request`. The body is read from the stream (64 KiB at most) unless a body parser has already
 * read it. Throws `UnknownAction` for paths and methods that are no action, `BadBody` for bodies
 * that cannot be read.
 */
export async function toInternalRequest(
  req: NodeRequestLike,
  basePath: string,
  origin: string,
): Promise<RequestInternal> {
  const method = req.method;
  if (method !== "GET" && method !== "POST")
    throw new UnknownAction(`The method ${method} is not supported; use GET or POST`);
  const url = new URL(req.originalUrl ?? req.url ?? "/", origin);
  const { action, providerId } = parseActionPath(url.pathname, basePath);
  const headers = headerReader(req);
  let body: Record<string, unknown> | undefined;
  if (method === "POST") {
    body =
      req._body || (req.body !== undefined && req.readableEnded)
        ? parsedBody(req.body)
        : parseBody(headers.get("content-type"), await readBody(req));
  }
  return {
    url,
    method,
    action,
    providerId,
    query: queryRecord(url),
    body,
    cookies: parseCookieHeader(req.headers.cookie),
    headers,
    returnRedirectAsJson: req.headers["x-auth-return-redirect"] !== undefined,
    clientIp: req.ip ?? req.socket?.remoteAddress,
    toRequest: () => {
      const h = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || name.startsWith(":")) continue;
        h.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      return rebuildRequest(url, method, h, body);
    },
  };
}

/**
 * Converter 2: a `ResponseInternal` → the Node response, written directly: status, headers,
 * one `Set-Cookie` header per cookie (added to any the application set), and the body.
 */
export function writeResponse(res: ServerResponse, response: ResponseInternal, returnRedirectAsJson: boolean): void {
  const { status, headers, body } = finalizeResponse(response, returnRedirectAsJson);
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
