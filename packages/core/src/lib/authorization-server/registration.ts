/**
 * Dynamic client registration (RFC 7591) at `<path>/register`, served only when the server was
 * given `dynamicRegistration`. A registration is JSON; its metadata is read by the same rules as
 * a metadata document's (`clientOfMetadata`), within the server's policy; a registered client is
 * kept like one the admin API registered, marked `origin: "registration"`. Registrations are
 * counted per client address in the application's rate-limit store, and may require an initial
 * access token (RFC 7591 §3).
 */
import { utf8 } from "#platform";
import type { ResponseInternal } from "../../shapes/data.js";
import { isPlainObject } from "../base/merge.js";
import { clientKey } from "../limits/attempts.js";
import type { IncomingRequest } from "../serve/pipeline.js";
import { storeNewClient } from "./admin.js";
import { clientOfMetadata, MetadataProblem } from "./client-metadata.js";
import type { ResolvedRegistration, ServerState } from "./config.js";
import { sameText } from "./crypto.js";
import { json, OAuthError } from "./http.js";

/** The largest registration taken, in bytes. */
const MAX_REGISTRATION_BYTES = 16 * 1024;

/** The registration's JSON object, or an `invalid_client_metadata` error. */
async function registrationOf(incoming: IncomingRequest): Promise<Record<string, unknown>> {
  const type = incoming.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json")
    throw new OAuthError("invalid_client_metadata", "A registration is an application/json body");
  const body = await incoming.body();
  let parsed: unknown = body;
  if (typeof body === "string") {
    if (utf8(body).byteLength > MAX_REGISTRATION_BYTES)
      throw new OAuthError("invalid_client_metadata", "The registration is too large");
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new OAuthError("invalid_client_metadata", "The registration is not valid JSON");
    }
  }
  if (!isPlainObject(parsed)) throw new OAuthError("invalid_client_metadata", "The registration is not a JSON object");
  return parsed;
}

/** Refuses a registration without the initial access token the server requires. */
function checkInitialAccessToken(server: ServerState, incoming: IncomingRequest): void {
  const expected = server.registration?.initialAccessToken;
  if (expected === undefined) return;
  const header = incoming.headers.get("authorization");
  const presented = header && /^bearer /i.test(header) ? header.slice(7).trim() : "";
  if (!presented || !sameText(presented, expected))
    throw new OAuthError("invalid_token", "Registration needs the initial access token", 401, {
      "WWW-Authenticate": 'Bearer error="invalid_token"',
    });
}

/**
 * Counts this registration against the client address's limit; a 429 past it. Registrations
 * whose address is unknown (a `fetch` handler without the `clientAddress` option) share one
 * budget: without it, anyone there could grow the client store without bound.
 */
async function countRegistration(server: ServerState, incoming: IncomingRequest): Promise<void> {
  const limits = server.registration?.perIp;
  const store = server.latchkey().rateLimit?.store;
  const key = clientKey(incoming.clientIp) ?? "-";
  if (!limits || !store) return;
  const hit = await store.increment(`oauth-register:${key}`, limits.windowSeconds * 1000);
  if (hit.count > limits.max)
    throw new OAuthError("too_many_requests", "Too many registrations from this address: try again later", 429, {
      "Retry-After": String(Math.max(1, Math.ceil((hit.resetAt - Date.now()) / 1000))),
    });
}

/** Each server's registrations in this process, one after the other (see `withinCap`). */
const registering = new WeakMap<ServerState, Promise<unknown>>();

/**
 * Runs `store` (storing one registration) when fewer than `maxClients` registered clients are
 * kept, else refuses with 503 `temporarily_unavailable` (with `Retry-After` when an unused one
 * will expire) and warns the operator. The count and the write run one registration at a time in
 * this process, so 40 at once against room for 5 store 5.
 */
function withinCap<T>(server: ServerState, policy: ResolvedRegistration, store: () => Promise<T>): Promise<T> {
  const run = async () => {
    const registered = (await server.store.find("client")).filter((r) => r.data.origin === "registration");
    if (registered.length >= policy.maxClients) {
      server
        .latchkey()
        .logger.warn(
          "dynamic-registration-full",
          `Dynamic registration refused: ${registered.length} registered clients are kept, \`dynamicRegistration.maxClients\` is ${policy.maxClients}. Unused ones expire after \`unusedSeconds\`; raise maxClients if these are real clients`,
        );
      const expiries = registered.flatMap((r) => (r.expiresAt === undefined ? [] : [r.expiresAt]));
      const retry = expiries.length ? Math.max(1, Math.ceil((Math.min(...expiries) - Date.now()) / 1000)) : undefined;
      throw new OAuthError(
        "temporarily_unavailable",
        "The server takes no more registrations now: try again later",
        503,
        retry !== undefined ? { "Retry-After": String(retry) } : {},
      );
    }
    return store();
  };
  const previous = registering.get(server) ?? Promise.resolve();
  const result = previous.then(run, run);
  registering.set(
    server,
    result.catch(() => undefined),
  );
  return result;
}

/**
 * `POST <path>/register`: registers the client a JSON body describes (RFC 7591 §3.1) and answers
 * its id, its secret when it has one, and its metadata as registered (§3.2.1: the scopes may be
 * fewer than asked).
 */
export async function register(server: ServerState, incoming: IncomingRequest): Promise<ResponseInternal> {
  const policy = server.registration;
  if (!policy) throw new OAuthError("invalid_request", "Dynamic client registration is off");
  checkInitialAccessToken(server, incoming);
  const metadata = await registrationOf(incoming);
  let described: ReturnType<typeof clientOfMetadata>;
  try {
    described = clientOfMetadata(metadata, policy, [
      "client_secret_basic",
      "none",
      "client_secret_post",
      "private_key_jwt",
    ]);
  } catch (e) {
    if (e instanceof MetadataProblem) throw new OAuthError(e.error, e.message);
    throw e;
  }
  await countRegistration(server, incoming);
  const { data, secret } = await withinCap(server, policy, () =>
    storeNewClient(server, described, "registration", Date.now() + policy.unusedSeconds * 1000),
  );
  return json(
    {
      client_id: data.clientId,
      client_id_issued_at: Math.floor(data.createdAt / 1000),
      ...(secret !== undefined && { client_secret: secret, client_secret_expires_at: 0 }),
      client_name: data.name,
      redirect_uris: data.redirectUris,
      token_endpoint_auth_method: data.tokenEndpointAuthMethod,
      grant_types: data.grantTypes,
      response_types: ["code"],
      scope: data.scopes.join(" "),
      ...(data.jwks && { jwks: data.jwks }),
    },
    201,
  );
}
