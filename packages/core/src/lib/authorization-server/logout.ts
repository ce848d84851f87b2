/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) and back-channel logout (OpenID
 * Connect Back-Channel Logout 1.0). A client sends the browser to `<path>/logout`; the user
 * confirms (a CSRF-checked form), and every Latchkey session of the user ends, on every instance
 * (Latchkey's revocation: `revokeUserSessions`); each client the user authorised that registered
 * a back-channel logout URI is told with a logout token, the refresh tokens not granted
 * `offline_access` end, and the browser goes back where the client asked, if it registered it.
 */
import { compactVerify, decodeJwt } from "jose";
import type { ResponseInternal } from "../../shapes/data.js";
import { MissingCSRF } from "../base/errors.js";
import { loadClient } from "./clients.js";
import type { ServerState } from "./config.js";
import { redirect, type ServerRequest } from "./http.js";
import { logoutPage, messagePage } from "./pages.js";
import { type ClientData, dataOf, isFamilyData, isGrantData, type SignedInAs } from "./records.js";
import { checkFormPost, csrfToken, signedInUser } from "./signed-in.js";
import { endFamily } from "./token.js";
import { issueLogoutToken } from "./tokens.js";

/** How long a back-channel logout request may take before it counts as failed. */
const BACKCHANNEL_TIMEOUT_MS = 5000;

/** The client an `id_token_hint` was issued to, if this server signed it (its expiry does not matter, §2). */
async function hintedClient(server: ServerState, hint: string): Promise<string | undefined> {
  try {
    await compactVerify(hint, await server.keys.verifier());
    const { iss, aud } = decodeJwt(hint);
    if (iss !== server.issuer) return undefined;
    const clientId = Array.isArray(aud) ? aud[0] : aud;
    return typeof clientId === "string" ? clientId : undefined;
  } catch {
    return undefined;
  }
}

interface LogoutRequest {
  client?: ClientData;
  postLogoutRedirectUri?: string;
  state?: string;
}

/** The request's client and where to go afterwards, checked (§3: only a URI the client registered). */
async function checkLogoutRequest(server: ServerState, req: ServerRequest): Promise<LogoutRequest | string> {
  const params = req.params;
  const hint = params.one("id_token_hint");
  const named = params.one("client_id");
  const hinted = hint !== undefined ? await hintedClient(server, hint) : undefined;
  if (hint !== undefined && hinted === undefined)
    return "The sign-out request carries an ID token this site did not issue.";
  if (named !== undefined && hinted !== undefined && named !== hinted)
    return "The sign-out request names two different applications.";
  const clientId = hinted ?? named;
  const client = clientId !== undefined ? await loadClient(server, clientId) : null;
  if (clientId !== undefined && !client) return "The application that sent you here is not registered.";
  const target = params.one("post_logout_redirect_uri");
  if (target !== undefined && !client?.postLogoutRedirectUris.includes(target))
    return "The address the application asked to return to is not one it registered.";
  const state = params.one("state");
  return {
    ...(client && { client }),
    ...(target !== undefined && { postLogoutRedirectUri: target }),
    ...(state !== undefined && { state }),
  };
}

/** Tells each client with a back-channel logout URI that `signedIn`'s session ended; failures are logged. */
async function backchannelLogout(server: ServerState, signedIn: SignedInAs): Promise<void> {
  const grants = (await server.store.find("grant", { userId: signedIn.userId }))
    .map((r) => dataOf(r, isGrantData))
    .filter((g) => g !== null);
  const logger = server.latchkey().logger;
  await Promise.all(
    grants.map(async (grant) => {
      const client = await loadClient(server, grant.clientId);
      if (!client?.backchannelLogoutUri) return;
      try {
        const logoutToken = await issueLogoutToken(server, {
          clientId: client.clientId,
          userId: signedIn.userId,
          ...(signedIn.sessionId !== undefined && { sessionId: signedIn.sessionId }),
        });
        const response = await server.fetch(client.backchannelLogoutUri, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ logout_token: logoutToken }).toString(),
          redirect: "manual",
          signal: AbortSignal.timeout(BACKCHANNEL_TIMEOUT_MS),
        });
        if (!response.ok) throw new Error(`it answered ${response.status}`);
      } catch (e) {
        logger.warn(
          "backchannel-logout-failed",
          `The back-channel logout of client ${client.clientId} failed (${e instanceof Error ? e.message : String(e)}): its session of the user may live on`,
        );
      }
    }),
  );
}

/** Ends the user's refresh families that were not granted `offline_access`: they belonged to the sessions that ended. */
async function endOnlineFamilies(server: ServerState, userId: string): Promise<void> {
  for (const record of await server.store.find("family", { userId })) {
    const family = dataOf(record, isFamilyData);
    if (family && !family.scopes.includes("offline_access")) await endFamily(server, record.id);
  }
}

/** Where the browser goes once signed out: the client's registered URI (with `state`), or a page. */
function afterLogout(server: ServerState, request: LogoutRequest): ResponseInternal {
  if (request.postLogoutRedirectUri === undefined)
    return messagePage({ theme: server.latchkey().theme, title: "Signed out", text: "You are signed out everywhere." });
  const url = new URL(request.postLogoutRedirectUri);
  if (request.state !== undefined) url.searchParams.append("state", request.state);
  return redirect(url.href);
}

/** `GET|POST <path>/logout`: the confirmation page, then the sign-out. */
export async function logout(server: ServerState, req: ServerRequest): Promise<ResponseInternal> {
  const theme = server.latchkey().theme;
  const checked = await checkLogoutRequest(server, req);
  if (typeof checked === "string")
    return messagePage({ theme, title: "This sign-out cannot be completed", text: checked, status: 400 });
  const signedIn = await signedInUser(server, req);
  if (!signedIn) return afterLogout(server, checked);
  const confirmed = req.method === "POST" && req.body.has("csrfToken");
  if (!confirmed) {
    const { token, cookies } = csrfToken(server, req);
    const fields: Record<string, string> = {};
    if (checked.client) fields.client_id = checked.client.clientId;
    if (checked.postLogoutRedirectUri !== undefined) fields.post_logout_redirect_uri = checked.postLogoutRedirectUri;
    if (checked.state !== undefined) fields.state = checked.state;
    return logoutPage({
      theme,
      cookies,
      action: server.endpoints.endSession,
      csrfToken: token,
      ...(checked.client && { clientName: checked.client.name }),
      fields,
    });
  }
  try {
    checkFormPost(server, req, "The sign-out");
  } catch (e) {
    if (e instanceof MissingCSRF)
      return messagePage({ theme, title: "This form has expired", text: "Sign out again.", status: 403 });
    throw e;
  }
  try {
    await server.endSessions(signedIn.userId);
  } catch (e) {
    server.latchkey().logger.error(e instanceof Error ? e : new Error(String(e)));
    return messagePage({
      theme,
      title: "Sign-out did not complete",
      text: "The server could not confirm that your sessions ended. Try again in a moment.",
      status: 503,
    });
  }
  await endOnlineFamilies(server, signedIn.userId);
  await backchannelLogout(server, signedIn);
  return afterLogout(server, checked);
}
