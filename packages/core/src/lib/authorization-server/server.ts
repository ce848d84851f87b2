/**
 * The authorization server's face: `AuthorizationServer(options)` makes a server (its options
 * checked at once), whose endpoints a framework serves through `serveAuthorization` (or a Web
 * `Request` through `server.fetch`); the functions below act on a server outside requests. The
 * resolved state stays inside (a `WeakMap` keyed by the server object), so nothing the
 * application holds can change it.
 */
import type { AuthConfig } from "../config/options.js";
import { serializeCookie } from "../http/cookies.js";
import { toResponse } from "../http/response.js";
import { webIncoming } from "../http/web-incoming.js";
import { requireCsrf } from "../serve/csrf-check.js";
import { type IncomingRequest, type SessionRequest, sessionCookieOf, sessionRequestOf } from "../serve/pipeline.js";
import { liveAccessToken } from "./access-token.js";
import * as admin from "./admin.js";
import { loadInteraction } from "./authorize.js";
import { vouchingHost } from "./client-metadata.js";
import { loadClient } from "./clients.js";
import { resolveServer, type ServerState } from "./config.js";
import { incomingConfig, incomingHandler, type ServableServer } from "./incoming.js";
import type { AuthorizationServerOptions, Client, ClientRegistration, ConsentDetails } from "./options.js";
import { type LocalServer, localIssuer } from "./resource-server.js";
import { serveAuthorization as serve } from "./serve.js";
import { csrfToken, signedInUser } from "./signed-in.js";
import { ImportedKeys } from "./verify-jwt.js";

export type { AuthorizedApp } from "./admin.js";
export type * from "./options.js";
export type * from "./store.js";
export { MemoryAuthorizationStore } from "./store.js";

/**
 * An authorization server. Serve it with your framework's adapter (`ExpressAuthorizationServer`
 * from `@latchkey/express`), or with `fetch` where handlers take a Web `Request`.
 */
export interface AuthorizationServer extends ServableServer, LocalServer {
  /** The issuer identifier, exactly as configured. */
  readonly issuer: string;
  /**
   * The answer to a Web `Request` whose path is one of the server's; `undefined` for any other
   * path, which the application serves itself.
   *
   * @example
   * ```ts
   * app.use("*", async (c, next) => (await server.fetch(c.req.raw)) ?? next())  // Hono
   * ```
   */
  fetch(request: Request): Promise<Response | undefined>;
}

const states = new WeakMap<AuthorizationServer, ServerState>();

/** The resolved state of `server`; a `TypeError` for anything that is not a server. */
function stateOf(server: AuthorizationServer): ServerState {
  const state = states.get(server);
  if (!state) throw new TypeError("Expected a server made by AuthorizationServer(options)");
  return state;
}

/**
 * Makes an authorization server from `options`, checked now (a mistake throws
 * `InvalidConfiguration` naming the option and its fix). `endSessions` ends every Latchkey session
 * of a user (the sessions API's `revokeUserSessions`).
 */
export function createAuthorizationServer(
  options: AuthorizationServerOptions,
  endSessions: (auth: AuthConfig, userId: string) => Promise<unknown>,
): AuthorizationServer {
  const state = resolveServer(options, endSessions);
  const server: AuthorizationServer = Object.freeze({
    issuer: state.issuer,
    async fetch(request: Request): Promise<Response | undefined> {
      const answer = await serve(state, webIncoming(request, state.auth));
      return answer && toResponse(answer);
    },
    [incomingHandler]: (incoming: IncomingRequest) => serve(state, incoming),
    [incomingConfig]: { clientAddress: state.auth.clientAddress },
    [localIssuer]: {
      issuer: state.issuer,
      keys: { keys: () => state.keys.publicKeys(), refreshed: () => state.keys.publicKeys() },
      imported: new ImportedKeys(),
      revocation: state.revocation,
      opaque: async (token: string) => {
        const claims = await liveAccessToken(state, token);
        return claims && { ...claims };
      },
      algorithms: state.algorithms,
    },
  });
  states.set(server, state);
  return server;
}

/**
 * Registers a client; the answer carries its secret once (only a digest is kept).
 *
 * @example
 * ```ts
 * const { client, clientSecret } = await registerClient(server, { name: "Reports", redirectUris: ["https://reports.example/cb"], scopes: ["openid", "email"] })
 * ```
 */
export function registerClient(server: AuthorizationServer, registration: ClientRegistration) {
  return admin.registerClient(stateOf(server), registration);
}

/**
 * Changes a client's registration; the fields given replace the registered ones.
 *
 * @example
 * ```ts
 * await updateClient(server, clientId, { redirectUris: ["https://reports.example/callback"] })
 * ```
 */
export function updateClient(
  server: AuthorizationServer,
  clientId: string,
  changes: Partial<ClientRegistration>,
): Promise<Client> {
  return admin.updateClient(stateOf(server), clientId, changes);
}

/**
 * A new secret for a client (answered once); the old one works on for `graceSeconds`.
 *
 * @example
 * ```ts
 * const secret = await rotateClientSecret(server, clientId, { graceSeconds: 3600 })
 * ```
 */
