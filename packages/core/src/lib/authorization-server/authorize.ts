/**
 * The authorization endpoint (OAuth 2.1 §4.1.1, OIDC Core §3.1.2) and the consent it may ask.
 *
 * A request is checked in the order that decides where its errors go: the client and the
 * redirect URI first (an error then is shown here, never sent to an unchecked URI), then the rest
 * (its errors go back to the client, with `state` and `iss`). Then, by the user's Latchkey
 * session: sign in (or again, for `prompt=login` and `max_age`), consent unless a grant already
 * covers the request, and the code. A request waiting for a sign-in or a consent is kept in the
 * store as an interaction, named by a random id, and resumed by it.
 */

import type { ResponseInternal } from "../../shapes/data.js";
import { MissingCSRF } from "../base/errors.js";
import { vouchingHost } from "./client-metadata.js";
import { loadClient } from "./clients.js";
import type { ServerState } from "./config.js";
import { digest, randomToken } from "./crypto.js";
import { covers, grant, grantOf } from "./grants.js";
import { OAuthError, redirect, type ServerRequest, scopesOf } from "./http.js";
import { consentPage, messagePage } from "./pages.js";
import {
  type ClientData,
  type CodeData,
  dataOf,
  type InteractionData,
  isInteractionData,
  type SignedInAs,
} from "./records.js";
import { checkFormPost, csrfToken, signedInUser, signInUrl } from "./signed-in.js";
import { matchRedirectUri, resourceProblem } from "./uris.js";

/** RFC 7636 §4.2: the challenge of S256 is 43 base64url characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PROMPTS = new Set(["none", "login", "consent", "select_account"]);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An error shown to the user, for a request whose client or redirect URI cannot be trusted. */
class ShownError extends Error {}

