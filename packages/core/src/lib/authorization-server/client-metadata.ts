/**
 * Clients the server did not register beforehand: their metadata in RFC 7591's names, read by one
 * set of rules whether it came from a metadata document (OAuth Client ID Metadata Documents: the
 * `client_id` is the document's URL) or a dynamic registration (RFC 7591). What such a client
 * may ask for is the server's policy (`scopes`, `resources`), never its own word; it is always
 * asked about (no skipped consent), and never gets client credentials.
 *
 * A document is fetched through `#platform`'s `fetchDocument` (public addresses only, no
 * redirect, bounded in size and time), one fetch at a time per URL, and kept in memory: for its
 * `Cache-Control: max-age` or the configured time, within a minute and a day. A document that
 * could not be used is remembered as such for a minute, so a client id that fails cannot make the
 * server fetch on every request.
 */
import { fetchDocument, fromUtf8 } from "#platform";
import type { LoggerInstance } from "../../shapes/data.js";
import { InvalidConfiguration } from "../base/errors.js";
import { isPlainObject } from "../base/merge.js";
import type { ClientAuthMethod, ClientJwk, ClientMetadataDocumentOptions, GrantType } from "./options.js";
import { type ClientData, isStrings } from "./records.js";
import { redirectUriProblem, resourceProblem } from "./uris.js";

/** What may be given to clients that were not registered beforehand. */
export interface DynamicPolicy {
  scopes: readonly string[];
  resources: readonly string[];
}

/** Metadata documents, resolved: the policy, the limits and the cache. */
export interface ResolvedDocuments extends DynamicPolicy {
  cacheSeconds: number;
  maxBytes: number;
  timeoutMs: number;
  allowPrivateNetwork: boolean;
  ca: readonly string[];
  /** URL → the client (or why not) and until when (epoch ms); oldest first. */
  cache: Map<string, { client: ClientData | null; until: number }>;
  /** URL → the fetch under way. */
  pending: Map<string, Promise<ClientData | null>>;
}

/** A metadata problem, answered as RFC 7591 §3.2.2's error. */
export class MetadataProblem extends Error {
  constructor(
    readonly error: "invalid_client_metadata" | "invalid_redirect_uri",
    description: string,
  ) {
    super(description);
  }
}

const MIN_CACHE = 60;
const MAX_CACHE = 24 * 3600;
const FAILURE_CACHE = 60;
const MAX_CACHED = 1000;
/**
 * Characters that make a name shown on the consent page read as other text: control characters
 * (CR, LF, NUL), the bidirectional embeddings, overrides and isolates (U+202E turns the text after
 * it around: "Reports \u202Emoc.elpmaxe" reads "Reports example.com"), and the invisible marks.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const FORGING_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const DYNAMIC_GRANTS: readonly GrantType[] = ["authorization_code", "refresh_token"];

function positive(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max)
    throw new InvalidConfiguration(`\`${name}\` must be a whole number from 1 to ${max}; received ${String(value)}`);
  return value;
}

/** The `scopes` and `resources` of a dynamic-client option, checked against the server's scopes. */
export function resolvePolicy(
  option: { scopes?: unknown; resources?: unknown },
  name: string,
  serverScopes: ReadonlySet<string>,
): DynamicPolicy {
  const { scopes, resources = [] } = option;
  if (!isStrings(scopes) || scopes.length === 0)
    throw new InvalidConfiguration(`\`${name}.scopes\` must list the scopes such clients may ask for`);
  const unknown = scopes.filter((s) => !serverScopes.has(s));
  if (unknown.length)
    throw new InvalidConfiguration(
      `\`${name}.scopes\` names ${unknown.join(", ")}, which the server's \`scopes\` lack`,
    );
  if (!isStrings(resources)) throw new InvalidConfiguration(`\`${name}.resources\` must be a list of absolute URIs`);
  for (const resource of resources) {
    const problem = resourceProblem(resource);
    if (problem) throw new InvalidConfiguration(`\`${name}.resources\`: ${problem}`);
  }
  return { scopes: Object.freeze([...scopes]), resources: Object.freeze([...resources]) };
}

/** The `clientMetadataDocuments` option checked and resolved. */
export function resolveDocuments(
  option: ClientMetadataDocumentOptions,
  serverScopes: ReadonlySet<string>,
): ResolvedDocuments {
  if (!isPlainObject(option))
    throw new InvalidConfiguration("`clientMetadataDocuments` must be an object: `{ scopes, resources }`");
  const ca = option.ca ?? [];
  if (!isStrings(ca)) throw new InvalidConfiguration("`clientMetadataDocuments.ca` must be a list of PEM certificates");
  if (option.allowPrivateNetwork !== undefined && typeof option.allowPrivateNetwork !== "boolean")
    throw new InvalidConfiguration("`clientMetadataDocuments.allowPrivateNetwork` must be true or false");
  return {
    ...resolvePolicy(option, "clientMetadataDocuments", serverScopes),
    cacheSeconds: Math.max(
      MIN_CACHE,
      positive(option.cacheSeconds, "clientMetadataDocuments.cacheSeconds", 300, MAX_CACHE),
    ),
    maxBytes: positive(option.maxBytes, "clientMetadataDocuments.maxBytes", 5120, 1024 * 1024),
    timeoutMs: positive(option.timeoutMs, "clientMetadataDocuments.timeoutMs", 5000, 60_000),
    allowPrivateNetwork: option.allowPrivateNetwork === true,
    ca: Object.freeze([...ca]),
    cache: new Map(),
    pending: new Map(),
  };
}