export function rotateClientSecret(server: AuthorizationServer, clientId: string, options?: { graceSeconds?: number }) {
  return admin.rotateClientSecret(stateOf(server), clientId, options);
}

/**
 * Removes a client and ends everything issued to it.
 *
 * @example
 * ```ts
 * await removeClient(server, clientId) // true
 * ```
 */
export function removeClient(server: AuthorizationServer, clientId: string): Promise<boolean> {
  return admin.removeClient(stateOf(server), clientId);
}

/**
 * A registered client, or null.
 *
 * @example
 * ```ts
 * (await getClient(server, clientId))?.redirectUris
 * ```
 */
export function getClient(server: AuthorizationServer, clientId: string): Promise<Client | null> {
  return admin.getClient(stateOf(server), clientId);
}

/**
 * Every registered client, oldest first.
 *
 * @example
 * ```ts
 * for (const client of await listClients(server)) console.log(client.clientId, client.name)
 * ```
 */
export function listClients(server: AuthorizationServer): Promise<Client[]> {
  return admin.listClients(stateOf(server));
}

/**
 * Ends a user's grants (to one client, or to all), and at once every code and token issued
 * under them: for an administrator, or when a user's account is closed.
 *
 * @example
 * ```ts
 * await endUserGrants(server, user.id) // 3
 * ```
 */
export function endUserGrants(server: AuthorizationServer, userId: string, clientId?: string): Promise<number> {
  return admin.endGrants(stateOf(server), userId, clientId);
}

/**
 * The applications the signed-in user of `request` authorised (null when signed out): for the
 * user's page with a "revoke" button each ({@link revokeAuthorizedApp}).
 *
 * @example
 * ```ts
 * const apps = await authorizedApps(server, request) // [{ clientId, name: "Reports", scopes: ["openid", "email"], ... }]
 * ```
 */
export async function authorizedApps(server: AuthorizationServer, request: Request | SessionRequest) {
  const state = stateOf(server);
  const signedIn = await signedInUser(state, { cookieHeader: sessionRequestOf(request).cookieHeader ?? null });
  return signedIn ? admin.authorizedApps(state, signedIn.userId) : null;
}

/**
 * Revokes an application the signed-in user of `request` authorised: its grant, and at once its
 * codes, refresh tokens and access tokens. Checks the CSRF token the form posted (`csrfToken`,
 * the one Latchkey's forms carry; `getCsrfToken` of `@latchkey/core/sessions` gives it). Answers
 * false when signed out or when the user had not authorised it.
 *
 * @example
 * ```ts
 * const form = await request.formData()
 * await revokeAuthorizedApp(server, request, form.get("clientId"), { csrfToken: form.get("csrfToken") })
 * ```
 */
export async function revokeAuthorizedApp(
  server: AuthorizationServer,
  request: Request | SessionRequest,
  clientId: unknown,
  options: { csrfToken?: unknown } = {},
): Promise<boolean> {
  const state = stateOf(server);
  const described = sessionRequestOf(request);
  const { resolved, cookie, cookies } = sessionCookieOf(described, state.auth);
  requireCsrf(resolved, cookie, cookies, options.csrfToken, "revokeAuthorizedApp");
  const signedIn = await signedInUser(state, { cookieHeader: described.cookieHeader ?? null });
  if (!signedIn || typeof clientId !== "string") return false;
  return (await admin.endGrants(state, signedIn.userId, clientId)) > 0;
}

/**
 * What a consent page of the application's own (`pages.consent`) shows and posts, for the
 * `interaction` it was given: null when the interaction is unknown, expired, or not the signed-in
 * user's of `request`.
 *
 * @example
 * ```ts
 * const details = await consentDetails(server, request, url.searchParams.get("interaction"))
 * // render a form posting details.interaction, details.csrfToken and decision=allow|deny to details.action
 * ```
 */
export async function consentDetails(
  server: AuthorizationServer,
  request: Request | SessionRequest,
  interaction: unknown,
): Promise<ConsentDetails | null> {
  const state = stateOf(server);
  if (typeof interaction !== "string") return null;
  const cookieHeader = sessionRequestOf(request).cookieHeader ?? null;
  const [waiting, signedIn] = await Promise.all([
    loadInteraction(state, interaction),
    signedInUser(state, { cookieHeader }),
  ]);
  if (!waiting || !signedIn || waiting.userId !== signedIn.userId) return null;
  const client = await loadClient(state, waiting.clientId);
  if (!client) return null;
  const { token, cookies } = csrfToken(state, { cookieHeader });
  const vouching = waiting.redirectUri ? vouchingHost(client, waiting.redirectUri) : undefined;
  return {
    clientName: client.name,
    clientId: client.clientId,
    ...(vouching !== undefined && { clientHost: vouching }),
    redirectHost: waiting.redirectUri ? new URL(waiting.redirectUri).host || waiting.redirectUri : "",
    scopes: waiting.scopes,
    resources: waiting.resources,
    action: state.endpoints.consent,
    interaction,
    csrfToken: token,
    setCookie: cookies.map((c) => serializeCookie(c.name, c.value, c.options)),
  };
}
