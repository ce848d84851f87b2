import type { IncomingMessage, ServerResponse } from "node:http";
import type { ResponseInternal } from "../../shapes/data.js";
import type { AuthConfig } from "../config/options.js";
import type { IncomingRequest } from "../serve/pipeline.js";
import { BadBody, clientAddressOrPeer, MAX_BODY_BYTES, parseBody, parsedForm } from "./request.js";
import { finalizeResponse, forbidCaching } from "./response.js";

/*
 * Node's HTTP request and response, as every Node framework (Express, Fastify, the Pages Router
 * of Next.js, plain `node:http`) hands them over: the request described once for the pipeline
 * (`nodeIncoming`), the body read with its size limit, the answer written directly, cookies added
 * to an application's own response (`appendSetCookies`).
 */

/** What a Node framework decided about a request before Latchkey reads it. */
export interface NodeArrival {
  /** The scheme, after the framework's own proxy rule (`trust proxy`, `trustProxy`). */
  protocol: string;
  /** The host, after the framework's own proxy rule. */
  host: string | null;
  /** The path and query as received (Express's `originalUrl`, Fastify's `request.url`). */
  path: string;
  /** The peer's address after the framework's proxy rule (`req.ip`); the `clientAddress` option wins. */
  peer?: string | null;
  /** Where the framework mounted the handler, when it decides that (Express's `req.baseUrl`). */
  mountPath?: string;
  /**
   * The body a framework's parser already read (a record, or the text a text parser kept), or
   * undefined to read the stream (within `MAX_BODY_BYTES`).
   */
  parsed?: () => string | Record<string, unknown> | undefined;
}

/**
 * A Node request as the pipeline reads it, the one description every Node framework hands over:
 * where it arrived as the framework decided it, its headers read lazily, the body from the
 * framework's parser or the stream, and the client's address by the one rule of
 * `clientAddressOrPeer` (the application's `clientAddress` option wins, else the framework's peer).
 *
 * @example
 * ```ts
 * const incoming = nodeIncoming(req, config, { protocol: "https", host: req.headers.host ?? null, path: req.url ?? "/", peer: req.socket.remoteAddress })
 * writeNodeResponse(res, await serve(incoming, config, { env: process.env }))
 * ```
 */
export function nodeIncoming(
  req: IncomingMessage,
  config: Pick<AuthConfig, "clientAddress">,
  arrived: NodeArrival,
): IncomingRequest {
  const { protocol, host, path, parsed } = arrived;
  return {
    method: req.method ?? "GET",
    path,
    protocol,
    host,
    // The framework's own proxy rule decided them: the configuration's `trustProxy` is not applied again.
    arrivalDecided: true,
    headers: { get: (name) => nodeHeader(req, name) },
    body: async () => {
      const given = parsed?.();
      return given === undefined ? readNodeBody(req) : given;
    },
    clientIp: nodeClientAddress(req, config, arrived),
    mountPath: arrived.mountPath,
    webHeaders: () => nodeWebHeaders(req),
  };
}

/**
 * The form of a Node request for the functions that take one (password accounts): the record a
 * framework's body parser made (`parsed`, a repeated field's list read as its first value), else
 * the stream read within `MAX_BODY_BYTES` and parsed by its type (a form, or a JSON object); the
 * first of a repeated field wins either way. `{}` for a GET or a body of another type; an
 * unreadable one rejects with `BadBody` (4xx).
 *
 * @example
 * ```ts
 * const fields = await readNodeForm(req, req.body)
 * ```
 */
export async function readNodeForm(req: IncomingMessage, parsed?: unknown): Promise<Record<string, unknown>> {
  const type = nodeHeader(req, "content-type");
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && !Buffer.isBuffer(parsed))
    return parsedForm(type, parsed as Record<string, unknown>);
  if (req.method !== "POST") return {};
  return parseBody(type, await readNodeBody(req)) ?? {};
}

