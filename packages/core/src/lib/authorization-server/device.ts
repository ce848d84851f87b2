/**
 * The device authorization grant (RFC 8628) for CLIs and TVs: the device asks for a code pair,
 * shows the user code, and polls the token endpoint; the user types the code into `<path>/device`
 * under a signed-in Latchkey session and consents there, as in the redirect flow.
 */
import { randomInt } from "#platform";
import type { ResponseInternal } from "../../shapes/data.js";
import { MissingCSRF } from "../base/errors.js";
import { askDeviceConsent } from "./authorize.js";
import { authenticateClient, loadClient } from "./clients.js";
import type { ServerState } from "./config.js";
import { digest, randomToken } from "./crypto.js";
import { grant } from "./grants.js";
import { json, OAuthError, redirect, type ServerRequest, scopesOf } from "./http.js";
import { deviceCodePage, messagePage } from "./pages.js";
import { type DeviceData, dataOf, type InteractionData, isDeviceData, type SignedInAs } from "./records.js";
import { checkFormPost, csrfToken, signedInUser, signInUrl } from "./signed-in.js";
import { resourceProblem } from "./uris.js";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** RFC 8628 §6.1: consonants only (no vowels, so no words), no look-alikes. */
const ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
const USER_CODE_LENGTH = 8;
const INTERVAL = 5;
/** Codes a user may try per window before the form refuses (RFC 8628 §5.1: brute force). */
const ATTEMPTS = { max: 10, windowSeconds: 15 * 60 };
/** How long an expired device code is still recognised, to answer `expired_token`. */
const EXPIRED_KEPT_MS = 10 * 60_000;