/**
 * True for a client id that is a metadata document's URL: `https:`, with a path, no fragment, no
 * user info, no dot segments, and written exactly as the URL parser writes it (so one document
 * has one client id).
 */
export function isDocumentClientId(clientId: string): boolean {
  if (clientId.length > 2000 || !clientId.startsWith("https://")) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  return (
    url.href === clientId &&
    url.pathname !== "/" &&
    !url.hash &&
    !url.username &&
    !url.password &&
    !/\/\.\.?(\/|$)/.test(clientId.slice(url.origin.length))
  );
}

const optionalString = (value: unknown, name: string, max = 200): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length > max)
    throw new MetadataProblem("invalid_client_metadata", `${name} must be a string of at most ${max} characters`);
  return value;
};

/**
 * The client that `metadata` (RFC 7591 §2 names) describes, within `policy`: `redirect_uris`
 * (each by the registration rules), `token_endpoint_auth_method` among `methods`, `grant_types`
 * and `response_types` of the code flow, the policy's scopes (whatever `scope` asks), `client_name`, and
 * `jwks` for `private_key_jwt` (never `jwks_uri`: one fetch a client is enough). Throws a
 * {@link MetadataProblem} naming the field.
 */
export function clientOfMetadata(
  metadata: Record<string, unknown>,
  policy: DynamicPolicy,
  methods: readonly ClientAuthMethod[],
): Omit<ClientData, "clientId" | "secrets" | "createdAt" | "origin"> {
  const redirectUris = metadata.redirect_uris;
  if (!isStrings(redirectUris) || redirectUris.length === 0 || redirectUris.length > 20)
    throw new MetadataProblem("invalid_redirect_uri", "redirect_uris must list from 1 to 20 redirect URIs");
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri, "redirect_uris");
    if (problem) throw new MetadataProblem("invalid_redirect_uri", problem);
  }
  const method = metadata.token_endpoint_auth_method ?? methods[0];
  if (typeof method !== "string" || !methods.includes(method as ClientAuthMethod))
    throw new MetadataProblem(
      "invalid_client_metadata",
      `token_endpoint_auth_method must be one of ${methods.join(", ")}`,
    );
  const grantTypes = metadata.grant_types ?? ["authorization_code", "refresh_token"];
  if (!isStrings(grantTypes) || !grantTypes.includes("authorization_code"))
    throw new MetadataProblem("invalid_client_metadata", "grant_types must include authorization_code");
  const refused = grantTypes.filter((g) => !DYNAMIC_GRANTS.includes(g as GrantType));
  if (refused.length)
    throw new MetadataProblem(
      "invalid_client_metadata",
      `grant_types may list authorization_code and refresh_token only, not ${refused.join(", ")}`,
    );
  const responseTypes = metadata.response_types ?? ["code"];
  if (!isStrings(responseTypes) || responseTypes.some((t) => t !== "code"))
    throw new MetadataProblem("invalid_client_metadata", 'response_types may only be ["code"]');
  // `scope` is read (a malformed one is refused) but does not narrow the client: an MCP client
  // registers with the scope of its first request and steps up later (a 403's `scope`); what it
  // may ask for is the policy's, and what it gets is what the user consents to per request.
  optionalString(metadata.scope, "scope", 2000);
  const scopes = [...policy.scopes];
  let jwks: { keys: ClientJwk[] } | undefined;
  if (metadata.jwks_uri !== undefined)
    throw new MetadataProblem("invalid_client_metadata", "jwks_uri is not supported: give the keys in jwks");
  if (method === "private_key_jwt") {
    const keys = isPlainObject(metadata.jwks) ? metadata.jwks.keys : undefined;
    if (
      !Array.isArray(keys) ||
      keys.length === 0 ||
      keys.length > 10 ||
      keys.some((k) => !isPlainObject(k) || "d" in k)
    )
      throw new MetadataProblem(
        "invalid_client_metadata",
        "private_key_jwt needs jwks: { keys: [...] } with public keys only",
      );
    jwks = { keys: keys.map((k) => ({ ...(k as ClientJwk) })) };
  } else if (metadata.jwks !== undefined) {
    throw new MetadataProblem("invalid_client_metadata", "jwks is for private_key_jwt only");
  }
  const name = optionalString(metadata.client_name, "client_name")?.trim();
  if (name && FORGING_CHARACTERS.test(name))
    throw new MetadataProblem(
      "invalid_client_metadata",
      "client_name may hold no control characters, bidirectional controls or invisible marks",
    );
  return {
    name: name || new URL(redirectUris[0] ?? "").host || "An application",
    redirectUris: [...new Set(redirectUris)],
    postLogoutRedirectUris: [],
    tokenEndpointAuthMethod: method as ClientAuthMethod,
    ...(jwks && { jwks }),
    grantTypes: [...new Set(grantTypes)] as GrantType[],
    scopes: [...new Set(scopes)],
    resources: [...policy.resources],
    skipConsent: false,
  };
}