/**
 * The client address of a Node request by the one rule of `clientAddressOrPeer`: the
 * application's `clientAddress` option (given a Web `Request` built for it only when it is set),
 * else the peer the framework names.
 *
 * @example
 * ```ts
 * nodeClientAddress(req, config, { protocol: req.protocol, host: req.host, path: req.originalUrl, peer: req.ip })
 * ```
 */
export function nodeClientAddress(
  req: IncomingMessage,
  config: Pick<AuthConfig, "clientAddress">,
  arrived: Pick<NodeArrival, "protocol" | "host" | "path" | "peer">,
): string | undefined {
  const { protocol, host, path } = arrived;
  const scheme = protocol.endsWith(":") ? protocol : `${protocol}:`;
  const build = () => new Request(`${scheme}//${host ?? "localhost"}${path}`, { headers: nodeWebHeaders(req) });
  return clientAddressOrPeer(config, build, arrived.peer);
}

/**
 * Adds `Set-Cookie` values to an application's own response (a Node `ServerResponse`, or an
 * object with Web `Headers` such as a Pages Router's `Response`), after any it set, and keeps that
 * response out of every cache (`forbidCaching`): a page of the application's that a CDN may store
 * must not store a user's cookie. A response whose headers were sent already is left alone.
 *
 * @example
 * ```ts
 * appendSetCookies(res, answer.setCookie)
 * ```
 */
export function appendSetCookies(res: unknown, values: readonly string[]): void {
  if (!values.length || !res) return;
  const target = res as ServerResponse & { headers?: unknown };
  if (target.headers instanceof Headers) {
    const headers = target.headers;
    for (const value of values) headers.append("set-cookie", value);
    forbidCaching((name, value) => headers.set(name, value));
    return;
  }
  if (target.headersSent) return;
  addSetCookie(target, values);
  forbidCaching((name, value) => target.setHeader(name, value));
}

/** Adds `Set-Cookie` values after those a Node response already has. */
function addSetCookie(res: ServerResponse, values: readonly string[]): void {
  const existing = res.getHeader("set-cookie");
  const before = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  res.setHeader("Set-Cookie", [...before, ...values]);
}

/**
 * A header of a Node request as the Web reads it: repeated values joined with `, `, null when absent.
 *
 * @example
 * ```ts
 * const host = nodeHeader(req, "Host")
 * ```
 */
export function nodeHeader(req: Pick<IncomingMessage, "headers">, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * A Node request's headers as Web `Headers` (HTTP/2 pseudo-headers left out).
 *
 * @example
 * ```ts
 * const headers = nodeWebHeaders(req)
 * ```
 */
function nodeWebHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !name.startsWith(":"))
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  return headers;
}

/**
 * Reads a Node request's body as text, at most `MAX_BODY_BYTES` (a larger one, declared or
 * streamed, rejects with a 413 `BadBody`; a connection that closes early with a 400 one).
 *
 * @example
 * ```ts
 * const text = await readNodeBody(req)
 * ```
 */
function readNodeBody(req: IncomingMessage): Promise<string> {
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES)
    return Promise.reject(new BadBody("The request body is too large", 413));
  if (req.readableEnded) return Promise.resolve("");
  // Plain stream events rather than `for await`: the async iterator costs several times more for
  // the one-chunk bodies sign-in forms are.
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

/**
 * Writes a `ResponseInternal` to a Node response: status, headers, one `Set-Cookie` header per
 * cookie (added to any the application set), and the body.
 *
 * @example
 * ```ts
 * writeNodeResponse(res, await serve(incoming, config))
 * ```
 */
export function writeNodeResponse(res: ServerResponse, response: ResponseInternal): void {
  const { status, headers, body } = finalizeResponse(response);
  const cookies: string[] = [];
  for (const [name, value] of headers) {
    if (name === "Set-Cookie") cookies.push(value);
    else res.setHeader(name, value);
  }
  if (cookies.length) addSetCookie(res, cookies);
  res.statusCode = status;
  if (body !== null) res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body ?? undefined);
}
