/**
 * The authorization server's dispatch: a request's path names an endpoint (or is not the
 * server's: `undefined`, so a framework passes it on), its method is checked, its parameters read
 * once, and every failure becomes its answer: an OAuth error as JSON (RFC 6749 §5.2), a body that
 * cannot be read its 4xx, and anything else a logged 5xx that tells the client nothing more.
 */

import type { ResponseInternal } from "../../shapes/data.js";
import { AuthError } from "../base/errors.js";
import { BadBody } from "../http/request.js";
import type { IncomingRequest } from "../serve/pipeline.js";
import { authorize, consent } from "./authorize.js";
import type { Endpoints, ServerState } from "./config.js";
import { answerDevice, deviceAuthorization, devicePage } from "./device.js";
import { introspect, jwks, metadata, revoke, userinfo } from "./endpoints.js";
import { badBodyAnswer, corsHeaders, errorAnswer, json, OAuthError, readRequest, type ServerRequest } from "./http.js";
import { logout } from "./logout.js";
import { messagePage } from "./pages.js";
import { register } from "./registration.js";
import { token } from "./token.js";

type Route = keyof Endpoints | "metadata";

/** The methods of each endpoint. */
const METHODS: Record<Route, readonly string[]> = {
  metadata: ["GET"],
  jwks: ["GET"],
  authorization: ["GET", "POST"],
  consent: ["POST"],
  token: ["POST"],
  revocation: ["POST"],
  introspection: ["POST"],
  userinfo: ["GET", "POST"],
  deviceAuthorization: ["POST"],
  device: ["GET", "POST"],
  endSession: ["GET", "POST"],
  registration: ["POST"],
};

/** The endpoints a browser page of another origin may call (public clients): never with credentials. */
const CROSS_ORIGIN = new Set<Route>(["metadata", "jwks", "token", "revocation", "userinfo", "registration"]);
/** The endpoints that answer with pages, not JSON. */
const PAGES = new Set<Route>(["authorization", "consent", "device", "endSession"]);

function routeOf(server: ServerState, pathname: string): Route | undefined {
  if (server.metadataPaths.has(pathname)) return "metadata";
  return server.routes.get(pathname);
}

async function dispatch(server: ServerState, route: Route, req: ServerRequest): Promise<ResponseInternal> {
  switch (route) {
    case "metadata":
      return metadata(server);
    case "jwks":
      return jwks(server);
    case "authorization":
      return authorize(server, req);
    case "consent":
      return consent(server, req, (request, signedIn, allow) => answerDevice(server, request, signedIn, allow));
    case "token":
      return token(server, req);
    case "revocation":
      return revoke(server, req);
    case "introspection":
      return introspect(server, req);
    case "userinfo":
      return userinfo(server, req);
    case "deviceAuthorization":
      return deviceAuthorization(server, req);
    case "device":
      return devicePage(server, req);
    case "endSession":
      return logout(server, req);
    case "registration":
      throw new Error("registration is answered from the incoming request");
  }
}

/**
 * Answers `incoming` when its path is one of the server's (the endpoints under its path and the
 * metadata documents); `undefined` otherwise. Never throws for anything a request holds.
 *
 * @example
 * ```ts
 * const answer = await serveAuthorization(state, toIncoming(req))
 * if (answer) writeNodeResponse(res, answer); else next()
 * ```
 */
export async function serveAuthorization(
  server: ServerState,
  incoming: IncomingRequest,
): Promise<ResponseInternal | undefined> {
  if (!incoming.path.startsWith("/")) return undefined;
  const url = new URL(`${server.origin}${incoming.path}`);
  const route = routeOf(server, url.pathname);
  if (!route) return undefined;
  const cors = CROSS_ORIGIN.has(route) ? corsHeaders : {};
  if (incoming.method === "OPTIONS" && CROSS_ORIGIN.has(route)) return { status: 204, headers: { ...cors } };
  if (!METHODS[route].includes(incoming.method)) {
    return json({ error: "invalid_request", error_description: `Use ${METHODS[route].join(" or ")}` }, 405, {
      Allow: METHODS[route].join(", "),
      ...cors,
    });
  }
  try {
    const answer =
      route === "registration"
        ? await register(server, incoming)
        : await dispatch(server, route, await readRequest(incoming, url));
    return CROSS_ORIGIN.has(route) ? { ...answer, headers: { ...cors, ...answer.headers } } : answer;
  } catch (e) {
    if (e instanceof OAuthError) {
      if (PAGES.has(route) && e.error === "invalid_request")
        return messagePage({
          theme: server.latchkey().theme,
          title: "This request cannot be completed",
          text: e.description,
          status: 400,
        });
      return errorAnswer(e, cors);
    }
    if (e instanceof BadBody) return badBodyAnswer(e);
    const logger = server.latchkey().logger;
    logger.error(e instanceof Error ? e : new AuthError(String(e)));
    const configuration = e instanceof AuthError;
    if (PAGES.has(route)) {
      return messagePage({
        theme: server.latchkey().theme,
        title: "Something went wrong",
        text: "The server could not complete the request. Try again in a moment.",
        status: configuration ? 500 : 503,
      });
    }
    return configuration
      ? json({ error: "server_error", error_description: "The server could not complete the request" }, 500, cors)
      : json({ error: "temporarily_unavailable", error_description: "Try again in a moment" }, 503, cors);
  }
}