/** The seconds a document may be kept: its `max-age` (none for `no-store`/`no-cache`: the shortest), within bounds. */
function keepFor(documents: ResolvedDocuments, cacheControl: string | null): number {
  if (cacheControl && /(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return MIN_CACHE;
  const maxAge = cacheControl ? /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl)?.[1] : undefined;
  const seconds = maxAge === undefined ? documents.cacheSeconds : Number(maxAge);
  return Math.min(MAX_CACHE, Math.max(MIN_CACHE, seconds));
}

/** Fetches and checks the document of `clientId`; answers the client and how long to keep it. */
async function fetchClient(
  documents: ResolvedDocuments,
  clientId: string,
): Promise<{ client: ClientData; keep: number }> {
  const response = await fetchDocument({
    url: clientId,
    accept: "application/json",
    maxBytes: documents.maxBytes,
    timeoutMs: documents.timeoutMs,
    allowPrivateNetwork: documents.allowPrivateNetwork,
    ca: documents.ca,
  });
  if (response.status >= 300 && response.status < 400)
    throw new Error(`it redirects (${response.status}), which is not followed`);
  if (response.status !== 200) throw new Error(`it answered ${response.status}`);
  const type = response.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json" && !type?.endsWith("+json")) throw new Error(`it is ${type ?? "untyped"}, not JSON`);
  let metadata: unknown;
  try {
    metadata = JSON.parse(fromUtf8(response.body));
  } catch {
    throw new Error("it is not valid JSON");
  }
  if (!isPlainObject(metadata)) throw new Error("it is not a JSON object");
  if (metadata.client_id !== clientId)
    throw new Error(`its client_id ${JSON.stringify(metadata.client_id)} is not the URL it was fetched from`);
  if (metadata.client_secret !== undefined || metadata.client_secret_expires_at !== undefined)
    throw new Error("it carries a client secret, which a public document may not");
  const described = clientOfMetadata(metadata, documents, ["none", "private_key_jwt"]);
  return {
    client: { ...described, clientId, secrets: [], createdAt: Date.now(), origin: "document" },
    keep: keepFor(documents, response.header("cache-control")),
  };
}

/**
 * The client whose id is the URL of its metadata document: from the cache, else fetched (one
 * fetch at a time per URL). Null when its document cannot be had or is not acceptable (the
 * reason logged as a warning).
 */
export function documentClient(
  documents: ResolvedDocuments,
  clientId: string,
  logger: Pick<LoggerInstance, "warn">,
): Promise<ClientData | null> {
  const now = Date.now();
  const cached = documents.cache.get(clientId);
  if (cached && cached.until > now) return Promise.resolve(cached.client && { ...cached.client });
  const pending = documents.pending.get(clientId);
  if (pending) return pending;
  const remember = (client: ClientData | null, seconds: number) => {
    documents.cache.delete(clientId);
    documents.cache.set(clientId, { client, until: Date.now() + seconds * 1000 });
    while (documents.cache.size > MAX_CACHED) {
      const oldest = documents.cache.keys().next().value;
      if (oldest === undefined) break;
      documents.cache.delete(oldest);
    }
  };
  const fetching = fetchClient(documents, clientId)
    .then(({ client, keep }) => {
      remember(client, keep);
      return { ...client };
    })
    .catch((e: unknown) => {
      const reason = e instanceof Error ? e.message : String(e);
      logger.warn(
        "client-metadata-document-refused",
        `The metadata document of client ${clientId} cannot be used (${reason}): the client is refused`,
      );
      remember(null, FAILURE_CACHE);
      return null;
    })
    .finally(() => documents.pending.delete(clientId));
  documents.pending.set(clientId, fetching);
  return fetching;
}

/**
 * The host a consent page shows beside the name of a client that was not registered beforehand
 * (whose name is its own claim): its document's host, or for a registered one its redirect URI's.
 * Undefined for a client the application registered.
 */
export function vouchingHost(client: Pick<ClientData, "origin" | "clientId">, redirectUri: string): string | undefined {
  if (client.origin === "document") return new URL(client.clientId).host;
  if (client.origin === "registration") return new URL(redirectUri).host || redirectUri;
  return undefined;
}