/** An error sent back to the client's redirect URI (checked by then). */
class ReturnedError extends Error {
  constructor(
    readonly back: Pick<InteractionData, "redirectUri" | "state">,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

/** The client's redirect URI with the response's parameters, `iss` always (RFC 9207). */
function responseUrl(server: ServerState, redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  url.searchParams.append("iss", server.issuer);
  return url.href;
}

function errorRedirect(
  server: ServerState,
  request: Pick<InteractionData, "redirectUri" | "state">,
  error: string,
  description: string,
) {
  return redirect(
    responseUrl(server, request.redirectUri, { error, error_description: description, state: request.state }),
  );
}

function shown(server: ServerState, title: string, text: string, status = 400): ResponseInternal {
  return messagePage({ theme: server.latchkey().theme, title, text, status });
}

/** The checks of a new authorization request, in the order of OAuth 2.1 §4.1.2.1. */
async function checkRequest(
  server: ServerState,
  req: ServerRequest,
): Promise<{ request: InteractionData; client: ClientData }> {
  const params = req.params;
  const clientId = params.one("client_id");
  if (clientId === undefined) throw new ShownError("The request names no client (client_id).");
  const client = await loadClient(server, clientId);
  if (!client) throw new ShownError("The application that sent you here is not registered.");
  const redirectUri = matchRedirectUri(client.redirectUris, params.one("redirect_uri"));
  if (redirectUri === undefined)
    throw new ShownError("The address the application asked to return to is not one it registered.");
  let state: string | undefined;
  try {
    state = params.one("state");
  } catch {
    throw new ShownError("The request repeats its state parameter.");
  }
  const back = { redirectUri, state };
  const refuse = (error: string, description: string) => new ReturnedError(back, error, description);
  try {
    if (params.has("request")) throw refuse("request_not_supported", "Request objects are not supported");
    if (params.has("request_uri")) throw refuse("request_uri_not_supported", "request_uri is not supported");
    if (params.one("response_type") !== "code")
      throw refuse("unsupported_response_type", "Only response_type=code is supported");
    const mode = params.one("response_mode");
    if (mode !== undefined && mode !== "query")
      throw refuse("invalid_request", "Only response_mode=query is supported");
    if (!client.grantTypes.includes("authorization_code"))
      throw refuse("unauthorized_client", "The client may not use the authorization code grant");
    const challenge = params.one("code_challenge");
    const method = params.one("code_challenge_method");
    if (challenge === undefined || method !== "S256" || !S256_CHALLENGE.test(challenge))
      throw refuse("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256");
    const scopes = scopesOf(params.one("scope"));
    const refused = scopes.filter((s) => !client.scopes.includes(s) || !server.scopes.has(s));
    if (refused.length) throw refuse("invalid_scope", `The client may not ask for ${refused.join(" ")}`);
    const resources = [...new Set(params.all("resource"))];
    for (const resource of resources) {
      const problem = resourceProblem(resource);
      if (problem) throw refuse("invalid_target", problem);
      if (!client.resources.includes(resource))
        throw refuse("invalid_target", `The client may not ask for tokens for ${resource}`);
    }
    const prompt = scopesOf(params.one("prompt")).filter((p) => PROMPTS.has(p));
    if (prompt.includes("none") && prompt.length > 1)
      throw refuse("invalid_request", "prompt=none cannot be combined with other prompts");
    const maxAgeText = params.one("max_age");
    let maxAge: number | undefined;
    if (maxAgeText !== undefined) {
      if (!/^\d{1,9}$/.test(maxAgeText)) throw refuse("invalid_request", "max_age must be a number of seconds");
      maxAge = Number(maxAgeText);
    }
    const nonce = params.one("nonce");
    const request: InteractionData = { clientId, redirectUri, scopes, resources, codeChallenge: challenge, prompt };
    if (state !== undefined) request.state = state;
    if (nonce !== undefined) request.nonce = nonce;
    if (maxAge !== undefined) request.maxAge = maxAge;
    return { request, client };
  } catch (e) {
    if (e instanceof OAuthError) throw refuse(e.error, e.description);
    throw e;
  }
}

/**
 * Whether `signedIn` is fresh enough for `request`: `prompt=login` and `max_age` ask for a recent
 * sign-in. Once the browser was sent to sign in again (`signInAfter`), only a sign-in since then
 * counts: a later second, or the same second in another session than the stale one (sign-in times
 * are whole seconds).
 */
function freshEnough(request: InteractionData, signedIn: SignedInAs): boolean {
  if (request.signInAfter !== undefined) {
    const { authTime, sessionId } = signedIn;
    return (
      authTime > request.signInAfter ||
      (authTime === request.signInAfter && sessionId !== undefined && sessionId !== request.staleSession)
    );
  }
  return request.maxAge === undefined || nowSeconds() - signedIn.authTime <= request.maxAge;
}

/** Keeps `request` for a sign-in or a consent; answers its id. */
async function saveInteraction(server: ServerState, request: InteractionData, id = randomToken(32)): Promise<string> {
  await server.store.set({
    kind: "interaction",
    id,
    data: { ...request },
    clientId: request.clientId,
    ...(request.userId !== undefined && { userId: request.userId }),
    expiresAt: Date.now() + server.ttl.interaction * 1000,
    version: 1,
  });
  return id;
}

/** The interaction `id`, or null when it is unknown or expired. */
export async function loadInteraction(server: ServerState, id: string | undefined): Promise<InteractionData | null> {
  if (id === undefined || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
  return dataOf(await server.store.get("interaction", id), isInteractionData);
}

/** An authorization code for `request`, kept under its digest. */
async function issueCode(
  server: ServerState,
  request: InteractionData,
  signedIn: SignedInAs,
  grantId: string,
): Promise<string> {
  const code = randomToken(32);
  const data: CodeData = {
    ...signedIn,
    clientId: request.clientId,
    grantId,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    resources: request.resources,
    codeChallenge: request.codeChallenge,
    ...(request.nonce !== undefined && { nonce: request.nonce }),
  };
  await server.store.set({
    kind: "code",
    id: digest(code),
    data: { ...data },
    userId: signedIn.userId,
    clientId: request.clientId,
    grantId,
    expiresAt: Date.now() + server.ttl.authorizationCode * 1000,
    version: 1,
  });
  return code;
}

/** The name the pages show for the signed-in user. */
async function userLabel(server: ServerState, userId: string): Promise<string> {
  const user = await server.auth.adapter?.getUser?.(userId);
  return user?.email || user?.name || "you";
}

/** The consent page (built-in, or the application's own `pages.consent`) for interaction `id`. */
async function askConsent(
  server: ServerState,
  req: ServerRequest,
  client: ClientData,
  request: InteractionData,
  id: string,
  signedIn: SignedInAs,
): Promise<ResponseInternal> {
  if (server.consentPage) {
    const url = new URL(server.consentPage, server.origin);
    url.searchParams.set("interaction", id);
    return redirect(url.href);
  }
  const existing = await grantOf(server, signedIn.userId, client.clientId);
  const { token, cookies } = csrfToken(server, req);
  return consentPage({
    theme: server.latchkey().theme,
    cookies,
    clientName: client.name,
    clientHost: request.deviceId === undefined ? vouchingHost(client, request.redirectUri) : undefined,
    redirectHost: request.deviceId === undefined ? new URL(request.redirectUri).host || request.redirectUri : "",
    user: await userLabel(server, signedIn.userId),
    scopes: request.scopes.filter((s) => !existing?.scopes.includes(s) || request.prompt.includes("consent")),
    resources: request.resources,
    action: server.endpoints.consent,
    interaction: id,
    csrfToken: token,
    device: request.deviceId !== undefined,
  });
}

/**
 * What happens to a checked request now, by the user's session: sign in, consent, or the code.
 * `id` is the interaction's when the request was resumed.
 */
async function proceed(
  server: ServerState,
  req: ServerRequest,
  client: ClientData,
  request: InteractionData,
  id: string | undefined,
): Promise<ResponseInternal> {
  const signedIn = await signedInUser(server, req);
  const none = request.prompt.includes("none");
  const again = request.prompt.includes("login") || request.prompt.includes("select_account");
  if (!signedIn || again || !freshEnough(request, signedIn)) {
    if (none) return errorRedirect(server, request, "login_required", "The user is not signed in");
    // A new sign-in must begin after this point, whatever session the browser holds now.
    const fresh = again || signedIn !== null;
    const { maxAge: _satisfiedBySignIn, ...rest } = request;
    const resumed: InteractionData = fresh
      ? { ...rest, signInAfter: request.signInAfter ?? nowSeconds() }
      : { ...request };
    resumed.prompt = request.prompt.filter((p) => p !== "login" && p !== "select_account");
    if (fresh && signedIn?.sessionId !== undefined && request.signInAfter === undefined)
      resumed.staleSession = signedIn.sessionId;
    const interaction = await saveInteraction(server, resumed, id);
    const resume = new URL(server.endpoints.authorization);
    resume.searchParams.set("interaction", interaction);
    return redirect(signInUrl(server, resume.href));
  }
  const existing = await grantOf(server, signedIn.userId, client.clientId);
  const askAgain = request.prompt.includes("consent");
  if (!client.skipConsent && (askAgain || !covers(existing, request.scopes, request.resources))) {
    if (none) return errorRedirect(server, request, "consent_required", "The user has not consented to this client");
    const interaction = await saveInteraction(server, { ...request, userId: signedIn.userId }, id);
    return askConsent(server, req, client, request, interaction, signedIn);
  }
  if (id !== undefined) await server.store.delete("interaction", id);
  const granted = client.skipConsent
    ? await grant(server, signedIn.userId, client.clientId, request.scopes, request.resources)
    : existing;
  if (!granted) return errorRedirect(server, request, "server_error", "The grant could not be found");
  const code = await issueCode(server, request, signedIn, granted.grantId);
  return redirect(responseUrl(server, request.redirectUri, { code, state: request.state }));
}

/** `GET|POST <path>/authorize`. */
export async function authorize(server: ServerState, req: ServerRequest): Promise<ResponseInternal> {
  const interactionId = req.params.one("interaction");
  if (interactionId !== undefined) {
    const request = await loadInteraction(server, interactionId);
    const client = request && (await loadClient(server, request.clientId));
    if (
      !request ||
      !client ||
      request.deviceId !== undefined ||
      !matchRedirectUri(client.redirectUris, request.redirectUri)
    )
      return shown(server, "This request has expired", "Go back to the application and start again.");
    return proceed(server, req, client, request, interactionId);
  }
  let checked: Awaited<ReturnType<typeof checkRequest>>;
  try {
    checked = await checkRequest(server, req);
  } catch (e) {
    if (e instanceof ShownError) return shown(server, "This request cannot be completed", e.message);
    if (e instanceof OAuthError) return shown(server, "This request cannot be completed", e.description);
    if (e instanceof ReturnedError) return errorRedirect(server, e.back, e.error, e.message);
    throw e;
  }
  return proceed(server, req, checked.client, checked.request, undefined);
}

/**
 * `POST <path>/consent`: the user's answer. Only from the page the server showed to this very
 * user: the CSRF token of the user's browser, a same-origin post, the interaction shown to the
 * session's user (taken, so an answer counts once), and a sign-in still fresh enough.
 */
export async function consent(
  server: ServerState,
  req: ServerRequest,
  approveDevice: (request: InteractionData, signedIn: SignedInAs, allow: boolean) => Promise<ResponseInternal>,
): Promise<ResponseInternal> {
  try {
    checkFormPost(server, req, "The consent");
  } catch (e) {
    if (e instanceof MissingCSRF)
      return shown(server, "This form has expired", "Go back to the application and start again.", 403);
    throw e;
  }
  const id = req.body.one("interaction");
  const decision = req.body.one("decision");
  const request = await loadInteraction(server, id);
  const signedIn = await signedInUser(server, req);
  if (!request || !id || !signedIn || request.userId !== signedIn.userId || !freshEnough(request, signedIn))
    return shown(server, "This request has expired", "Go back to the application and start again.");
  if (decision !== "allow" && decision !== "deny") return shown(server, "No answer was given", "Choose Allow or Deny.");
  // Taken: of two answers posted at once, one counts.
  if (!(await server.store.take("interaction", id)))
    return shown(server, "This request has expired", "Go back to the application and start again.");
  if (request.deviceId !== undefined) return approveDevice(request, signedIn, decision === "allow");
  const client = await loadClient(server, request.clientId);
  if (!client || !matchRedirectUri(client.redirectUris, request.redirectUri))
    return shown(server, "This request has expired", "Go back to the application and start again.");
  if (decision === "deny") return errorRedirect(server, request, "access_denied", "The user denied the request");
  const granted = await grant(server, signedIn.userId, client.clientId, request.scopes, request.resources);
  const code = await issueCode(server, request, signedIn, granted.grantId);
  return redirect(responseUrl(server, request.redirectUri, { code, state: request.state }));
}

/** Saves an interaction for a device's consent (the device flow's page asks it like the redirect flow). */
export async function askDeviceConsent(
  server: ServerState,
  req: ServerRequest,
  client: ClientData,
  request: InteractionData,
  signedIn: SignedInAs,
): Promise<ResponseInternal> {
  const id = await saveInteraction(server, { ...request, userId: signedIn.userId });
  return askConsent(server, req, client, request, id, signedIn);
}
