import type { IncomingMessage, ServerResponse } from "node:http";
import type { ResponseInternal } from "../../shapes/data.js";
import { BadBody, MAX_BODY_BYTES } from "./request.js";
import { finalizeResponse } from "./response.js";

/*
 * Node's HTTP request and response, as every Node framework (Express, Fastify's raw mode, plain
 * `node:http`) hands them over: the body read with its size limit, the answer written directly.
 */

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
export function nodeWebHeaders(req: IncomingMessage): Headers {
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
export function readNodeBody(req: IncomingMessage): Promise<string> {
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
  if (cookies.length) {
    const existing = res.getHeader("set-cookie");
    const before = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
    res.setHeader("Set-Cookie", [...before, ...cookies]);
  }
  res.statusCode = status;
  if (body !== null) res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body ?? undefined);
}