/** A random user code, each character uniform over the alphabet. */
function newUserCode(): string {
  let code = "";
  while (code.length < USER_CODE_LENGTH) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** A typed user code as stored: upper case, separators and spaces dropped. */
export function normalizeUserCode(typed: string): string {
  return typed.toUpperCase().replace(/[^A-Z]/g, "");
}

const shownCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/** `POST <path>/device_authorization` (RFC 8628 §3.1). */
export async function deviceAuthorization(server: ServerState, req: ServerRequest): Promise<ResponseInternal> {
  const client = await authenticateClient(server, req);
  if (!client.grantTypes.includes(DEVICE_GRANT))
    throw new OAuthError("unauthorized_client", "The client may not use the device authorization grant");
  const scopes = scopesOf(req.body.one("scope"));
  const refused = scopes.filter((s) => !client.scopes.includes(s));
  if (refused.length) throw new OAuthError("invalid_scope", `The client may not ask for ${refused.join(" ")}`);
  const resources = [...new Set(req.body.all("resource"))];
  for (const resource of resources) {
    const problem = resourceProblem(resource);
    if (problem) throw new OAuthError("invalid_target", problem);
    if (!client.resources.includes(resource))
      throw new OAuthError("invalid_target", `No token may be issued for ${resource}`);
  }
  const deviceCode = randomToken(32);
  const deviceId = digest(deviceCode);
  const expiresAt = Date.now() + server.ttl.deviceCode * 1000;
  let userCode = newUserCode();
  // A user code names one pending device at a time: a collision draws another.
  while (!(await server.store.add({ kind: "user-code", id: userCode, data: { deviceId }, expiresAt, version: 1 })))
    userCode = newUserCode();
  const data: DeviceData = {
    clientId: client.clientId,
    scopes,
    resources,
    userCode,
    status: "pending",
    expiresAt,
    interval: INTERVAL,
  };
  await server.store.set({
    kind: "device",
    id: deviceId,
    data: { ...data },
    clientId: client.clientId,
    expiresAt: expiresAt + EXPIRED_KEPT_MS,
    version: 1,
  });
  const complete = new URL(server.endpoints.device);
  complete.searchParams.set("user_code", shownCode(userCode));
  return json({
    device_code: deviceCode,
    user_code: shownCode(userCode),
    verification_uri: server.endpoints.device,
    verification_uri_complete: complete.href,
    expires_in: server.ttl.deviceCode,
    interval: INTERVAL,
  });
}

/** The pending device a typed user code names, or null. */
async function pendingDevice(
  server: ServerState,
  typed: string,
): Promise<{ deviceId: string; device: DeviceData } | null> {
  const code = normalizeUserCode(typed);
  if (code.length !== USER_CODE_LENGTH) return null;
  const link = await server.store.get("user-code", code);
  const deviceId = link?.data.deviceId;
  if (typeof deviceId !== "string") return null;
  const device = dataOf(await server.store.get("device", deviceId), isDeviceData);
  if (device?.status !== "pending" || device.expiresAt <= Date.now() || device.userCode !== code) return null;
  return { deviceId, device };
}

/** Counts a code the user typed against the user's budget; false once it is spent. */
async function mayTry(server: ServerState, userId: string): Promise<boolean> {
  const store = server.latchkey().rateLimit?.store;
  if (!store) return true;
  const hit = await store.increment(`authorization-server:user-code:${digest(userId)}`, ATTEMPTS.windowSeconds * 1000);
  return hit.count <= ATTEMPTS.max;
}

/** `GET|POST <path>/device`: the code form, and the consent for the device it names. */
export async function devicePage(server: ServerState, req: ServerRequest): Promise<ResponseInternal> {
  const theme = server.latchkey().theme;
  const signedIn = await signedInUser(server, req);
  if (!signedIn) {
    const back = new URL(server.endpoints.device);
    const typed = req.query.one("user_code");
    if (typed !== undefined) back.searchParams.set("user_code", typed.slice(0, 20));
    return redirect(signInUrl(server, back.href));
  }
  const form = (error?: string, userCode?: string) => {
    const { token, cookies } = csrfToken(server, req);
    return deviceCodePage({
      theme,
      cookies,
      action: server.endpoints.device,
      csrfToken: token,
      ...(userCode !== undefined && { userCode: userCode.slice(0, 20) }),
      ...(error !== undefined && { error }),
    });
  };
  if (req.method !== "POST") return form(undefined, req.query.one("user_code"));
  try {
    checkFormPost(server, req, "The device code");
  } catch (e) {
    if (e instanceof MissingCSRF) return form("The form expired. Please try again.");
    throw e;
  }
  const typed = req.body.one("user_code") ?? "";
  if (!(await mayTry(server, signedIn.userId))) return form("Too many codes were tried. Try again in a few minutes.");
  const found = await pendingDevice(server, typed);
  const client = found && (await loadClient(server, found.device.clientId));
  if (!found || !client)
    return form("That code is not valid. Check the code on your device; it may have expired.", typed);
  const request: InteractionData = {
    clientId: client.clientId,
    redirectUri: "",
    scopes: found.device.scopes,
    resources: found.device.resources,
    codeChallenge: "",
    prompt: [],
    deviceId: found.deviceId,
  };
  return askDeviceConsent(server, req, client, request, signedIn);
}

/** The user's answer for a device (from the consent page): the device's next poll gets the tokens or `access_denied`. */
export async function answerDevice(
  server: ServerState,
  request: InteractionData,
  signedIn: SignedInAs,
  allow: boolean,
): Promise<ResponseInternal> {
  const theme = server.latchkey().theme;
  const expired = () =>
    messagePage({ theme, title: "This code has expired", text: "Start again on your device.", status: 400 });
  if (request.deviceId === undefined) return expired();
  const record = await server.store.get("device", request.deviceId);
  const device = dataOf(record, isDeviceData);
  if (!record || !device || device.status !== "pending" || device.expiresAt <= Date.now()) return expired();
  let next: DeviceData = { ...device, status: "denied" };
  if (allow) {
    const granted = await grant(server, signedIn.userId, device.clientId, device.scopes, device.resources);
    next = { ...device, status: "approved", grantId: granted.grantId, signedIn };
  }
  // Once: the user code is spent, and of two answers at once one counts.
  if (!(await server.store.swap({ ...record, data: { ...next }, version: record.version + 1 }))) return expired();
  await server.store.delete("user-code", device.userCode);
  return allow
    ? messagePage({ theme, title: "Device connected", text: "You can return to your device." })
    : messagePage({ theme, title: "Request denied", text: "The device was not connected." });
}
